"""Stage 2, check: the rules (one module per family), their registry, what a check sees
(``context``) and the checks of one document (``document``); the lint pipeline is the next stage,
``kartalint.lint`` (docs/architecture.md)."""
