"""Read-only proofs are sound: what the knowledge does not know is never taken for a read.

An option the knowledge does not list, a word bash computes that may start with a dash, a name
spelt as data, a response file, an XML document or a configuration that can make a tool write:
each keeps a readOnly rule ($safe-bash) from allowing the call, and says why. Rules that name the
command still judge it (an explicit `git clean *` rule matches whatever the options).
"""

from __future__ import annotations

from pathlib import Path

from helpers import Sandbox, bash

from policy_engine import Action


def test_an_unknown_option_is_not_proven_read_only_and_the_reason_names_it(sandbox: Sandbox) -> None:
    engine = sandbox.engine(cwd=sandbox.root)
    decision = engine.evaluate(bash("sort --no-such-option data.txt", sandbox.root))
    assert decision.action is Action.ASK
    assert "`--no-such-option` is an option the command knowledge does not list" in decision.reason
    assert engine.evaluate(bash("sort -n data.txt", sandbox.root)).action is Action.ALLOW


def test_a_rule_that_names_the_command_still_matches_an_unknown_option(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        """
        { "policies": { "p": { "defaultAction": "deny", "rules": [
            { "action": "allow", "tool": "bash", "pattern": "sort *" } ] } },
          "defaultPolicy": "p" }
        """,
    )
    decision = sandbox.engine(config, cwd=sandbox.root).evaluate(
        bash("sort --no-such-option x", sandbox.root)
    )
    assert decision.action is Action.ALLOW, decision.reason


def test_a_glob_that_matches_a_dashed_name_is_an_option(sandbox: Sandbox, tmp_path: Path) -> None:
    work = sandbox.project("work")
    (work / "a.txt").write_text("a\n")
    engine = sandbox.engine(cwd=work)
    assert engine.evaluate(bash("sort *", work)).action is Action.ALLOW
    (work / "--files0-from=.l").write_text("")
    decision = engine.evaluate(bash("sort *", work))
    assert decision.action is Action.ASK and "--files0-from=.l" in decision.reason
    for safe in ("sort -- *", "sort ./*"):
        assert engine.evaluate(bash(safe, work)).action is Action.ALLOW, safe
    # a command before it in the same line may create such a name: the glob is not trusted
    assert engine.evaluate(bash("touch -- -x; sort *", work)).action is Action.ASK


def test_a_protected_name_spelt_as_text_is_judged_as_a_touch(sandbox: Sandbox) -> None:
    engine = sandbox.engine(cwd=sandbox.root)
    for command in (
        "printf '%s\\0' ~/.ssh/id_rsa",
        "strings -- @~/.ssh/id_rsa",
        "echo --file=~/.ssh/id_rsa",
        "echo file://$HOME/.aws/credentials",
    ):
        decision = engine.evaluate(bash(command, sandbox.root))
        assert decision.action is Action.DENY, (command, decision.reason)
    # a pattern keeps its meaning, and a bare name is not a path
    for command in ("grep -e ~/.ssh/x -r src", "echo .env >> .gitignore", "grep -r --exclude=.env* KEY ."):
        assert engine.evaluate(bash(command, sandbox.root)).action is not Action.DENY, command


def test_documents_and_configurations_that_load_more_are_doubts(sandbox: Sandbox) -> None:
    work = sandbox.project("work")
    engine = sandbox.engine(cwd=work)
    (work / "ok.xml").write_text("<r/>\n")
    (work / "bad.xml").write_text('<!DOCTYPE r [<!ENTITY k SYSTEM "file:///etc/hostname">]><r>&k;</r>\n')
    assert engine.evaluate(bash("xmllint --noout ok.xml", work)).action is Action.ALLOW
    decision = engine.evaluate(bash("xmllint --noout bad.xml", work))
    assert decision.action is Action.ASK and "names other files" in decision.reason
    assert engine.evaluate(bash("ruff check .", work)).action is Action.ALLOW
    (work / "pyproject.toml").write_text("[tool.ruff]\nfix = true\n")
    decision = engine.evaluate(bash("ruff check .", work))
    assert decision.action is Action.ASK and "pyproject.toml" in decision.reason


def test_git_reads_only_repositories_whose_configuration_is_guarded(sandbox: Sandbox) -> None:
    work = sandbox.project("work")
    engine = sandbox.engine(cwd=work)
    (work / ".git").mkdir()
    assert engine.evaluate(bash("git status", work)).action is Action.ALLOW
    other = sandbox.project("other")
    for name in ("objects", "refs"):
        (other / "e" / name).mkdir(parents=True)
    (other / "e" / "HEAD").write_text("ref: refs/heads/main\n")
    (other / ".git").write_text("gitdir: e\n")
    decision = sandbox.engine(cwd=other).evaluate(bash("git status", other))
    assert decision.action is Action.ASK and "points git at" in decision.reason
    # a linked worktree's .git file is fine: its gitdir is under the main repository's .git
    linked = sandbox.project("linked")
    (work / ".git" / "worktrees" / "linked").mkdir(parents=True)
    (linked / ".git").write_text(f"gitdir: {work}/.git/worktrees/linked\n")
    assert sandbox.engine(cwd=linked).evaluate(bash("git status", linked)).action is Action.ALLOW


def test_the_cli_explains_an_unproven_call(sandbox: Sandbox) -> None:
    result = sandbox.check_json("git clean -n --no-such-flag")
    assert result["action"] == "ask"
    assert "`--no-such-flag` is an option the command knowledge does not list" in result["reason"]


def test_a_compressed_xml_document_cannot_be_checked(sandbox: Sandbox) -> None:
    import gzip

    work = sandbox.project("work")
    (work / "z.xml").write_bytes(
        gzip.compress(b'<!DOCTYPE r [<!ENTITY k SYSTEM "file:///etc/hostname">]><r>&k;</r>')
    )
    decision = sandbox.engine(cwd=work).evaluate(bash("xmlstarlet sel -t -c / z.xml", work))
    assert decision.action is Action.ASK and "is compressed" in decision.reason
