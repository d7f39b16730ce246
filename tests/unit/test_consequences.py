"""An ask or a deny says what the call would change (consequences.py, reasons.py): the size of a
file it overwrites, that it creates one, what a tree it deletes holds, the branch a push updates on
which remote, and the safer alternative of a well-known destructive command. Checked through the
real CLI and a hook, as the person and the agent see it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import REPO, Sandbox

from policy_engine.analysis.shell.alternatives import DATA, alternatives, describes, read_alternatives
from policy_engine.analysis.shell.commandline import Reader
from policy_engine.analysis.shell.knowledge import knowledge

# Everything asks but `ls` and reads, and what is done under logs/.
POLICY = """
    {
      "policies": {
        "p": { "defaultAction": "ask", "rules": [
          { "action": "allow", "tool": "bash", "pattern": "ls*" },
          { "action": "allow", "tool": "read" },
          { "action": "deny", "tool": "bash", "pattern": "git reset *" },
        ] },
        "open": { "defaultAction": "allow" },
      },
      "locations": { "$cwd/logs": "open" },
      "defaultPolicy": "p",
    }
"""


@pytest.fixture
def project(sandbox: Sandbox) -> Path:
    sandbox.write(sandbox.user_config, POLICY)
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "state")
    return sandbox.project("work")


def check(sandbox: Sandbox, project: Path, *args: str) -> tuple[int, str]:
    """The exit status and the printed decision of `policy check` run in ``project``."""
    result = sandbox.run("check", *args, cwd=project)
    assert result.returncode in (0, 10, 20), result.stderr
    return result.returncode, result.stdout.strip()


def tree(root: Path, files: int, directories: int) -> None:
    """``files`` empty files spread over ``directories`` directories (``root`` included)."""
    folders = [root] + [root / f"d{i}" for i in range(1, directories)]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (folders[i % directories] / f"f{i}").touch()


# ---- writes --------------------------------------------------------------------------------------


def test_a_write_tool_names_the_size_of_the_file_it_overwrites(sandbox: Sandbox, project: Path) -> None:
    (project / "README.md").write_text("x" * 214)
    status, said = check(sandbox, project, "--tool", "Write", "--input", '{"file_path": "README.md"}')
    assert status == 10
    assert said.startswith("ask: [policy-engine] Needs approval: write README.md (overwrites 214 bytes): ")


def test_a_bash_write_names_the_size_it_finds(sandbox: Sandbox, project: Path) -> None:
    (project / "notes.md").write_text("y" * 1234)
    status, said = check(sandbox, project, "echo hi > notes.md")
    assert status == 10
    # a redirect may append: the analysis does not tell, so the reason does not say "overwrites"
    assert f": writes {project}/notes.md (1,234 bytes now): no rule" in said


def test_a_write_of_a_new_file_says_it_creates_it(sandbox: Sandbox, project: Path) -> None:
    _, said = check(sandbox, project, "--tool", "Write", "--input", '{"file_path": "new.md"}')
    assert "Needs approval: write new.md (creates it): " in said
    _, said = check(sandbox, project, "cp a.txt copy.txt")
    assert f"writes {project}/copy.txt (creates it)" in said


# ---- deletes -------------------------------------------------------------------------------------


def test_a_recursive_delete_counts_what_the_tree_holds(sandbox: Sandbox, project: Path) -> None:
    tree(project / "build", 5, 3)
    (project / "build" / "link").symlink_to(sandbox.home)  # a link is removed, not followed
    (project / "old.txt").write_text("z" * 20)
    status, said = check(sandbox, project, "rm -rf build old.txt")
    assert status == 10
    assert (
        f": deletes {project}/build (6 files in 3 directories), {project}/old.txt (20 bytes); "
        "to keep a copy, mv it aside: no rule of policy"
    ) in said


def test_a_glob_counts_what_it_matches_not_its_directory(sandbox: Sandbox, project: Path) -> None:
    tree(project / "out" / "a", 2, 1)
    (project / "out" / ".keep").touch()  # `*` does not match it: out/ is not what goes
    _, said = check(sandbox, project, "rm -rf out/*")
    assert f"deletes {project}/out, {project}/out/a (2 files in 1 directory); " in said


def test_a_huge_tree_is_counted_up_to_a_bound(sandbox: Sandbox, project: Path) -> None:
    tree(project / "huge", 10_050, 2)
    status, said = check(sandbox, project, "rm -r huge")
    assert status == 10
    assert f"deletes {project}/huge (more than 10,000 files and directories)" in said


def test_a_delete_that_does_not_take_the_whole_tree_is_not_counted(sandbox: Sandbox, project: Path) -> None:
    tree(project / "cache", 3, 1)
    _, said = check(sandbox, project, "find cache -name '*.pyc' -delete")
    assert f"deletes {project}/cache; run it without -delete first to see what it matches: " in said


def test_hostile_paths_never_hang_nor_change_the_action(sandbox: Sandbox, project: Path) -> None:
    os.mkfifo(project / "pipe")
    (project / "loop1").symlink_to("loop2")
    (project / "loop2").symlink_to("loop1")
    locked = project / "locked"
    tree(locked / "inner", 2, 1)
    (locked / "inner").chmod(0)
    try:
        for command, note in [
            ("echo x > pipe", f"writes {project}/pipe (a named pipe): "),
            ("rm pipe", f"deletes {project}/pipe (a named pipe): "),
            ("echo x > loop1", f"writes {project}/loop1: "),  # a loop: nothing to say
            ("rm loop1", f"deletes {project}/loop1 (a symbolic link): "),
            ("echo x > /dev/null", None),  # the default's allow: nothing looked at
        ]:
            status, said = check(sandbox, project, command)
            if note is None:
                assert status == 10 and "/dev/null" not in said.split("): ", 1)[1], said
            else:
                assert status == 10 and note in said, said
        status, said = check(sandbox, project, "rm -rf locked")
        assert status == 10
        readable = os.access(locked / "inner", os.R_OK)  # root reads it anyway
        held = "2 files in 2 directories" if readable else "at least 0 files in 2 directories, some could"
        assert f"deletes {locked} ({held}" in said, said
    finally:
        (locked / "inner").chmod(0o755)


# ---- git -----------------------------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def repository(path: Path, branch: str) -> Path:
    environment = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for words in (["init", "-q", "-b", branch], ["remote", "add", "upstream", "https://example.com/r.git"]):
        subprocess.run(["git", *words], cwd=path, check=True, env=environment, capture_output=True)
    return path


@needs_git
def test_a_push_names_the_branch_and_the_remote(sandbox: Sandbox, project: Path) -> None:
    repository(project, "feature/login")
    status, said = check(sandbox, project, "git push")
    assert status == 10
    assert "bash (git push): updates feature/login (the current branch) on origin: no rule" in said
    subprocess.run(["git", "config", "branch.feature/login.remote", "upstream"], cwd=project, check=True)
    assert (
        "updates feature/login (the current branch) on upstream: " in check(sandbox, project, "git push")[1]
    )
    _, said = check(sandbox, project, "git push origin HEAD:release :old")
    assert "updates release on origin, and deletes old on origin: " in said
    sub = project / "src"
    sub.mkdir()
    assert "on upstream: " in check(sandbox, sub, "git push")[1]  # the repository above


@needs_git
def test_a_force_push_names_force_with_lease(sandbox: Sandbox, project: Path) -> None:
    repository(project, "main")
    for command in ("git push --force", "git push origin +main", "git push -f origin main"):
        _, said = check(sandbox, project, command)
        assert "updates main" in said and "a forced push can discard commits on the remote" in said
        assert "--force-with-lease refuses when the remote has commits not fetched here" in said
    _, said = check(sandbox, project, "git push --force-with-lease origin main")
    assert "updates main on origin: no rule" in said  # the lease is the safer push: no advice


def test_git_reset_hard_names_git_stash(sandbox: Sandbox, project: Path) -> None:
    status, said = check(sandbox, project, "git reset --hard HEAD~1")
    assert status == 20  # a deny says it too: the model learns the safer way
    assert (
        "uncommitted changes are lost (git stash keeps them; git reset --keep refuses to discard them)"
        in said
    )


# ---- what does not change ------------------------------------------------------------------------


def test_an_allow_says_nothing_of_consequences(sandbox: Sandbox, project: Path) -> None:
    (project / "logs").mkdir()
    (project / "logs" / "build.log").write_text("x" * 214)
    tree(project / "build", 3, 1)
    assert check(sandbox, project, "ls build") == (
        0,
        f'allow: [policy-engine] Allowed: bash (ls build): rule allow bash "ls*" of policy "p" '
        f"({sandbox.user_config}:4:7).",
    )
    for args in (["--tool", "Write", "--input", '{"file_path": "logs/build.log"}'], ["rm -rf logs"]):
        status, said = check(sandbox, project, *args)
        assert status == 0 and "bytes" not in said and "files" not in said and "mv it" not in said, said


def test_json_carries_the_consequence(sandbox: Sandbox, project: Path) -> None:
    tree(project / "build", 2, 1)
    data = sandbox.check_json("rm -rf build", cwd=project)
    assert data["action"] == "ask"
    assert (
        f"deletes {project}/build (2 files in 1 directory); to keep a copy, mv it aside: " in data["reason"]
    )


def test_the_decision_log_carries_the_reason_of_an_ask(sandbox: Sandbox, project: Path) -> None:
    tree(project / "build", 2, 1)
    for command in ("rm -rf build", "ls build"):
        sandbox.run("check", "--session", "s1", command, cwd=project)
    log = sandbox.root / "state" / "decisions.jsonl"
    asked, allowed = (json.loads(line) for line in log.read_text().splitlines())
    assert "deletes " in asked["reason"] and "(2 files in 1 directory)" in asked["reason"]
    assert "reason" not in allowed  # an allow's reason says nothing a log line does not


def test_a_claude_code_hook_answer_carries_the_consequence(sandbox: Sandbox, project: Path) -> None:
    tree(project / "build", 4, 2)
    payload = {
        "session_id": "s1",
        "transcript_path": str(sandbox.home / "s1.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "toolu_01ABC",
    }
    result = sandbox.run("hook", "--agent", "claude", stdin=json.dumps(payload), cwd=project)
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "ask"
    assert (
        f"deletes {project}/build (4 files in 2 directories); to keep a copy, mv it aside: "
        in output["permissionDecisionReason"]
    )


# ---- the alternatives' data ----------------------------------------------------------------------


def test_every_alternative_loads_and_describes_its_examples(sandbox: Sandbox, tmp_path: Path) -> None:
    from policy_engine.analysis.shell.analysis import Analyzer

    entries = read_alternatives(Path(DATA).read_text(encoding="utf-8"))
    assert entries == alternatives() and len(entries) > 0
    reader = Reader(knowledge(str(tmp_path)))
    analyzer = Analyzer(str(sandbox.home), knowledge(str(tmp_path)))
    for entry in entries:
        for example in entry.examples:
            (atom,) = analyzer.atoms(example, str(tmp_path))
            assert any(describes(p, atom, reader) for p in entry.patterns), example
            assert not any(describes(p, atom, reader) for p in entry.unless), example


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda e: e.update(say="a clause: with a colon"), "no colon"),
        (lambda e: e.update(say="x" * 200), "at most 160"),
        (lambda e: e.update(patterns=[]), "at least one pattern"),
        (lambda e: e.update(extra=1), "expected an object"),
        (lambda e: e.update(examples=[1]), "non-empty strings"),
    ],
)
def test_a_malformed_alternative_is_refused(change, problem: str) -> None:
    text = Path(DATA).read_text(encoding="utf-8")
    data = json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))
    change(data["alternatives"][0])
    with pytest.raises(ValueError, match=problem):
        read_alternatives(f"// a comment\n{json.dumps(data, indent=2)}")
    with pytest.raises(ValueError, match="not JSON"):
        read_alternatives(text.replace("]\n}", "],\n}"))  # a trailing comma: JSON5, not JSON


def test_the_readme_names_the_data_file() -> None:
    assert "policy_engine/analysis/shell/alternatives.jsonc" in (REPO / "README.md").read_text(
        encoding="utf-8"
    )
