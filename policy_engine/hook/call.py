"""``policy hook --agent NAME``: one agent hook call, from stdin to the agent's answer, failing closed.

Whatever goes wrong — stdin that is not the agent's payload, a policy file with a mistake, an
internal error, a call that takes too long — the answer is the agent's *blocking* one (exit 2 with
the reason on stderr for Claude Code, Codex and Gemini CLI; never exit 1, which those agents take as
"run the tool anyway"), unless the user's policy says ``"onError": "allow"``. The reason says what
to fix.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping

from ..agents import agent_module
from ..agents.protocol import HookError, IncompleteCall, Reply, TooDeep, loads
from ..errors import ConfigError
from ..model import Action

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

    from ..engine import Engine
    from ..model import ToolCall
    from ..session.state import StateStore
    from .held import HeldNudges

DEFAULT_TIMEOUT = 20.0  # seconds; below the 30 s `policy install` gives the agents, so we answer first


class HookTimeout(BaseException):
    """The hook ran out of time. A BaseException, so that no ``except Exception`` on the way (what
    a call would change, an inline program's analysis) swallows it and runs on without a limit."""


def run(
    agent: str,
    text: str | bytes,
    env: Mapping[str, str],
    engine_for: Callable[[ToolCall, Mapping[str, str]], Engine] | None = None,
) -> Reply:
    """The reply to one hook payload (``text``) of ``agent``; never raises. ``engine_for`` gives the
    engine for a call (the daemon keeps them); by default one is built for this call."""
    module = agent_module(agent)
    engine: Engine | None = None
    try:
        with _deadline(_timeout(env)):
            payload = _payload(text)
            event = module.read(payload)
            engine = (engine_for or _engine)(event.call, env)
            if event.kind == "post":
                engine.record_outcome(event.call, bool(event.ran))
                note = _held(env).take(event.call) if getattr(module, "NUDGE_AFTER", False) else None
                reply: Reply = module.outcome(event, note)
                return reply
            _check_paths(event.call)
            decision = engine.evaluate(event.call)
            if decision.action is Action.NUDGE and getattr(module, "NUDGE_AFTER", False):
                _held(env).put(event.call, decision.message or decision.reason)
            reply = module.answer(decision, event)
            return reply
    except BaseException as error:
        reason = f"[policy-engine] Blocked: the policy engine could not judge this call: {_describe(error)}"
        if engine is not None and engine.on_error == "allow":  # the user chose to fail open
            proceeded: Reply = module.proceed(reason)
            return proceeded._replace(stderr=f"{reason} (onError is allow: not blocked)\n")
        refused: Reply = module.refuse(reason)
        return refused


def _check_paths(call: ToolCall) -> None:
    """A file tool that names no file is refused: judged at the working directory, it would be
    allowed for a file nobody saw."""
    from ..agents.toolnames import canonical_tool, missing_path

    if missing_path(canonical_tool(call.tool, call.agent), call.input):
        raise IncompleteCall(f"the {call.tool} call names no file (its path field is missing or empty)")


def _held(env: Mapping[str, str]) -> HeldNudges:
    from ..session.statedir import state_directory
    from .held import HeldNudges

    return HeldNudges(state_directory(env))


def _payload(text: str | bytes) -> dict[str, Any]:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise HookError(f"stdin is not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        payload = loads(text, "the payload")
    except ValueError as error:
        raise HookError(f"stdin is not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise HookError("stdin is not a JSON object")
    return payload


def _engine(call: ToolCall, env: Mapping[str, str]) -> Engine:
    return recording_engine(None, call.cwd, env)


def recording_engine(
    config: Any, cwd: str | None, env: Mapping[str, str], *, mode: str | None = None, logged: bool = True
) -> Engine:
    """An engine that keeps its session state in the SQLite store (opened when first needed) and,
    if ``logged``, writes the decision log: what a hook, the daemon and `policy check --session` use."""
    from ..engine import Engine
    from ..session.state import OnDemand, state_path
    from ..session.statedir import log_path, state_directory

    # policy doctor's sample calls: judged alike, but neither logged nor counted (samplepass.py;
    # the variable is named here so that a plain call imports nothing more).
    if env.get("POLICY_ENGINE_DOCTOR_PASS"):
        from .samplepass import honoured

        if honoured(env):
            return Engine(config, cwd=cwd, env=env, mode=mode)

    def open_store() -> StateStore:
        from ..session.statedb import SqliteState

        return SqliteState(state_path(state_directory(env)))

    log = log_path(env) if logged else None
    return Engine(config, cwd=cwd, env=env, mode=mode, state=OnDemand(open_store), log=log)


def _describe(error: BaseException) -> str:
    if isinstance(error, ConfigError):
        return f"{error.render()}\nFix the policy file (`policy check` shows the same error), then retry."
    if isinstance(error, IncompleteCall):
        return f"{error}; retry it with the path."
    if isinstance(error, TooDeep):
        return f"{error}, more than any tool call holds; it is refused unjudged."
    if isinstance(error, HookError):
        return f"{error}. Is the hook installed for the right agent (`policy doctor`)?"
    if isinstance(error, HookTimeout):
        return f"{error}. Raise POLICY_ENGINE_HOOK_TIMEOUT or simplify the call."
    return f"internal error {type(error).__name__}: {error}. Please report it; `policy doctor` may help."


def _timeout(env: Mapping[str, str]) -> float:
    try:
        return float(env.get("POLICY_ENGINE_HOOK_TIMEOUT", DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


class _deadline:
    """Raise HookTimeout in the main thread after ``seconds`` (SIGALRM; POSIX)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        def expire(signum: int, frame: FrameType | None) -> None:
            raise HookTimeout(f"judging took longer than {self.seconds:g} s")

        if self.seconds <= 0:  # no time left (setitimer would read 0 as "no timer")
            raise HookTimeout(f"judging took longer than {self.seconds:g} s")
        self.previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)
