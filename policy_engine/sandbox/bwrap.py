"""The Linux backend: a bubblewrap (``bwrap``) command line that carries out a plan.

The new root is the host's, read-only; then, in order (a later mount covers an earlier one): a
fresh /dev and /proc (in a PID namespace of its own, so /proc shows no process outside), the
temporary directories bound read-write, /run empty, the sockets in the temporary directories
covered, a home directory under /tmp read-only again, the writable directories bound read-write,
the protected places inside them bound read-only again (or, absent, an empty read-only directory),
and the read-protected ones covered by an empty file or directory. Every namespace is unshared
(the network too unless the plan allows it), ``--new-session`` keeps the code from typing into the
agent's terminal (TIOCSTI), and ``--die-with-parent`` ends it with the agent's shell.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .plan import Plan

NAME = "bwrap"


def arguments(plan: Plan, program: str) -> list[str]:
    """The bwrap command line up to the shell's script: ``[bwrap, ..., --, bash, -c]``."""
    args = [program, "--die-with-parent", "--new-session", "--unshare-all"]
    if plan.network:
        args.append("--share-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for directory in plan.temporary:
        args += ["--bind", directory, directory]
    for directory in plan.replaced:
        args += ["--tmpfs", directory]
    if plan.network:
        args += _resolver(plan)
    args += _hiding(plan.sockets)
    for directory in plan.visible:
        args += ["--ro-bind", directory, directory]
    for directory in (*plan.writable, *plan.cache):
        args += ["--bind", directory, directory]
    for path in plan.read_only:
        args += ["--ro-bind", path, path]
    for path in plan.blocked:
        args += ["--tmpfs", path, "--remount-ro", path]
    args += _hiding((*plan.hidden_directories, *plan.hidden_files))
    for name in plan.unset:
        args += ["--unsetenv", name]
    for name, value in plan.environment:
        args += ["--setenv", name, value]
    return [*args, "--", plan.shell, "-c"]


def _hiding(paths: tuple[str, ...]) -> list[str]:
    """Each path covered: a directory by an empty read-only one, anything else by /dev/null."""
    args: list[str] = []
    for path in paths:
        try:
            directory = stat.S_ISDIR(os.lstat(path).st_mode)  # a directory, not a link to one
        except OSError:
            directory = False
        if directory:
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


def _resolver(plan: Plan) -> list[str]:
    """/etc/resolv.conf where it is a link into a replaced directory (systemd-resolved's /run): the
    network the plan allows needs names resolved."""
    real = os.path.realpath("/etc/resolv.conf")
    if (
        real != "/etc/resolv.conf"
        and os.path.exists(real)
        and any(real.startswith(directory.rstrip("/") + "/") for directory in plan.replaced)
    ):
        return ["--ro-bind", real, real]
    return []
