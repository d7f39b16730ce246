"""The command that runs a call confined, and the recognition of that command when it comes back.

The rewritten command is the backend's command line with the call's command as its shell script,
quoted once. Where bubblewrap had to create mount points on the host (plan.created), the empty
directories are removed after the run and the command's exit status is kept. The engine recognises
its own wrapper by building it again: a command is ours when it is exactly what wrapping its
script would make now (engine.py), never by its look alone.
"""

from __future__ import annotations

import os
import re

from ..record import Record
from . import bwrap, seatbelt

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .backend import Backend
    from .plan import Plan

PROGRAMS = (bwrap.NAME, seatbelt.NAME)
# The shell variable that carries the command's exit status past the removal of mount points.
STATUS = "policy_engine_status"


class Confinement(Record):
    """How an allowed call runs: the ``backend`` (bwrap, sandbox-exec), the ``command`` that runs it
    confined, and the ``plan`` it carries out. ``applied``: the call's command is that wrapper
    already (it came back from an agent), so nothing is to change."""

    backend: str
    command: str
    plan: Plan
    applied: bool = False


def wrapped(backend: Backend, plan: Plan, script: str) -> str:
    """``script`` run by ``backend`` as ``plan`` says, as one bash command line."""
    import shlex  # only for a call that runs confined: every bash call reads script_in

    module = bwrap if backend.name == bwrap.NAME else seatbelt
    text = f"{shlex.join(module.arguments(plan, backend.program))} {shlex.quote(script)}"
    if plan.created and module is bwrap:  # Seatbelt denies a path without a mount point for it
        made = " ".join(shlex.quote(path) for path in plan.created)
        text += f"; {STATUS}=$?; rmdir -- {made} 2>/dev/null; (exit ${STATUS})"
    return text


def candidate(command: str) -> bool:
    """Whether ``command`` may be one of our wrappers (cheap: its first word names a backend)."""
    first = command.lstrip().split(" ", 1)[0]
    return os.path.basename(first) in PROGRAMS


def script_in(command: str) -> str | None:
    """The script ``command`` would run if it were one of our wrappers (a :func:`candidate`): the
    word after `` -c `` that ends the command (or comes before our status suffix), unquoted as
    :func:`shlex.quote` quotes (cheap: no parse, no analysis); None for any other command. Only a
    candidate: the command is ours when wrapping this script makes exactly it again (engine.py); a
    wrong reading here can only fail that comparison."""
    if not candidate(command):
        return None
    quoted_word = re.compile(_QUOTED, re.ASCII)  # compiled on first use (re keeps it): off the hook's import
    start = command.find(" -c ")
    while start >= 0:
        found = quoted_word.match(command, start + 4)
        if found is not None:
            rest = command[found.end() :]
            if not rest or rest.startswith(f"; {STATUS}=$?; "):
                quoted, bare = found.groups()
                return bare if bare is not None else quoted.replace("'\"'\"'", "'")
        start = command.find(" -c ", start + 1)
    return None


# A word as shlex.quote writes it: plain, or in single quotes with each ' spelled '"'"'.
_QUOTED = r"""'((?:[^']|'"'"')*)'|([\w@%+=:,./-]+)"""
