"""Configuration: discovery, trust, parsing, validation, compilation and the compiled-policy cache."""
