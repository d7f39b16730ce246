"""Reasons the model can act on: what was refused (the command of a longer line, only the paths
that were refused) and no secret from the command."""

from __future__ import annotations

import pytest
from helpers import Sandbox, bash
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine import Action
from policy_engine.explain.secrets import mask

MASKED = [
    ('curl -H "Authorization: Bearer abc.def" https://x', 'curl -H "Authorization: Bearer ***" https://x'),
    ("curl -H 'x-api-key: k123' https://x", "curl -H 'x-api-key: ***' https://x"),
    ("OPENAI_API_KEY=sk-abcdefghijklmnopqrstuv python3 app.py", "OPENAI_API_KEY=*** python3 app.py"),
    ("export AWS_SECRET_ACCESS_KEY=abc/def", "export AWS_SECRET_ACCESS_KEY=***"),
    ("PGPASSWORD=pw psql", "PGPASSWORD=*** psql"),
    ("app --api-key=abc", "app --api-key=***"),
    ("mysql --password hunter2 db", "mysql --password *** db"),
    ("x --token abc", "x --token ***"),
    ("git clone https://me:tok123@github.com/x", "git clone https://me:***@github.com/x"),
    ("curl -u me:pw https://x", "curl -u me:*** https://x"),
    ("echo ghp_abcdefghijklmnopqrstuvwxyz0123456789", "echo ***"),
    ("echo AKIAABCDEFGHIJKLMNOP", "echo ***"),
    ("printf '-----BEGIN RSA PRIVATE KEY-----\\nMIIE\\n-----END RSA PRIVATE KEY-----'",
     "printf '-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----'"),
]  # fmt: skip
KEPT = ["sort --key=2 f", "ls -la", "echo $OPENAI_API_KEY", "gh auth login --with-token < t", "git log -p"]


@pytest.mark.parametrize(("text", "masked"), MASKED)
def test_secret_values_are_masked(text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize("text", KEPT)
def test_text_without_secrets_is_kept(text: str) -> None:
    assert mask(text) == text


CONFIG = """
    {
      "policies": {
        "project": { "defaultAction": "ask", "rules": [
          { "action": "allow", "tool": "bash", "pattern": "$safe-bash" },
          { "action": "allow", "tool": "bash", "pattern": "rm *" },
          { "action": "allow", "tool": "write" },
        ] },
        "outside": { "defaultAction": "ask", "rules": [
          { "action": "allow", "tool": "bash", "pattern": "rm *" },
          { "action": "deny", "tool": "write" },
        ] },
      },
      "locations": { "$cwd": "project" },
      "defaultPolicy": "outside",
    }
"""


def decide(sandbox: Sandbox, command: str) -> tuple[Action, str]:
    config = sandbox.write("policy.jsonc", CONFIG)
    work = sandbox.project("work")
    decision = sandbox.engine(config, cwd=work).evaluate(bash(command, work))
    return decision.action, decision.reason


def test_only_the_refused_paths_are_named(sandbox: Sandbox) -> None:
    action, reason = decide(sandbox, "rm -rf build /etc/z /etc/y")
    assert action is Action.DENY
    assert ": deletes /etc/z, /etc/y; " in reason and ": rule deny write" in reason
    assert "/work/build" not in reason.split(": rule")[0].split("):")[1]


def test_the_refused_command_of_a_longer_line_is_named(sandbox: Sandbox) -> None:
    action, reason = decide(sandbox, "ls && rm -rf /etc/x")
    assert action is Action.DENY
    assert "`rm -rf /etc/x` deletes /etc/x; " in reason and ": rule deny write" in reason


def test_a_program_names_what_it_refused(sandbox: Sandbox) -> None:
    action, reason = decide(sandbox, "python3 -c \"import shutil; shutil.rmtree('/etc')\"")
    assert action is Action.DENY  # the outside policy's write rule governs what the program deletes
    assert ": deletes /etc (" in reason and "): rule deny write" in reason  # with what /etc holds


def test_a_reason_never_shows_a_secret_of_the_command(sandbox: Sandbox) -> None:
    command = (
        "curl -H 'Authorization: Bearer s3cr3tvalue' https://x && OPENAI_API_KEY=sk-abcdefghijklmnopqrstuv x"
    )
    action, reason = decide(sandbox, command)
    assert action is Action.ASK
    assert "s3cr3tvalue" not in reason and "sk-abcdefghijklmnopqrstuv" not in reason
    assert "Bearer ***" in reason


SECRETISH = st.lists(
    st.sampled_from(
        [
            *"aAkKeEyY:=-_ @/.'\"",
            "sk-",
            "gh",
            "p_",
            "AKIA",
            "AIza",
            "eyJ",
            "token",
            "Passw",
            "secret",
            "API",
            "-----BEGIN ",
            "PRIVATE KEY-----",
            "Authorization",
            "Bearer ",
            "--password ",
            "-u ",
            "://",
            "xoxb-",
            "glpat-",
            "0123456789ABCDEFGHIJ",
            "abcdefghijklmnopqrstuvwxyz",
        ]
    ),
    max_size=12,
).map("".join)


@given(st.lists(SECRETISH, max_size=6).map("".join))
@settings(max_examples=1500, deadline=None)
def test_skipping_texts_without_a_trigger_never_changes_what_is_masked(text: str) -> None:
    from policy_engine.explain.secrets import mask_all

    assert mask(text) == mask_all(text)


# ---- reasons a person can act on


def test_a_call_an_untrusted_project_file_would_allow_names_the_file_and_policy_trust(
    sandbox: Sandbox,
) -> None:
    project = sandbox.project(
        "repo",
        '{ "policies": { "team": { "defaultAction": "ask", "rules": ['
        ' { "action": "allow", "tool": "bash", "pattern": "npm *" },'
        ' { "action": "deny", "tool": "bash", "pattern": "make deploy" } ] } }, "locations": { ".": "team" } }',
    )
    file = project / ".policy-engine" / "policy.jsonc"
    asked = sandbox.run("check", "npm ci", cwd=project)
    assert asked.returncode == 10
    assert f"The project policy file {file} allows it" in asked.stdout
    assert "it is not trusted" in asked.stdout and "`policy trust` lets it decide" in asked.stdout
    # Where the project file itself refuses, or agrees, nothing is added.
    denied = sandbox.run("check", "make deploy", cwd=project)
    assert denied.returncode == 20 and "not trusted" not in denied.stdout
    assert "not trusted" not in sandbox.run("check", "git status", cwd=project).stdout
    sandbox.run("trust", str(project))
    assert sandbox.run("check", "npm ci", cwd=project).returncode == 0


def test_deleting_the_home_directory_is_explained_as_that(sandbox: Sandbox) -> None:
    (sandbox.home / ".ssh").mkdir()
    repo = sandbox.project("repo")
    result = sandbox.run("check", "rm -rf ~", cwd=repo)
    assert result.returncode == 20
    assert f"deletes {sandbox.home} (the home directory; " in result.stdout
    assert ": deleting it deletes everything under" in result.stdout
    assert "name the files it needs instead" not in result.stdout  # advice for searches, not deletes
    whole = sandbox.run("check", "rm -rf /", cwd=repo).stdout
    assert "deletes / (the whole file system; " in whole
    searched = sandbox.run("check", "grep -r KEY ~", cwd=repo).stdout
    assert "the command reads everything under" in searched and "name the files it needs instead" in searched


@pytest.mark.parametrize(
    "command",
    [
        "echo x > ~/.claude/settings.json",
        "rm -rf {config}",
        "cat ~/.ssh/id_rsa",
        "rm -rf ~",
        "sed -i s/deny/allow/ .policy-engine/policy.jsonc",
    ],
)
def test_no_reason_tells_the_agent_how_to_turn_a_protection_off(sandbox: Sandbox, command: str) -> None:
    (sandbox.home / ".ssh").mkdir()
    sandbox.write(sandbox.user_config, "{}")
    repo = sandbox.project("repo", "{}")
    reason = sandbox.check_json(command.format(config=sandbox.user_config.parent), cwd=repo)["reason"]
    assert reason.startswith("[policy-engine] Denied"), reason
    for hint in ("selfProtection", "false", '"extends"', "null", "pathProtection:"):
        assert hint not in reason, (hint, reason)
