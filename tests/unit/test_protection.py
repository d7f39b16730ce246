"""pathProtection for every access of every atom (W-PP-1, W-PATH-1): patterns anchored at /, ~/ and
the project root or floating, any action, read and write apart, symlinks, @-paths, directory trees
walked whole, and no rule or approval above it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox, bash, tool

from policy_engine import Action, ConfigError, Engine

POLICY = """
    {
      "policies": { "open": { "defaultAction": "allow", "rules": [
        { "action": "allow", "tool": "bash", "pattern": "cat *" },
        { "action": "allow", "tool": "read" },
      ] } },
      "defaultPolicy": "open",
      "pathProtection": {
        "~/.ssh/*": "deny",
        "~/.keys/*": "deny",
        "~/.vault/credentials": "deny",
        ".env*": "deny",
        "secrets/": "ask",
        "config/keys/*.pem": "deny",
        "/srv/shared/": { "read": "allow", "write": "deny" },
        "~/notes/": { "write": "ask" },
        "*.log": "log",
      },
      "approvalRules": [
        { "action": "allow", "tool": "bash", "pattern": "cat *", "policy": "open" },
      ],
    }
"""


@pytest.fixture
def machine(sandbox: Sandbox) -> tuple[Sandbox, Engine, Path]:
    home = sandbox.home
    for name in (".ssh/id_rsa", ".keys/id", ".vault/credentials", ".vault/config", "notes/todo.md"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("x\n")
    project = sandbox.project("repo", POLICY)
    for name in ("src/.env", "src/app.py", "secrets/token", "config/keys/a.pem", "docs/readme.md"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n")
    sandbox.run("trust", str(project))
    return sandbox, sandbox.engine(cwd=project), project


def judge(machine: tuple[Sandbox, Engine, Path], command: str) -> Action:
    _, engine, project = machine
    return engine.evaluate(bash(command, project)).action


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # W-PP-1: paths that are not "path-like" tokens are still paths.
        ("cat src/.env", Action.DENY),
        ("cat ./src/.env.local", Action.DENY),
        ("cat src/app.py", Action.ALLOW),
        # ~/ patterns are expanded (dead in pi-control).
        ("cat ~/.ssh/id_rsa", Action.DENY),
        ("cat $HOME/.ssh/id_rsa", Action.DENY),
        ("head -c 100 ~/.vault/credentials", Action.DENY),
        ("cat ~/.vault/config", Action.ALLOW),
        # Project-relative patterns with a slash (dead in pi-control).
        ("cat config/keys/a.pem", Action.DENY),
        ("cat secrets/token", Action.ASK),
        # Values other than deny are honoured.
        ("cat build.log", Action.LOG),
        # Quoted mentions are not accesses (pi-control's false positive).
        ('git commit -m "remove /config.env from repo"', Action.ALLOW),
        # Inline code and redirects are accesses too.
        ("python3 -c \"open('src/.env').read()\"", Action.DENY),
        ("tee src/.env < /dev/null", Action.DENY),
        ("echo x >> ~/.ssh/authorized_keys", Action.DENY),
        # Directory tools over a protected tree.
        ("grep -r KEY ~/.vault", Action.DENY),
        ("grep -r KEY ~", Action.DENY),
        ("grep -rn TOKEN .", Action.DENY),
        ("grep -r KEY docs", Action.ALLOW),
        # A search of a whole tree that holds a secret asks (and says how to leave it out); one
        # narrowed to the secret's names seeks it, and is refused.
        ("rg --hidden KEY src", Action.ASK),
        ("rg KEY src", Action.ALLOW),  # rg skips hidden files: .env is not read
        ("rg -g '.env*' KEY src", Action.DENY),  # unless a glob names them
        ("rg -g '**' KEY ~", Action.DENY),
        ("rg -g '*.py' -g '*.{md,txt}' KEY src", Action.ALLOW),
        ("rg --glob='*.py' --glob '.e*' KEY src", Action.DENY),
        ("rg -g '!*.md' KEY src", Action.ALLOW),  # an exclusion only narrows
        # Globs fnmatch reads unlike ripgrep, or matched without case, keep the walk whole (round 4)
        ("rg -g '.\\env' KEY src", Action.DENY),
        ("rg -g '.[^x]nv' KEY src", Action.DENY),
        ("rg -g=.env KEY src", Action.DENY),
        ("rg --iglob '*.py' -g '*.py' KEY src", Action.DENY),
        ("rg --glob-case-insensitive -g '.ENV' KEY src", Action.DENY),
        ("rg --type-add 'x:.env' -t x KEY src", Action.DENY),
        # Paths the text does not show (red-team round 4): out of /dev/fd or /proc, another
        # process's directories, `..` after a link the same line makes, are doubts; what the names
        # still show is judged too. Streams stay streams.
        ("cat /dev/fd/../cwd/src/.env", Action.DENY),
        ("echo x > /proc/self/fd/../cwd/.claude/settings.json", Action.DENY),
        ("cat /dev/fd/../cwd/docs/readme.md", Action.ASK),
        ("cat /proc/1/root/etc/hostname", Action.ASK),
        ("mkdir -p a/b/c && ln -s a/b/c l && cat l/../../../x", Action.ASK),
        ("cat /dev/null; echo x > /dev/null 2>/dev/fd/2", Action.ALLOW),
        ("tar czf /tmp/out.tgz ~/.vault", Action.DENY),
        ("cp -r ~ /tmp/copy", Action.DENY),
        ("rm -rf ~", Action.DENY),
        ("ls ~/.vault", Action.ALLOW),  # names, not contents: ~/.vault/credentials is the file protected
        ("ls -la ~", Action.ALLOW),
    ],
)
def test_bash_accesses_are_protected(
    machine: tuple[Sandbox, Engine, Path], command: str, expected: Action
) -> None:
    assert judge(machine, command) is expected


def test_protection_beats_rules_and_approvals(machine: tuple[Sandbox, Engine, Path]) -> None:
    # `cat *` is both allowed by a rule and approved; the protected path still decides.
    _, engine, project = machine
    decision = engine.evaluate(bash("cat ~/.ssh/id_rsa", project))
    assert decision.action is Action.DENY
    assert decision.decisive is not None and decision.decisive.kind == "protection"
    assert "do not retry with another tool" in decision.reason


def test_read_and_write_are_protected_apart(machine: tuple[Sandbox, Engine, Path]) -> None:
    _, engine, project = machine
    assert engine.evaluate(bash("cat /srv/shared/report.txt", project)).action is Action.ALLOW
    assert engine.evaluate(bash("echo x > /srv/shared/report.txt", project)).action is Action.DENY
    assert engine.evaluate(bash("rm /srv/shared/report.txt", project)).action is Action.DENY
    assert engine.evaluate(bash("cat ~/notes/todo.md", project)).action is Action.ALLOW
    assert engine.evaluate(bash("sed -i s/a/b/ ~/notes/todo.md", project)).action is Action.ASK


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        ("Read", {"file_path": "src/.env"}, Action.DENY),
        ("read", {"path": "@src/.env"}, Action.DENY),  # W-PATH-1: @-mentions are paths
        ("Read", {"file_path": "@~/.ssh/id_rsa"}, Action.DENY),
        ("Write", {"file_path": "/srv/shared/x", "content": ""}, Action.DENY),
        ("Read", {"file_path": "/srv/shared/x"}, Action.ALLOW),
        ("Grep", {"pattern": "KEY", "path": "~/.vault"}, Action.DENY),
        # Claude Code's Grep is ripgrep --hidden (respecting .gitignore): outside a git work tree
        # it reads ~/.ssh; a `glob` limits it to the names it matches, hidden or ignored ones too.
        ("Grep", {"pattern": "KEY", "path": "~"}, Action.DENY),
        ("Grep", {"pattern": "KEY", "path": "src", "glob": "*.py"}, Action.ALLOW),
        ("Grep", {"pattern": "KEY", "path": "src", "glob": ".env*"}, Action.DENY),
        ("Grep", {"pattern": "KEY", "glob": "**/*.{py,md}"}, Action.ALLOW),
        ("Grep", {"pattern": "KEY", "path": "src", "glob": "!*.py"}, Action.ASK),  # .env is not excluded
        ("search_file_content", {"pattern": "KEY", "path": "src", "include": "*.py"}, Action.ALLOW),
        ("Grep", {"pattern": "KEY", "path": "config"}, Action.DENY),  # config/keys/ lies inside
        ("Grep", {"pattern": "KEY", "path": "docs"}, Action.ALLOW),
        ("LS", {"path": "~/.keys"}, Action.ALLOW),
        ("LS", {"path": "~/.ssh"}, Action.DENY),  # the embedded default's ~/.ssh/ applies too
        ("mcp__fs__read", {"path": "src/.env"}, Action.DENY),
        ("Read", {"file_path": "/dev/fd/../cwd/docs/readme.md"}, Action.ASK),
        # A glob tool's pattern reveals the names in the directory it names, as LS does: allowed
        # where ~/.keys/* protects the files (denied where ~/.ssh/ is, as in the embedded default)
        ("Glob", {"pattern": "~/.keys/*"}, Action.ALLOW),
        ("Glob", {"pattern": "~/.ssh/*"}, Action.DENY),
        ("Glob", {"pattern": "**/*.py"}, Action.ALLOW),
        ("glob", {"pattern": "docs/*.md", "path": "."}, Action.ALLOW),
        ("Glob", {"pattern": "secrets/*"}, Action.ASK),
        # Gemini CLI's read_many_files: paths and include globs, a directory read whole
        ("read_many_files", {"include": ["src/.env"]}, Action.DENY),
        ("read_many_files", {"paths": ["src/.e*"]}, Action.DENY),
        ("read_many_files", {"paths": ["src"]}, Action.ASK),
        ("read_many_files", {"include": ["**/*.py", "docs/*.md"]}, Action.ALLOW),
        ("read_many_files", {"include": ["~/.ss?/*"]}, Action.DENY),
        # ... matched without case, as Gemini's glob does (red-team round 4)
        ("read_many_files", {"include": ["src/.ENV"]}, Action.DENY),
        ("read_many_files", {"include": ["**/.Env*"]}, Action.DENY),
        ("read_many_files", {"include": ["**/*.PY"]}, Action.ALLOW),
        # Gemini CLI's search_file_content is `grep -r` outside a git work tree: hidden files too
        ("search_file_content", {"pattern": "KEY", "path": "~"}, Action.DENY),
        ("search_file_content", {"pattern": "KEY", "path": "docs"}, Action.ALLOW),
    ],
)
def test_file_tools_are_protected(
    machine: tuple[Sandbox, Engine, Path], name: str, tool_input: dict[str, str], expected: Action
) -> None:
    _, engine, project = machine
    assert engine.evaluate(tool(name, project, **tool_input)).action is expected


def test_claude_s_grep_skips_what_git_ignores_and_nothing_else(machine: tuple[Sandbox, Engine, Path]) -> None:
    """Claude Code's Grep is ripgrep --hidden: in a git work tree it skips what git ignores, and
    only that (a fresh repository, or a .git made by the agent, ignores no .env). Gemini's search
    falls back to grep -r where git fails: hidden files are read."""
    import subprocess

    _, engine, project = machine
    grep = tool("Grep", project, pattern="KEY", path="src")
    gemini = tool("search_file_content", project, pattern="KEY", path="src")
    # A search of a tree that would read a secret asks (a bare deny would stop everyday searches).
    assert engine.evaluate(grep).action is Action.ASK  # no repository: src/.env is read
    (project / ".git").mkdir()  # not a repository git knows
    assert engine.evaluate(grep).action is Action.ASK
    (project / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert engine.evaluate(grep).action is Action.ASK  # nothing ignores .env yet
    (project / ".gitignore").write_text(".env*\n")
    assert engine.evaluate(grep).action is Action.ALLOW
    assert engine.evaluate(gemini).action is Action.ASK


def test_a_symlink_into_a_protected_tree_is_protected(machine: tuple[Sandbox, Engine, Path]) -> None:
    sandbox, engine, project = machine
    os.symlink(sandbox.home / ".ssh", project / "docs" / "keys")
    os.symlink(project / "src" / ".env", project / "docs" / "settings.txt")
    assert judge(machine, "cat docs/keys/id_rsa") is Action.DENY
    assert judge(machine, "cat docs/settings.txt") is Action.DENY
    assert engine.evaluate(tool("Read", project, file_path="docs/settings.txt")).action is Action.DENY


def test_dot_dot_goes_up_from_where_a_symlink_leads(machine: tuple[Sandbox, Engine, Path]) -> None:
    """The kernel follows a symlink before `..` (a/b/l/.. with l -> ../.. is the project's parent,
    not a/b), and /proc/self/cwd is the directory of the command, not the engine's."""
    sandbox, engine, project = machine
    (project / "a" / "b").mkdir(parents=True)
    os.symlink("../..", project / "a" / "b" / "l")  # l -> the project: l/.. is the sandbox root
    home = os.path.relpath(sandbox.home, sandbox.root)
    assert judge(machine, f"cat a/b/l/../{home}/.ssh/id_rsa") is Action.DENY
    assert judge(machine, f"cat /proc/self/cwd/../{home}/.ssh/id_rsa") is Action.DENY
    assert (
        engine.evaluate(tool("Read", project, file_path=f"a/b/l/../{home}/.ssh/id_rsa")).action is Action.DENY
    )
    assert judge(machine, "cat /proc/self/cwd/src/.env") is Action.DENY
    assert judge(machine, "cat a/../docs/readme.md") is Action.ALLOW
    assert judge(machine, "cat /proc/self/cwd/docs/readme.md") is Action.ALLOW


def test_a_walk_that_follows_links_reaches_where_they_lead(machine: tuple[Sandbox, Engine, Path]) -> None:
    """grep -R, rg -L and cp -rL follow the symbolic links inside the tree (red-team round 4): a
    link to ~/.ssh (or to ~) in the project makes them read the key; grep -r and rg do not."""
    sandbox, _, project = machine
    (project / "docs" / "k").symlink_to(sandbox.home / ".ssh")
    for command in (
        "grep -R KEY docs",
        "rg -L KEY docs",
        "cp -rL docs /tmp/copy",
        "grep --dereference-recursive KEY docs",
    ):
        assert judge(machine, command) is Action.DENY, command
    assert judge(machine, "grep -r KEY docs") is Action.ALLOW
    (project / "docs" / "k").unlink()
    (project / "docs" / "h").symlink_to(sandbox.home)
    assert judge(machine, "grep -R KEY docs") is Action.DENY  # ~ holds ~/.ssh
    (project / "docs" / "h").unlink()
    assert judge(machine, "grep -R KEY docs") is Action.ALLOW


def test_a_walk_reaches_locations_below_it(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        """
        {
          "policies": {
            "open": { "defaultAction": "allow" },
            "kept": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "write" } ] },
          },
          "locations": { "~": "open", "~/kept": "kept" },
        }
        """,
    )
    (sandbox.home / "kept").mkdir()
    engine = sandbox.engine(config)
    assert engine.evaluate(bash("rm -rf ~", sandbox.root)).action is Action.DENY
    assert engine.evaluate(bash("rm -rf ~/other", sandbox.root)).action is Action.ALLOW


def test_a_tree_too_large_to_search_is_a_doubt(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    from policy_engine.decide import protect

    monkeypatch.setattr(protect, "WALK_LIMIT", 5)
    big = sandbox.project("big")
    for number in range(10):
        (big / f"f{number}.txt").write_text("x")
    config = sandbox.write(
        "policy.jsonc",
        '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p", '
        '"pathProtection": { "*.key": "deny" } }',
    )
    decision = sandbox.engine(config).evaluate(bash("grep -r x big", sandbox.root))
    assert decision.action is Action.ASK
    assert "too large to search" in decision.reason


_KEYS_DENIED = (
    '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p", '
    '"pathProtection": { "*.key": "deny" } }'
)


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The directories that tree walks (the protections' searches, the proofs that a listing's
    names are clean) list from now on, in order."""
    from policy_engine.decide import protect

    listed: list[str] = []
    scandir = os.scandir

    def counted(path: str) -> Any:
        listed.append(path)
        return scandir(path)

    monkeypatch.setattr(protect.os, "scandir", counted)
    return listed


def test_a_search_that_gave_up_is_not_walked_again_for_a_while(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`grep -r x /` spends the whole budget on every call: a long-lived engine remembers for
    trees.FRESH_SECONDS that the same search of the same tree gave up (and answers the same),
    then walks again; a search that finished, of a tree changed just before, is walked every time."""
    from policy_engine import trees
    from policy_engine.decide import protect

    monkeypatch.setattr(protect, "WALK_LIMIT", 5)
    trees.forget()
    big, small = sandbox.project("big"), sandbox.project("small")
    for number in range(10):
        (big / f"f{number}.txt").write_text("x")
    (small / "f.txt").write_text("x")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(trees.time, "monotonic", lambda: now[0])

    def searches(command: str) -> tuple[Action, int]:
        listed.clear()
        decision = engine.evaluate(bash(command, sandbox.root))
        return decision.action, listed.count(str(big)) + listed.count(str(small))

    assert searches("grep -r x big") == (Action.ASK, 1)  # walked, gave up
    assert searches("grep -r x big") == (Action.ASK, 0)  # remembered: the same answer, no walk
    now[0] += trees.FRESH_SECONDS + 1
    assert searches("grep -r x big") == (Action.ASK, 1)  # forgotten: walked again
    for number in range(10):
        (big / f"f{number}.txt").unlink()
    now[0] += trees.FRESH_SECONDS + 1
    assert searches("grep -r x big") == (Action.ALLOW, 1)  # small enough now
    assert searches("grep -r x small") == (Action.ALLOW, 1)
    assert searches("grep -r x small") == (Action.ALLOW, 1)  # changed just before: not kept
    trees.forget()


def _listed(listed: list[str], root: Path) -> list[str]:
    """The paths of ``listed`` in ``root`` (not the engine's own data files), relative to it."""
    return sorted(os.path.relpath(path, root) for path in listed if path.startswith(str(root)))


def test_a_finished_search_is_kept_while_the_directories_it_listed_are_unchanged(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`grep -r TODO .` in a project of thousands of files walked it on every call: a long-lived
    engine keeps what a search that finished found, with the stamp of every directory it listed
    (from the second search on: a hook's single process pays nothing for them), and answers from
    it while each is unchanged. A file added or removed anywhere in the tree is found by the next
    call; a tree changed just before (trees.RACY_NS) is walked every time; what is kept goes after
    trees.FRESH_SECONDS."""
    import time

    from policy_engine import trees

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)  # "changed just before" is 50 ms here
    trees.forget()
    project = sandbox.project("app")
    for name in ("a/b/c", "a/d", "e"):
        (project / name).mkdir(parents=True)
        (project / name / "x.txt").write_text("x")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)
    now = [1000.0]
    monkeypatch.setattr(trees.time, "monotonic", lambda: now[0])

    def searches() -> tuple[str, list[str]]:
        listed.clear()
        decision = engine.evaluate(bash("grep -r x app", sandbox.root))
        found = "holds id.key" if "holds" in decision.reason else decision.action.name.lower()
        return found, _listed(listed, project)

    stamped: list[str] = []
    stamp = trees.stamp
    monkeypatch.setattr(trees, "stamp", lambda path: stamped.append(path) or stamp(path))
    every = [".", "a", "a/b", "a/b/c", "a/d", "e"]
    time.sleep(0.06)
    assert searches() == ("allow", every) and _listed(stamped, project) == []  # the first: no stamps
    assert searches() == ("allow", every) and _listed(stamped, project) == every
    assert searches() == ("allow", [])  # unchanged: answered without listing anything
    (project / "a" / "b" / "c" / "id.key").write_text("secret")
    time.sleep(0.06)
    found, walked = searches()
    assert found == "holds id.key" and walked  # the change is found (an ask: see _protected)
    assert searches() == ("holds id.key", [])  # and what was found is kept as well
    (project / "a" / "b" / "c" / "id.key").unlink()
    time.sleep(0.06)
    assert searches() == ("allow", every)
    assert searches() == ("allow", [])
    now[0] += trees.FRESH_SECONDS + 1
    assert searches() == ("allow", every)  # forgotten: walked again
    assert searches() == ("allow", every)
    # Changed just before (here: within a minute): a second change could keep the same times.
    monkeypatch.setattr(trees, "RACY_NS", 60_000_000_000)
    (project / "e" / "y.txt").write_text("y")
    assert searches() == ("allow", every)
    assert searches() == ("allow", every)
    trees.forget()


def test_a_kept_search_counts_against_the_calls_budget_as_its_walk_did(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries a kept search spent are taken from the call's budget as its walk's were: a call
    with fewer left walks the tree, and gives up where that walk gives up."""
    import time

    from policy_engine import trees
    from policy_engine.decide import protect

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)
    trees.forget()
    project = sandbox.project("app")
    for number in range(10):
        (project / f"f{number}.txt").write_text("x")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)
    time.sleep(0.06)

    def searches() -> tuple[Action, list[str]]:
        listed.clear()
        decision = engine.evaluate(bash("grep -r x app", sandbox.root))
        return decision.action, _listed(listed, project)

    assert searches() == (Action.ALLOW, ["."])
    assert searches() == (Action.ALLOW, ["."])  # kept from the second search on
    monkeypatch.setattr(protect, "CALL_LIMIT", 5)  # fewer entries left than the walk spent (10)
    assert searches() == (Action.ASK, ["."])  # walked, and gave up: too large for what is left
    monkeypatch.setattr(protect, "CALL_LIMIT", 10)
    assert searches() == (Action.ALLOW, [])
    trees.forget()


def test_a_kept_search_of_a_work_tree_asks_git_again(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's Grep (ripgrep) skips what git ignores, and a .gitignore can change without its
    directory changing: a kept search of a work tree asks git again about each entry it asked
    about, and walks again when an answer changed."""
    import subprocess
    import time

    from policy_engine import trees

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)
    trees.forget()
    project = sandbox.project("app")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".gitignore").write_text("*.key\n")
    (project / "sub").mkdir()
    (project / "sub" / "id.key").write_text("secret")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)
    time.sleep(0.06)

    def searches() -> tuple[Action, bool]:
        listed.clear()
        decision = engine.evaluate(tool("Grep", sandbox.root, pattern="x", path="app"))
        return decision.action, bool(listed)

    assert searches() == (Action.ALLOW, True)  # git ignores id.key: Grep never reads it
    assert searches() == (Action.ALLOW, True)  # kept from the second search on
    assert searches() == (Action.ALLOW, False)
    before = trees.stamp(str(project))
    (project / ".gitignore").write_text("# nothing ignored\n")  # the same file, rewritten
    assert trees.stamp(str(project)) == before  # its directory did not change
    assert searches() == (Action.ASK, True)  # the tree holds id.key
    trees.forget()


def test_a_search_that_follows_links_is_not_kept(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a link inside leads is not in the listings of the directories walked: `grep -R` walks
    every time."""
    import time

    from policy_engine import trees

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)
    trees.forget()
    project = sandbox.project("app")
    (project / "x.txt").write_text("x")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)
    time.sleep(0.06)
    for _ in range(3):
        listed.clear()
        assert engine.evaluate(bash("grep -R x app", sandbox.root)).action is Action.ALLOW
        assert _listed(listed, project) == ["."]
    trees.forget()


def test_a_tree_remembered_too_large_is_not_walked_again_for_other_names_or_patterns(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find / -name a`, then `find / -name b`: the second search of a tree the first found too
    large gives up at once when the entries the first looked at hold nothing it looks for (it would
    have given up after them), and is walked again when they hold what it looks for."""
    from policy_engine import trees
    from policy_engine.decide import protect

    monkeypatch.setattr(protect, "WALK_LIMIT", 8)
    trees.forget()
    big = sandbox.project("big")
    (big / "a.key").write_text("secret")  # among the entries a walk looks at first
    (big / ".env").write_text("KEY=1")
    (big / "sub").mkdir()
    for number in range(10):
        (big / "sub" / f"f{number}.txt").write_text("x")
    engine = sandbox.engine(sandbox.write("policy.jsonc", _KEYS_DENIED))
    listed = _scans(monkeypatch)

    def searches(command: str) -> tuple[str, int]:
        listed.clear()
        reason = engine.evaluate(bash(command, sandbox.root)).reason
        found = (
            "too large to search" if "too large to search" in reason else "holds" if "holds" in reason else ""
        )
        return found, listed.count(str(big))

    assert searches("find big -name '*.txt' -exec cat {} +") == ("too large to search", 1)  # walked
    assert searches("find big -name '*.md' -exec cat {} +") == ("too large to search", 0)  # remembered
    assert searches("find big -name 'f*' -exec cat {} +") == ("too large to search", 0)
    # The remembered entries hold all that reading every file looks for (a.key, .env): a walk
    # would find them before it gives up, so the tree is walked again, and finds them.
    assert searches("find big -exec cat {} +") == ("holds", 1)
    trees.forget()


def test_what_is_remembered_of_trees_is_bounded_and_what_is_stale_goes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon lives for hours: what trees.py keeps of too-large trees is dropped once stale as
    more comes, and beyond its bound of entries everything is forgotten at once."""
    from policy_engine import trees

    trees.forget()
    now = [1000.0]
    monkeypatch.setattr(trees.time, "monotonic", lambda: now[0])
    bound = trees._cautious.most
    trees.remember("a", "A", bound // 2)
    trees.remember("b", "B", bound // 4)
    assert (trees.recall("a"), trees.recall("b"), trees._cautious.entries) == ("A", "B", bound * 3 // 4)
    now[0] += trees.FRESH_SECONDS + 1
    trees.remember("c", "C", bound // 2)  # a and b are stale: dropped, no longer counted
    assert (trees.recall("a"), trees.recall("c"), trees._cautious.entries) == (None, "C", bound // 2)
    trees.remember("d", "D", bound // 2 + 1)  # beyond the bound: all before it is forgotten
    assert (trees.recall("c"), trees.recall("d"), trees._cautious.entries) == (None, "D", bound // 2 + 1)
    trees.remember("d", "D again", 10)  # the same search again replaces it
    assert (trees.recall("d"), trees._cautious.entries) == ("D again", 10)
    trees.forget()


def test_the_many_searches_kept_never_push_out_a_tree_found_too_large(tmp_path: Path) -> None:
    """The searches that finished are kept apart from what is known of too-large trees: a session's
    many small searches, beyond their own bound, forget each other, not that `/` is too large."""
    from policy_engine import trees

    trees.forget()
    trees.give_up("/", 20000)
    looked = trees.Looked()  # what a walk of one directory, unchanged since, gathered
    found = trees.stamp(str(tmp_path))
    assert found is not None
    looked.stamps.append((str(tmp_path), found))
    for number in range(trees._searched.kept + 1):
        trees.finished(("search", number), "found", looked)
    assert trees.gave_up("/") == 20000
    assert (trees.searched(("search", 0)), trees.searched(("search", trees._searched.kept))) == (
        None,
        "found",
    )
    trees.forget()


def test_a_listing_that_proved_nothing_is_not_trusted_again_for_a_while(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find . -name '*.py' | xargs wc -l` hands wc the files find prints, unless a name in the
    tree would come apart on the way (`a b.txt`). That "no" is remembered for trees.FRESH_SECONDS,
    as a tree too large is: until then the listing stays unproven (asks), then it is checked anew."""
    from policy_engine import trees

    trees.forget()
    project = sandbox.project("app")
    (project / "main.py").write_text("x")
    (project / "a b.txt").write_text("x")
    engine = sandbox.engine(None)
    now = [1000.0]
    monkeypatch.setattr(trees.time, "monotonic", lambda: now[0])
    line = "find . -name '*.py' | xargs wc -l"
    assert engine.evaluate(bash(line, project)).action is Action.ASK
    (project / "a b.txt").rename(project / "a_b.txt")
    assert engine.evaluate(bash(line, project)).action is Action.ASK  # remembered: still unproven
    now[0] += trees.FRESH_SECONDS + 1
    assert engine.evaluate(bash(line, project)).action is Action.ALLOW
    trees.forget()


def test_a_listing_proven_clean_is_kept_while_its_directories_are_unchanged(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find . -name '*.py' | xargs wc -l` is followed only when no name in the tree would come
    apart on the way, which takes a walk of the tree. From the second call on, that "clean" is
    kept with the stamps of the directories walked, and used while they are unchanged: a name
    with a space added anywhere is seen by the next call."""
    import time

    from policy_engine import trees

    monkeypatch.setattr(trees, "RACY_NS", 50_000_000)
    trees.forget()
    project = sandbox.project("app")
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "main.py").write_text("x")
    (project / "pkg" / "sub" / "util.py").write_text("x")
    engine = sandbox.engine(None)
    listed = _scans(monkeypatch)
    line = "find . -name '*.py' | xargs wc -l"

    def judged() -> tuple[Action, list[str]]:
        listed.clear()
        return engine.evaluate(bash(line, project)).action, _listed(listed, project)

    time.sleep(0.06)
    # Each directory listed twice: to prove the names clean, and to search the tree wc reads.
    walked = sorted([".", "pkg", "pkg/sub"] * 2)
    assert judged() == (Action.ALLOW, walked)
    assert judged() == (Action.ALLOW, walked)  # the stamps taken
    assert judged() == (Action.ALLOW, [])  # unchanged: no walk
    (project / "pkg" / "sub" / "a b.py").write_text("x")
    time.sleep(0.06)
    action, seen = judged()
    assert action is Action.ASK and seen  # walked again: the name comes apart
    trees.forget()


def test_a_long_lived_engine_sees_a_protected_file_that_appears_later(sandbox: Sandbox) -> None:
    """The daemon keeps one engine for many calls: what a search found is never remembered across
    calls (a `.env` written by a `git clone`, or by the user, after a first `grep -r`)."""
    config = sandbox.write(
        "policy.jsonc",
        '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p", '
        '"pathProtection": { ".env*": "deny" } }',
    )
    project = sandbox.project("app")
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("x")
    engine = sandbox.engine(config)
    assert engine.evaluate(bash("grep -r TOKEN .", project)).action is Action.ALLOW
    (project / "src" / ".env").write_text("TOKEN=1")
    assert engine.evaluate(bash("grep -r TOKEN .", project)).action is Action.ASK
    assert engine.evaluate(bash("grep -r --exclude='.env*' TOKEN .", project)).action is Action.ALLOW
    assert engine.evaluate(bash("grep -r --include='.env*' TOKEN .", project)).action is Action.DENY
    (project / "src" / ".env").unlink()
    assert engine.evaluate(bash("grep -r TOKEN .", project)).action is Action.ALLOW


def test_all_the_trees_of_one_call_share_one_search_budget(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A glob can name hundreds of trees: each is searched once for every pattern, and together
    they get a bounded number of entries; past it, the rest is a doubt (never an allow)."""
    from policy_engine.decide import protect

    config = sandbox.write(
        "policy.jsonc",
        '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p", '
        '"pathProtection": { "*.key": "deny", "*.pem": "deny", ".env*": "deny" } }',
    )
    root = sandbox.project("many")
    for tree in range(6):
        for number in range(4):
            (root / f"t{tree}").mkdir(exist_ok=True)
            (root / f"t{tree}" / f"f{number}.txt").write_text("x")
    engine = sandbox.engine(config)
    assert engine.evaluate(bash("grep -r x t*", root)).action is Action.ALLOW  # 24 entries in all
    monkeypatch.setattr(protect, "CALL_LIMIT", 12)
    decision = engine.evaluate(bash("grep -r x t*", root))
    assert decision.action is Action.ASK
    assert "too large to search" in decision.reason
    assert engine.evaluate(bash("grep -r x t0 t1", root)).action is Action.ALLOW  # 10 entries: within


def test_where_the_file_system_ignores_case_so_do_protections_and_locations(
    machine: tuple[Sandbox, Engine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On macOS and Windows `cat ~/.SSH/id_rsa` opens ~/.ssh/id_rsa and `.ENV` is `.env`."""
    from policy_engine import paths

    _, engine, project = machine
    cases = ["cat ~/.SSH/id_rsa", "cat src/.ENV", "cat ~/.Aws/Credentials", "echo x > .CLAUDE/settings.json"]
    assert all(judge(machine, command) is Action.ALLOW for command in cases)  # case-sensitive
    monkeypatch.setattr(paths, "CASE_INSENSITIVE", True)
    assert all(judge(machine, command) is Action.DENY for command in cases)
    assert engine.evaluate(tool("Read", project, file_path="~/.SSH/ID_RSA")).action is Action.DENY
    assert (
        engine.evaluate(tool("Write", project, file_path=".Claude/Settings.json", content="")).action
        is Action.DENY
    )
    assert judge(machine, "cat docs/README.MD") is Action.ALLOW


def test_the_explanation_says_the_tree_is_walked(machine: tuple[Sandbox, Engine, Path]) -> None:
    sandbox, _, project = machine
    result = sandbox.run("check", "--explain", "grep -r KEY ~", cwd=project)
    assert result.returncode == 20, result.stderr
    assert "(the whole tree)" in result.stdout
    assert "holds paths protected by pathProtection" in result.stdout
    assert "(something under it)" in result.stdout


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('{ "reed": "deny" }', 'unknown key "reed"'),
        ("{}", 'give "read", "write" or both'),
        ('{ "read": "nope" }', 'unknown action "nope"'),
        ('"bogus"', 'unknown action "bogus"'),
    ],
)
def test_a_bad_protection_value_is_an_error(sandbox: Sandbox, value: str, message: str) -> None:
    config = sandbox.write("policy.jsonc", f'{{\n  "pathProtection": {{\n    "~/.ssh/": {value}\n  }}\n}}\n')
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(config)
    (problem,) = caught.value.problems
    assert problem.file == str(config) and problem.line == 3 and message in problem.message


def test_every_path_field_of_a_tool_input_counts(machine: tuple[Sandbox, Engine, Path]) -> None:
    _, engine, project = machine
    two = tool("Read", project, path="docs/readme.md", file_path="~/.ssh/id_rsa")
    assert engine.evaluate(two).action is Action.DENY
    odd = engine.evaluate(tool("Write", project, file_path=5, content="x"))
    assert odd.action is Action.ASK and 'the input\'s "file_path" is not a path' in odd.reason


def test_a_glob_with_too_many_matches_is_a_doubt(machine: tuple[Sandbox, Engine, Path]) -> None:
    _, engine, project = machine
    many = project / "many"
    many.mkdir()
    for number in range(1030):
        (many / f"f{number}").write_text("")
    decision = engine.evaluate(bash("cat many/*", project))
    assert decision.action is Action.ASK and "matches more than 1024 files" in decision.reason


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("find ~ -name id_rsa -exec cat {} \\;", Action.DENY),  # the files found are read
        ("find . -name '.env*' -exec cat {} +", Action.DENY),
        ("find . -type f -exec cat {} +", Action.DENY),  # every file, .env included
        ("find . -name x -o -name y -exec cat {} \\;", Action.DENY),  # -o: which names pass cannot be told
        ("find . -name '*.py' -exec cat {} +", Action.ALLOW),  # no protected file is named so
        ("find ~ -name '*.md' -exec cat {} +", Action.ALLOW),
    ],
)
def test_find_hands_what_it_finds_to_its_command(
    machine: tuple[Sandbox, Engine, Path], command: str, expected: Action
) -> None:
    assert judge(machine, command) is expected


def test_a_project_file_higher_up_does_not_move_the_users_relative_protections(sandbox: Sandbox) -> None:
    """A pattern taken from the project root holds at the working directory too: an untrusted `{}`
    in a parent directory must not move `secrets/**` away from where it protected (red-team 14/13)."""
    sandbox.write(
        sandbox.user_config, '{ "pathProtection": { "secrets/**": "deny", "config/prod.yml": "deny" } }'
    )
    service = sandbox.project("proj/svc")
    sandbox.write(service / "secrets" / "key", "x\n")
    sandbox.write(service / "config" / "prod.yml", "x\n")
    sandbox.write(sandbox.root / "proj" / ".policy-engine" / "policy.jsonc", "{}")
    after = [
        sandbox.run("check", f"cat {path}", cwd=service).returncode
        for path in ("secrets/key", "config/prod.yml")
    ]
    assert after == [20, 20]
