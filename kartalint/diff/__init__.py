"""Stage 4: diff. What a definition change does (``kartalint diff``: every case, base against head), a workload
reduced to what a reviewer compares, and a fleet summary against the user's own figures (docs/architecture.md)."""
