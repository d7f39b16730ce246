"""Codex CLI: a Claude-compatible PreToolUse contract, except that Codex cannot ask (verified with
Codex 0.171.0).

Input: ``{session_id, turn_id, transcript_path, cwd, hook_event_name, model, permission_mode,
tool_name, tool_input, tool_use_id}``; ``tool_name`` is ``Bash`` for ``exec_command`` (whose
``workdir`` arrives as ``cwd``: the session's own directory is in the rollout file) and
``apply_patch`` for a patch (``{"command": PATCH}``, judged file by file: ``patch.py``). Codex
rejects ``permissionDecision`` ``ask`` and ``allow`` as unsupported, so an ask is a block here:
exit 2 with the reason on stderr (the model sees it) and the command a person can run to allow
it. A deny is the same block; allow and log give no decision, a nudge only ``additionalContext``
(a developer message to the model). ``write_stdin`` (text typed into a running process) never
reaches PreToolUse.

Codex runs a hook only once it is trusted: ``codex_trust.py`` in this package records that trust when
``policy install`` writes the hook, as Codex's own ``/hooks`` does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

from ..model import Action, Decision
from . import claude
from .protocol import (
    BLOCK,
    Check,
    HookEvent,
    Installation,
    Reply,
    blocked_ask,
    fields_of,
    json_reply,
    no_outcome,
    proceed,
    rewritten,
    tool_event,
)

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

AGENT = "codex"
NAME = "Codex"
PROGRAM = "codex"
VERIFIED = "0.171.0"
EVENTS = {"PreToolUse": "pre"}
TOOLS = {"Bash": "bash", "apply_patch": "patch"}
TREES: dict[str, str] = {}
# exec_command may give a command a terminal, and write_stdin types into it without PreToolUse:
# an interactive program (a pager's !cmd) can be driven past the hook.
TYPES_UNSEEN = True
# Its PreToolUse answer can replace the command (updatedInput, valid only with permissionDecision
# allow; without it the original runs): a sandboxed allow sends both (verified with 0.171.0).
REWRITES = True
FIELDS = fields_of({"Bash": ("command",), "apply_patch": ("command",)})
_FIRST_LINE_LIMIT = 1 << 22  # the session_meta record carries the instructions: tens of kB

SETTINGS = ((".codex/", ".codex", r"(?:/.*)?"),)
# $CODEX_HOME (default ~/.codex): its config.toml holds the hooks' trust and feature switches.
HOMES: tuple[tuple[str | None, str], ...] = (("CODEX_HOME", ".codex"),)

# developers.openai.com/codex/hooks; openai/codex codex-rs/hooks: a hooks.json beside each config
# layer, so $CODEX_HOME/hooks.json and <repo>/.codex/hooks.json; Claude's groups, "timeout" in
# seconds. The JSON file rather than a [hooks] table in config.toml: the standard library cannot
# write TOML, and Codex warns when one layer has both.
INSTALL = Installation(
    ".codex/hooks.json",
    ".codex",
    "CODEX_HOME",
    "hooks.json",
    tuple(EVENTS),
    True,
    "command",
    None,
    False,
    "Codex runs project hooks only in a trusted project",
)


def read(payload: Mapping[str, Any]) -> HookEvent:
    event = tool_event(payload, EVENTS, AGENT, "tool_use_id", FIELDS, f"{NAME} {VERIFIED}")
    # The payload's cwd is the command's workdir, which the model chooses per call: the session's
    # own directory is what $cwd names.
    session = session_directory(payload.get("transcript_path"))
    if session is not None and session != event.call.cwd:
        event = event._replace(call=event.call._replace(cwd=session, workdir=event.call.cwd))
    return event


def session_directory(transcript: object) -> str | None:
    """The session's working directory: the ``cwd`` of the ``session_meta`` record that opens
    Codex's rollout file (``transcript_path``; under $CODEX_HOME, which self-protection covers).
    None when it cannot be read: the payload's cwd then stands for both."""
    if not isinstance(transcript, str) or not transcript.startswith("/"):
        return None
    try:
        with open(transcript, "rb") as handle:
            first = handle.readline(_FIRST_LINE_LIMIT)
        meta = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    payload = meta.get("payload") if isinstance(meta, dict) and meta.get("type") == "session_meta" else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and cwd.startswith("/") else None


def answer(decision: Decision, event: HookEvent) -> Reply:
    if decision.action is Action.DENY:
        return Reply("", decision.reason + "\n", BLOCK)
    if decision.action is Action.ASK:
        return Reply("", blocked_ask(decision.reason, "Codex cannot ask", decision.call) + "\n", BLOCK)
    output: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision.action is Action.NUDGE:
        output["additionalContext"] = decision.message or decision.reason
    confined = rewritten(decision, event)
    if confined is not None:  # allow goes only with updatedInput, and it must: else it runs as it was
        output.update(
            permissionDecision="allow", permissionDecisionReason=decision.reason, updatedInput=confined
        )
    return json_reply({"hookSpecificOutput": output} if len(output) > 1 else {})


outcome = no_outcome
refuse = claude.refuse
handler = claude.handler
denies = claude.denies


def sample(command: str, cwd: str, session: str) -> dict[str, Any]:
    return claude.sample(command, cwd, session) | {"model": "", "turn_id": f"{session}-turn"}


def switch(doc: Mapping[str, Any], path: str) -> str | None:
    """Hooks are on by default since Codex 0.124; ``[features] hooks = false`` (or the older
    ``codex_hooks``) in the config.toml of the same layer turns them off."""
    import os
    import tomllib

    config = os.path.join(os.path.dirname(path), "config.toml")
    try:
        with open(config, "rb") as handle:
            features = tomllib.load(handle).get("features")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if isinstance(features, dict) and False in (features.get("hooks"), features.get("codex_hooks")):
        return f"remove `hooks = false` (or `codex_hooks = false`) from [features] in {config}"
    return None


# --- trust: Codex runs a hook only once it is trusted (codex_trust.py) ------------------------------


def _wanted(path: str, doc: Mapping[str, Any], ours: Callable[[Any], bool]) -> dict[str, str]:
    """The trust records our PreToolUse handlers in the hooks.json at ``path`` need: Codex's key
    of each (its place in the file) and the hash of its content."""
    from . import codex_trust as trust

    hooks = doc.get("hooks")
    groups = hooks.get("PreToolUse") if isinstance(hooks, Mapping) else None
    wanted = {}
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if ours(handler):
                wanted[trust.hook_key(path, g, h)] = trust.hook_hash(group.get("matcher"), handler)
    return wanted


def after_install(
    path: str,
    doc: Mapping[str, Any],
    ours: Callable[[Any], bool],
    home: str,
    cwd: str,
    env: Mapping[str, str],
) -> tuple[list[str], str | None]:
    """Record Codex's trust in the hook just written (running `policy install` is the consent):
    through ``codex app-server`` when codex is on PATH, else in ``$CODEX_HOME/config.toml`` with
    the hash Codex computes. (notes, trouble)."""
    from . import codex_trust as trust

    wanted = _wanted(path, doc, ours)
    program = trust.codex_program(env)
    if program is not None:
        try:
            listed = trust.trust_through_codex(program, env, cwd, list(wanted))
        except trust.TrustError as error:
            listed, failure = [], str(error)
        else:
            failure = ""
        if listed and all(hook.status == "trusted" for hook in listed):
            return [f"trusted by {program} (hooks/list: trusted)"], None
        notes = [
            f"{program} could not trust it ({failure or 'not listed as trusted'}): writing the record itself"
        ]
    else:
        notes = []
    config = os.path.join(home, "config.toml")
    try:
        changed = trust.record_trust(config, wanted)
    except trust.TrustError as error:
        return notes, f"{error}. Until it is trusted, Codex skips the hook and nothing is guarded."
    done = "recorded" if changed else "already recorded"
    return [*notes, f"Codex's trust of the hook {done} in {config}"], None


def trust_checks(
    path: str,
    doc: Mapping[str, Any],
    ours: Callable[[Any], bool],
    home: str,
    cwd: str,
    env: Mapping[str, str],
) -> list[Check]:
    """Whether Codex trusts our hook: as its own ``hooks/list`` reports when codex is on PATH,
    else by the record in config.toml against the hash Codex would compute."""
    from . import codex_trust as trust

    name = "codex: hook trusted"
    fix = "run `policy install --agent codex` again (or trust it in Codex: /hooks)"
    wanted = _wanted(path, doc, ours)
    if not wanted:
        return []
    program = trust.codex_program(env)
    if program is not None:
        try:
            listed = {hook.key: hook for hook in trust.listed_trust(program, env, cwd)}
        except trust.TrustError as error:
            return [Check(name, False, f"{program} did not answer hooks/list: {error}", fix)]
        statuses = {key: listed[key].status if key in listed else "not listed" for key in wanted}
        bad = {key: status for key, status in statuses.items() if status != "trusted"}
        if bad:
            key, status = next(iter(bad.items()))
            detail = f"Codex's hooks/list says {status} for {key}: codex exec skips it, nothing is guarded"
            return [Check(name, False, detail, fix)]
        return [Check(name, True, f"Codex's hooks/list says trusted ({program})", None)]
    config = os.path.join(home, "config.toml")
    try:
        recorded = trust.recorded_hashes(config)
    except trust.TrustError as error:
        return [Check(name, False, str(error), fix)]
    stale = [key for key, value in wanted.items() if recorded.get(key) != value]
    if stale:
        what = "no record" if stale[0] not in recorded else "a record for another content"
        detail = f"{config} holds {what} for {stale[0]}: Codex skips the hook, nothing is guarded"
        return [Check(name, False, detail, fix)]
    return [Check(name, True, f"trusted in {config} (codex is not on PATH to ask)", None)]


__all__ = ["answer", "outcome", "proceed", "read", "refuse"]
