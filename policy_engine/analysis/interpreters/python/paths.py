"""Paths as the program spells them: joined, made pure, absolute, located.

Paths inside the system's temporary directory are spelt with the ``TEMP`` prefix (a NUL, which no
real path can contain) so that they flow through joins and f-strings and are then left unreported.
"""

from __future__ import annotations

from ....paths import collapse, expand_home, pseudo_file

TEMP = "\x00tmp"  # the system's temporary directory (or a directory made in it)
CWD = "."  # an argument left out that means the working directory


def is_absolute(text: str) -> bool:
    return text.startswith(("/", TEMP))


def join(base: str, part: str) -> str:
    """``os.path.join`` of two parts, knowing that a temporary directory is absolute."""
    if is_absolute(part) or base in ("", "."):
        return part
    return base + part if base.endswith("/") else base + "/" + part


def pure(text: str) -> str:
    """A path spelt as pathlib spells it: no empty or ``.`` components."""
    parts = [p for p in text.split("/") if p not in ("", ".")]
    joined = "/".join(parts)
    return "/" + joined if text.startswith("/") else joined or "."


def parent_of(text: str | None) -> str | None:
    if text is None or text == TEMP:
        return None
    parts = text.split("/")
    if len(parts) == 1:
        return "."
    return "/".join(parts[:-1]) or "/"


def expand_user(text: str, home: str) -> str | None:
    """``expanduser``: ``~`` and ``~/x`` under ``home``; another user's ``~bob`` is unknown."""
    expanded = expand_home(text, home)
    return None if expanded.startswith("~") else expanded


def absolute(text: str | None, cwd: str | None) -> str | None:
    """``text`` made absolute against the working directory, collapsed; None when it cannot be."""
    if text is None or (TEMP in text[1:]):
        return None
    if text.startswith(TEMP):
        return text
    if not text.startswith("/"):
        if cwd is None:
            return None
        if cwd.startswith(TEMP):
            return cwd + "/" + text
        text = cwd + "/" + text
    return collapse(text)


def climbs_out(text: str) -> bool:
    """Whether a path inside the temporary directory goes above it with ``..``."""
    depth = 0
    for part in text[len(TEMP) :].split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def locate(text: str, cwd: str | None) -> tuple[str | None, str | None]:
    """The absolute path ``text`` names, or why it cannot be told (both None: nothing to report)."""
    if text.startswith(TEMP):
        return None, ("a path climbs out of the temporary directory" if climbs_out(text) else None)
    if TEMP in text:
        return None, "cannot tell which file a path built around a temporary directory names"
    if not text or "\x00" in text:
        return None, None  # Python refuses such a path
    if not text.startswith("/"):
        if cwd is None:
            return None, f"cannot tell where {text!r} is: the working directory is unknown"
        if cwd.startswith(TEMP):
            return locate(cwd + "/" + text, cwd)
        text = cwd + "/" + text
    path = collapse(text)
    if pseudo_file(path):
        return None, None
    return path, None


def static_part(pattern: str) -> str:
    """The directory a glob pattern reads: its components before the first wildcard."""
    static: list[str] = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?["):
            break
        static.append(part)
    else:
        return pattern
    return "/".join(static) or ("/" if pattern.startswith("/") else ".")


def renamed(text: str, how: str, part: str) -> str | None:
    parent, _, base = text.rpartition("/")
    if not base or base in (".", ".."):
        return None
    stem, dot, suffix = base.rpartition(".")
    if not stem:
        stem, suffix = base, ""
    else:
        suffix = dot + suffix
    new = {"with_name": part, "with_suffix": stem + part, "with_stem": part + suffix}[how]
    return f"{parent}/{new}" if parent or text.startswith("/") else new
