"""Discovery, layers and trust: which files apply, who may loosen, who may only tighten."""

from __future__ import annotations

import hashlib
import json
import os

from helpers import Sandbox, bash, tool

from policy_engine import Action

USER = """
{
  "policies": {
    "home": { "defaultAction": "allow", "rules": [ { "action": "ask", "tool": "bash", "pattern": "rm *" } ] },
  },
  "locations": { "~": "home" },
  "defaultPolicy": "home",
}
"""

# A project file that loosens (allows rm) and tightens (denies curl).
PROJECT = """
{
  "policies": {
    "home": { "defaultAction": "allow", "rules": [
      { "action": "allow", "tool": "bash", "pattern": "rm *" },
      { "action": "deny", "tool": "bash", "pattern": "curl *" },
    ] },
  },
}
"""


def test_user_file_is_found_in_xdg_config_home(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    engine = sandbox.engine(cwd=sandbox.home)
    assert [layer.name for layer in engine.policy_set.layers] == ["user"]
    assert engine.evaluate(bash("rm x", sandbox.home)).action is Action.ASK


def test_xdg_config_home_defaults_to_dot_config(sandbox: Sandbox) -> None:
    del sandbox.env["XDG_CONFIG_HOME"]
    sandbox.write(sandbox.home / ".config" / "policy-engine" / "policy.jsonc", USER)
    engine = sandbox.engine(cwd=sandbox.home)
    assert engine.policy_set.layers[0].files == (
        str(sandbox.home / ".config" / "policy-engine" / "policy.jsonc"),
    )


def test_untrusted_project_can_tighten_but_not_loosen(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    engine = sandbox.engine(cwd=project)
    assert [layer.name for layer in engine.policy_set.layers] == ["user", "project (untrusted)"]
    assert engine.evaluate(bash("rm x", project)).action is Action.ASK  # the user's ask stands
    curl = engine.evaluate(bash("curl https://example.com", project))
    assert curl.action is Action.DENY  # the project's deny applies
    assert curl.decisive.layer == "project (untrusted)"
    assert "[project (untrusted) layer]" in curl.reason


def test_trusted_project_merges_over_the_user_file(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    result = sandbox.run("trust", str(project))
    assert result.returncode == 0, result.stderr
    assert "trusted" in result.stdout
    engine = sandbox.engine(cwd=project)
    assert [layer.name for layer in engine.policy_set.layers] == ["user+project"]
    assert engine.evaluate(bash("rm x", project)).action is Action.ALLOW  # loosened: the rules array replaced
    assert engine.evaluate(bash("curl x", project)).action is Action.DENY


def test_editing_a_trusted_project_file_untrusts_it(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    assert sandbox.run("trust", str(project)).returncode == 0
    policy_file = project / ".policy-engine" / "policy.jsonc"
    policy_file.write_text(policy_file.read_text() + "\n// edited\n")
    engine = sandbox.engine(cwd=project)
    assert engine.policy_set.layers[-1].name == "project (untrusted)"
    assert engine.evaluate(bash("rm x", project)).action is Action.ASK
    status = sandbox.run("config", "--cwd", str(project))
    assert "changed since it was trusted" in status.stdout


def test_untrust_makes_it_restrictive_again(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    assert sandbox.run("trust", str(project)).returncode == 0
    result = sandbox.run("untrust", str(project))
    assert result.returncode == 0 and "untrusted" in result.stdout
    assert sandbox.engine(cwd=project).evaluate(bash("rm x", project)).action is Action.ASK
    store = json.loads((sandbox.root / "data" / "policy-engine" / "trust.json").read_text())
    assert store["trusted"] == {}


def test_trust_records_real_path_and_sha256(sandbox: Sandbox) -> None:
    project = sandbox.project("repo", PROJECT)
    subdirectory = project / "src"
    subdirectory.mkdir()
    assert sandbox.run("trust", str(subdirectory)).returncode == 0  # found walking up
    store = json.loads((sandbox.root / "data" / "policy-engine" / "trust.json").read_text())
    (entry_path, entry), *_ = store["trusted"].items()
    assert entry_path == os.path.realpath(project / ".policy-engine" / "policy.jsonc")
    expected = hashlib.sha256((project / ".policy-engine" / "policy.jsonc").read_bytes()).hexdigest()
    assert entry["sha256"] == expected


def test_trust_refuses_an_invalid_file(sandbox: Sandbox) -> None:
    project = sandbox.project("repo", '{ "policies": { "p": { "defaultAction": "maybe" } } }')
    result = sandbox.run("trust", str(project))
    assert result.returncode == 3
    assert 'unknown action "maybe"' in result.stderr
    assert not (sandbox.root / "data" / "policy-engine" / "trust.json").exists()


def test_trust_without_a_project_file_is_a_usage_error(sandbox: Sandbox) -> None:
    result = sandbox.run("trust", str(sandbox.project("empty")))
    assert result.returncode == 2
    assert "no project policy file" in result.stderr


def test_nearest_project_file_walking_up(sandbox: Sandbox) -> None:
    outer = sandbox.project(
        "outer", '{ "policies": { "o": { "defaultAction": "deny" } }, "defaultPolicy": "o" }'
    )
    inner = sandbox.project(
        "outer/inner", '{ "policies": { "i": { "defaultAction": "ask" } }, "defaultPolicy": "i" }'
    )
    deep = inner / "a" / "b"
    deep.mkdir(parents=True)
    engine = sandbox.engine(cwd=deep)
    assert engine.discovery.project_root == str(inner)
    assert engine.evaluate(bash("make", deep)).action is Action.ASK  # inner's, not outer's deny
    assert sandbox.engine(cwd=outer).evaluate(bash("make", outer)).action is Action.DENY


def test_managed_layer_only_tightens(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    sandbox.write(
        sandbox.managed_config,
        """
        { "policies": { "corp": { "defaultAction": "allow", "rules": [
            { "action": "deny", "tool": "bash", "pattern": "curl *" },
            { "action": "allow", "tool": "bash", "pattern": "rm *" } ] } },
          "defaultPolicy": "corp" }
        """,
    )
    engine = sandbox.engine(cwd=sandbox.home)
    assert [layer.name for layer in engine.policy_set.layers] == ["managed", "user"]
    curl = engine.evaluate(bash("curl x", sandbox.home))
    assert (curl.action, curl.decisive.layer) == (Action.DENY, "managed")
    assert engine.evaluate(bash("rm x", sandbox.home)).action is Action.ASK  # managed allow cannot loosen


def test_managed_layer_applies_with_explicit_config_too(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.managed_config, '{ "policies": { "c": { "defaultAction": "deny" } }, "defaultPolicy": "c" }'
    )
    explicit = sandbox.write(
        "mine.jsonc", '{ "policies": { "m": { "defaultAction": "allow" } }, "defaultPolicy": "m" }'
    )
    engine = sandbox.engine(explicit)
    assert [layer.name for layer in engine.policy_set.layers] == ["managed", "config"]
    assert engine.evaluate(bash("ls", "/")).action is Action.DENY


def test_empty_managed_variable_disables_the_managed_file(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.managed_config, '{ "policies": { "c": { "defaultAction": "deny" } }, "defaultPolicy": "c" }'
    )
    sandbox.env["POLICY_ENGINE_MANAGED_CONFIG"] = ""
    sandbox.write(sandbox.user_config, USER)
    assert [layer.name for layer in sandbox.engine(cwd=sandbox.home).policy_set.layers] == ["user"]


def test_explicit_files_replace_discovery_and_merge_in_order(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    first = sandbox.write(
        "a.jsonc", '{ "policies": { "p": { "defaultAction": "deny" } }, "defaultPolicy": "p" }'
    )
    second = sandbox.write("b.jsonc", '{ "policies": { "p": { "defaultAction": "log" } } }')
    engine = sandbox.engine([first, second], cwd=project)
    assert [layer.name for layer in engine.policy_set.layers] == ["config"]
    assert engine.policy_set.layers[0].files == (str(first), str(second))
    assert engine.evaluate(bash("rm x", project)).action is Action.LOG


def test_policy_engine_config_variable_is_a_path_list(sandbox: Sandbox) -> None:
    first = sandbox.write(
        "a.jsonc", '{ "policies": { "p": { "defaultAction": "deny" } }, "defaultPolicy": "p" }'
    )
    second = sandbox.write("b.jsonc", '{ "policies": { "p": { "defaultAction": "ask" } } }')
    result = sandbox.run("check", "ls", env={"POLICY_ENGINE_CONFIG": f"{first}{os.pathsep}{second}"})
    assert result.returncode == 10, result.stderr
    status = sandbox.run("config", "--json", env={"POLICY_ENGINE_CONFIG": f"{first}{os.pathsep}{second}"})
    report = json.loads(status.stdout)
    assert [f["path"] for f in report["files"]] == [str(first), str(second)]
    assert any("POLICY_ENGINE_CONFIG replaces discovery" in line for line in report["searched"])


def test_pi_control_files_are_read_when_ours_are_absent(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.root / "pi-agent" / "extensions" / "pi-controls.json", USER)
    project = sandbox.project("repo")
    sandbox.write(project / ".pi" / "extensions" / "pi-controls.jsonc", PROJECT)
    engine = sandbox.engine(cwd=project)
    assert [source.flavor for source in engine.discovery.sources] == ["pi-control", "pi-control"]
    assert engine.evaluate(bash("rm x", project)).action is Action.ASK
    assert engine.evaluate(bash("curl x", project)).action is Action.DENY  # untrusted project tightens
    # our own files win over pi-control's
    sandbox.write(
        sandbox.user_config, '{ "policies": { "p": { "defaultAction": "log" } }, "defaultPolicy": "p" }'
    )
    sandbox.write(project / ".policy-engine" / "policy.jsonc", "{}")
    engine = sandbox.engine(cwd=project)
    assert [source.flavor for source in engine.discovery.sources] == ["policy-engine", "policy-engine"]
    assert engine.evaluate(bash("rm x", project)).action is Action.LOG


def test_pi_control_agent_dir_defaults_to_dot_pi_agent(sandbox: Sandbox) -> None:
    del sandbox.env["PI_CODING_AGENT_DIR"]
    sandbox.write(sandbox.home / ".pi" / "agent" / "extensions" / "pi-controls.jsonc", USER)
    engine = sandbox.engine(cwd=sandbox.home)
    assert engine.discovery.sources[0].path.endswith(".pi/agent/extensions/pi-controls.jsonc")


def test_no_config_anywhere_uses_the_embedded_default(sandbox: Sandbox) -> None:
    engine = sandbox.engine(cwd=sandbox.project("repo"))
    assert [layer.name for layer in engine.policy_set.layers] == ["embedded default"]
    result = sandbox.run("check", "--explain", "rm -rf /", cwd=sandbox.project("repo"))
    assert result.returncode == 20  # it would delete protected paths
    assert "embedded default" in result.stdout
    assert "presets/default.jsonc" in result.stdout


def test_untrusted_project_alone_tightens_the_embedded_default(sandbox: Sandbox) -> None:
    project = sandbox.project(
        "repo", '{ "policies": { "p": { "defaultAction": "deny" } }, "locations": { "$cwd": "p" } }'
    )
    engine = sandbox.engine(cwd=project)
    assert [layer.name for layer in engine.policy_set.layers] == ["embedded default", "project (untrusted)"]
    assert engine.evaluate(tool("read", project, path="README.md")).action is Action.DENY


def test_config_command_explains_files_layers_and_trust(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, USER)
    project = sandbox.project("repo", PROJECT)
    result = sandbox.run("config", "--cwd", str(project))
    assert result.returncode == 0, result.stderr
    assert f"user: {sandbox.user_config} (found)" in result.stdout
    assert "managed: " in result.stdout and "(not found)" in result.stdout
    assert "never trusted" in result.stdout
    assert "layer project (untrusted) (can only tighten)" in result.stdout
    sandbox.run("trust", str(project))
    trusted = json.loads(sandbox.run("status", "--json", "--cwd", str(project)).stdout)
    assert trusted["files"][1]["trust"].startswith("trusted")
    assert [layer["name"] for layer in trusted["layers"]] == ["user+project"]
    assert trusted["project_root"] == str(project)


def test_config_command_reports_problems_with_exit_3(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, '{ "policies": 3 }')
    result = sandbox.run("config")
    assert result.returncode == 3
    assert "policies: expected an object, got a number" in result.stdout


def test_approval_rules_of_user_and_project_are_concatenated(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.user_config,
        '{ "approvalRules": [ { "action": "allow", "tool": "bash", "pattern": "make", "policy": "p" } ] }',
    )
    project = sandbox.project(
        "repo", '{ "approvalRules": [ { "action": "allow", "tool": "bash", "pattern": "npm test" } ] }'
    )
    assert sandbox.run("trust", str(project)).returncode == 0
    (layer,) = sandbox.engine(cwd=project).policy_set.layers
    assert [(r.pattern, r.policy, r.origin.file) for r in layer.approval_rules] == [
        ("make", "p", str(sandbox.user_config)),
        ("npm test", None, str(project / ".policy-engine" / "policy.jsonc")),
    ]
