"""Shipped data: the embedded default policy and the ``$name`` pattern presets."""
