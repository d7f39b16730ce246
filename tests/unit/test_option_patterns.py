"""Option-aware patterns: a restrictive rule's options match wherever the command carries them and
in every spelling the command knowledge gives (short and long, --opt=value and --opt value, bundles,
unique prefixes), global options before a subcommand do not hide it, and option-awareness never
makes a decision less strict than matching the pattern as text."""

from __future__ import annotations

import pytest
from helpers import Sandbox
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine import Action
from policy_engine.analysis.shell.analysis import Analyzer
from policy_engine.analysis.shell.commandline import Reader, read_command, read_pattern
from policy_engine.analysis.shell.knowledge import compile_knowledge, knowledge
from policy_engine.config.compiled import CompiledRule
from policy_engine.config.ruleorder import winning_order
from policy_engine.decide.rules import RuleBook
from policy_engine.globs import glob_matches
from policy_engine.model import Origin

POLICY = """
{ "extends": null,
  "policies": { "p": { "defaultAction": "ask", "rules": [
    { "action": "allow", "tool": "bash", "pattern": "git *" },
    { "action": "deny", "tool": "bash", "pattern": "git push --force*" },
    { "action": "deny", "tool": "bash", "pattern": "git reset --hard" },
    { "action": "allow", "tool": "bash", "pattern": "rm *" },
    { "action": "deny", "tool": "bash", "pattern": "rm -rf *" },
    { "action": "allow", "tool": "bash", "pattern": "curl *" },
    { "action": "deny", "tool": "bash", "pattern": "curl -X POST *" },
    { "action": "ask", "tool": "bash", "pattern": "curl -k*" },
    { "action": "allow", "tool": "bash", "pattern": "docker *" },
    { "action": "deny", "tool": "bash", "pattern": "docker run --privileged*" },
    { "action": "deny", "tool": "bash", "pattern": "docker run -v /:*" },
    { "action": "deny", "tool": "bash", "pattern": "docker -H *" },
  ] } },
  "defaultPolicy": "p" }
"""

CASES = [
    # git: the spellings of a force push, wherever the option stands, after global options
    ("git push -f", "deny", "git push --force*"),
    ("git push origin main --force", "deny", "git push --force*"),
    ("git push --force-with-lease", "deny", "git push --force*"),
    ("git -C . push -f origin main", "deny", "git push --force*"),
    ("git --no-pager push --force origin", "deny", "git push --force*"),
    ("git push -uf origin main", "deny", "git push --force*"),
    ("git push origin main", "allow", "git *"),
    ("git commit -m 'no --force here'", "allow", "git *"),  # a value, not an option
    # a closed pattern: its options in any order, nothing it does not name at its level
    ("git reset --hard", "deny", "git reset --hard"),
    ("git --no-pager reset --hard", "deny", "git reset --hard"),
    ("git reset --har", "deny", "git reset --hard"),  # a unique prefix, as git reads it
    ("git reset --hard HEAD~1", "allow", "git *"),
    # rm: bundles and long spellings of -r and -f
    ("rm -fr build", "deny", "rm -rf *"),
    ("rm -r -f build", "deny", "rm -rf *"),
    ("rm -Rf build", "deny", "rm -rf *"),
    ("rm --recursive --force build", "deny", "rm -rf *"),
    ("rm build -rf", "deny", "rm -rf *"),
    ("rm -r build", "allow", "rm *"),
    # curl: an option's value, attached or not, in either spelling
    ("curl --request POST https://x", "deny", "curl -X POST *"),
    ("curl -XPOST https://x", "deny", "curl -X POST *"),
    ("curl --request=POST https://x", "deny", "curl -X POST *"),
    ("curl -sS -X POST https://x", "deny", "curl -X POST *"),
    ("curl -X GET https://x", "allow", "curl *"),
    ("curl --insecure https://x", "ask", "curl -k*"),
    # docker: run's options end at the image; global options have aliases too
    ("docker run -it --privileged ubuntu", "deny", "docker run --privileged*"),
    ("docker run --volume=/:/host ubuntu", "deny", "docker run -v /:*"),
    ("docker run --rm -v /:/host ubuntu sh", "deny", "docker run -v /:*"),
    ("docker run ubuntu echo --privileged", "allow", "docker *"),  # the container's own words
    ("docker --host tcp://h:2375 ps", "deny", "docker -H *"),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES)
def test_a_patterns_options_match_in_every_order_and_spelling(
    sandbox: Sandbox, command: str, expected: str, rule: str
) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.check_json("--config", str(config), command)
    assert result["action"] == expected, result["reason"]
    assert result["trace"]["decided_by"]["rule"]["pattern"] == rule, result["reason"]


def test_options_that_carry_a_doubt_still_raise_the_verdict(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.check_json("--config", str(config), "git -c core.pager='sh -c x' log")
    assert result["action"] == "ask" and "git -c sets configuration" in result["reason"]


def test_an_option_match_never_loosens_what_a_text_match_decides(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        '{ "extends": null, "policies": { "p": { "defaultAction": "ask", "rules": ['
        ' { "action": "deny", "tool": "bash", "pattern": "rm *" },'
        ' { "action": "nudge", "tool": "bash", "pattern": "rm -f*", "message": "careful" } ] } },'
        ' "defaultPolicy": "p" }',
    )
    # `rm -rf x` carries -f, but a nudge found by its options must not beat the deny of rm *.
    assert sandbox.check_json("--config", str(config), "rm -rf x")["action"] == "deny"
    assert sandbox.check_json("--config", str(config), "rm -f x")["action"] == "nudge"  # as text


def test_an_allow_rule_matches_as_text_only(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        '{ "extends": null, "policies": { "p": { "defaultAction": "ask", "rules": ['
        ' { "action": "allow", "tool": "bash", "pattern": "git log --oneline" },'
        ' { "action": "allow", "tool": "bash", "pattern": "rm -r build" } ] } }, "defaultPolicy": "p" }',
    )
    for command in ("git --no-pager log --oneline", "rm -rf build", "rm build -r"):
        assert sandbox.check_json("--config", str(config), command)["action"] == "ask", command
    assert sandbox.check_json("--config", str(config), "git log --oneline")["action"] == "allow"


def test_the_knowledge_reads_an_alias_as_its_option() -> None:
    know = knowledge()
    spelled = {
        "curl -o out https://x": "curl --output out https://x",
        "git push -f origin": "git push --force origin",
        "rm -R dir": "rm --recursive dir",
    }
    for short, long in spelled.items():
        a, b = read_command(short.split(), know), read_command(long.split(), know)
        assert [set(o.spellings) for o in a.options] == [set(o.spellings) for o in b.options], short
        assert a.operands == b.operands
    # ... and so does the analysis: curl -o writes its file, as --output does
    analyzer = Analyzer("/home/me", know)
    (atom,) = analyzer.atoms("curl -o /tmp/page https://x", "/p")
    assert ("/tmp/page", "write") in {(a.path, a.sense.value) for a in atom.accesses}


def test_an_alias_that_is_also_an_option_of_its_own_is_a_mistake_in_the_data() -> None:
    data = '{ "commands": { "x": { "options": { "--force": { "aliases": ["-f"] }, "-f": "flag" } } } }'
    with pytest.raises(ValueError, match="-f is an alias of --force and an option of its own"):
        compile_knowledge(data)


def test_a_pattern_with_a_wildcard_where_a_subcommand_stands_matches_as_text_only() -> None:
    assert read_pattern("git * push --force", knowledge()) is None
    assert read_pattern("gi? push", knowledge()) is None
    reading = read_pattern("git push --force*", knowledge())
    assert reading is not None and reading.path == ("git", "push") and reading.open


# ---- option-awareness never loosens: for any rules and any command, the decision it gives is at
# least as strict as matching the patterns as text, and an allow it gives is text's allow.

_WORDS = [
    "git",
    "push",
    "reset",
    "-f",
    "--force",
    "--hard",
    "-C",
    ".",
    "origin",
    "main",
    "rm",
    "-r",
    "-rf",
    "--recursive",
    "x",
    "curl",
    "-X",
    "POST",
    "--request",
    "-k",
    "docker",
    "run",
    "-v",
    "/:/h",
    "img",
]
_PATTERNS = [
    "git *",
    "git push *",
    "git push --force*",
    "git push -f *",
    "git reset --hard*",
    "git -C * push*",
    "rm *",
    "rm -rf *",
    "rm -r*",
    "rm --recursive x",
    "curl *",
    "curl -X POST *",
    "curl -k*",
    "docker *",
    "docker run -v /:*",
    "git push origin main",
    "rm -f*",
]
_ORIGIN = Origin("test", 1, 1, "rules")


@st.composite
def _rules(draw: st.DrawFn) -> list[CompiledRule]:
    chosen = draw(st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=6, unique=True))
    actions = st.sampled_from(list(Action))
    return [CompiledRule(draw(actions), "bash", pattern, _ORIGIN) for pattern in chosen]


@settings(max_examples=300, deadline=None)
@given(
    _rules(),
    st.sampled_from(list(Action)),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=7).map(lambda w: " ".join(["git", *w])),
    st.sampled_from(["git", "rm", "curl", "docker"]),
)
def test_option_awareness_never_loosens_a_decision(
    rules: list[CompiledRule], default: Action, line: str, name: str
) -> None:
    know = knowledge()
    analyzer = Analyzer("/home/me", know)
    book = RuleBook(tuple(sorted(rules, key=winning_order)), default=default)
    reader = Reader(know)
    for atom in analyzer.atoms(name + line.removeprefix("git"), "/p"):
        text, aware = book.match(atom), book.match(atom, lambda: reader)
        plain = text.winner.action if text.winner else default
        found = aware.winner.action if aware.winner else default
        assert found >= plain, (atom.command, text.winner, aware.winner)
        if found is Action.ALLOW and aware.winner is not None:
            assert aware.winner.pattern is None or glob_matches(aware.winner.pattern, atom.command or "")


# ---- red-team round 14 (findings 8 to 11 and 14)


@pytest.mark.parametrize(
    "command",
    ["F=-$X; git push $F", "git push $(echo -f)", 'set -- -f; git push "$@"', "git push origin ${HOME:+-f}"],
)
def test_a_word_bash_computes_that_may_be_the_option_is_a_doubt(sandbox: Sandbox, command: str) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.check_json("--config", str(config), command)
    assert result["action"] == "ask", result["reason"]
    assert 'may be an option that rule deny bash "git push --force*"' in result["reason"]
    # A computed word that cannot be an option raises no doubt.
    plain = sandbox.check_json("--config", str(config), "git push origin feature/$X")
    assert plain["action"] == "allow", plain["reason"]


def test_a_variable_set_to_an_option_is_that_option(sandbox: Sandbox) -> None:
    """F=-f is set once, at the top of the line: $F is -f, and the deny rule for --force matches."""
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.check_json("--config", str(config), "F=-f; git push $F")
    assert result["action"] == "deny", result["reason"]
    assert "git push --force*" in result["reason"]


@pytest.mark.parametrize(
    "command",
    [
        "docker run -c 512 --privileged img",  # an option the table did not list, with its value
        "docker run --cpu-shares 512 --privileged img",
        "docker run --some-new-option 1g --privileged img",  # one it still does not list
        "docker container run --privileged img",  # the same command spelled otherwise
        "docker create --privileged img",
    ],
)
def test_docker_run_options_after_ones_it_reads_uncertainly_still_match(
    sandbox: Sandbox, command: str
) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.check_json("--config", str(config), command)
    assert result["action"] == "deny", result["reason"]
    assert sandbox.check_json("--config", str(config), "docker run -v=/:/host img")["action"] == "deny"


@pytest.mark.parametrize(
    ("pattern", "command"),
    [
        ("git branch --delete *", "git branch -d x"),
        ("git branch -m *", "git branch --move a b"),
        ("git tag -d *", "git tag --delete v1"),
        ("git clone -b *", "git clone --branch=main url"),
        ("docker compose -f *", "docker compose --file=evil.yml up"),
        ("docker run --network=host *", "docker run --net=host img"),
        ("curl -d *", "curl --data-ascii x http://a"),
        ("git log -n *", "git log --max-count=3"),
    ],
)
def test_both_spellings_of_an_option_the_knowledge_lists_are_one_option(
    sandbox: Sandbox, pattern: str, command: str
) -> None:
    config = sandbox.write(
        "policy.jsonc",
        '{ "extends": null, "policies": { "p": { "defaultAction": "allow", "rules": ['
        f' {{ "action": "deny", "tool": "bash", "pattern": "{pattern}" }} ] }} }}, "defaultPolicy": "p" }}',
    )
    assert sandbox.check_json("--config", str(config), command)["action"] == "deny"


def test_an_option_match_of_the_same_action_leaves_the_circuit_breakers_counting(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "policy.jsonc",
        '{ "extends": null, "policies": { "p": { "defaultAction": "allow", "rules": ['
        ' { "action": "nudge", "tool": "bash", "pattern": "git push *", "message": "open a PR" },'
        ' { "action": "nudge", "tool": "bash", "pattern": "git push --force*", "message": "never force" } ] } },'
        ' "defaultPolicy": "p", "nudgeTimeout": { "maxNudges": 3, "windowSeconds": 3600 } }',
    )
    actions = [
        sandbox.check_json("--config", str(config), "--session", "s1", command)["action"]
        for command in ("git push origin main", "git push origin dev", "git push origin main -f")
    ]
    assert actions == ["nudge", "nudge", "deny"]  # the third nudge of "git push *" trips it


def test_many_stars_are_matched_without_backtracking_for_ever() -> None:
    # Both took longer than any hook's time limit: each split of the words was tried for each star.
    reader = Reader(knowledge())
    words = ("rm", *(["a"] * 40), "-f")
    assert reader.matches("rm -f " + "* " * 25 + "Z", words, glob_matches) is False
    assert reader.matches("rm -f " + "* " * 25 + "a", words, glob_matches) is True
    assert not glob_matches("git " + "* " * 25 + "Z", "git " + "a " * 60)
    assert glob_matches("git " + "* " * 25 + "a", "git " + "a " * 60 + "a")


def test_where_the_file_system_ignores_case_command_names_are_folded(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from helpers import bash

    from policy_engine import paths

    config = sandbox.write("policy.jsonc", POLICY)
    monkeypatch.setattr(paths, "CASE_INSENSITIVE", True)  # macOS, Windows: `Git` runs git
    engine = sandbox.engine(config, use_cache=False)
    for command in ("RM -rf x", "Git push -f", "GIT push --force", "/BIN/rm -rf x"):
        assert engine.evaluate(bash(command, sandbox.root)).action is Action.DENY, command
    asked = sandbox.engine(cwd=sandbox.project("repo")).evaluate(bash("Policy approve x", sandbox.root))
    assert asked.action is Action.ASK and "policy approve loosens" in asked.reason
