"""`policy diff`: the calls whose decision changes between two policy files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLES

from policy_engine import Action, ConfigError, ToolCall
from policy_engine.policyfiles.diff import Change, CorpusError, changes, corpus_calls, render, to_json

# Old and new differ in three ways: "rm *" is loosened (deny -> allow), "curl *" tightened
# (allow -> deny), and "git *" keeps its action but a more specific rule now decides "git status"
# (its reason changes, its action does not).
OLD = """
{
  "policies": { "p": { "defaultAction": "ask", "rules": [
    { "action": "allow", "tool": "bash", "pattern": "git *" },
    { "action": "deny", "tool": "bash", "pattern": "rm *" },
    { "action": "allow", "tool": "bash", "pattern": "curl *" },
  ] } },
  "defaultPolicy": "p",
  "tests": [
    { "command": "git status", "expect": "allow" },
    { "command": "rm -rf build", "expect": "deny" },
    { "command": "curl https://example.com", "cwd": "sub", "expect": "allow" },
  ],
}
"""

NEW = """
{
  "policies": { "p": { "defaultAction": "ask", "rules": [
    { "action": "allow", "tool": "bash", "pattern": "git *" },
    { "action": "allow", "tool": "bash", "pattern": "git status" },
    { "action": "allow", "tool": "bash", "pattern": "rm *" },
    { "action": "deny", "tool": "bash", "pattern": "curl *" },
  ] } },
  "defaultPolicy": "p",
  "tests": [
    { "command": "git status", "expect": "allow" },
    { "command": "rm -rf build", "expect": "allow" },
    { "tool": "read", "input": { "path": "README.md" }, "expect": "ask" },
  ],
}
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "POLICY_ENGINE_MANAGED_CONFIG": "",
    }


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """The two files, side by side: their tests without a cwd run in the same directory."""
    old, new = tmp_path / "old.jsonc", tmp_path / "new.jsonc"
    old.write_text(OLD)
    new.write_text(NEW)
    return str(old), str(new)


def bash(command: str, cwd: Path | str) -> ToolCall:
    return ToolCall("bash", {"command": command}, str(cwd))


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_the_tests_of_both_files_without_repeats(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    calls = corpus_calls(*files, None, None, env)
    assert calls == [
        bash("git status", tmp_path),
        bash("rm -rf build", tmp_path),
        # A relative cwd is taken from the file's directory, as `policy test` takes it.
        bash("curl https://example.com", tmp_path / "sub"),
        ToolCall("read", {"path": "README.md"}, str(tmp_path)),
    ]


def test_a_plain_text_corpus_is_bash_lines(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    corpus = write(
        tmp_path / "corpus.txt",
        "# commands seen last week\n\nls -la\n  git status  \nmake test\nls -la\n# rm -rf /\n",
    )
    calls = corpus_calls(*files, corpus, None, env)
    # After the four tests: the corpus lines in the OLD file's directory, without comments, blanks
    # and repeats ("git status" is already a test).
    assert calls[4:] == [bash("ls -la", tmp_path), bash("make test", tmp_path)]


def test_a_jsonl_corpus_is_batch_requests(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    requests = [
        {"command": "npm test"},
        {"tool": "Bash", "command": "npm test"},  # the same call: Bash is bash
        {"tool": "bash", "command": "npm test", "cwd": "/srv/app"},  # another directory, another call
        {"tool": "write", "input": {"file_path": "out.txt"}, "cwd": "~/work"},
        {"tool": "bash", "input": {"command": "make"}, "cwd": "build"},
    ]
    corpus = write(tmp_path / "corpus.jsonl", "\n".join(json.dumps(r) for r in requests) + "\n\n")
    calls = corpus_calls(*files, corpus, None, env)
    assert calls[4:] == [
        bash("npm test", tmp_path),
        bash("npm test", "/srv/app"),
        ToolCall("write", {"file_path": "out.txt"}, env["HOME"] + "/work"),
        bash("make", tmp_path / "build"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"tool": "bash"}', "a bash call needs a command"),
        ('{"command": "ls", "cwd": 3}', "cwd must be a string"),
        ('{"tool": "write", "input": ["x"]}', "the tool input must be a JSON object"),
        ("[1, 2]", "a request must be a JSON object"),
        ('{"command": "ls"', "not valid JSON"),
    ],
)
def test_a_malformed_jsonl_line_names_its_place(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str], line: str, message: str
) -> None:
    corpus = write(tmp_path / "corpus.jsonl", '{"command": "ls"}\n' + line + "\n")
    with pytest.raises(CorpusError, match=f"{corpus}:2: {message}"):
        corpus_calls(*files, corpus, None, env)


def test_the_shared_corpus_is_used_when_present_and_no_corpus_is_given(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    shared = tmp_path / "tldr.txt"
    assert len(corpus_calls(*files, None, str(shared), env)) == 4  # absent: the tests alone
    shared.write_text("tar xf archive.tar\n\n#!/path/to/tcc -run\ngit status\n")
    calls = corpus_calls(*files, None, str(shared), env)
    # tldr.txt holds commands only: a line starting with # is one of them.
    assert calls[4:] == [bash("tar xf archive.tar", tmp_path), bash("#!/path/to/tcc -run", tmp_path)]
    corpus = write(tmp_path / "mine.txt", "make\n")
    assert corpus_calls(*files, corpus, str(shared), env)[4:] == [bash("make", tmp_path)]


def test_a_call_without_cwd_runs_in_the_old_files_directory(tmp_path: Path, env: dict[str, str]) -> None:
    project = tmp_path / "project"
    old = write(tmp_path / "old.jsonc", '{ "tests": [] }')
    (project / ".policy-engine").mkdir(parents=True)
    new = write(
        project / ".policy-engine" / "policy.jsonc", '{ "tests": [{ "command": "ls", "expect": "allow" }] }'
    )
    corpus = write(tmp_path / "corpus.txt", "make\n")
    assert corpus_calls(old, new, corpus, None, env) == [bash("ls", project), bash("make", tmp_path)]


def test_an_invalid_file_is_a_config_error(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    broken = write(tmp_path / "broken.jsonc", '{ "tests": [{ "expect": "allow" }] }')
    with pytest.raises(ConfigError, match='give "command"'):
        corpus_calls(files[0], broken, None, None, env)
    with pytest.raises(ConfigError):
        changes(files[0], broken, [bash("ls", tmp_path)], env)


def test_changes_are_the_calls_whose_action_changed(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    calls = corpus_calls(*files, None, None, env)
    found = changes(*files, calls, env)
    assert [(c.call, c.old.action, c.new.action) for c in found] == [
        (bash("rm -rf build", tmp_path), Action.DENY, Action.ALLOW),
        (bash("curl https://example.com", tmp_path / "sub"), Action.ALLOW, Action.DENY),
    ]
    assert [c.looser for c in found] == [True, False]
    # "git status" is left out although its reason changed: the same action is no change.
    same = changes(*files, [bash("git status", tmp_path)], env)
    assert same == []


def test_a_reason_only_change_is_really_there(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    """The premise of the test above: old and new give "git status" different reasons."""
    from policy_engine import Engine

    call = bash("git status", tmp_path)
    old, new = (Engine(f, cwd=str(tmp_path), env=env, mode="enforce").evaluate(call) for f in files)
    assert old.action is new.action is Action.ALLOW
    assert old.reason != new.reason


def test_changes_ignore_the_managed_file(tmp_path: Path, files: tuple[str, str], env: dict[str, str]) -> None:
    managed = write(
        tmp_path / "managed.jsonc",
        '{ "policies": { "m": { "defaultAction": "deny" } }, "defaultPolicy": "m" }',
    )
    found = changes(
        *files, [bash("rm -rf build", tmp_path)], {**env, "POLICY_ENGINE_MANAGED_CONFIG": managed}
    )
    assert [(c.old.action, c.new.action) for c in found] == [(Action.DENY, Action.ALLOW)]


def test_changes_are_judged_in_enforce_mode(tmp_path: Path, env: dict[str, str]) -> None:
    """A file's own "mode": "inform" would let everything through and hide the change."""
    old = write(
        tmp_path / "old.jsonc",
        '{ "mode": "inform", "policies": { "p": { "defaultAction": "deny" } }, "defaultPolicy": "p" }',
    )
    new = write(
        tmp_path / "new.jsonc", '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p" }'
    )
    found = changes(old, new, [bash("make", tmp_path)], {**env, "POLICY_ENGINE_MODE": "ignore"})
    assert [(c.old.action, c.new.action) for c in found] == [(Action.DENY, Action.ALLOW)]


def _changes_of_every_kind(tmp_path: Path, env: dict[str, str]) -> list[Change]:
    """ask -> deny, deny -> ask and twice deny -> allow, in the order render must not keep."""
    old = write(
        tmp_path / "third.jsonc",
        """{ "policies": { "p": { "defaultAction": "deny", "rules": [
             { "action": "ask", "tool": "bash", "pattern": "curl *" },
           ] } }, "defaultPolicy": "p" }""",
    )
    new = write(
        tmp_path / "fourth.jsonc",
        """{ "policies": { "p": { "defaultAction": "ask", "rules": [
             { "action": "deny", "tool": "bash", "pattern": "curl *" },
             { "action": "allow", "tool": "bash", "pattern": "ls *" },
           ] } }, "defaultPolicy": "p" }""",
    )
    calls = [
        bash("curl x", tmp_path),
        bash("make", tmp_path),
        bash("ls -la", tmp_path),
        bash("ls a", tmp_path),
    ]
    return changes(old, new, calls, env)


def test_render_shows_loosening_first_then_a_summary(tmp_path: Path, env: dict[str, str]) -> None:
    found = _changes_of_every_kind(tmp_path, env)
    lines = render(found, 10).splitlines()
    heads = [line for line in lines if not line.startswith("    ")]
    # Each change is followed by its new reason, indented.
    assert lines[0] == f"deny -> allow  bash: ls -la  (cwd {tmp_path})"
    assert lines[1].startswith("    [policy-engine] Allowed: bash (ls -la)")
    # The loosest first (deny -> allow), then by call; the stricter last.
    assert heads == [
        f"deny -> allow  bash: ls -la  (cwd {tmp_path})",
        f"deny -> allow  bash: ls a  (cwd {tmp_path})",
        f"deny -> ask  bash: make  (cwd {tmp_path})",
        f"ask -> deny  bash: curl x  (cwd {tmp_path})",
        "4 of 10 calls changed: 3 looser, 1 stricter",
    ]


def test_render_of_a_non_bash_call_and_of_no_change(
    tmp_path: Path, files: tuple[str, str], env: dict[str, str]
) -> None:
    read = ToolCall("read", {"path": "README.md"}, str(tmp_path))
    found = changes(*files, [read], env)
    assert found == []  # ask under both
    assert render(found, 1) == "0 of 1 calls changed: 0 looser, 0 stricter"
    old = write(
        tmp_path / "deny.jsonc", '{ "policies": { "p": { "defaultAction": "deny" } }, "defaultPolicy": "p" }'
    )
    line = render(changes(old, files[1], [read], env), 1).splitlines()[0]
    assert line == f'deny -> ask  read: {{"path": "README.md"}}  (cwd {tmp_path})'


def test_to_json(tmp_path: Path, env: dict[str, str]) -> None:
    found = _changes_of_every_kind(tmp_path, env)
    data = to_json(found, 10)
    assert {k: data[k] for k in ("total", "changed", "looser", "stricter")} == {
        "total": 10,
        "changed": 4,
        "looser": 3,
        "stricter": 1,
    }
    first = data["changes"][0]
    assert (
        first["tool"] == "bash" and first["input"] == {"command": "ls -la"} and first["cwd"] == str(tmp_path)
    )
    assert (first["direction"], first["old"]["action"], first["new"]["action"]) == ("looser", "deny", "allow")
    assert first["new"]["reason"].startswith("[policy-engine] Allowed")
    assert [c["direction"] for c in data["changes"]] == ["looser", "looser", "looser", "stricter"]
    json.dumps(data)  # printable as it is


def test_two_examples(tmp_path: Path, env: dict[str, str]) -> None:
    old, new = str(EXAMPLES / "quickstart.jsonc"), str(EXAMPLES / "destructive-gate.jsonc")
    calls = corpus_calls(old, new, None, None, env)
    found = changes(old, new, calls, env)
    assert found
    assert all(c.old.action is not c.new.action for c in found)
    # quickstart denies rm; destructive-gate asks for it.
    rm = ToolCall("bash", {"command": "rm -rf build"}, "/home/user/work")
    assert any(c.call == rm and (c.old.action, c.new.action) == (Action.DENY, Action.ASK) for c in found)
    assert (
        render(found, len(calls)).splitlines()[-1].startswith(f"{len(found)} of {len(calls)} calls changed")
    )


def test_the_cli_shows_the_changes_of_two_examples(tmp_path: Path) -> None:
    import subprocess
    import sys

    from helpers import EXAMPLES, REPO

    env = {
        "HOME": str(tmp_path),
        "POLICY_ENGINE_MANAGED_CONFIG": "",
        "XDG_CACHE_HOME": str(tmp_path / "c"),
        "PATH": "",
    }
    old, new = str(EXAMPLES / "quickstart.jsonc"), str(EXAMPLES / "destructive-gate.jsonc")
    run = [sys.executable, "-P", "-m", "policy_engine", "diff", "--corpus", "/dev/null"]
    changed = subprocess.run([*run, old, new], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert changed.returncode == 1, changed.stderr
    assert "deny -> ask  bash: rm -rf build  (cwd /home/user/work)" in changed.stdout
    assert changed.stdout.rstrip().splitlines()[-1].endswith("looser, 0 stricter")
    same = subprocess.run([*run, old, old], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert same.returncode == 0 and same.stdout.startswith("0 of ")
    broken = tmp_path / "broken.jsonc"
    broken.write_text("{ nope")
    invalid = subprocess.run(
        [*run, old, str(broken)], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert invalid.returncode == 3 and f"{broken}:1:" in invalid.stderr
