"""Which sandbox works on this machine: bubblewrap on Linux, sandbox-exec on macOS.

A backend counts only once it has run something: ``bwrap`` may be installed where the kernel or a
container refuses it the namespaces it needs. The probe runs once per process (the daemon keeps
it), and again when the program file changes. ``POLICY_ENGINE_SANDBOX=0`` turns every sandbox off:
rules that allow a command only confined then ask.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from ..record import Record
from . import bwrap, seatbelt

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping

PROBE_SECONDS = 10


class Backend(Record):
    """A sandbox that works here: its ``name`` (bwrap, sandbox-exec) and ``program`` (absolute)."""

    name: str
    program: str


_probed: dict[tuple[str, float], str | None] = {}


def find(env: Mapping[str, str], platform: str = sys.platform) -> Backend | str:
    """The working backend, or why there is none (for reasons and ``policy doctor``)."""
    if env.get("POLICY_ENGINE_SANDBOX", "1").strip().lower() in ("0", "off", "false", "no"):
        return "sandboxes are turned off (POLICY_ENGINE_SANDBOX=0)"
    if platform.startswith("linux"):
        program = shutil.which(bwrap.NAME, path=env.get("PATH")) or _standard(f"/usr/bin/{bwrap.NAME}")
        if program is None:
            return "bubblewrap (bwrap) is not installed (Debian and Ubuntu: apt install bubblewrap)"
        probe = [program, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
        probe += ["--dev", "/dev", "--proc", "/proc", "--", "/bin/true"]
        failure = _probe(program, probe)
        return Backend(bwrap.NAME, program) if failure is None else f"{program} does not run here: {failure}"
    if platform == "darwin":
        program = _standard(seatbelt.PROGRAM)
        if program is None:
            return f"{seatbelt.PROGRAM} is missing"
        failure = _probe(program, [program, "-p", "(version 1)(allow default)", "/usr/bin/true"])
        return (
            Backend(seatbelt.NAME, program) if failure is None else f"{program} does not run here: {failure}"
        )
    return f"no sandbox backend for {platform} (bubblewrap on Linux, sandbox-exec on macOS)"


def _standard(path: str) -> str | None:
    return path if os.access(path, os.X_OK) else None


def _probe(program: str, command: list[str]) -> str | None:
    """None when ``command`` runs and exits 0; else what went wrong (remembered per program file)."""
    try:
        key = (program, os.stat(program).st_mtime)
    except OSError as error:
        return str(error)
    if key not in _probed:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_SECONDS, check=False)
            lines = (done.stderr or done.stdout).strip().splitlines()
            _probed[key] = (
                None if done.returncode == 0 else (lines[-1] if lines else f"exit {done.returncode}")
            )
        except (OSError, subprocess.SubprocessError) as error:
            _probed[key] = str(error)
    return _probed[key]
