"""Coursedex engine: headless indexing and search over course material."""

__version__ = "0.1.0"
