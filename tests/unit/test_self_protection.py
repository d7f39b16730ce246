"""Self-protection: an agent cannot write the policy files, the trust store, the engine's state and
cache, or the agent settings that load the hook, by any tool or command; it can read them; only the
user (or the managed file) can turn it off."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import Sandbox, bash, tool

from policy_engine import Action, ConfigError, Engine

OPEN = '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p" %s }'


def protected_files(sandbox: Sandbox, project: Path) -> dict[str, Path]:
    """Every kind of file self-protection covers, for this sandbox."""
    root, home = sandbox.root, sandbox.home
    return {
        "user policy": sandbox.user_config,
        "project policy": project / ".policy-engine" / "policy.jsonc",
        "pi-control user file": root / "pi-agent" / "extensions" / "pi-controls.jsonc",
        "pi project settings": project / ".pi" / "extensions" / "pi-controls.jsonc",
        "managed policy": sandbox.managed_config,
        "trust store": root / "data" / "policy-engine" / "trust.json",
        "state": home / ".local" / "state" / "policy-engine" / "state.db",
        "cache": root / "cache" / "policy-engine" / "compiled-0.cache",
        "claude project settings": project / ".claude" / "settings.json",
        "claude local settings": project / ".claude" / "settings.local.json",
        "claude user settings": home / ".claude" / "settings.json",
        "gemini settings": project / ".gemini" / "settings.json",
        "gemini user settings": home / ".gemini" / "settings.json",
        "codex": home / ".codex" / "config.toml",
        "cursor hooks": project / ".cursor" / "hooks.json",
        "copilot hooks": project / ".github" / "hooks" / "policy-engine.json",
        "copilot user hooks": home / ".copilot" / "hooks" / "policy-engine.json",
    }


@pytest.fixture
def setup(sandbox: Sandbox) -> tuple[Sandbox, Engine, Path, dict[str, Path]]:
    sandbox.write(sandbox.user_config, OPEN % "")
    project = sandbox.project("repo", '{ "policies": {} }')
    engine = sandbox.engine(cwd=project)
    return sandbox, engine, project, protected_files(sandbox, project)


NAMES = [
    "user policy",
    "project policy",
    "pi-control user file",
    "pi project settings",
    "managed policy",
    "trust store",
    "state",
    "cache",
    "claude project settings",
    "claude local settings",
    "claude user settings",
    "gemini settings",
    "gemini user settings",
    "codex",
    "cursor hooks",
    "copilot hooks",
    "copilot user hooks",
]

WRITES = [
    "sed -i s/deny/allow/ {}",
    "echo '{{}}' > {}",
    "cp /tmp/anything {}",
    "rm {}",
    "python3 -c \"open('{}', 'w').write('{{}}')\"",
]


@pytest.mark.parametrize("how", WRITES)
@pytest.mark.parametrize("name", NAMES)
def test_writes_through_bash_are_denied(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]], name: str, how: str
) -> None:
    _, engine, project, files = setup
    decision = engine.evaluate(bash(how.format(files[name]), project))
    assert decision.action is Action.DENY, decision.reason
    assert "self-protection" in decision.reason


@pytest.mark.parametrize(
    "name", ["user policy", "project policy", "claude project settings", "codex", "trust store"]
)
def test_file_tools_cannot_write_but_can_read(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]], name: str
) -> None:
    _, engine, project, files = setup
    path = str(files[name])
    for writer in ("Write", "Edit", "write_file", "replace"):
        assert engine.evaluate(tool(writer, project, file_path=path, content="{}")).action is Action.DENY
    assert engine.evaluate(tool("Read", project, file_path=path)).action is Action.ALLOW
    assert engine.evaluate(bash(f"cat {path}", project)).action is Action.ALLOW


def test_relative_spellings_and_moves_are_denied(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]],
) -> None:
    _, engine, project, _ = setup
    (project / "sub").mkdir()
    (project / ".claude").mkdir()
    for command in (
        "echo x > .policy-engine/policy.jsonc",
        "echo x > ../repo/.claude/settings.json",
        "mv .policy-engine /tmp/gone",
        "rm -rf .",  # it holds the project's policy and agent settings
        "chmod -R 777 .",
    ):
        assert (
            engine.evaluate(bash(command, project / "sub" if ".." in command else project)).action
            is Action.DENY
        ), command


def test_the_user_can_turn_it_off(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, OPEN % ', "selfProtection": false')
    engine = sandbox.engine()
    assert engine.evaluate(bash(f"echo x > {sandbox.user_config}", sandbox.root)).action is Action.ALLOW


def test_a_project_file_cannot_turn_it_off(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, OPEN % "")
    project = sandbox.project("repo", '{\n  "selfProtection": false\n}\n')
    # Untrusted, it is rejected with its line; trusted, the same.
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(cwd=project)
    (problem,) = caught.value.problems
    assert (problem.line, problem.key) == (2, "selfProtection")
    # The hint is for the person; an agent reading it is not told how to turn a protection off.
    assert "never a project's" in (problem.hint or "") and "false" not in (problem.hint or "")


def test_the_managed_file_decides_over_the_user(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, OPEN % ', "selfProtection": false')
    sandbox.write(sandbox.managed_config, '{ "selfProtection": true }')
    engine = sandbox.engine()
    assert engine.evaluate(bash(f"echo x > {sandbox.user_config}", sandbox.root)).action is Action.DENY


def test_it_blocks_in_inform_mode_too(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, OPEN % ', "mode": "inform"')
    engine = sandbox.engine()
    decision = engine.evaluate(bash(f"echo x > {sandbox.user_config}", sandbox.root))
    assert (engine.mode, decision.action) == ("inform", Action.DENY)


def test_agent_settings_directories_and_the_engine_itself(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]],
) -> None:
    import policy_engine

    sandbox, engine, project, _ = setup
    package = Path(policy_engine.__file__).parent
    denied = [
        "mv x .claude",
        "cp -r x .claude",
        "ln -s x .claude",
        "rm -rf .gemini",
        f"rm -rf {sandbox.home}/.claude",
        f"echo x > {package}/client.py",
        f"echo 'import os' > {package.parent}/evil.pth",
        f"echo x > {sys.prefix}/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages/evil.pth",
    ]
    for command in denied:
        assert engine.evaluate(bash(command, project)).action is Action.DENY, command
    assert engine.evaluate(bash("echo hi > .claude/commands/a.md", project)).action is Action.ALLOW


def test_codex_and_copilot_homes(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, OPEN % "")
    sandbox.env.update(CODEX_HOME=str(sandbox.root / "codex"), COPILOT_HOME=str(sandbox.root / "copilot"))
    engine = sandbox.engine()
    for path in ("codex/hooks.json", "copilot/hooks/x.json"):
        assert engine.evaluate(bash(f"echo x > {sandbox.root / path}", sandbox.root)).action is Action.DENY


def test_find_delete_by_name_reaches_the_policy_file(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]],
) -> None:
    sandbox, engine, project, _ = setup
    folder = sandbox.user_config.parent
    assert engine.evaluate(bash(f"find {folder} -name '*.jsonc' -delete", project)).action is Action.DENY
    assert engine.evaluate(bash(f"find {folder} -name '*.bak' -delete", project)).action is Action.ALLOW


def test_copying_into_a_directory_reaches_the_file_it_makes(
    setup: tuple[Sandbox, Engine, Path, dict[str, Path]],
) -> None:
    sandbox, engine, project, _ = setup
    evil = sandbox.write("evil/policy.jsonc", "{}")
    folder = sandbox.user_config.parent
    for command in (
        f"cp {evil} {folder}/",
        f"cp {evil} {folder}",
        f"mv {evil} {folder}",
        f"ln -sf {evil} {folder}/",
    ):
        assert engine.evaluate(bash(command, project)).action is Action.DENY, command
    assert engine.evaluate(bash(f"cp {evil} {folder}/other.jsonc", project)).action is Action.ALLOW


def test_arguments_handed_to_an_inline_program_are_paths(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p", "pathProtection": { "~/.ssh/": "deny" } }',
    )
    engine = sandbox.engine(config)
    program = 'python3 -c "import sys; print(open(sys.argv[1]).read())" ~/.ssh/id_rsa'
    assert engine.evaluate(bash(program, sandbox.root)).action is Action.DENY
    assert (
        engine.evaluate(bash("python3 -c 'import sys; print(sys.argv)' a b", sandbox.root)).action
        is Action.ALLOW
    )


# ---- what a copied tree or a link reaches (red-team round 14, findings 1, 2, 5, 6)


@pytest.fixture
def home_machine(tmp_path: Path) -> Sandbox:
    """A machine whose XDG directories are the defaults inside $HOME, with the agent working in
    ~: the approvals store and the user policy file lie inside its working directory."""
    sandbox = Sandbox(tmp_path)
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        sandbox.env.pop(variable)
    home = sandbox.home
    sandbox.write(
        home / ".local" / "share" / "policy-engine" / "approvals.json", '{"version": 1, "approvals": []}\n'
    )
    sandbox.write(home / ".config" / "policy-engine" / "policy.jsonc", "{}\n")
    sandbox.write(home / ".ssh" / "authorized_keys", "key\n")
    sandbox.write(home / "evil" / "share" / "policy-engine" / "approvals.json", "{}\n")
    sandbox.write(home / "evil" / ".local" / "share" / "policy-engine" / "approvals.json", "{}\n")
    sandbox.write(home / "evil" / "policy-engine" / "policy.jsonc", "{}\n")
    return sandbox


@pytest.mark.parametrize(
    "command",
    [
        "cp -r evil/share ~/.local/",
        "cp -r evil/. ~/",
        "cp -rT evil ~",
        "cp -a evil/.local ~/",
        "cp -R evil/.local ~/",
        "cp -r -t ~/.local evil/share",
        "cp -r evil/policy-engine ~/.config/",
        "mv -T evil/policy-engine ~/.config/policy-engine",
        "ln .local/share/policy-engine/approvals.json a.json",
        "cp -l .config/policy-engine/policy.jsonc x",
        "link .ssh/authorized_keys k",
    ],
)
def test_copying_a_tree_or_linking_cannot_reach_what_is_protected(
    home_machine: Sandbox, command: str
) -> None:
    result = home_machine.run("check", command, cwd=home_machine.home)
    assert result.returncode == 20, result.stdout


def test_copying_a_tree_into_a_project_cannot_overwrite_its_settings(sandbox: Sandbox) -> None:
    project = sandbox.project("repo")
    sandbox.write(project / ".git" / "config", "[core]\n")
    sandbox.write(project / ".claude" / "settings.json", "{}\n")
    sandbox.write(project / "tpl" / ".git" / "config", "[core]\n\tfsmonitor = touch PWNED\n")
    sandbox.write(project / "src" / "a.py", "x\n")
    for command in ("cp -r tpl/. .", "cp -rT tpl .", "rsync -a tpl/ ."):
        assert sandbox.run("check", command, cwd=project).returncode == 20, command
    assert sandbox.run("check", "cp -r tpl/.git/. .git/", cwd=project).returncode == 10  # .git/config: ask
    # Copies that cannot overwrite them stay allowed.
    for command in ("cp -r src build", "cp -r src .", "cp src/a.py build/", "mv src lib"):
        assert sandbox.run("check", command, cwd=project).returncode == 0, command


def test_a_home_reached_through_a_link_is_protected_under_its_real_path(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    real = tmp_path / "real-home"
    sandbox.home.rename(real)
    sandbox.home.symlink_to(real)
    sandbox.write(real / ".ssh" / "id_rsa", "KEY\n")
    repo = sandbox.project("repo")
    for command in (f"cat {real}/.ssh/id_rsa", "cat ~/.ssh/id_rsa"):
        assert sandbox.run("check", command, cwd=repo).returncode == 20, command
    read = sandbox.run(
        "check", "--tool", "Read", "--input", f'{{"file_path": "{real}/.ssh/id_rsa"}}', cwd=repo
    )
    assert read.returncode == 20
