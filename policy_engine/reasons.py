"""The text a decision gives the model (and the user): what happened, and which setting decided it."""

from __future__ import annotations

from collections.abc import Mapping

from .model import Action, Sense
from .secrets import mask
from .selfprotect import ORIGIN as SELF_ORIGIN
from .tools import BASH, PATCH, input_paths

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .model import ToolCall, Verdict

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
    if verdict.kind == "rule" and verdict.rule is not None:
        rule = verdict.rule
        preset = f" (from {rule.preset})" if rule.preset else ""
        text = f'rule {rule.label()}{preset} of policy "{verdict.policy}" ({rule.origin})'
    elif verdict.kind == "approval" and verdict.rule is not None:
        text = f'approval {verdict.rule.label()} for policy "{verdict.policy}" ({verdict.rule.origin})'
    elif verdict.kind == "session":
        text = f"allowed for this session ({verdict.detail})"
    elif verdict.kind == "default":
        text = (
            f'no rule of policy "{verdict.policy}" matches; its defaultAction is {verdict.action} '
            f"({verdict.origin})"
        )
        if verdict.atom.unproven and not verdict.atom.doubts:  # why no readOnly rule covered it
            text = f"not proven to only read ({verdict.atom.unproven[0]}): {text}"
    elif verdict.kind == "protection" and verdict.origin == SELF_ORIGIN:
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
    elif verdict.kind == "protection" and verdict.walked:
        text = (
            f'{_walk(verdict)}everything under "{verdict.target}", which holds paths protected by '
            f'pathProtection "{verdict.detail}" ({verdict.origin})'
        )
        if verdict.sense in (Sense.READ, Sense.EXEC, None):
            text += "; name the files it needs instead"
    elif verdict.kind == "protection":
        protected = "is protected by" if verdict.action >= Action.ASK else "matches"
        text = f'path "{verdict.target}" {protected} pathProtection "{verdict.detail}" ({verdict.origin})'
    elif verdict.kind == "doubt":
        text = f"{verdict.detail}; what cannot be proven safe gets {verdict.action}"
    else:
        text = f"no policy covers {verdict.target}"
    if verdict.layer in ("managed", UNTRUSTED):
        text += f" [{verdict.layer} layer]"
    return text


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


def refused(action: Action, decisive: Verdict, verdicts: Sequence[Verdict], named: bool = True) -> str:
    """What in a bash line was refused: the command (when the line runs more than one) and only the
    paths whose verdict is the decision's (``rm -rf /etc/x deletes /etc/x``); for a patch, which
    the subject does not name the files of (``named`` False), those paths; empty otherwise."""
    atom = decisive.atom
    if (atom.command is None and named) or action < Action.ASK:
        return ""
    several = len({v.atom for v in verdicts}) > 1 and atom.command is not None
    shown = f"`{shorten(mask(atom.command[:MASKED_PREFIX]), 80)}`" if several and atom.command else ""

    by_sense: dict[Sense, list[str]] = {}
    for verdict in verdicts:
        # An unknown command "touches" its directory: the command, not the path, is what was refused.
        if verdict.atom == atom and verdict.action is action and verdict.sense not in (None, Sense.UNKNOWN):
            targets = by_sense.setdefault(verdict.sense, [])
            if verdict.target not in targets:
                targets.append(verdict.target)
    scopes = {v.target: v.scope for v in verdicts if v.atom == atom and v.scope}
    parts = []
    for sense, targets in by_sense.items():
        more = f" and {len(targets) - SHOWN_TARGETS} more" if len(targets) > SHOWN_TARGETS else ""
        listed = [f"{t} ({scopes[t]})" if t in scopes else t for t in targets[:SHOWN_TARGETS]]
        parts.append(f"{_DOES[sense]} {', '.join(listed)}{more}")
    return " ".join(filter(None, [shown, "; ".join(parts)]))


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
) -> str:
    """The reason for a decision: what was refused, the setting that decided, and for a deny on a
    file path, a warning not to try another tool. ``judged`` is what the verdicts said when a
    circuit breaker changed it into ``action``."""
    head = f"{PREFIX} {_VERBS[action]}: {subject(call)}"
    if decisive is None:
        return head + ": no policy applies."
    what = refused(judged or action, decisive, verdicts, named=call.tool != PATCH)
    text = f"{head}: {what + ': ' if what else ''}{why(decisive)}."
    if decisive.message and action is not Action.NUDGE:
        text += f" {decisive.message}"
    if action is Action.DENY and _about_the_path(decisive):
        text += " The restriction is on the path, not on the tool: do not retry with another tool or command."
    return text


def _about_the_path(verdict: Verdict) -> bool:
    """Whether a deny is about the path rather than the command: a protected path, a file tool's
    policy, or a bash read or write judged by the policy's explicit read/write rules."""
    if verdict.kind == "protection":
        return True
    if verdict.kind in ("rule", "default") and verdict.atom.command is None:
        return bool(verdict.atom.accesses)
    return verdict.kind == "rule" and verdict.detail is not None
