"""The package's version, in one place (``lagent_like.__version__`` re-exports it)."""

__version__ = "0.1.0"
