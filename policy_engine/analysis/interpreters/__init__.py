"""Inline code given to interpreters (``python3 -c``, ``node -e``, heredocs): what it touches and runs."""
