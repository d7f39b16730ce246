"""The apply_patch format (Codex's file-editing tool): which files a patch adds, updates, deletes
or moves.

::

    *** Begin Patch
    *** Add File: PATH          then lines "+text"
    *** Delete File: PATH
    *** Update File: PATH       optionally "*** Move to: PATH", then hunks: "@@ ..." and lines
                                " text", "-text", "+text", and "*** End of File"
    *** End Patch

Paths are relative to the call's working directory, or absolute. Codex also takes the patch
wrapped in a here-document (``<<'EOF'`` ... ``EOF``). Anything else is a PatchError, so a patch
this reader cannot follow is a doubt, never a set of files it guessed: a line it does not know
may be one Codex reads as another file's header.
"""

from __future__ import annotations

from ..record import Record

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
_HEREDOC_OPENINGS = ("<<EOF", "<<'EOF'", '<<"EOF"')
_HUNK_LINE_STARTS = (" ", "+", "-")


class PatchError(ValueError):
    """A patch that is not in the format above (the message says where)."""


class FileChange(Record):
    """One file a patch touches: ``kind`` is ``add``, ``update`` or ``delete``; an update may move
    the file to ``move_to``."""

    kind: str
    path: str
    move_to: str | None = None


def read_patch(text: str) -> tuple[FileChange, ...]:
    """The files ``text`` changes, in order; PatchError when it is not a patch this reader knows."""
    lines = text.strip().splitlines()
    if len(lines) >= 2 and lines[0].strip() in _HEREDOC_OPENINGS and lines[-1].strip() == "EOF":
        lines = lines[1:-1]
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError(f'it does not start with "{BEGIN}"')
    if lines[-1].strip() != END:
        raise PatchError(f'it does not end with "{END}"')
    changes: list[FileChange] = []
    body = lines[1:-1]
    index = 0
    while index < len(body):
        header = body[index].strip()
        number = index + 2  # the line's number in the patch, for the message
        index += 1
        if header.startswith(ADD):
            changes.append(FileChange("add", _path(header, ADD, number)))
            while index < len(body) and body[index].startswith("+"):
                index += 1
        elif header.startswith(DELETE):
            changes.append(FileChange("delete", _path(header, DELETE, number)))
        elif header.startswith(UPDATE):
            path = _path(header, UPDATE, number)
            move_to = None
            if index < len(body) and body[index].strip().startswith(MOVE):
                move_to = _path(body[index].strip(), MOVE, index + 2)
                index += 1
            start = index
            while index < len(body) and _in_hunk(body[index]):
                index += 1
            if index == start and move_to is None:
                raise PatchError(f"line {number}: the update of {path} has no hunk")
            changes.append(FileChange("update", path, move_to))
        else:
            raise PatchError(f"line {number} is not a file's header: {header[:80]!r}")
    if not changes:
        raise PatchError("it changes no file")
    return tuple(changes)


def _path(line: str, marker: str, number: int) -> str:
    path = line[len(marker) :]
    if not path or path != path.strip():
        # Codex and this reader might trim it differently: the file is not certain
        raise PatchError(f"line {number}: the path {path!r} is empty or has spaces around it")
    return path


def _in_hunk(line: str) -> bool:
    """Whether ``line`` belongs to an update's hunks (a blank line is a context line)."""
    stripped = line.strip()
    if stripped == END_OF_FILE or line.startswith("@@") or not stripped:
        return True
    if stripped.startswith("*** "):  # indented or not, a header may be read as one: judge it so
        return False
    return line.startswith(_HUNK_LINE_STARTS)
