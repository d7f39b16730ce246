"""Working on policy files: their in-file tests, lint, diff, and approvals written into them."""
