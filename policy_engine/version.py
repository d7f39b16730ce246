"""The engine's version; it is part of every compiled-policy cache key."""

__version__ = "0.1.0"
