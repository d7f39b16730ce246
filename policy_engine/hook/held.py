"""Nudges held for the agent's post-tool event: where an agent shows a pre-tool note to the person
only (Gemini CLI's BeforeTool ``systemMessage``), the model reads it with the tool's result, which
the post-tool answer extends (AfterTool ``additionalContext``).

The two events are separate processes, and Gemini's payload carries no call id: a held nudge is a
file in the state directory named by a digest of the session, the tool, its input and where it
runs, taken (read and removed) by the post-tool event of the same call. One not taken within an
hour (the call never ran) is dropped the next time one is held.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..model import ToolCall

DIRECTORY = "held-nudges"
STALE = 3600.0  # seconds


class HeldNudges:
    """The held nudges under one state directory."""

    def __init__(self, state_directory: str) -> None:
        self.directory = os.path.join(state_directory, DIRECTORY)

    def put(self, call: ToolCall, message: str) -> None:
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        self._prune()
        path = self._path(call)
        temporary = f"{path}.{os.getpid()}"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(message)
        os.replace(temporary, path)

    def take(self, call: ToolCall) -> str | None:
        """The nudge held for ``call``, removed; None when there is none."""
        try:
            if not os.listdir(self.directory):  # the common case, without hashing the call
                return None
        except OSError:
            return None
        path = self._path(call)
        try:
            with open(path, encoding="utf-8") as handle:
                message = handle.read()
            os.unlink(path)
        except OSError:
            return None
        return message

    def _path(self, call: ToolCall) -> str:
        import hashlib

        identity = [call.session_id, call.tool, call.input, call.cwd, call.workdir]
        digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
        return os.path.join(self.directory, digest[:32])

    def _prune(self) -> None:
        cutoff = time.time() - STALE
        with contextlib.suppress(OSError), os.scandir(self.directory) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat().st_mtime < cutoff:
                        os.unlink(entry.path)
