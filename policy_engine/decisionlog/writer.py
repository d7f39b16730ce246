"""The decision log: one JSON object per line, appended by many short-lived processes at once.

Every hook call is a new process and several run at the same time, so there is no writer to hold
the file open and no in-process lock to share. Each record therefore goes out in one ``write`` on a
descriptor opened with ``O_APPEND``: the kernel places every such write at the end of the file as a
unit, so lines from concurrent processes never interleave. Rotation renames files under an
``flock`` on a sibling lock file; a process that opened the file before a rotation writes into the
renamed file, so nothing is lost.

Logging must never block a decision: ``append`` reports problems as a phrase instead of raising.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_KEEP = 5

_FILE_MODE = 0o600  # decisions show commands and paths: for the user's eyes only
_DIRECTORY_MODE = 0o700


def append(
    path: str, record: Mapping[str, Any], *, max_bytes: int = DEFAULT_MAX_BYTES, keep: int = DEFAULT_KEEP
) -> str | None:
    """Append one record as one JSON line; return None, or a short phrase saying why it could not be
    written (never raise: logging must never block a decision).

    When the file holds at least ``max_bytes`` (0 or less: no limit) it is first rotated to
    ``path.1``, keeping ``keep`` rotated files. If only the rotation fails, the record is still
    written and the phrase says the log could not be rotated.
    """
    try:
        line = encode(record)
    except (TypeError, ValueError, RecursionError) as error:
        return f"a record for the decision log {path} cannot be encoded as JSON: {error}"
    try:
        _make_directory(path)
    except OSError as error:
        return _cannot_write(path, error)
    rotation_problem = _rotate_if_full(path, max_bytes, keep)
    try:
        written = _write_line(path, line)
    except OSError as error:
        return _cannot_write(path, error)
    if written < len(line):
        return f"the decision log {path} was written only in part ({written} of {len(line)} bytes)"
    return rotation_problem


def encode(record: Mapping[str, Any]) -> bytes:
    """The record as one line of UTF-8 JSON, newline included."""
    # dict(): json only serializes real dicts, and a caller may pass any mapping.
    text = json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (an undecodable byte of a file name) cannot be UTF-8; it only ever occurs
    # inside a JSON string, where the backslash form is its valid JSON escape, so it round-trips.
    return (text + "\n").encode("utf-8", "backslashreplace")


def read(
    path: str, *, rotated: bool = True, advance: Callable[[int], None] | None = None
) -> Iterator[dict[str, Any]]:
    """Records oldest first: the rotated files (path.N ... path.1) then path; lines that are not a
    JSON object (torn, truncated, garbage) are skipped. ``advance`` is told the bytes of each line
    read (a view over a large log shows its progress with it; ``size`` is the total).

    Missing files are no error. The files are all opened before the first record is read, so a
    rotation by a concurrent writer while the records are read neither skips nor repeats a file.
    """
    names = [*(_rotated_files(path) if rotated else []), path]
    handles: list[IO[bytes]] = []
    try:
        for name in names:
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                handles.append(open(name, "rb"))  # noqa: SIM115 (closed below, after reading)
        for handle in handles:
            yield from _records(handle, advance)
    finally:
        for handle in handles:
            handle.close()


def size(path: str, *, rotated: bool = True) -> int:
    """The bytes ``read`` would read now: path and, with ``rotated``, its rotated files."""
    total = 0
    for name in [*(_rotated_files(path) if rotated else []), path]:
        with contextlib.suppress(OSError):  # missing, or not a file: read finds nothing there either
            total += os.stat(name).st_size
    return total


def _records(handle: IO[bytes], advance: Callable[[int], None] | None = None) -> Iterator[dict[str, Any]]:
    for line in handle:
        if advance is not None:
            advance(len(line))
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):  # a damaged line: not JSON, not UTF-8, nested too deep
            continue
        if isinstance(value, dict):
            yield value


def _cannot_write(path: str, error: OSError) -> str:
    return f"the decision log {path} cannot be written: {error.strerror or error}"


def _make_directory(path: str) -> None:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, mode=_DIRECTORY_MODE, exist_ok=True)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def _write_line(path: str, line: bytes) -> int:
    """Write ``line`` in one system call; the number of bytes written."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _FILE_MODE)
    try:
        written = os.write(fd, line)
        if written < len(line):
            # End the torn line, so that it does not swallow the record appended after it.
            with contextlib.suppress(OSError):
                os.write(fd, b"\n")
        return written
    finally:
        os.close(fd)


def _rotate_if_full(path: str, max_bytes: int, keep: int) -> str | None:
    """Rotate when the file is full; a phrase if that failed (the record is written all the same)."""
    if max_bytes <= 0 or _size(path) < max_bytes:
        return None
    try:
        _rotate(path, max_bytes, keep)
    except OSError as error:
        return f"the decision log {path} cannot be rotated: {error.strerror or error}"
    return None


def _rotate(path: str, max_bytes: int, keep: int) -> None:
    import fcntl  # only to rotate: not on every hook call's way

    fd = os.open(path + ".lock", os.O_WRONLY | os.O_CREAT, _FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        # Processes that found the file full queue here; the first one rotates, the others find
        # the new file small and leave it alone.
        if _size(path) >= max_bytes:
            _shift(path, keep)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _shift(path: str, keep: int) -> None:
    """path.(keep-1) -> path.keep ... path -> path.1; files beyond ``keep`` go."""
    for number in range(keep - 1, 0, -1):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}.{number}", f"{path}.{number + 1}")
    if keep > 0:
        os.replace(path, f"{path}.1")
    else:
        os.unlink(path)
    # Left over from a larger ``keep`` (or a crash between renames): nothing would ever remove them.
    for number, name in _numbered(path):
        if number > keep:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


def _rotated_files(path: str) -> list[str]:
    """The existing ``path.N`` files, highest N (oldest) first."""
    return [name for _, name in _numbered(path)]


def _numbered(path: str) -> list[tuple[int, str]]:
    """(N, name) of the existing ``path.N`` files (N >= 1), highest N first."""
    directory, base = os.path.split(path)
    try:
        names = os.listdir(directory or ".")
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [(_number(base, name), os.path.join(directory, name)) for name in names]
    return sorted(((n, name) for n, name in found if n > 0), reverse=True)


def _number(base: str, name: str) -> int:
    """N for ``base.N`` (N >= 1, no leading zero), else 0."""
    suffix = name[len(base) + 1 :] if name.startswith(base + ".") else ""
    return int(suffix) if suffix.isascii() and suffix.isdigit() and suffix[0] != "0" else 0
