"""Writing files so that a concurrent reader never sees half of one: write aside, then rename."""

from __future__ import annotations

import contextlib
import os


def atomic_write(path: str, text: str | bytes, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` in one step, creating its directory if needed; the new file
    has ``mode`` (less the umask) from its first byte."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
