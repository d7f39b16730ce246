"""Doctor's pass: the sample calls ``policy doctor`` sends through the installed hook are judged
as any call, but neither logged nor counted.

Doctor runs the hook on two sample calls (``ls``, ``rm -rf /``) to see that it answers. They are
not the agent's calls: they must not show in ``policy log`` nor feed the circuit breakers and
session allows of the state store. A variable alone would do that for any process that sets it,
the agent's own commands included: a command that starts another agent (``claude -p …``) with it
set would hide every call of that agent. So the variable, ``POLICY_ENGINE_DOCTOR_PASS``, holds a
random secret, and counts only while a file named by the secret's SHA-256 is in the state
directory: doctor makes it (0600, in a directory that is the user's alone) before its samples and
removes it after them. The agent's commands cannot write the state directory (self-protection), so
they cannot make such a file for a secret of their own; the file's name does not give the secret
away; and the secret lives only in the environment of doctor and of the hook processes it runs
(the daemon one of them starts does not inherit it: ``client.start_daemon``). A file left behind by
a doctor that was killed counts for an hour at most.

Imported by doctor, and by the hook only when the variable is set: never on a plain call's path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Iterator, Mapping

from ..session.statedir import not_ours_alone, state_directory

VARIABLE = "POLICY_ENGINE_DOCTOR_PASS"  # hook/call.py names it too, so as not to import this module
_PREFIX = "doctor-pass-"
LIFETIME = 3600.0  # seconds: longer than any doctor run, shorter than a daemon's day


def _path(directory: str, secret: str) -> str:
    return os.path.join(directory, _PREFIX + hashlib.sha256(secret.encode()).hexdigest())


@contextlib.contextmanager
def sample_pass(env: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """The variables that keep the sample calls out of the log and the state store, for as long as
    the ``with`` lasts; none (the samples are then logged as any call) when the state directory
    cannot hold the pass or is not the user's alone."""
    directory = state_directory(env)
    secret = os.urandom(32).hex()
    path = _path(directory, secret)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)  # an existing one is left as it is
        if not_ours_alone("the state directory", directory, os.stat(directory)) is not None:
            raise PermissionError  # others could make a pass there: no pass at all
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except OSError:
        yield {}
        return
    try:
        yield {VARIABLE: secret}
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def honoured(env: Mapping[str, str]) -> bool:
    """Whether ``env`` carries a pass that doctor made: its secret names a file of the user's alone
    in a state directory of the user's alone, made within ``LIFETIME``."""
    secret = env.get(VARIABLE, "")
    if len(secret) < 32:
        return False
    directory = state_directory(env)
    try:
        if not_ours_alone("the state directory", directory, os.stat(directory)) is not None:
            return False
        path = _path(directory, secret)
        status = os.lstat(path)
    except OSError:
        return False
    fresh = 0 <= time.time() - status.st_mtime < LIFETIME
    # A regular file (not a link to one elsewhere), the user's, closed to others.
    return stat.S_ISREG(status.st_mode) and fresh and not_ours_alone("the pass", path, status) is None
