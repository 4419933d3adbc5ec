"""Stage 2, check: the rules, their registry, and the lint pipeline (docs/architecture.md)."""
