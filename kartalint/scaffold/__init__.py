"""Stage: scaffold. What ``kartalint new`` and ``kartalint init`` write: fixtures from objects, definitions drafted
from a CRD alone or from real objects and their pods (``new --crd --from``), a repository's set-up, and the
version of this build (``release``; docs/architecture.md)."""
