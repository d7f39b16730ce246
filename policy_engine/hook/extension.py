"""pi's side of ``policy install`` / ``uninstall`` / ``doctor``: our extension in pi's extensions
directory.

pi has no hook settings: it loads TypeScript extensions from ``~/.pi/agent/extensions/``
(``$PI_CODING_AGENT_DIR/extensions/``) and from a project's ``.pi/extensions/``, and ours
(``integrations/pi``) runs ``policy hook --agent pi`` for every tool call. ``install`` copies its one
file there as ``policy-engine.ts``: a copy, not a link into this checkout, which an agent working in
the checkout could edit (pi's directory is self-protected; the checkout is not). A copy of another
release of ours is replaced (after a backup); a file of that name that is not ours is left alone;
the directory form the extension's README also describes (``policy-engine/``, a link to
``integrations/pi``) counts as installed, and no second copy is made beside it: pi would judge
every call twice.

The extension ships in the Python package too (``policy_engine/pi_extension``, from
``integrations/pi`` by pyproject's package-dir), so an installed wheel installs it as a checkout
does; an installation without it says where to get it and what to do, and changes nothing. The extension runs
``$POLICY_ENGINE_BIN``, else ``policy`` from PATH; the environment pi starts in is the person's to
set, so install and doctor say what it would run from here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Mapping

from ..agents.protocol import Check
from ..version import __version__

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from .install import InstallResult

AGENTS = ("pi",)  # the agents whose hook is an extension of ours rather than a settings entry
NAME = "policy-engine.ts"  # the copy, in pi's extensions directory
LINKED = "policy-engine"  # the directory form (a link to integrations/pi), as its README says
MARKER = b"policy-engine for pi"  # in the first lines of index.ts: a file that has it is ours
_HEAD = 512


def source() -> str | None:
    """This installation's extension: the copy an installed package ships
    (``policy_engine/pi_extension/index.ts``), else a checkout's ``integrations/pi/index.ts``; None
    when neither is there."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this file is in hook/
    for path in (
        os.path.join(package, "pi_extension", "index.ts"),
        os.path.join(os.path.dirname(package), "integrations", "pi", "index.ts"),
    ):
        if _ours(path):
            return path
    return None


def _ours(path: str) -> bool:
    """Whether ``path`` is a file of our extension (its opening comment names it)."""
    try:
        with open(path, "rb") as handle:
            return MARKER in handle.read(_HEAD)
    except OSError:
        return False


def directory(scope: str, cwd: str, env: Mapping[str, str]) -> str:
    """pi's extensions directory for ``scope`` ("user" or "project")."""
    if scope == "project":
        return os.path.join(os.path.abspath(cwd), ".pi", "extensions")
    if scope != "user":
        raise ValueError(f'unknown scope "{scope}": use "user" or "project"')
    return os.path.join(agent_directory(env), "extensions")


def agent_directory(env: Mapping[str, str]) -> str:
    """pi's own directory: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    if not env.get("HOME") and not env.get("PI_CODING_AGENT_DIR"):
        raise ValueError("HOME is not set: cannot find pi's directory (use --project)")
    from ..config.discover import pi_agent_directory

    return pi_agent_directory(env)


def copies(extensions: str) -> list[str]:
    """Our extension as pi would load it from ``extensions``: files and directories (or links to
    one) at its top whose TypeScript is ours. More than one: every call is judged more than once."""
    try:
        names = sorted(os.listdir(extensions))
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(extensions, name)
        inner = os.path.join(path, "index.ts")
        if (name.endswith(".ts") and os.path.isfile(path) and _ours(path)) or (
            os.path.isdir(path) and _ours(inner)
        ):
            found.append(path)
    return found


def engine_program(env: Mapping[str, str]) -> tuple[str | None, str]:
    """What the extension would run from this environment: ``$POLICY_ENGINE_BIN``, else ``policy``
    from PATH (None when neither is there), and how it was found."""
    given = env.get("POLICY_ENGINE_BIN", "")
    if given:
        if os.path.isabs(given) and os.access(given, os.X_OK) and os.path.isfile(given):
            return given, f"POLICY_ENGINE_BIN={given}"
        found = shutil.which(given, path=env.get("PATH", os.defpath))
        return found, f"POLICY_ENGINE_BIN={given}" + ("" if found else " (not an executable)")
    found = shutil.which("policy", path=env.get("PATH", os.defpath))
    return found, f"policy from PATH ({found})" if found else "no policy on PATH"


def this_program() -> str | None:
    """This installation's ``policy`` executable (beside its interpreter), when it has one."""
    path = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "policy")
    return path if os.access(path, os.X_OK) else None


def _engine_advice(env: Mapping[str, str]) -> str:
    """What to set for the extension to run this installation, however pi was started."""
    program = this_program()
    if program is None:
        return "set POLICY_ENGINE_BIN to the absolute path of policy in the environment pi starts in"
    found, _ = engine_program(env)
    if env.get("POLICY_ENGINE_BIN") == program or found == program:
        return ""
    return f"export POLICY_ENGINE_BIN={program} in the environment pi starts in (your shell profile)"


def manual(target: str) -> tuple[str, ...]:
    """How to install the extension by hand, when this installation does not have it."""
    extensions = os.path.dirname(target)
    return (
        "the pi extension is not part of this installation (policy_engine/pi_extension is missing): "
        f"take integrations/pi/index.ts from a checkout of policy-engine's repository ({__version__})",
        f"then: mkdir -p {extensions} && cp integrations/pi/index.ts {target}",
        "and see integrations/pi/README.md there (POLICY_ENGINE_BIN: which policy it runs)",
    )


def install(scope: str, cwd: str, env: Mapping[str, str], origin: str | None) -> InstallResult:
    """Copy the extension at ``origin`` (None: this installation has none) into pi's extensions
    directory as ``policy-engine.ts``, or say why not and what to do."""
    from .install import InstallResult, _atomic_write, _backup

    extensions = directory(scope, cwd, env)
    target = os.path.join(extensions, NAME)
    present = copies(extensions)
    others = [path for path in present if path != target]
    if origin is None:
        if present:
            return InstallResult(present[0], False, None, _notes(present, env))
        return InstallResult(target, False, None, manual=manual(target))
    if others:  # the linked directory, or a copy under another name: that one is pi's
        return InstallResult(others[0], False, None, _notes(present, env))
    with open(origin, "rb") as handle:
        content = handle.read()
    if os.path.lexists(target) and not _ours(target):
        raise ValueError(f"{target} is not policy-engine's pi extension; it was left untouched")
    backup = None
    try:
        with open(target, "rb") as handle:
            old = handle.read()
    except FileNotFoundError:
        old = None
    if old == content:
        return InstallResult(target, False, None, _notes([target], env))
    if old is not None:
        mode = os.stat(target).st_mode & 0o777
        backup = _backup(target, old, mode)  # named .ts.bak-…: pi loads no such file
    _atomic_write(target, content, None)
    return InstallResult(target, True, backup, _notes([target], env))


def _notes(present: list[str], env: Mapping[str, str]) -> tuple[str, ...]:
    notes = []
    if len(present) > 1:
        places = ", ".join(present)
        notes.append(f"pi loads the extension {len(present)} times ({places}): remove all but one")
    advice = _engine_advice(env)
    if advice:
        notes.append(f"the extension runs $POLICY_ENGINE_BIN, else policy from PATH: {advice}")
    return tuple(notes)


def uninstall(scope: str, cwd: str, env: Mapping[str, str]) -> InstallResult:
    """Take our extension out of pi's extensions directory: our copy, and a link to ours; a
    directory that holds a copy is the person's to remove (said as trouble)."""
    from .install import InstallResult

    extensions = directory(scope, cwd, env)
    present = copies(extensions)
    if not present:
        return InstallResult(os.path.join(extensions, NAME), False, None)
    kept = []
    for path in present:
        if os.path.islink(path) or os.path.isfile(path):
            os.unlink(path)  # a link goes, never what it points to
        else:
            kept.append(path)
    removed = [path for path in present if path not in kept]
    trouble = (
        f"{kept[0]} is a directory holding the extension: remove it yourself if pi should not load it"
        if kept
        else None
    )
    return InstallResult(removed[0] if removed else kept[0], bool(removed), None, trouble=trouble)


def checks(scope: str, cwd: str, env: Mapping[str, str]) -> tuple[list[Check], list[str]]:
    """Doctor's checks of the extension and of what it would run, and the argv it would run (this
    installation's client when nothing is found, so that the samples still test the engine)."""
    from .install import executable

    extensions = directory(scope, cwd, env)
    present = copies(extensions)
    install_fix = f"run `policy install --agent pi --{scope}`"
    if not present:
        detail = f"no policy-engine extension in {extensions}"
        found = [Check("pi: extension", False, detail, install_fix)]
    elif len(present) > 1:
        detail = f"pi loads it {len(present)} times ({', '.join(present)}): every call is judged as often"
        found = [Check("pi: extension", True, detail, "remove all but one", warning=True)]
    else:
        found = [_copy_check(present[0], install_fix)]
    program, how = engine_program(env)
    if program is None:
        advice = _engine_advice(env) or "install policy-engine"
        detail = f"{how}: the extension would block every call"
        found.append(Check("pi: engine", False, detail, advice))
        return found, [*executable(), "hook", "--agent", "pi"]
    advice = _engine_advice(env)
    if advice and not env.get("POLICY_ENGINE_BIN"):
        detail = f"{how}, if pi starts with this PATH (an unactivated venv locks it out)"
        found.append(Check("pi: engine", True, detail, advice, warning=True))
    else:
        found.append(Check("pi: engine", True, how, None))
    return found, [program, "hook", "--agent", "pi"]


def _copy_check(path: str, fix: str) -> Check:
    origin = source()
    if origin is None or os.path.isdir(path):
        return Check("pi: extension", True, f"{path}", None)
    with contextlib.suppress(OSError), open(path, "rb") as mine, open(origin, "rb") as theirs:
        if mine.read() == theirs.read():
            return Check("pi: extension", True, f"{path}, the same as {origin}", None)
        detail = f"{path} differs from this installation's {origin} (another release?)"
        return Check("pi: extension", True, detail, fix, warning=True)
    return Check("pi: extension", False, f"{path} cannot be read", fix)
