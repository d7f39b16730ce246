"""The decision log: writing it, and its views (tail, stats, suggest, the HTML report)."""
