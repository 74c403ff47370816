"""The version of nbayes (one place: the package, the CLI and reports read it)."""

__version__ = "0.1.0"
