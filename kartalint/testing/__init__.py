"""Stage 4: testing. Definitions against their fixtures, recordings and predictions (``kartalint test``): cases
found, run and compared, coverage, ``--update``, what operators write, and the catalog's rows
(docs/architecture.md)."""
