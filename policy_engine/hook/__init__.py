"""The agents' side: one hook call, the daemon that answers them, installing the hook."""
