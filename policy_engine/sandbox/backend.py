"""Which sandbox works on this machine: bubblewrap on Linux, sandbox-exec on macOS.

A backend counts only once it has run something: ``bwrap`` may be installed where the kernel or a
container refuses it the namespaces it needs. The probe's outcome is remembered (in the process,
and for a day in the state directory) until the program file or the kernel changes.
``POLICY_ENGINE_SANDBOX=0`` turns every sandbox off: rules that allow a command only confined then
ask.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time

from ..fileio import atomic_write
from ..record import Record
from ..session.statedir import state_directory
from . import bwrap, seatbelt

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping

PROBE_SECONDS = 10
PROBE_FILE = "sandbox-probe.json"
PROBE_MEMORY_SECONDS = 86400

# What identifies a probe: the program, its mtime and size, and the kernel release.
Key = tuple[str, float, int, str]


class Backend(Record):
    """A sandbox that works here: its ``name`` (bwrap, sandbox-exec) and ``program`` (absolute)."""

    name: str
    program: str


_probed: dict[Key, str | None] = {}


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
        failure = _probe(program, probe, env)
        return Backend(bwrap.NAME, program) if failure is None else f"{program} does not run here: {failure}"
    if platform == "darwin":
        program = _standard(seatbelt.PROGRAM)
        if program is None:
            return f"{seatbelt.PROGRAM} is missing"
        failure = _probe(program, [program, "-p", "(version 1)(allow default)", "/usr/bin/true"], env)
        if failure is not None:
            return f"{program} does not run here: {failure}"
        return Backend(seatbelt.NAME, program)
    return f"no sandbox backend for {platform} (bubblewrap on Linux, sandbox-exec on macOS)"


def _standard(path: str) -> str | None:
    return path if os.access(path, os.X_OK) else None


def _probe(program: str, command: list[str], env: Mapping[str, str]) -> str | None:
    """None when ``command`` runs and exits 0; else what went wrong. Remembered in the process, and
    in the state directory (self-protected: an agent's command cannot write it), so that a hook
    process does not start one more program per call."""
    try:
        info = os.stat(program)
    except OSError as error:
        return str(error)
    key: Key = (program, info.st_mtime, info.st_size, os.uname().release)
    if key in _probed:
        return _probed[key]
    path = os.path.join(state_directory(env), PROBE_FILE)
    stored = _remembered(path, key)
    if stored is not None:
        _probed[key] = stored[0]
        return stored[0]
    import subprocess  # only when the probe runs: importing it costs a hook process about 9 ms

    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_SECONDS, check=False)
        lines = (done.stderr or done.stdout).strip().splitlines()
        failure = None if done.returncode == 0 else (lines[-1] if lines else f"exit {done.returncode}")
    except (OSError, subprocess.SubprocessError) as error:
        failure = str(error)
    _probed[key] = failure
    _remember(path, key, failure)
    return failure


def _remembered(path: str, key: Key) -> tuple[str | None] | None:
    """The outcome stored at ``path`` for ``key`` if it is fresh (a 1-tuple); None: probe again."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        failure = data["failure"]
        fresh = time.time() - float(data["at"]) < PROBE_MEMORY_SECONDS
        if fresh and data["key"] == list(key) and (failure is None or isinstance(failure, str)):
            return (failure,)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _remember(path: str, key: Key, failure: str | None) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write(path, json.dumps({"key": list(key), "failure": failure, "at": time.time()}))
    except OSError:
        pass  # remembering only saves time
