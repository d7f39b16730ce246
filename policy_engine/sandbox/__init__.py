"""The OS sandbox a rule's ``"sandbox"`` runs its command in: what it confines (``plan``), how each
platform does it (``bwrap`` on Linux, ``seatbelt`` on macOS), which of them works on this machine
(``backend``), and the rewritten command with the recognition of our own wrapper (``wrap``).

The engine decides; this package only turns an allowed call into the command that runs it confined.
"""
