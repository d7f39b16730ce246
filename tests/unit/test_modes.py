"""Modes: enforce (default) applies decisions; inform and ignore report them, and only
pathProtection and managed denies block. Set by --mode, POLICY_ENGINE_MODE, or the config's mode,
which an untrusted project file cannot set."""

from __future__ import annotations

import pytest
from helpers import Sandbox, bash

from policy_engine import Action, ConfigError, Engine

POLICY = """
    {
      %s
      "policies": { "p": { "defaultAction": "ask", "rules": [
        { "action": "allow", "tool": "bash", "pattern": "ls" },
        { "action": "deny", "tool": "bash", "pattern": "rm *" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "use rg" },
      ] } },
      "defaultPolicy": "p",
      "pathProtection": { "~/.ssh/": "deny" },
    }
"""


def engine_with(sandbox: Sandbox, mode_key: str = "", mode: str | None = None) -> Engine:
    config = sandbox.write("policy.jsonc", POLICY % mode_key)
    return Engine(str(config), cwd=str(sandbox.root), env=sandbox.env, mode=mode)


def test_enforce_is_the_default(sandbox: Sandbox) -> None:
    engine = engine_with(sandbox)
    decision = engine.evaluate(bash("rm -rf x", sandbox.root))
    assert (engine.mode, decision.action, decision.judged) == ("enforce", Action.DENY, None)


@pytest.mark.parametrize("mode", ["inform", "ignore"])
def test_outside_enforce_only_protection_blocks(sandbox: Sandbox, mode: str) -> None:
    engine = engine_with(sandbox, mode=mode)
    denied = engine.evaluate(bash("rm -rf x", sandbox.root))
    assert (denied.action, denied.judged, denied.mode) == (Action.ALLOW, Action.DENY, mode)
    assert denied.reason.startswith(f"[policy-engine] {mode} mode, not enforced: would be deny: Denied:")
    asked = engine.evaluate(bash("git push", sandbox.root))
    assert (asked.action, asked.judged) == (Action.ALLOW, Action.ASK)
    nudged = engine.evaluate(bash("grep x f", sandbox.root))
    assert (nudged.action, nudged.message) == (Action.ALLOW, None)
    protected = engine.evaluate(bash("cat ~/.ssh/id_rsa", sandbox.root))
    assert (protected.action, protected.judged) == (Action.DENY, Action.DENY)
    assert "pathProtection" in protected.reason


def test_a_managed_deny_blocks_in_inform_mode(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.managed_config,
        '{ "policies": { "m": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "bash", '
        '"pattern": "curl *" } ] } }, "defaultPolicy": "m" }',
    )
    engine = engine_with(sandbox, mode="inform")
    assert engine.evaluate(bash("curl https://x", sandbox.root)).action is Action.DENY
    assert engine.evaluate(bash("rm x", sandbox.root)).action is Action.ALLOW  # the user's own deny


def test_the_mode_comes_from_the_argument_then_the_environment_then_the_config(sandbox: Sandbox) -> None:
    assert engine_with(sandbox, '"mode": "inform",').mode == "inform"
    sandbox.env["POLICY_ENGINE_MODE"] = "ignore"
    assert engine_with(sandbox, '"mode": "inform",').mode == "ignore"
    assert engine_with(sandbox, '"mode": "inform",', mode="enforce").mode == "enforce"


def test_an_unknown_mode_in_the_environment_is_an_error(sandbox: Sandbox) -> None:
    sandbox.env["POLICY_ENGINE_MODE"] = "off"
    with pytest.raises(ConfigError, match='POLICY_ENGINE_MODE: mode: unknown mode "off"'):
        engine_with(sandbox)


def test_an_unknown_mode_in_a_file_is_an_error(sandbox: Sandbox) -> None:
    with pytest.raises(ConfigError, match="mode"):
        engine_with(sandbox, '"mode": "audit",')


def test_a_project_file_cannot_set_the_mode(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, POLICY % "")
    project = sandbox.project("repo", '{ "mode": "ignore" }')
    engine = sandbox.engine(cwd=project)
    assert [layer.name for layer in engine.policy_set.layers] == ["user", "project (untrusted)"]
    assert engine.mode == "enforce"
    assert engine.evaluate(bash("rm x", project)).action is Action.DENY
    # Trusted neither: the mode reaches beyond the project, so it is the user's to set.
    assert sandbox.run("trust", str(project)).returncode == 0
    trusted = sandbox.engine(cwd=project)
    assert trusted.mode == "enforce"
    assert any(
        "mode of a project file does not apply" in c.text for c in trusted.policy_set.layers[0].changes
    )


def test_the_mode_survives_the_compiled_cache(sandbox: Sandbox) -> None:
    first = engine_with(sandbox, '"mode": "inform",')
    second = engine_with(sandbox, '"mode": "inform",')
    assert first.mode == second.mode == "inform"


def test_policy_check_mode_flag(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY % "")
    enforced = sandbox.run("check", "--config", str(config), "rm -rf x")
    assert enforced.returncode == 20 and enforced.stdout.startswith("deny: ")
    informed = sandbox.check_json("--config", str(config), "--mode", "inform", "rm -rf x")
    assert (informed["action"], informed["judged"], informed["mode"]) == ("allow", "deny", "inform")
    assert sandbox.run("check", "--config", str(config), "--mode", "inform", "rm -rf x").returncode == 0
    bad = sandbox.run("check", "--config", str(config), "--mode", "off", "ls")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_the_managed_file_s_mode_wins_over_the_environment_and_the_argument(sandbox: Sandbox) -> None:
    """An administrator's enforce cannot be turned off by what the agent's environment carries
    (POLICY_ENGINE_MODE persisted through a tool's config file, say)."""
    sandbox.write(sandbox.managed_config, '{ "mode": "enforce" }')
    sandbox.env["POLICY_ENGINE_MODE"] = "ignore"
    assert engine_with(sandbox, '"mode": "inform",').mode == "enforce"
    assert engine_with(sandbox, mode="inform").mode == "enforce"
