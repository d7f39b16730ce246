"""The macOS backend: a ``sandbox-exec`` profile (Apple's Seatbelt, SBPL) that carries out a plan.

Seatbelt judges each access against the profile's rules, the last matching rule winning, so the
profile allows by default, then denies what the plan keeps out in order of precedence: the network,
every write, then allows the writable and temporary directories, then denies again the protected
places inside them, and last every read of a hidden place. Unlike bubblewrap it needs no mount
point for a place that does not exist, and a floating pattern (``.env*``) is a regex over every
path, not only those a walk found. As on Linux, confined code shares /tmp and $TMPDIR with the user
(its sockets are not hidden there). Not run by the test suite (it needs macOS): its
profile is checked as text.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .plan import Plan

NAME = "sandbox-exec"
PROGRAM = "/usr/bin/sandbox-exec"
# Where macOS keeps temporary files: /tmp is a link to /private/tmp, $TMPDIR lies in /var/folders.
TEMPORARY = ("/private/tmp", "/private/var/tmp", "/private/var/folders")
# Devices every shell writes to.
DEVICES = '(literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/")'


def profile(plan: Plan) -> str:
    """The SBPL profile of ``plan``."""
    lines = ["(version 1)", "(allow default)"]
    if not plan.network:
        lines.append("(deny network*)")
    # Launch Services starts applications outside the sandbox (`open -a Terminal`).
    lines.append('(deny mach-lookup (global-name "com.apple.coreservices.launchservicesd"))')
    lines.append("(deny file-write*)")
    writable = " ".join(f"(subpath {_string(_real(d))})" for d in (*plan.writable, *plan.cache))
    temporary = " ".join(f"(subpath {_string(d)})" for d in TEMPORARY)
    lines.append(f"(allow file-write* {writable} {temporary} {DEVICES})")
    kept = [*plan.read_only, *plan.blocked]
    if kept:
        lines.append("(deny file-write* " + " ".join(f"(subpath {_string(_real(p))})" for p in kept) + ")")
    hidden = [f"(literal {_string(_real(p))})" for p in plan.hidden_files]
    hidden += [f"(subpath {_string(_real(p))})" for p in plan.hidden_directories]
    hidden += [f"(regex {_regex(name)})" for name in plan.floating if _regex(name)]
    if hidden:
        lines.append("(deny file-read* " + " ".join(hidden) + ")")
    return "\n".join(lines) + "\n"


def arguments(plan: Plan, program: str = PROGRAM) -> list[str]:
    """The command line up to the shell's script: sandbox-exec with the profile, then env (which
    removes and sets the plan's variables, as sandbox-exec cannot), then ``bash -c``."""
    env = ["/usr/bin/env", *(f"-u{name}" for name in plan.unset)]
    env += [f"{name}={value}" for name, value in plan.environment]
    return [program, "-p", profile(plan), *env, plan.shell, "-c"]


def _real(path: str) -> str:
    """Seatbelt sees resolved paths (/private/tmp for /tmp)."""
    return os.path.realpath(path)


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _regex(pattern: str) -> str:
    """A pathProtection pattern that floats (a name glob, ``.env*``) as a Seatbelt regex over whole
    paths; "" for a pattern that is not a plain name glob."""
    name = pattern.rstrip("/")
    if "/" in name or not name or "[" in name:
        return ""
    body = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in name)
    return '#"(^|/)' + body.replace('"', '\\"') + '(/|$)"'
