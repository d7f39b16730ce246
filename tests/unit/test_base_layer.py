"""The embedded default is the base every configuration extends: its protections, its policies and
its judgement of what no location covers stay, unless a user or managed file removes them
explicitly ("extends": null, or a protection named again); a project file, trusted or not, can
remove none of it. Every case runs the real CLI in a temporary HOME."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Sandbox

ALLOW, ASK, DENY, CONFIG_ERROR = 0, 10, 20, 3


@pytest.fixture
def home(sandbox: Sandbox) -> Sandbox:
    """A fresh machine with secrets in the home directory and a repository to work in."""
    (sandbox.home / ".ssh").mkdir()
    (sandbox.home / ".ssh" / "id_rsa").write_text("KEY\n")
    (sandbox.home / ".bashrc").write_text("# shell\n")
    repo = sandbox.home / "repo"
    repo.mkdir()
    (repo / ".env").write_text("TOKEN=x\n")
    return sandbox


def status(sandbox: Sandbox, command: str, cwd: Path | None = None, *options: str) -> int:
    return sandbox.run("check", *options, command, cwd=cwd or sandbox.home / "repo").returncode


def test_a_user_file_with_one_allow_rule_keeps_every_default_protection(home: Sandbox) -> None:
    home.write(
        home.user_config,
        '{ "policies": { "mine": { "defaultAction": "ask", "rules": ['
        ' { "action": "allow", "tool": "bash", "pattern": "npm test*" } ] } },'
        ' "locations": { "~/repo": "mine" } }',
    )
    assert status(home, "npm test") == ALLOW
    assert status(home, "cat ~/.ssh/id_rsa") == DENY
    assert status(home, "cat .env") == DENY
    # Outside every location of the file: the default's "elsewhere" (pi-control: unrestricted).
    assert status(home, "echo x >> ~/.bashrc") == ASK
    assert status(home, "rm -rf ~/x") == ASK
    outside = home.run(
        "check", "--tool", "Write", "--input", '{"file_path": "/etc/hosts"}', cwd=home.home / "repo"
    )
    assert outside.returncode == ASK and 'policy "elsewhere"' in outside.stdout


def test_a_trusted_project_file_that_allows_everything_does_not_open_the_machine(home: Sandbox) -> None:
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{ "policies": { "all": { "defaultAction": "allow" } }, "locations": { ".": "all" } }',
    )
    assert home.run("trust", str(repo)).returncode == 0
    assert status(home, "npm publish") == ALLOW  # its own directory: as it says
    rm = home.run("check", "rm -rf ~", cwd=repo)
    assert rm.returncode == DENY and "(the home directory" in rm.stdout
    assert status(home, "cat ~/.ssh/id_rsa") == DENY
    assert status(home, "echo x >> ~/.bashrc") == ASK
    assert status(home, "cat .env") == DENY  # in its own directory too


@pytest.mark.parametrize("trusted", [False, True])
def test_a_project_file_can_remove_nothing_of_the_default(home: Sandbox, trusted: bool) -> None:
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{ "policies": { "all": { "defaultAction": "allow" } }, "locations": { ".": "all" },\n'
        '  "pathProtection": { "~/.ssh/": "allow", ".env*": "allow" } }',
    )
    if trusted:
        assert home.run("trust", str(repo)).returncode == 0
    assert status(home, "cat ~/.ssh/id_rsa") == DENY
    assert status(home, "cat .env") == DENY
    shown = home.run("config", cwd=repo).stdout
    assert 'kept: pathProtection "~/.ssh/": a project file cannot change the default\'s "deny"' in shown
    dropped = home.write(repo / ".policy-engine" / "policy.jsonc", '{\n  "extends": null\n}\n')
    if trusted:
        home.run("trust", str(repo))
    refused = home.run("check", "ls", cwd=repo)
    assert refused.returncode == CONFIG_ERROR
    assert f"{dropped}:2:3: extends: a project file cannot drop the embedded default" in refused.stderr


def test_extends_null_in_the_user_file_drops_the_default_visibly(home: Sandbox) -> None:
    home.write(
        home.user_config,
        '{\n  "extends": null,\n  "policies": { "mine": { "defaultAction": "ask" } },\n'
        '  "locations": { "~/repo": "mine" }\n}\n',
    )
    assert status(home, "cat ~/.ssh/id_rsa", home.home) == ALLOW  # outside every location: unrestricted
    assert status(home, "cat ~/.ssh/id_rsa") == ALLOW  # no protection left
    shown = home.run("config", cwd=home.home / "repo").stdout
    assert 'dropped: the embedded default is dropped ("extends": null)' in shown
    assert f"({home.user_config}:2:3)" in shown
    assert "paths no location covers: nothing: such paths are unrestricted" in shown
    linted = home.run("lint", str(home.user_config)).stdout
    assert f"{home.user_config}:2:3: PE113 warning: the embedded default is dropped" in linted


def test_naming_a_default_protection_again_replaces_it_visibly(home: Sandbox) -> None:
    home.write(home.user_config, '{\n  "pathProtection": { "~/.ssh/": { "read": "ask" } }\n}\n')
    assert status(home, "cat ~/.ssh/id_rsa") == ASK
    assert status(home, "cat .env") == DENY  # the others stay
    shown = home.run("config").stdout
    assert 'weakened: pathProtection "~/.ssh/" replaces the default\'s "~/.ssh/": "deny" becomes' in shown
    assert "PE113 warning" in home.run("lint", str(home.user_config)).stdout


def test_pathprotection_null_removes_nothing_and_says_so(home: Sandbox) -> None:
    home.write(home.user_config, '{\n  "pathProtection": null\n}\n')
    assert status(home, "cat ~/.ssh/id_rsa") == DENY
    assert "noted: pathProtection null removes none of the default's protections" in home.run("config").stdout


def test_the_managed_files_extends_wins(home: Sandbox) -> None:
    home.write(home.user_config, '{ "extends": null }')
    assert status(home, "cat ~/.ssh/id_rsa") == ALLOW
    home.write(home.managed_config, '{ "extends": "default" }')
    assert status(home, "cat ~/.ssh/id_rsa") == DENY
    home.write(home.managed_config, '{ "extends": null }')
    home.user_config.unlink()
    assert status(home, "cat ~/.ssh/id_rsa") == ALLOW  # the administrator dropped it for everyone
    home.write(home.managed_config, '{ "pathProtection": { "~/.ssh/": "ask" } }')
    assert status(home, "cat ~/.ssh/id_rsa") == ASK  # a managed file may weaken one, too


def test_a_policy_of_the_defaults_name_replaces_it_whole(home: Sandbox) -> None:
    home.write(
        home.user_config,
        '{ "policies": { "project": { "defaultAction": "ask", "rules": [ "$safe-bash",'
        ' { "action": "allow", "tool": "bash", "pattern": "npm test*" } ] } } }',
    )
    assert status(home, "npm test") == ALLOW  # the default's $cwd location sends the project to it
    assert status(home, "npm publish") == ASK
    written = home.run("check", "--tool", "Write", "--input", '{"file_path": "x"}', cwd=home.home / "repo")
    assert written.returncode == ASK  # none of the default's rules: no write rule any more
    home.write(home.user_config, '{ "policies": { "project": { "defaultAction": "deny" } } }')
    assert status(home, "git status") == DENY  # as it says: nothing inherited
    report = json.loads(home.run("config", "--json", cwd=home.home / "repo").stdout)
    (layer,) = report["layers"]
    assert layer["extends"] and layer["inherited_policies"] == ["elsewhere"]
    assert [c["kind"] for c in layer["changes"]] == ["redefined"]


def test_a_defaultpolicy_of_ones_own_replaces_the_defaults_for_uncovered_paths(home: Sandbox) -> None:
    home.write(
        home.user_config,
        '{ "policies": { "open": { "defaultAction": "allow" } }, "defaultPolicy": "open" }',
    )
    assert status(home, "npm publish") == ALLOW
    assert status(home, "echo x >> ~/.bashrc") == ALLOW
    assert status(home, "cat ~/.ssh/id_rsa") == DENY  # protections are not a policy: they stay
    shown = home.run("config").stdout
    assert 'replaced: defaultPolicy "open" judges every path your locations do not cover' in shown


def test_pi_control_files_load_unchanged_and_gain_the_defaults_protections(home: Sandbox) -> None:
    pi = home.root / "pi-agent" / "extensions" / "pi-controls.json"
    home.write(
        pi,
        '{ "policies": { "strict": { "defaultAction": "deny", "rules": ['
        ' { "action": "allow", "tool": "bash", "pattern": "git *" } ] } },'
        ' "locations": { "/srv/work": "strict" } }',
    )
    assert home.run("check", "--cwd", "/srv/work", "git log", cwd=home.home).returncode == ALLOW
    explained = home.run("check", "--cwd", "/srv/work", "npm install", cwd=home.home)
    assert explained.returncode == DENY and 'policy "strict"' in explained.stdout  # its meaning stays
    assert status(home, "cat ~/.ssh/id_rsa") == DENY  # pi-control: unrestricted outside /srv/work
    assert status(home, "npm install") == ASK


def test_config_shows_what_each_layer_inherits_and_overrides(home: Sandbox) -> None:
    home.write(home.user_config, '{ "pathProtection": { "~/.netrc": "ask", "~/.vault/": "deny" } }')
    shown = home.run("config").stdout
    assert "layer user (decides):" in shown
    assert "  extends the embedded default (" in shown
    kept = next(line for line in shown.splitlines() if line.startswith("    its pathProtection: "))
    assert "~/.ssh/" in kept and "~/.netrc" not in kept
    assert "    its policies, unchanged: project, elsewhere" in shown
    assert (
        "  paths no location covers: the embedded default's locations: $cwd -> project, else elsewhere"
        in shown
    )
    assert (
        'weakened: pathProtection "~/.netrc" replaces the default\'s "~/.netrc": "deny" becomes "ask"'
        in shown
    )


def test_a_trusted_project_file_cannot_redefine_how_uncovered_paths_are_judged(home: Sandbox) -> None:
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{ "policies": { "elsewhere": { "defaultAction": "allow" }, "project": { "defaultAction": "allow" },'
        ' "mine": { "defaultAction": "allow" } }, "locations": { "./sub": "elsewhere" } }',
    )
    (repo / "sub").mkdir()
    assert home.run("trust", str(repo)).returncode == 0
    outside = home.run("check", "echo x >> ~/.bashrc", cwd=repo)
    assert outside.returncode == ASK and 'policy "elsewhere"' in outside.stdout
    assert "default.jsonc" in outside.stdout  # the default's elsewhere, not the project's
    assert status(home, "rm -rf ~/x") == ASK
    assert status(home, "npm publish") == ASK  # the working directory, by the default's project
    assert status(home, "touch sub/x") == ALLOW  # the project's own location uses its own
    home.write(home.user_config, '{ "policies": { "elsewhere": { "defaultAction": "deny" } } }')
    assert status(home, "echo x >> ~/.bashrc") == DENY  # the user's definition, never the project's


# ---- a project file governs its own directory only (red-team round 14, findings 3, 4, 7, 12)

TRUSTED_PROBES = [
    ("--tool", "Write", "--input", '{"file_path": "/etc/hosts"}'),
    ("rm -rf /tmp/x",),
    ("touch ~/x",),
    ("cat ~/.ssh/id_rsa",),
]


def _outside(home: Sandbox) -> list[int]:
    repo = home.home / "repo"
    return [home.run("check", *probe, cwd=repo).returncode for probe in TRUSTED_PROBES]


@pytest.mark.parametrize(
    "project",
    [
        '{ "policies": { "open": { "defaultAction": "allow" } }, "locations": { "/": "open", "~": "open", "..": "open" } }',
        '{ "policies": { "open": { "defaultAction": "allow" } }, "defaultPolicy": "open" }',
        '{ "approvalRules": [ { "action": "allow", "tool": "write", "path": "/etc/*", "policy": "elsewhere" },'
        ' { "action": "allow", "tool": "bash", "pattern": "*", "policy": "elsewhere" } ] }',
        '{ "mode": "inform", "log": false }',
        '{ "pathProtection": null }',
        '{ "pathProtection": { "~/.ssh/": "allow" } }',
    ],
)
def test_a_trusted_project_file_loosens_nothing_outside_its_directory(home: Sandbox, project: str) -> None:
    home.write(home.user_config, '{ "pathProtection": { "~/.ssh/": "deny" } }')  # a restated default
    before = _outside(home)
    repo = home.home / "repo"
    home.write(repo / ".policy-engine" / "policy.jsonc", project)
    assert home.run("trust", str(repo)).returncode == 0
    assert _outside(home) == before == [ASK, ASK, ASK, DENY]


def test_a_trusted_project_files_locations_and_default_policy_still_govern_its_directory(
    home: Sandbox,
) -> None:
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{\n  "policies": { "open": { "defaultAction": "allow" } },\n  "locations": { "/": "open" },\n'
        '  "defaultPolicy": "open"\n}\n',
    )
    assert home.run("trust", str(repo)).returncode == 0
    assert status(home, "npm publish") == ALLOW  # in the project: its defaultPolicy
    assert status(home, "touch ~/x") == ASK  # outside: the user's (here the default's)
    shown = home.run("config", cwd=repo).stdout
    assert 'noted: location "/" of a project file lies outside its project directory' in shown


def test_a_trusted_project_file_cannot_blind_the_analysis(home: Sandbox) -> None:
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{ "interpreterAnalysis": { "enabled": false }, "policies": { "dev": { "defaultAction": "ask", "rules": ['
        ' { "action": "allow", "tool": "bash", "pattern": "python3 *", "allowUnanalyzed": true } ] } },'
        ' "locations": { ".": "dev" } }',
    )
    assert home.run("trust", str(repo)).returncode == 0
    written = f"python3 -c \"open('{home.home}/.ssh/authorized_keys', 'a').write('x')\""
    assert status(home, written) == DENY  # the analysis still sees the write
    computed = "python3 -c \"import base64; open(base64.b64decode('eA==').decode(), 'a').write('x')\""
    assert status(home, computed) == ASK  # and its doubt is not waived by a project's allowUnanalyzed
    assert status(home, "python3 -c 'print(1)'") == ALLOW  # the project's rule itself applies


def test_a_project_files_breakers_and_settings_do_not_apply(home: Sandbox) -> None:
    home.write(home.user_config, '{ "interpreterAnalysis": { "unknownAction": "deny" } }')
    repo = home.home / "repo"
    home.write(
        repo / ".policy-engine" / "policy.jsonc",
        '{ "policies": { "lock": { "defaultAction": "deny", "rules": [ { "action": "deny", "tool": "bash" } ] } },'
        ' "locations": { "/": "lock" }, "agentTimeout": { "maxDenies": 1, "windowSeconds": 86400 } }',
    )
    for _ in range(3):  # untrusted: its agentTimeout never turns the denies into asks
        result = home.run("check", "--session", "s1", 'python3 -c "$X"', cwd=repo)
        assert result.returncode == DENY, result.stdout
    shown = home.run("config", cwd=repo).stdout
    assert "noted: agentTimeout of a project file does not apply" in shown
