"""Circuit breakers: what repeated denies and ignored nudges turn into, per agent session and rule.

- **agentTimeout** (``maxDenies`` in ``windowSeconds``): an agent that keeps hitting the same deny is
  stuck; the ``maxDenies``-th deny of one rule in one session (and every later one in the window)
  becomes an ask, so that a person decides.
- **nudgeTimeout** (``maxNudges`` in ``windowSeconds``): a nudge the agent keeps ignoring becomes a
  deny on its ``maxNudges``-th firing, with the nudge's message; the count then starts again.

Events live in the state store (a hook is a new process per call). Windows slide: only events
within ``windowSeconds`` count. When the store cannot be used, a nudge under nudgeTimeout is a deny
(``unstored``): never more loosely than with a working store. pathProtection and the managed
layer's denies are never counted nor escalated: no breaker hands them to a person to wave through.
"""

from __future__ import annotations

from ..model import Action, VerdictKind
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..config.compiled import Layer
    from ..model import Verdict
    from .state import StateStore

DENY_EVENT, NUDGE_EVENT = "deny", "nudge"


class Tripped(Record):
    """A breaker that changed the action: the new action, its name, and what the reason adds."""

    action: Action
    breaker: str
    note: str


def rule_key(verdict: Verdict) -> str:
    """The identity of what decided: layer, policy, and the rule (by its place in its file), the
    policy's defaultAction, or the analysis' unknown action."""
    where = str(verdict.rule.origin) if verdict.rule is not None else str(verdict.origin or "")
    pattern = verdict.rule.pattern if verdict.rule is not None else None
    return "|".join((verdict.layer, verdict.policy or "", verdict.kind, where, pattern or ""))


def escalated(
    decisive: Verdict, action: Action, layer: Layer, session_id: str, store: StateStore, now: float
) -> Tripped | None:
    """The breaker that trips on this decision, if any (recording the event either way).

    Raises the store's StateError when the store cannot be used; the caller then judges without.
    """
    key = rule_key(decisive)
    if action is Action.DENY and layer.agent_timeout is not None and _counted(decisive):
        limit = layer.agent_timeout
        count = store.tally(DENY_EVENT, session_id, key, now=now, window=limit.window_seconds, record=True)
        if count >= limit.max_events:
            return Tripped(
                Action.ASK,
                "agentTimeout",
                f"agentTimeout: {count} denies of this rule within {limit.window_seconds:g}s in this "
                "session, so a person decides now.",
            )
    elif action is Action.NUDGE and layer.nudge_timeout is not None:
        limit = layer.nudge_timeout
        count = store.tally(NUDGE_EVENT, session_id, key, now=now, window=limit.window_seconds, record=True)
        if count >= limit.max_events:
            store.clear(NUDGE_EVENT, session_id, key)
            return Tripped(
                Action.DENY,
                "nudgeTimeout",
                f'You were repeatedly warned: "{decisive.message}". You MUST switch approach now.',
            )
    return None


def unstored(decisive: Verdict, action: Action, layer: Layer) -> Tripped | None:
    """What the breakers make of a decision when the store cannot count: nothing that loosens (a
    deny stays a deny), and the tighter side of what may have tripped (a nudge under nudgeTimeout
    is a deny), so that a broken store never judges more loosely than a working one."""
    if action is Action.NUDGE and layer.nudge_timeout is not None:
        return Tripped(
            Action.DENY,
            "nudgeTimeout",
            "The state store cannot count this warning, so it is applied as nudgeTimeout would: "
            f'"{decisive.message}". You MUST switch approach now.',
        )
    return None


def _counted(verdict: Verdict) -> bool:
    """Denies a breaker may escalate: not a protected path, not the administrator's."""
    return verdict.kind is not VerdictKind.PROTECTION and verdict.layer != "managed"
