"""policy init writes a commented starting file that extends the embedded default (never replacing
one), and policy presets lists what the default and the $name presets hold."""

from __future__ import annotations

import json

from helpers import Sandbox

from policy_engine.config.jsonc import parse


def test_init_writes_a_user_file_that_extends_the_default_lints_clean_and_passes_its_tests(
    sandbox: Sandbox,
) -> None:
    (sandbox.home / ".ssh").mkdir()
    written = sandbox.run("init")
    assert written.returncode == 0, written.stderr
    assert written.stdout.startswith(f"wrote {sandbox.user_config}: it extends the embedded default")
    document = parse(sandbox.user_config.read_text(), str(sandbox.user_config))
    assert "extends" not in document.data  # the default is extended without saying so
    assert document.data["$schema"].endswith("policy_engine/policy.schema.json")
    linted = sandbox.run("lint", str(sandbox.user_config))
    assert linted.returncode == 0 and linted.stdout.strip().endswith("0 errors, 0 warnings, 0 notes"), (
        linted.stdout
    )
    assert sandbox.run("test", str(sandbox.user_config)).stdout.strip().endswith("0 failed")
    repo = sandbox.project("repo")
    assert sandbox.run("check", "cat ~/.ssh/id_rsa", cwd=repo).returncode == 20  # still protected
    again = sandbox.run("init")
    assert again.returncode == 2 and "exists already" in again.stderr  # never replaced


def test_init_project_writes_an_untrusted_project_file(sandbox: Sandbox) -> None:
    repo = sandbox.project("repo")
    written = sandbox.run("init", "--project", cwd=repo)
    assert written.returncode == 0, written.stderr
    assert "policy trust" in written.stdout
    path = repo / ".policy-engine" / "policy.jsonc"
    assert sandbox.run("lint", str(path)).returncode == 0
    tested = sandbox.run("test", cwd=repo)
    assert tested.returncode == 0, tested.stdout  # untrusted, its tests still hold: they only tighten
    assert "not trusted" in tested.stdout
    assert sandbox.run("check", "git push -f origin main", cwd=repo).returncode == 20


def test_init_prints_and_respects_a_pi_control_user_file(sandbox: Sandbox) -> None:
    printed = sandbox.run("init", "--print")
    assert printed.returncode == 0 and '"tests": [' in printed.stdout and not sandbox.user_config.exists()
    sandbox.write(sandbox.root / "pi-agent" / "extensions" / "pi-controls.json", "{}")
    refused = sandbox.run("init")
    assert refused.returncode == 2 and "pi-control's" in refused.stderr and not sandbox.user_config.exists()


def test_an_agent_running_policy_init_is_asked_about(sandbox: Sandbox) -> None:
    result = sandbox.check_json("policy init --project", cwd=sandbox.project("repo"))
    assert result["action"] == "ask" and "policy init writes a policy file" in result["reason"]


def test_presets_lists_the_default_and_every_preset(sandbox: Sandbox) -> None:
    listed = sandbox.run("presets")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("default: the embedded default, which every configuration extends")
    assert any(line.startswith("  policy project: defaultAction ask;") for line in lines)
    assert "  paths no location of yours covers: $cwd -> project, else elsewhere" in lines
    assert any(line.startswith("  pathProtection: ~/.ssh/ deny") for line in lines)
    for name in ("$safe-bash", "$file-ops", "$interpreters", "$project-tasks"):
        assert any(line.startswith(f"{name}: ") for line in lines), name
    every = sandbox.run("presets", "safe-bash").stdout.splitlines()
    assert "git status" in every and len(every) > 600
    data = json.loads(sandbox.run("presets", "--json").stdout)
    assert set(data) == {"default", "$safe-bash", "$file-ops", "$interpreters", "$project-tasks"}
    assert data["$file-ops"]["readOnly"] is False
    assert sandbox.run("presets", "default").stdout.startswith("// The embedded default")
    unknown = sandbox.run("presets", "nope")
    assert unknown.returncode == 2 and "no preset nope" in unknown.stderr
