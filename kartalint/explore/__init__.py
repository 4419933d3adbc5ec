"""`kartalint explore`: generate objects valid for a CRD and find those a definition gets wrong
(docs/explore.md)."""
