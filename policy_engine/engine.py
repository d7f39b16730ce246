"""The engine: a loaded policy set that turns tool calls into decisions."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from time import perf_counter

from .agents.toolnames import BASH, canonical_tool
from .analysis.toolcalls import atoms_of
from .config.cache import cache_directory
from .config.discover import discover, home_directory
from .config.load import cache_enabled, load
from .decide.judge import Context, LayerJudge, combine
from .decide.protect import Search
from .decide.selfprotect import self_protections
from .errors import ConfigError, Problem
from .explain.reasons import UNTRUSTED, reason, unenforced, untrusted_note
from .model import MODES, Action, Atom, Decision, ToolCall, Verdict, VerdictKind
from .paths import normalize, spellings
from .session.allows import DEFAULT_TTL, atom_key, now
from .session.breakers import Tripped, escalated, unstored
from .session.state import MemoryState, StateError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .analysis.shell.analysis import Analyzer
    from .analysis.shell.commandline import Reader
    from .config.compiled import InterpreterSettings, PolicySet
    from .config.discover import Discovery
    from .decide.protect import Guard
    from .explain.consequences import Consequence
    from .sandbox.wrap import Confinement
    from .session.state import StateStore


# How long the engine uses its own directories as it spelled them, symbolic links resolved (the
# working directory, each location's, each protected place's), before it works them out again: a
# link changed along one is seen within this long. The paths of a call are resolved afresh for
# each call; these are many (a thousand locations) and change seldom.
SPELLINGS_LIFETIME = 60.0


def analysis_settings(policy_set: PolicySet) -> InterpreterSettings | None:
    """How inline programs are analysed for every layer at once: on when any layer turns it on (a
    layer that restricts wants to see them), within the smallest limits of those layers (hitting a
    limit is a doubt, so the smallest is the strictest); None when every layer turns it off."""
    enabled = [layer.interpreter for layer in policy_set.layers if layer.interpreter.enabled]
    if not enabled:
        return None
    return enabled[0]._replace(
        max_source_bytes=min(s.max_source_bytes for s in enabled),
        max_depth=min(s.max_depth for s in enabled),
        max_nodes=min(s.max_nodes for s in enabled),
    )


def resolve_mode(explicit: str | None, env: Mapping[str, str], policy_set: PolicySet) -> str:
    """The mode: the managed file's (an administrator's choice: nothing the agent's environment
    carries overrides it), else the one given to the engine (``policy check --mode``), else
    ``POLICY_ENGINE_MODE``, else the user's (or trusted project's), else ``enforce``."""
    managed = next((layer.mode for layer in policy_set.layers if layer.name == "managed"), None)
    if managed is not None:
        return str(managed)
    source = None
    if explicit is None:
        explicit, source = env.get("POLICY_ENGINE_MODE") or None, "POLICY_ENGINE_MODE"
    if explicit is not None:
        if explicit not in MODES:
            hint = f"use one of {', '.join(MODES)}"
            raise ConfigError([Problem(source, None, None, "mode", f'unknown mode "{explicit}"', hint)])
        return explicit
    return str(layer_setting(policy_set, "mode", "enforce"))


def layer_setting(policy_set: PolicySet, name: str, default: Any) -> Any:
    """A setting a layer's files may leave unset (None): the managed file's, else the user's (or
    explicit, or trusted project's), else ``default``."""
    for layer in sorted(policy_set.layers, key=lambda layer: layer.name != "managed"):
        value = getattr(layer, name)
        if value is not None:
            return value
    return default


def logging_enabled(env: Mapping[str, str], policy_set: PolicySet) -> bool:
    """The decision log is on unless ``POLICY_ENGINE_LOG=0`` or the managed, else the user's, file
    says ``"log": false``."""
    if env.get("POLICY_ENGINE_LOG", "1") in ("0", "false", "no", "off"):
        return False
    return bool(layer_setting(policy_set, "log", True))


def self_protected(policy_set: PolicySet) -> bool:
    """Self-protection is on unless the managed file, else the user's (or explicit) policy, turns it off."""
    return bool(layer_setting(policy_set, "self_protection", True))


def _session_allowed(verdict: Verdict, session_id: str) -> Verdict:
    """An ask the person allowed for this session is an allow; nothing else changes (a deny, a
    protection, a nudge's message stay)."""
    if verdict.action is not Action.ASK or verdict.kind is VerdictKind.PROTECTION:
        return verdict
    return verdict._replace(action=Action.ALLOW, kind=VerdictKind.SESSION, detail=f"session {session_id}")


def _blocks_in_every_mode(verdict: Verdict) -> bool:
    """pathProtection, and a deny of the managed layer, block whatever the mode."""
    return verdict.kind is VerdictKind.PROTECTION or (
        verdict.layer == "managed" and verdict.action is Action.DENY
    )


def _recognised(confined: str, script: str) -> bool:
    """Whether ``confined``, the wrapper made for ``script``, is recognised as ours when it comes
    back (``Engine._already_confined``): its script is read back as ``script``. Then it is judged as
    that script and wrapped again, which this very call has just done: the same verdicts, plan and
    wrapper while the files stay as they are; judging it once more here would only repeat that."""
    from .sandbox.wrap import script_in

    return script_in(confined) == script


def _confinement_note(
    decisive: Verdict | None, action: Action, sandbox: Confinement | None, unconfined: str | None
) -> str:
    """What the reason adds about a sandbox: the one the call runs in, that it needs none (it only
    reads), or why a rule's sandbox could not be had."""
    if sandbox is not None:
        return f" It runs in a sandbox ({sandbox.backend}): {sandbox.plan.describe()}."
    if decisive is not None and decisive.rule is not None and decisive.rule.sandbox is not None:
        if action < Action.ASK and unconfined is None:
            return " It is proven to only read: it runs as it is, no sandbox needed."
        return ""
    if unconfined is not None:
        return f" (A rule allows it in a sandbox, but {unconfined}.)"
    return ""


class Engine:
    """Judges tool calls against the policy files that apply to a working directory.

    ``Engine()`` discovers the managed, user and project files from the current directory (or
    ``cwd``); ``Engine("policy.jsonc")`` or ``Engine(["a.jsonc", "b.jsonc"])`` uses those files
    instead of user and project discovery. Loading raises :class:`ConfigError` for an invalid file.
    """

    def __init__(
        self,
        config: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        use_cache: bool | None = None,
        mode: str | None = None,
        state: StateStore | None = None,
        log: str | None = None,
        discovery: Discovery | None = None,
    ) -> None:
        env = os.environ if env is None else env
        explicit = [config] if isinstance(config, str | os.PathLike) else list(config or [])
        self.cwd = os.path.abspath(cwd or os.getcwd())
        # discovery: the files to use, found otherwise (policy test judges a project file so).
        self.discovery: Discovery = discovery or discover(self.cwd, env, [os.fspath(p) for p in explicit])
        use_cache = cache_enabled(env) if use_cache is None else use_cache
        self.policy_set: PolicySet = load(self.discovery, env, use_cache=use_cache)
        self.home = os.path.normpath(home_directory(env))
        guarded = self_protections(env, self.discovery, self.home) if self_protected(self.policy_set) else ()
        base = next(layer for layer in self.policy_set.layers if not layer.restrict_only)
        self._judges = [
            LayerJudge(layer, self.home, guarded if layer is base else ()) for layer in self.policy_set.layers
        ]
        self.mode = resolve_mode(mode, env, self.policy_set)
        self._spelled: dict[str, tuple[str, ...]] = {}
        self._spelled_at = perf_counter()
        self._cache_directory = cache_directory(env)
        self._analyzer: Analyzer | None = None
        # The environment the agent's commands start with (what tells git where its repository is).
        self._environ = env
        self._reader: Reader | None = None
        self.state: StateStore = MemoryState() if state is None else state
        self._layers = {layer.name: layer for layer in self.policy_set.layers}
        # An untrusted project file: a reason says so where it would have let a call through.
        untrusted = self._layers.get(UNTRUSTED)
        self._untrusted_file = untrusted.files[-1] if untrusted is not None else None
        self.log_path = log if log is not None and logging_enabled(env, self.policy_set) else None
        self._log_failed = False
        self.on_error = str(layer_setting(self.policy_set, "on_error", "deny"))

    def _shell(self, line: str, cwd: str) -> tuple[Atom, ...]:
        """The atoms of a bash line (the shell analysis is loaded on the first bash call)."""
        if self._analyzer is None:
            from .analysis.shell.analysis import Analyzer
            from .analysis.shell.knowledge import knowledge

            code = analysis_settings(self.policy_set)
            depth = (
                code.max_depth
                if code is not None
                else max(layer.interpreter.max_depth for layer in self.policy_set.layers)
            )
            self._analyzer = Analyzer(self.home, knowledge(self._cache_directory), depth, code, self._environ)
        return self._analyzer.atoms(line, cwd)

    def _command_reader(self) -> Reader:
        """What reads a command's options for option-aware patterns (loaded when a rule first asks)."""
        if self._reader is None:
            from .analysis.shell.commandline import Reader
            from .analysis.shell.knowledge import knowledge

            self._reader = Reader(knowledge(self._cache_directory))
        return self._reader

    def _spell(self, directory: str) -> tuple[str, ...]:
        found = self._spelled.get(directory)
        if found is None:
            found = self._spelled[directory] = spellings(directory)
        return found

    def evaluate(self, call: ToolCall) -> Decision:
        """The decision for one tool call (a relative ``call.cwd`` is taken from the engine's cwd)."""
        started = perf_counter()
        if not isinstance(call.tool, str) or not isinstance(call.cwd, str):
            raise TypeError("ToolCall.tool and ToolCall.cwd must be strings")
        if started - self._spelled_at > SPELLINGS_LIFETIME:
            self._spelled.clear()
            self._spelled_at = started
            for judge in self._judges:
                judge.forget_spellings()
        decision = self._decide(call, recheck=True)
        if self.log_path is not None and self.mode != "ignore":
            self._log(self.log_path, decision, round((perf_counter() - started) * 1e6))
        return decision

    def _decide(self, call: ToolCall, *, recheck: bool) -> Decision:
        """The decision for ``call``; ``recheck``: a command rewritten to run confined is checked to
        be recognised as ours when it comes back (the judgement of that one does not recheck).

        In steps: the call spelled out, its atoms judged (and confined where a rule allows it in a
        sandbox), the verdict explained, then applied by the mode (which may only report it) and
        the circuit breakers (which may turn a repeated deny into a stop)."""
        call, agent_tool = self._in_engine_terms(call)
        confined = self._already_confined(call) if call.tool == BASH else None
        if confined is not None:
            return confined
        context = Context(
            call.cwd,
            self.home,
            self.policy_set.project_root or call.cwd,
            self._spell,
            Search(),
            self._command_reader,
            call.workdir,
            resolved={},
        )
        troubles: list[str] = []  # what went wrong with the state store, for the reason
        atoms = atoms_of(call, self.home, self._shell, agent_tool)
        verdicts, decisive, sandbox, unconfined = self._judged(atoms, call, context, troubles, recheck)
        action = decisive.action if decisive is not None else Action.ALLOW
        message = decisive.message if decisive is not None and action is Action.NUDGE else None
        consequence = self._consequence(decisive, action, call)
        text = reason(action, decisive, call, verdicts, consequence=consequence)
        text += _confinement_note(decisive, action, sandbox, unconfined)
        judged = breaker = None
        if self.mode != "enforce":  # only pathProtection and managed denies still block
            judged, decisive = action, combine([v for v in verdicts if _blocks_in_every_mode(v)])
            action, message, text = self._unenforced(judged, decisive, call, verdicts, text)
        elif call.session_id and decisive is not None and action in (Action.DENY, Action.NUDGE):
            tripped = self._breaker(decisive, action, call.session_id, troubles)
            if tripped is not None:
                judged, action, breaker, message = action, tripped.action, tripped.breaker, None
                said = reason(action, decisive, call, verdicts, judged=judged, consequence=consequence)
                text = f"{said} {tripped.note}"
        if self._untrusted_file is not None and judged is None:
            text += untrusted_note(action, decisive, verdicts, self._untrusted_file)
        if troubles:
            text += f" ({'; '.join(dict.fromkeys(troubles))})"
        return Decision(
            action,
            text,
            message,
            decisive,
            tuple(verdicts),
            call,
            tuple(layer.name for layer in self.policy_set.layers),
            self.mode,
            judged,
            breaker,
            sandbox,
        )

    def _in_engine_terms(self, call: ToolCall) -> tuple[ToolCall, str]:
        """``call`` with the engine's tool name and absolute directories, and the agent's own tool
        name (the analysis reads some agents' tools by it)."""
        cwd = normalize(call.cwd, self.cwd, self.home) if call.cwd else self.cwd
        workdir = normalize(call.workdir, cwd, self.home) if call.workdir else None
        tool = canonical_tool(call.tool, call.agent)
        return call._replace(tool=tool, cwd=cwd, workdir=workdir if workdir != cwd else None), call.tool

    def _judged(
        self, atoms: Sequence[Atom], call: ToolCall, context: Context, troubles: list[str], recheck: bool
    ) -> tuple[list[Verdict], Verdict | None, Confinement | None, str | None]:
        """The verdicts on ``atoms``, the decisive one, and the sandbox the call runs in: whatever
        lets a bash call run (allow, and a nudge or log of another atom) runs it confined where a
        rule says so; when it cannot be (``unconfined`` says why), it is judged as if no rule
        allowed it in a sandbox."""
        verdicts = self._judge(atoms, call, context, troubles)
        decisive = combine(verdicts)
        action = decisive.action if decisive is not None else Action.ALLOW
        if not (action < Action.ASK and self.mode == "enforce" and call.tool == BASH):
            return verdicts, decisive, None, None
        sandbox, unconfined = self._confine(call, verdicts, context, recheck)
        if unconfined is not None:
            verdicts = self._judge(atoms, call, context._replace(sandboxes=False), troubles)
            decisive = combine(verdicts)
        return verdicts, decisive, sandbox, unconfined

    def _unenforced(
        self,
        judged: Action,
        decisive: Verdict | None,
        call: ToolCall,
        verdicts: Sequence[Verdict],
        text: str,
    ) -> tuple[Action, str | None, str]:
        """(action, message, reason) under the ``log`` or ``ignore`` mode: the call runs unless a
        verdict that blocks in every mode (``decisive``) refuses it; the reason says what the
        enforce mode would have done."""
        if decisive is None:
            return Action.ALLOW, None, unenforced(self.mode, judged, text)
        action = decisive.action
        consequence = self._consequence(decisive, action, call)
        return action, None, reason(action, decisive, call, verdicts, consequence=consequence)

    def _judge(
        self, atoms: Sequence[Atom], call: ToolCall, context: Context, troubles: list[str]
    ) -> list[Verdict]:
        """Every layer's verdicts on every atom, with the asks the person allowed for the session."""
        verdicts: list[Verdict] = []
        for atom in atoms:
            found = [verdict for judge in self._judges for verdict in judge.judge(atom, context)]
            # Only an ask can be allowed for the session: an atom without one never opens the store.
            asks = any(v.action is Action.ASK and v.kind is not VerdictKind.PROTECTION for v in found)
            if (
                asks
                and call.session_id
                and self._session_allows(call.session_id, atom_key(atom, call.workdir or call.cwd), troubles)
            ):
                found = [_session_allowed(verdict, call.session_id) for verdict in found]
            verdicts += found
        return verdicts

    def _confine(
        self, call: ToolCall, verdicts: list[Verdict], context: Context, recheck: bool
    ) -> tuple[Confinement | None, str | None]:
        """How an allowed bash call runs when a rule allows it only in a sandbox (None: no rule
        asks for one), or why it cannot be confined (no backend, an agent that cannot run a changed
        command, a project the sandbox cannot hold): the call is then judged without those rules."""
        # An atom the analysis proves only reads needs no sandbox (`tsc --version`); asked once per
        # atom, not once per verdict (an atom with thousands of paths has a verdict for each).
        proven: dict[int, bool] = {}

        def reads_only(atom: Atom) -> bool:
            if id(atom) not in proven:
                proven[id(atom)] = atom.read_only
            return proven[id(atom)]

        wanted = [
            v.rule.sandbox
            for v in verdicts
            if v.action is Action.ALLOW
            and v.rule is not None
            and v.rule.sandbox is not None
            and not reads_only(v.atom)
        ]
        if not wanted:
            return None, None
        from .sandbox.confine import confinement

        command = call.input.get("command") if isinstance(call.input, Mapping) else None
        found = confinement(
            wanted,
            command if isinstance(command, str) else "",
            call,
            self._placed(context),
            project=self.policy_set.project_root or call.cwd,
            home=self.home,
            env=self._environ,
            secret=self._command_reader().knowledge.secret_variable,
        )
        if isinstance(found, str):
            return None, found
        if recheck and not _recognised(found.command, command if isinstance(command, str) else ""):
            return None, "the confined command did not pass its own check (it would not be recognised)"
        return found, None

    def _already_confined(self, call: ToolCall) -> Decision | None:
        """The decision for a command that is our own sandbox wrapper around a script: the script's,
        as run confined (nothing to rewrite), when wrapping the script now makes exactly this
        command; None for any other command (judged as it is)."""
        from .sandbox.wrap import script_in

        command = call.input.get("command") if isinstance(call.input, Mapping) else None
        script = script_in(command) if isinstance(command, str) else None
        if script is None:
            return None
        inner = self._decide(call._replace(input={**call.input, "command": script}), recheck=False)
        if inner.action >= Action.ASK or inner.sandbox is None or inner.sandbox.command != command:
            return None
        return inner._replace(call=call, sandbox=inner.sandbox._replace(applied=True))

    def _placed(self, context: Context) -> tuple[Guard, ...]:
        """Every layer's protections placed for ``context`` (what a sandbox hides or keeps read-only)."""
        return tuple(guard for judge in self._judges for guard in judge.placed(context))

    def _consequence(self, decisive: Verdict | None, action: Action, call: ToolCall) -> Consequence | None:
        """What the decisive atom of an ask or a deny would change (consequences.py), for its reason;
        None for any other action: the allow path never looks at the file system for it."""
        if decisive is None or action < Action.ASK:
            return None
        from .explain.consequences import inspect

        atom = decisive.atom
        try:
            reader = self._command_reader() if atom.command is not None and atom.words else None
            return inspect(atom, call.workdir or call.cwd, reader)
        except Exception:  # what a call would change only informs: it never changes a decision
            return None

    def _session_allows(self, session_id: str, key: str, troubles: list[str]) -> bool:
        try:
            return self.state.allowed(session_id, key, now())
        except StateError as error:
            troubles.append(f"{error}; session allows are not applied")
            return False

    def _breaker(
        self, decisive: Verdict, action: Action, session_id: str, troubles: list[str]
    ) -> Tripped | None:
        layer = self._layers[decisive.layer]
        try:
            return escalated(decisive, action, layer, session_id, self.state, now())
        except StateError as error:
            troubles.append(f"{error}; judged without circuit breakers")
            # Never more loosely than with the store: a nudge that nudgeTimeout may have turned into
            # a deny by now is one (uncounted), while agentTimeout, which only loosens, stays off.
            return unstored(decisive, action, layer)

    def _log(self, path: str, decision: Decision, microseconds: int) -> None:
        """Append the decision to the decision log; a failure is reported once on stderr, never raised."""
        from .decisionlog.writer import append
        from .explain.report import log_record

        record = log_record(decision, microseconds, self.policy_set.digest)
        if max(decision.action, decision.judged or Action.ALLOW) >= Action.ASK:
            record["reason"] = decision.reason  # what the person was asked, with what it would change
        problem = append(path, record)
        if problem is not None and not self._log_failed:
            self._log_failed = True
            print(f"policy-engine: {problem}", file=sys.stderr)

    def record_outcome(self, call: ToolCall, ran: bool) -> None:
        """Record whether a judged tool call ran (an agent's post-tool-use report), for ``policy log``."""
        if self.log_path is None:
            return
        from .decisionlog.writer import append
        from .explain.report import outcome_record

        append(self.log_path, outcome_record(call, ran))

    def allow_for_session(self, decision: Decision, ttl: float = DEFAULT_TTL) -> int:
        """Remember "allow for this session" for the atoms of ``decision`` that asked (and that no
        deny refused), in the call's session, for ``ttl`` seconds; returns how many were stored."""
        session_id = decision.call.session_id
        if not session_id:
            raise ValueError("the tool call carries no session id")
        asked: dict[Atom, bool] = {}
        for verdict in decision.verdicts:
            if verdict.action is Action.DENY:
                asked[verdict.atom] = False
            elif verdict.action is Action.ASK and verdict.kind is not VerdictKind.PROTECTION:
                asked.setdefault(verdict.atom, True)
        expires = now() + ttl
        for atom in (atom for atom, ask in asked.items() if ask):
            self.state.allow(session_id, atom_key(atom, decision.call.workdir or decision.call.cwd), expires)
        return sum(asked.values())
