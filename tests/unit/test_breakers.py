"""Circuit breakers (agentTimeout, nudgeTimeout) per agent session and rule, the state store they
count in, and the decision log: each edge, each failure of the store, and real concurrent processes."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import Sandbox

from policy_engine import Action, Engine, ToolCall

POLICY = """
    {
      "policies": { "p": { "defaultAction": "allow", "rules": [
        { "action": "deny", "tool": "bash", "pattern": "rm *" },
        { "action": "deny", "tool": "bash", "pattern": "curl *" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "use rg" },
        { "action": "nudge", "tool": "bash", "pattern": "find *", "message": "use fd" },
        { "action": "ask", "tool": "bash", "pattern": "npm *" },
      ] } },
      "defaultPolicy": "p",
      "pathProtection": { "~/.ssh/": "deny" },
      "agentTimeout": { "maxDenies": 3, "windowSeconds": 60 },
      "nudgeTimeout": { "maxNudges": 3, "windowSeconds": 60 },
      %s
    }
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("policy_engine.engine.now", clock)
    return clock


def engine_for(sandbox: Sandbox, extra: str = "", **options: object) -> Engine:
    config = sandbox.write("policy.jsonc", POLICY % extra)
    return Engine(str(config), cwd=str(sandbox.root), env=sandbox.env, **options)  # type: ignore[arg-type]


def run(engine: Engine, command: str, session: str | None = "s1") -> Action:
    return engine.evaluate(ToolCall("bash", {"command": command}, engine.cwd, session_id=session)).action


def test_agent_timeout_escalates_the_nth_deny_and_those_after_it(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    actions = [run(engine, f"rm -rf x{n}") for n in range(5)]
    assert actions == [Action.DENY, Action.DENY, Action.ASK, Action.ASK, Action.ASK]
    decision = engine.evaluate(ToolCall("bash", {"command": "rm y"}, engine.cwd, session_id="s1"))
    assert (decision.action, decision.judged, decision.breaker) == (Action.ASK, Action.DENY, "agentTimeout")
    assert decision.reason.startswith("[policy-engine] Needs approval: bash (rm y): deletes ")
    assert 'rule deny bash "rm *"' in decision.reason
    assert "agentTimeout: 6 denies of this rule within 60s in this session" in decision.reason


def test_agent_timeout_window_slides(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    assert run(engine, "rm a") is Action.DENY
    clock.now += 30
    assert run(engine, "rm b") is Action.DENY
    clock.now += 31  # the first deny is now out of the window
    assert run(engine, "rm c") is Action.DENY
    clock.now += 1
    assert run(engine, "rm d") is Action.ASK  # b, c, d within 60 s


def test_agent_timeout_counts_per_session_and_per_rule(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    assert [run(engine, "rm a"), run(engine, "rm b")] == [Action.DENY, Action.DENY]
    assert run(engine, "rm c", session="s2") is Action.DENY  # another session
    assert run(engine, "curl https://x") is Action.DENY  # another rule
    assert run(engine, "curl https://y") is Action.DENY
    assert run(engine, "rm d") is Action.ASK
    assert run(engine, "rm e", session=None) is Action.DENY  # no session: no breaker


def test_protection_and_managed_denies_are_never_escalated(sandbox: Sandbox, clock: Clock) -> None:
    sandbox.write(
        sandbox.managed_config,
        '{ "policies": { "m": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "bash", '
        '"pattern": "shutdown*" } ] } }, "defaultPolicy": "m", "agentTimeout": { "maxDenies": 1, '
        '"windowSeconds": 60 } }',
    )
    engine = engine_for(sandbox)
    assert [run(engine, "cat ~/.ssh/id_rsa") for _ in range(4)] == [Action.DENY] * 4
    assert [run(engine, "shutdown now") for _ in range(4)] == [Action.DENY] * 4


def test_nudge_timeout_denies_the_nth_nudge_then_starts_again(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    decisions = [
        engine.evaluate(ToolCall("bash", {"command": f"grep x f{n}"}, engine.cwd, session_id="s1"))
        for n in range(5)
    ]
    assert [d.action for d in decisions] == [
        Action.NUDGE,
        Action.NUDGE,
        Action.DENY,
        Action.NUDGE,
        Action.NUDGE,
    ]
    tripped = decisions[2]
    assert (tripped.judged, tripped.breaker, tripped.message) == (Action.NUDGE, "nudgeTimeout", None)
    assert 'You were repeatedly warned: "use rg". You MUST switch approach now.' in tripped.reason
    assert tripped.reason.startswith("[policy-engine] Denied: bash (grep x f2)")
    assert run(engine, "find . -name x") is Action.NUDGE  # another rule counts apart


def test_nudge_timeout_window_slides(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    assert run(engine, "grep a f") is Action.NUDGE
    assert run(engine, "grep b f") is Action.NUDGE
    clock.now += 61
    assert run(engine, "grep c f") is Action.NUDGE


def test_breakers_do_not_run_outside_enforce(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox, mode="inform")
    assert {run(engine, "rm x") for _ in range(5)} == {Action.ALLOW}


def test_an_escalated_ask_is_never_allowed_for_the_session(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox)
    for _ in range(2):
        run(engine, "rm x")
    escalated = engine.evaluate(ToolCall("bash", {"command": "rm x"}, engine.cwd, session_id="s1"))
    assert escalated.action is Action.ASK
    assert engine.allow_for_session(escalated) == 0
    assert run(engine, "rm x") is Action.ASK  # still the breaker's ask, never an allow


class BrokenStore:
    """A state store that cannot be used."""

    def allowed(self, session_id: str, key: str, now: float) -> bool:
        raise self.error()

    def allow(self, session_id: str, key: str, expires: float) -> None:
        raise self.error()

    def tally(self, kind: str, session_id: str, key: str, *, now: float, window: float, record: bool) -> int:
        raise self.error()

    def clear(self, kind: str, session_id: str, key: str) -> None:
        raise self.error()

    def error(self) -> Exception:
        from policy_engine.session.state import StateError

        return StateError("the state store /x/state.db is locked by another process")


def test_a_broken_store_never_turns_a_deny_into_an_allow(sandbox: Sandbox, clock: Clock) -> None:
    engine = engine_for(sandbox, state=BrokenStore())
    decisions = [
        engine.evaluate(ToolCall("bash", {"command": "rm x"}, engine.cwd, session_id="s1")) for _ in range(4)
    ]
    assert {d.action for d in decisions} == {Action.DENY}
    assert "judged without circuit breakers" in decisions[0].reason
    assert "is locked by another process" in decisions[0].reason
    asked = engine.evaluate(ToolCall("bash", {"command": "npm publish"}, engine.cwd, session_id="s1"))
    assert asked.action is Action.ASK and "session allows are not applied" in asked.reason


def test_a_broken_store_applies_a_nudge_timeout_as_the_deny_it_may_have_become(
    sandbox: Sandbox, clock: Clock
) -> None:
    """With a working store the 3rd ignored nudge is a deny; with a broken one the count is unknown,
    so each such nudge is that deny (never more loosely), and the reason says why."""
    engine = engine_for(sandbox, state=BrokenStore())
    decision = engine.evaluate(ToolCall("bash", {"command": "grep x f"}, engine.cwd, session_id="s1"))
    assert decision.action is Action.DENY
    assert (decision.judged, decision.breaker) == (Action.NUDGE, "nudgeTimeout")
    assert "cannot count this warning" in decision.reason and '"use rg"' in decision.reason
    assert "judged without circuit breakers" in decision.reason
    # Without a session nothing is counted with a working store either: the nudge stays a nudge.
    plain = engine.evaluate(ToolCall("bash", {"command": "grep x f"}, engine.cwd))
    assert plain.action is Action.NUDGE


# ---- The CLI, the SQLite store and the decision log ----------------------------------------------


def state_env(sandbox: Sandbox) -> dict[str, str]:
    return {"POLICY_ENGINE_STATE_DIR": str(sandbox.root / "state")}


def log_lines(sandbox: Sandbox) -> list[dict[str, object]]:
    path = sandbox.root / "state" / "decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_concurrent_processes_count_and_log_exactly(sandbox: Sandbox) -> None:
    # 8 workers, each starting 5 `policy check` processes one after another: 40 processes, 8 at a
    # time, all in one session, each judging a deny of the same rule. With maxDenies 30, exactly the
    # 30th to 40th denies are escalated, whichever process makes them.
    config = sandbox.write("policy.jsonc", (POLICY % "").replace('"maxDenies": 3', '"maxDenies": 30'))
    env = state_env(sandbox)

    def worker(number: int) -> list[int]:
        statuses = []
        for call in range(5):
            result = sandbox.run(
                "check",
                "--config",
                str(config),
                "--session",
                "s1",
                "--tool-call-id",
                f"t{number}-{call}",
                "--agent",
                "test",
                f"rm -rf build{number}-{call}",
                env=env,
            )
            statuses.append(result.returncode)
        return statuses

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = [status for batch in pool.map(worker, range(8)) for status in batch]
    assert sorted(statuses) == [10] * 11 + [20] * 29
    lines = log_lines(sandbox)
    assert len(lines) == 40
    assert sorted(line["tool_call"] for line in lines) == sorted(
        f"t{n}-{c}" for n in range(8) for c in range(5)
    )
    escalated = [line for line in lines if line["breaker"] == "agentTimeout"]
    assert len(escalated) == 11 and all(
        line["judged"] == "deny" and line["action"] == "ask" for line in escalated
    )
    # The store holds exactly the 40 denies of that rule in that session.
    import time

    from policy_engine.session.breakers import DENY_EVENT, rule_key
    from policy_engine.session.statedb import SqliteState

    decisive = (
        Engine(str(config), cwd=str(sandbox.root), env=sandbox.env)
        .evaluate(ToolCall("bash", {"command": "rm -rf build"}, str(sandbox.root)))
        .decisive
    )
    assert decisive is not None
    store = SqliteState(str(sandbox.root / "state" / "state.db"))
    counted = store.tally(DENY_EVENT, "s1", rule_key(decisive), now=time.time(), window=3600, record=False)
    assert counted == 40


def test_a_logged_decision_says_everything_with_secrets_masked(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    command = 'curl -H "Authorization: Bearer sk-live-abcdef1234567890" https://x'
    result = sandbox.run(
        "check",
        "--config",
        str(config),
        "--session",
        "s9",
        "--agent",
        "claude",
        command,
        env=state_env(sandbox),
    )
    assert result.returncode == 20
    (line,) = log_lines(sandbox)
    assert "abcdef1234567890" not in json.dumps(line)
    assert line["event"] == "decision" and line["session"] == "s9" and line["agent"] == "claude"
    assert (line["tool"], line["action"], line["judged"], line["mode"]) == ("bash", "deny", "deny", "enforce")
    assert line["decided_by"]["rule"] == 'deny bash "curl *"'
    assert line["decided_by"]["at"].startswith(f"{config}:")
    (atom,) = line["atoms"]
    assert (atom["action"], atom["policy"], atom["kind"]) == ("deny", "p", "rule")
    assert atom["command"].startswith("curl -H Authorization: Bearer ") and "abcdef" not in atom["command"]
    assert isinstance(line["us"], int) and line["policy_hash"] and line["version"]


@pytest.mark.parametrize("off", ['"log": false,', "env"])
def test_the_log_can_be_turned_off(sandbox: Sandbox, off: str) -> None:
    config = sandbox.write("policy.jsonc", POLICY % (off if off != "env" else ""))
    env = {**state_env(sandbox), **({"POLICY_ENGINE_LOG": "0"} if off == "env" else {})}
    assert sandbox.run("check", "--config", str(config), "--session", "s1", "rm x", env=env).returncode == 20
    assert log_lines(sandbox) == []


def test_a_dry_run_records_nothing(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    for _ in range(4):
        assert sandbox.run("check", "--config", str(config), "rm x", env=state_env(sandbox)).returncode == 20
    assert not (sandbox.root / "state").exists()


@pytest.mark.parametrize("damage", ["garbage", "read-only", "not-a-directory"])
def test_a_damaged_store_fails_safe_through_the_cli(sandbox: Sandbox, damage: str) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    state = sandbox.root / "state"
    if damage == "not-a-directory":  # unwritable even for root: the state directory is a file
        state.write_text("not a directory")
        results = [
            sandbox.run("check", "--config", str(config), "--session", "s1", "rm x", env=state_env(sandbox))
            for _ in range(4)
        ]
        assert {r.returncode for r in results} == {20}, [r.stderr for r in results]
        assert all("judged without circuit breakers" in r.stdout for r in results)
        assert all("decision log" in r.stderr for r in results)  # said once per process, not raised
        return
    state.mkdir()
    if damage == "garbage":
        (state / "state.db").write_bytes(os.urandom(4096))
    else:
        state.chmod(0o500)
        probe = state / "probe"
        try:
            probe.write_text("x")
        except OSError:
            pass
        else:
            probe.unlink()
            state.chmod(0o700)
            pytest.skip("running as a user whom a read-only directory does not stop")
    try:
        results = [
            sandbox.run("check", "--config", str(config), "--session", "s1", "rm x", env=state_env(sandbox))
            for _ in range(4)
        ]
    finally:
        state.chmod(0o700)
    assert {r.returncode for r in results} == {20}, [r.stderr for r in results]
    assert all("judged without circuit breakers" in r.stdout for r in results)
    assert "Traceback" not in "".join(r.stderr for r in results)


def test_suggest_turns_asks_that_ran_into_allow_rules(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    env = state_env(sandbox)
    for number in range(3):
        for command in ("npm test", "npm run lint"):
            call = f"{command.replace(' ', '-')}-{number}"
            result = sandbox.run(
                "check", "--config", str(config), "--session", "s1", "--tool-call-id", call, command, env=env
            )
            assert result.returncode == 10
            ran = "--ran" if command == "npm test" else "--blocked"
            assert (
                sandbox.run(
                    "log", "outcome", "--session", "s1", "--tool-call-id", call, ran, env=env
                ).returncode
                == 0
            )
    shown = sandbox.run("log", "suggest", "--config", str(config), env=env)
    assert shown.returncode == 0, shown.stderr
    pasted = [
        json.loads(line.split("//")[0].strip().rstrip(","))
        for line in shown.stdout.splitlines()
        if line.startswith("{")
    ]
    assert pasted == [{"action": "allow", "tool": "bash", "pattern": "npm test"}]
    suggested = json.loads(sandbox.run("log", "suggest", "--json", "--config", str(config), env=env).stdout)
    (rule,) = suggested["allow"]
    # Pasted into the policy's rules, the suggestion turns those asks into allows.
    import json5

    data = json5.loads(config.read_text())
    data["policies"][rule["policy"]]["rules"].append(
        {"action": "allow", "tool": rule["tool"], "pattern": rule["pattern"]}
    )
    config.write_text(json.dumps(data))
    assert sandbox.run("check", "--config", str(config), "npm test").returncode == 0
    assert sandbox.run("check", "--config", str(config), "npm run lint").returncode == 10


def test_tail_and_stats(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    env = state_env(sandbox)
    for command in ("rm a", "ls", "npm test", "rm b"):
        sandbox.run("check", "--config", str(config), "--session", "s1", command, env=env)
    sandbox.run("check", "--config", str(config), "--session", "s2", "rm c", env=env)
    denied = json.loads(
        sandbox.run("log", "tail", "--json", "--action", "deny", "--session", "s1", env=env).stdout
    )
    assert [d["command"] for d in denied] == ["rm a", "rm b"]
    counted = json.loads(sandbox.run("log", "stats", "--json", "--since", "1h", env=env).stdout)
    assert counted["decisions"] == 5 and counted["actions"]["deny"] == 3 and counted["tools"]["bash"] == 5
    assert sandbox.run("log", "tail", env=env).stdout.count("\n") >= 5
