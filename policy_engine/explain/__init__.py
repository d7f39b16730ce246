"""Explaining a decision: the reason the model reads, the report people read, secrets masked."""
