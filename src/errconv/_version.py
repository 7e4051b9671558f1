"""The version of errconv: written here only (pyproject.toml reads it from this file)."""

__version__ = "0.3.0"
