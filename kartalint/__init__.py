"""kartalint: lint, evaluate and test Karta (NVIDIA Workload-Map) definitions."""

__version__ = "0.1.0"

__all__ = ["__version__"]
