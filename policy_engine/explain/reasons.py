"""The text a decision gives the model (and the user): what happened, and which setting decided it."""

from __future__ import annotations

from collections.abc import Mapping

from ..agents.toolnames import BASH, PATCH, input_paths
from ..decide.selfprotect import ORIGIN as SELF_ORIGIN
from ..model import Action, Sense, VerdictKind
from .secrets import mask

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..model import ToolCall, Verdict
    from .consequences import Consequence, Found, Push

PREFIX = "[policy-engine]"
SHOWN_COMMAND = 160
MASKED_PREFIX = 2000  # only this much of a command is ever shown, so only this much is masked

_VERBS = {
    Action.ALLOW: "Allowed",
    Action.NUDGE: "Allowed with a note",
    Action.LOG: "Allowed and logged",
    Action.ASK: "Needs approval",
    Action.DENY: "Denied",
}


def shorten(text: str, limit: int = SHOWN_COMMAND) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def subject(call: ToolCall) -> str:
    """``bash (rm -rf build)`` or ``write /etc/hosts``: the call as the reason names it, secrets masked."""
    if call.tool == BASH:
        command = call.input.get("command") if isinstance(call.input, Mapping) else None
        return f"bash ({shorten(mask(command[:MASKED_PREFIX]))})" if isinstance(command, str) else "bash"
    paths = input_paths(call.input)
    return f"{call.tool} {paths[0]}" if paths else call.tool


def why(verdict: Verdict) -> str:
    """The setting behind a verdict, with its file and line."""
    if verdict.kind is VerdictKind.RULE and verdict.rule is not None:
        rule = verdict.rule
        preset = f" (from {rule.preset})" if rule.preset else ""
        text = f'rule {rule.label()}{preset} of policy "{verdict.policy}" ({rule.origin})'
    elif verdict.kind is VerdictKind.APPROVAL and verdict.rule is not None:
        text = f'approval {verdict.rule.label()} for policy "{verdict.policy}" ({verdict.rule.origin})'
    elif verdict.kind is VerdictKind.SESSION:
        text = f"allowed for this session ({verdict.detail})"
    elif verdict.kind is VerdictKind.DEFAULT:
        text = (
            f'no rule of policy "{verdict.policy}" matches; its defaultAction is {verdict.action} '
            f"({verdict.origin})"
        )
        if verdict.atom.unproven and not verdict.atom.doubts:  # why no readOnly rule covered it
            text = f"not proven to only read ({verdict.atom.unproven[0]}): {text}"
    elif verdict.kind is VerdictKind.PROTECTION and verdict.origin == SELF_ORIGIN:
        where = (
            f'{_walk(verdict)}everything under "{verdict.target}", which holds'
            if verdict.walked
            else f'"{verdict.target}" is'
        )
        text = (
            f"{where} the policy engine's own configuration or state, or agent settings that load it "
            f'("{verdict.detail}"): self-protection keeps an agent from changing what judges it; a person '
            "can change it outside the agent"
        )
    elif verdict.kind is VerdictKind.PROTECTION and verdict.walked:
        text = (
            f'{_walk(verdict)}everything under "{verdict.target}", which holds paths protected by '
            f'pathProtection "{verdict.detail}" ({verdict.origin})'
        )
        if verdict.sense in (Sense.READ, Sense.EXEC, None):
            text += _narrower(verdict.detail)
    elif verdict.kind is VerdictKind.PROTECTION:
        protected = "is protected by" if verdict.action >= Action.ASK else "matches"
        text = f'path "{verdict.target}" {protected} pathProtection "{verdict.detail}" ({verdict.origin})'
    elif verdict.kind is VerdictKind.DOUBT:
        text = f"{verdict.detail}; what cannot be proven safe gets {verdict.action}"
    else:
        text = f"no policy covers {verdict.target}"
    if verdict.layer in ("managed", UNTRUSTED):
        text += f" [{verdict.layer} layer]"
    return text


def _narrower(pattern: str | None) -> str:
    """How to walk the tree without the protected files: a name pattern (``.env*``) can be
    excluded, and rg skips hidden and git-ignored files by itself."""
    if pattern and "/" not in pattern.rstrip("/"):
        return (
            f"; to search without them, exclude them (grep -r --exclude='{pattern}', "
            f"rg -g '!{pattern}') or use rg, which skips hidden and git-ignored files"
        )
    return "; name the files it needs instead"


# How a command that walks a directory whole touches everything in it, by the sense of the walk.
_WALKS = {
    Sense.DELETE: "deleting it deletes",
    Sense.WRITE: "the command changes",
    Sense.UNKNOWN: "the command touches",
}


def _walk(verdict: Verdict) -> str:
    """How the reason of a walked protection starts: what walking the directory does to everything
    in it (what the directory is, the home directory, is said where its path is named)."""
    return _WALKS.get(verdict.sense, "the command reads") + " " if verdict.walked else ""  # type: ignore[arg-type]


_DOES = {
    Sense.READ: "reads",
    Sense.WRITE: "writes",
    Sense.DELETE: "deletes",
    Sense.EXEC: "runs",
}
SHOWN_TARGETS = 5


def refused(
    action: Action,
    decisive: Verdict,
    verdicts: Sequence[Verdict],
    named: bool = True,
    consequence: Consequence | None = None,
) -> str:
    """What in a bash line was refused: the command (when the line runs more than one) and only the
    paths whose verdict is the decision's (``rm -rf /etc/x deletes /etc/x``); for a patch, which
    the subject does not name the files of (``named`` False), those paths; empty otherwise. With
    the ``consequence`` of the atom, each path says what is at stake there (``deletes /p/build
    (1,204 files in 87 directories)``), then what a push updates and the safer alternatives."""
    atom = decisive.atom
    if (atom.command is None and named) or action < Action.ASK:
        return ""
    # Each atom once by identity before comparing them: hashing an atom hashes all its accesses,
    # and an atom with thousands of paths has a verdict for each.
    several = len(set({id(v.atom): v.atom for v in verdicts}.values())) > 1 and atom.command is not None
    shown = f"`{shorten(mask(atom.command[:MASKED_PREFIX]), 80)}`" if several and atom.command else ""

    by_sense: dict[Sense, dict[str, None]] = {}  # the targets of each sense, in order, each once
    # Its own verdicts: the atom itself (told by identity first, for thousands of verdicts), or one
    # equal to it (the same command twice in a line).
    own = [v for v in verdicts if v.atom is atom or v.atom == atom]
    for verdict in own:
        # An unknown command "touches" its directory: the command, not the path, is what was refused.
        if verdict.action is action and verdict.sense not in (None, Sense.UNKNOWN):
            by_sense.setdefault(verdict.sense, {})[verdict.target] = None
    scopes = {v.target: v.scope for v in own if v.scope}
    parts = []
    for sense, ordered in by_sense.items():
        targets = list(ordered)
        more = f" and {len(targets) - SHOWN_TARGETS} more" if len(targets) > SHOWN_TARGETS else ""
        listed = []
        for target in targets[:SHOWN_TARGETS]:
            found = consequence.at(target) if consequence is not None else None
            notes = [scopes.get(target), stake(found, sense, atom.tool) if found is not None else ""]
            noted = "; ".join(filter(None, notes))
            listed.append(f"{target} ({noted})" if noted else target)
        parts.append(f"{_DOES[sense]} {', '.join(listed)}{more}")
    if consequence is not None:
        parts += [pushes(consequence.push) if consequence.push is not None else "", *consequence.advice]
    return " ".join(filter(None, [shown, "; ".join(filter(None, parts))]))


def stake(found: Found, sense: Sense, tool: str) -> str:
    """What is at stake at a path an atom writes or deletes (empty: nothing worth saying): a file's
    size (which a ``write`` tool replaces whole; a bash write may append, the analysis does not
    tell), that a write creates the file, what a tree deleted whole holds, or what else it is."""
    from .consequences import DIRECTORY, FILE, LIMIT, MISSING, SLOW

    if found.kind == MISSING:
        return "creates it" if sense is Sense.WRITE and tool != "edit" else ""
    if found.kind == FILE:
        size = "an empty file" if not found.size else size_text(found.size)
        if sense is Sense.WRITE:
            return f"overwrites {size}" if tool == "write" else f"{size} now" if found.size else size
        return size
    if found.kind == DIRECTORY:
        if not found.counted:
            return ""
        if found.stopped == LIMIT:
            # the count stopped at the first entry past its bound
            return f"more than {found.files + found.directories - 1:,} files and directories"
        files = _counted(found.files, "file", "files")
        directories = _counted(found.directories, "directory", "directories")
        if found.stopped is not None:
            why = "counting took too long" if found.stopped == SLOW else "some could not be read"
            return f"at least {files} in {directories}, {why}"
        return (
            "an empty directory"
            if found.files == 0 and found.directories == 1
            else f"{files} in {directories}"
        )
    return _KINDS.get(found.kind, "")


_KINDS = {"link": "a symbolic link", "pipe": "a named pipe", "device": "a device", "socket": "a socket"}


def _counted(number: int, one: str, many: str) -> str:
    return f"{number:,} {one if number == 1 else many}"


def size_text(size: int) -> str:
    """``214 bytes``, ``1,234 bytes``, ``56.7 kB``, ``3.4 MB``: exact while short, then rounded."""
    if size < 10_000:
        return _counted(size, "byte", "bytes")
    value = float(size)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 1000 or unit == "TB":
            return f"{value:.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"
    return ""  # not reached


SHOWN_NAMES = 3  # branches a push clause names


def pushes(push: Push) -> str:
    """What a git push updates, where: ``updates main (the current branch) on origin``."""
    remote = shorten(mask(push.remote[:MASKED_PREFIX]), 60)
    if push.every == "mirror":
        return f"makes {remote} mirror every ref here, deleting the refs this repository lacks"
    if push.every == "all":
        return f"updates every branch on {remote}"
    if push.every == "tags":
        return f"pushes every tag to {remote}"

    def names(refs: tuple[str, ...]) -> str:
        shown = [shorten(mask(ref[:MASKED_PREFIX]), 60) for ref in refs[:SHOWN_NAMES]]
        more = f" and {len(refs) - SHOWN_NAMES} more" if len(refs) > SHOWN_NAMES else ""
        return ", ".join(shown) + more

    parts = []
    if push.updates:
        current = " (the current branch)" if push.current else ""
        parts.append(f"updates {names(push.updates)}{current} on {remote}")
    if push.deletes:
        parts.append(f"deletes {names(push.deletes)} on {remote}")
    return ", and ".join(parts) or f"pushes to {remote}"


UNTRUSTED = "project (untrusted)"


def untrusted_note(action: Action, decisive: Verdict | None, verdicts: Sequence[Verdict], file: str) -> str:
    """What to add to a reason when the project file ``file`` would have let the call through but is
    not trusted (it only tightens until a person trusts it): the file and the command that trusts it."""
    if decisive is None or action < Action.ASK or decisive.layer == UNTRUSTED:
        return ""
    theirs = [v for v in verdicts if v.layer == UNTRUSTED and v.atom == decisive.atom]
    if not theirs:
        return ""
    strictest = max(theirs, key=lambda v: v.action)
    if strictest.action >= action or strictest.origin is None or strictest.origin.file != file:
        return ""
    would = "allows it" if strictest.action is Action.ALLOW else f"gives it {strictest.action}"
    return (
        f" The project policy file {file} {would} ({why(strictest).removesuffix(f' [{UNTRUSTED} layer]')}),"
        " but it is not trusted, so it can only make decisions stricter; once a person has reviewed it,"
        " `policy trust` lets it decide."
    )


def unenforced(mode: str, judged: Action, text: str) -> str:
    """The reason of a decision the mode does not enforce: what enforcing it would have done."""
    if judged is Action.ALLOW:
        return text
    return f"{PREFIX} {mode} mode, not enforced: would be {judged}: {text.removeprefix(PREFIX + ' ')}"


def reason(
    action: Action,
    decisive: Verdict | None,
    call: ToolCall,
    verdicts: Sequence[Verdict] = (),
    *,
    judged: Action | None = None,
    consequence: Consequence | None = None,
) -> str:
    """The reason for a decision: what was refused (with what it would change: ``consequence``, of
    the decisive atom), the setting that decided, and for a deny on a file path, a warning not to
    try another tool. ``judged`` is what the verdicts said when a circuit breaker changed it into
    ``action``."""
    head = f"{PREFIX} {_VERBS[action]}: {subject(call)}"
    if decisive is None:
        return head + ": no policy applies."
    named = call.tool != PATCH
    if (
        consequence is not None
        and named
        and decisive.atom.command is None
        and (judged or action) >= Action.ASK
    ):
        head += _named_stake(decisive, consequence)
    what = refused(judged or action, decisive, verdicts, named, consequence)
    text = f"{head}: {what + ': ' if what else ''}{why(decisive)}."
    if decisive.message and action is not Action.NUDGE:
        text += f" {decisive.message}"
    if action is Action.DENY and _about_the_path(decisive):
        text += " The restriction is on the path, not on the tool: do not retry with another tool or command."
    return text


def _named_stake(decisive: Verdict, consequence: Consequence) -> str:
    """What is at stake at the path a file tool's subject names (`` (overwrites 214 bytes)``)."""
    atom = decisive.atom
    access = atom.accesses[0] if atom.accesses else None
    found = consequence.at(access.path) if access is not None else None
    note = stake(found, access.sense, atom.tool) if access is not None and found is not None else ""
    return f" ({note})" if note else ""


def _about_the_path(verdict: Verdict) -> bool:
    """Whether a deny is about the path rather than the command: a protected path, a file tool's
    policy, or a bash read or write judged by the policy's explicit read/write rules."""
    if verdict.kind is VerdictKind.PROTECTION:
        return True
    if verdict.kind in (VerdictKind.RULE, VerdictKind.DEFAULT) and verdict.atom.command is None:
        return bool(verdict.atom.accesses)
    return verdict.kind is VerdictKind.RULE and verdict.detail is not None
