"""Stage 1: load. Files read into documents that know their places (``documents``, ``loader``), the rules of
reading them, which files to read (``discovery``, ``patterns``), definitions and CRDs by group/version/kind,
configuration files, objects of a workload and of a cluster, files at a git revision (docs/architecture.md)."""
