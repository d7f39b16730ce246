"""Session allows: "allow for this session" answers, kept per agent session and exact atom.

An answer covers exactly the atom the person saw asked about (the tool, the normalized command,
the paths it touches and how, or the working directory when it touches none), in that session,
until it expires; never a pattern, so a later ``git status; rm -rf *`` is not covered by an answer
for ``git status``. It turns that atom's asks into allows and nothing else: a deny, a protected
path or another atom of the same line still decides.

A hook is a new process per tool call, so the answers live in the state store (``state.py``), which
implements :class:`SessionStore`.
"""

from __future__ import annotations

import json
import time

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Protocol

    from ..model import Atom

DEFAULT_TTL = 12 * 3600.0  # a working day: an answer should not outlive the task it was given for


if TYPE_CHECKING:  # an interface for type checkers (Protocol would import typing)

    class SessionStore(Protocol):
        """Where session allows are kept."""

        def allowed(self, session_id: str, key: str, now: float) -> bool:
            """Whether ``key`` is allowed in ``session_id`` at time ``now``."""
            ...

        def allow(self, session_id: str, key: str, expires: float) -> None:
            """Allow ``key`` in ``session_id`` until ``expires`` (seconds since the epoch)."""
            ...


def atom_key(atom: Atom, cwd: str) -> str:
    """The exact identity of an atom: tool, command text, every (path, sense) it touches, or the
    working directory when it touches none (``npm publish`` here is not ``npm publish`` there), and
    what the analysis doubted (``NODE_OPTIONS=--require=x npm test`` is not ``npm test``: the
    command text leaves the assignment out, its doubt does not)."""
    touched = sorted({(access.path, access.sense.value, str(access.tree or "")) for access in atom.accesses})
    where: object = touched if touched else cwd
    key = [atom.tool, atom.command, where, sorted(atom.doubts)]
    return json.dumps(key, ensure_ascii=False, separators=(",", ":"))


def now() -> float:
    return time.time()
