"""Matching: locations, tool and command globs, specificity, the tie-break, and combining verdicts."""

from __future__ import annotations

import marshal
import os
import re

import pytest
from helpers import Sandbox, bash, tool
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine import Action, ToolCall
from policy_engine.config.compiled import CompiledRule
from policy_engine.config.ruleorder import rule_index, winning_order
from policy_engine.decide.protect import Search
from policy_engine.decide.rules import RuleBook
from policy_engine.globs import glob_matches
from policy_engine.model import Access, Atom, Origin, Sense


def engine_with(sandbox: Sandbox, text: str, **kwargs):
    return sandbox.engine(sandbox.write("policy.jsonc", text), **kwargs)


# --- locations -------------------------------------------------------------------------------


LOCATIONS = """
{
  "policies": {
    "open": { "defaultAction": "allow" },
    "strict": { "defaultAction": "deny" },
    "root": { "defaultAction": "log" },
    "home": { "defaultAction": "ask" },
  },
  "locations": {
    "/": "root",
    "/work/app": "strict",
    "/work/app/public": "open",
    "~/notes": "home",
  },
}
"""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/work/app/src/main.py", Action.DENY),  # inside /work/app
        ("/work/app", Action.DENY),  # the location itself
        ("/work/app2/main.py", Action.LOG),  # /work/app does not hold /work/app2: whole components
        ("/work/app/public/index.html", Action.ALLOW),  # the longest location wins
        ("/work/app/public/../secret.txt", Action.DENY),  # .. is collapsed before matching
        ("/work/app//public/x", Action.ALLOW),  # repeated slashes collapsed
        ("/etc/hosts", Action.LOG),  # "/" holds everything
        ("@/work/app/src/x.py", Action.DENY),  # a leading @ is stripped
        ("~/notes/today.md", Action.ASK),  # ~ in the path and in the location key
    ],
)
def test_longest_location_on_whole_path_components(sandbox: Sandbox, path: str, expected: Action) -> None:
    engine = engine_with(sandbox, LOCATIONS)
    decision = engine.evaluate(tool("read", "/elsewhere", path=path))
    assert decision.action is expected, decision.reason


def test_relative_path_is_taken_from_the_cwd(sandbox: Sandbox) -> None:
    engine = engine_with(sandbox, LOCATIONS)
    assert engine.evaluate(tool("read", "/work/app", file_path="src/x.py")).action is Action.DENY
    assert engine.evaluate(tool("read", "/work/app/public", file_path="../x.py")).action is Action.DENY
    assert engine.evaluate(tool("read", "/work/app/public", file_path="x.css")).action is Action.ALLOW


def test_cwd_location_follows_the_call(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        """
        { "policies": { "here": { "defaultAction": "allow" }, "away": { "defaultAction": "ask" },
                        "vendor": { "defaultAction": "deny" } },
          "locations": { "$cwd": "here", "$cwd/vendor": "vendor" },
          "defaultPolicy": "away" }
        """,
    )
    assert engine.evaluate(tool("write", "/p/one", path="/p/one/a.txt")).action is Action.ALLOW
    assert engine.evaluate(tool("write", "/p/two", path="/p/one/a.txt")).action is Action.ASK
    assert engine.evaluate(tool("write", "/p/one", path="/p/one/vendor/lib.js")).action is Action.DENY


def test_symlink_is_judged_under_both_spellings(sandbox: Sandbox) -> None:
    secret = sandbox.root / "secret"
    secret.mkdir()
    work = sandbox.root / "work"
    work.mkdir()
    os.symlink(secret, work / "link")
    engine = engine_with(
        sandbox,
        f"""
        {{ "policies": {{ "open": {{ "defaultAction": "allow" }}, "closed": {{ "defaultAction": "deny" }} }},
          "locations": {{ "{work}": "open", "{secret}": "closed" }} }}
        """,
    )
    decision = engine.evaluate(tool("write", work, path=str(work / "link" / "new.txt")))
    assert decision.action is Action.DENY
    assert decision.decisive.target == str(secret / "new.txt")
    # the literal spelling was judged too, and allowed
    assert any(
        v.target == str(work / "link" / "new.txt") and v.action is Action.ALLOW for v in decision.verdicts
    )


def test_location_reached_through_a_symlinked_key(sandbox: Sandbox) -> None:
    real = sandbox.root / "real-project"
    real.mkdir()
    os.symlink(real, sandbox.root / "alias")
    engine = engine_with(
        sandbox,
        f"""
        {{ "policies": {{ "open": {{ "defaultAction": "allow" }}, "closed": {{ "defaultAction": "deny" }} }},
          "locations": {{ "{sandbox.root / "alias"}": "open" }}, "defaultPolicy": "closed" }}
        """,
    )
    # both spellings of the file fall in the location, through its literal or its resolved key
    assert engine.evaluate(tool("write", "/", path=str(sandbox.root / "alias" / "f"))).action is Action.ALLOW
    assert engine.evaluate(tool("write", "/", path=str(real / "f"))).action is Action.ALLOW


def test_outside_every_location_without_default_policy_the_embedded_default_judges(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox, '{ "policies": { "s": { "defaultAction": "deny" } }, "locations": { "/a": "s" } }'
    )
    inside = engine.evaluate(tool("write", "/b", path="/b/x"))  # the default's $cwd -> project
    assert inside.action is Action.ALLOW
    assert (inside.decisive.kind, inside.decisive.policy) == ("rule", "project")
    outside = engine.evaluate(tool("write", "/b", path="/c/x"))  # else its elsewhere
    assert outside.action is Action.ASK
    assert (outside.decisive.kind, outside.decisive.policy) == ("default", "elsewhere")
    assert engine.evaluate(tool("write", "/b", path="/a/x")).action is Action.DENY


def test_outside_every_location_of_a_file_that_drops_the_default_is_unrestricted(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        '{ "extends": null, "policies": { "s": { "defaultAction": "deny" } }, "locations": { "/a": "s" } }',
    )
    decision = engine.evaluate(tool("write", "/b", path="/b/x"))
    assert decision.action is Action.ALLOW
    assert decision.decisive.kind == "unrestricted"
    assert "no policy covers /b/x" in decision.reason


def test_default_policy_applies_outside_locations(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        '{ "policies": { "s": { "defaultAction": "deny" }, "d": { "defaultAction": "ask" } },'
        ' "locations": { "/a": "s" }, "defaultPolicy": "d" }',
    )
    decision = engine.evaluate(tool("write", "/b", path="/b/x"))
    assert decision.action is Action.ASK
    assert decision.decisive.location == "defaultPolicy"


def test_relative_location_key_of_a_project_file_is_taken_from_the_project_root(sandbox: Sandbox) -> None:
    project = sandbox.project(
        "proj",
        """
        { "policies": { "gen": { "defaultAction": "deny" } }, "locations": { "generated": "gen" } }
        """,
    )
    (project / "src").mkdir()
    engine = sandbox.engine(cwd=project / "src")
    # untrusted project layer: it can still tighten, and its "generated" means <project>/generated
    assert (
        engine.evaluate(tool("write", project / "src", path=str(project / "generated" / "x"))).action
        is Action.DENY
    )
    assert (
        engine.evaluate(tool("write", project / "src", path=str(project / "src" / "x"))).action
        is Action.ALLOW
    )


# --- rules -----------------------------------------------------------------------------------


def rules_engine(sandbox: Sandbox, rules: str, default: str = "deny"):
    return engine_with(
        sandbox,
        f'{{ "policies": {{ "p": {{ "defaultAction": "{default}", "rules": [{rules}] }} }},'
        ' "locations": { "/": "p" } }',
    )


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", Action.ALLOW),  # "git *" matches
        ("git commit -m 'fix'", Action.ASK),  # "git commit *" is more specific (11 > 4)
        ("git push origin main", Action.DENY),  # "git push*" (8) beats "git *"
        ("git", Action.DENY),  # "git *" needs the space: default
        ("gitk", Action.DENY),
        ("git log --oneline\nrm -rf /", Action.DENY),  # two commands: each is judged
    ],
)
def test_most_specific_pattern_wins(sandbox: Sandbox, command: str, expected: Action) -> None:
    engine = rules_engine(
        sandbox,
        """
        { "action": "allow", "tool": "bash", "pattern": "git *" },
        { "action": "ask", "tool": "bash", "pattern": "git commit *" },
        { "action": "deny", "tool": "bash", "pattern": "git push*" }
        """,
    )
    assert engine.evaluate(bash(command, "/w")).action is expected


def test_question_mark_matches_one_character(sandbox: Sandbox) -> None:
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "bash", "pattern": "l? -la" }')
    assert engine.evaluate(bash("ls -la", "/w")).action is Action.ALLOW
    assert engine.evaluate(bash("lsx -la", "/w")).action is Action.DENY


def reference_glob(glob: str, text: str) -> bool:
    """What a glob means, as a regex (how rules.py matched before its own matcher)."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.fullmatch(body, text, re.DOTALL) is not None


@settings(max_examples=3000, deadline=None)
@given(
    st.text(st.sampled_from("ab*?. \n"), max_size=10),
    st.text(st.sampled_from("ab. \n"), max_size=14),
)
def test_glob_matching_is_the_regex_it_stands_for(glob: str, text: str) -> None:
    assert glob_matches(glob, text) is reference_glob(glob, text)


@pytest.mark.parametrize(
    ("glob", "text", "expected"),
    [
        ("a*a", "a", False),  # the two ends may not share a character
        ("a*a", "aa", True),
        ("*a?*???", "aba", False),  # no room left for the middle
        ("*a?*???", "abaaa", True),
        ("*a?*???", "xabyyy", True),
        ("??", "\n\n", True),  # ? and * take newlines too
        ("*", "", True),
        ("?*", "", False),
        ("**a**", "a", True),
        ("a*b*c", "acb", False),
        ("a*b?c*d", "ab-cab-cd", True),
        ("echo * * * * * *.sh", "echo a b c d e f.sh", True),
    ],
)
def test_glob_edge_cases(glob: str, text: str, expected: bool) -> None:
    assert glob_matches(glob, text) is expected is reference_glob(glob, text)


def test_pattern_is_matched_literally_except_wildcards(sandbox: Sandbox) -> None:
    engine = rules_engine(
        sandbox, r'{ "action": "allow", "tool": "bash", "pattern": "echo (a+b) [x] $y \\d." }'
    )
    assert engine.evaluate(bash(r"echo '(a+b)' '[x]' '$y' '\d.'", "/w")).action is Action.ALLOW
    assert engine.evaluate(bash(r"echo '(aab)' '[x]' '$y' '\d.'", "/w")).action is Action.DENY


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("allow", "deny", Action.ALLOW),
        ("deny", "allow", Action.ALLOW),
        ("nudge", "deny", Action.NUDGE),
        ("ask", "deny", Action.ASK),
        ("deny", "log", Action.DENY),  # pi-control ranks log last in a tie
        ("log", "allow", Action.ALLOW),
    ],
)
def test_ties_go_to_the_least_disruptive_action(
    sandbox: Sandbox, first: str, second: str, expected: Action
) -> None:
    message = ', "message": "m"'
    engine = rules_engine(
        sandbox,
        f"""
        {{ "action": "{first}", "tool": "bash", "pattern": "grep *"{message if first == "nudge" else ""} }},
        {{ "action": "{second}", "tool": "bash", "pattern": "grep *"{message if second == "nudge" else ""} }}
        """,
    )
    decision = engine.evaluate(bash("grep -r x .", "/w"))
    assert decision.action is expected
    assert len(decision.decisive.beat) == 1  # the loser is named in the trace


def test_tool_globs_and_specificity(sandbox: Sandbox) -> None:
    engine = rules_engine(
        sandbox,
        """
        { "action": "log", "tool": "github_*" },
        { "action": "ask", "tool": "github_create_pull_request" },
        { "action": "deny", "tool": "github_delete_*" },
        { "action": "allow", "tool": "*" }
        """,
    )
    assert engine.evaluate(tool("github_list_issues", "/w")).action is Action.LOG
    assert engine.evaluate(tool("github_create_pull_request", "/w")).action is Action.ASK
    assert engine.evaluate(tool("github_delete_repo", "/w")).action is Action.DENY
    assert engine.evaluate(tool("mcp__fs__read", "/w")).action is Action.ALLOW


def test_no_matching_rule_gives_the_default_action(sandbox: Sandbox) -> None:
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "read" }', default="ask")
    decision = engine.evaluate(tool("write", "/w", path="/w/x"))
    assert decision.action is Action.ASK
    assert decision.decisive.kind == "default"
    assert "defaultAction is ask" in decision.reason


def test_pattern_rule_beats_a_rule_without_pattern(sandbox: Sandbox) -> None:
    # pi-control scored the tool name "bash" (4) above the pattern "ls" (2); we rank a command
    # pattern above any rule without one, so the narrow allow is not swallowed by the broad rule.
    engine = rules_engine(
        sandbox,
        """
        { "action": "ask", "tool": "bash" },
        { "action": "allow", "tool": "bash", "pattern": "ls" },
        { "action": "allow", "tool": "*", "pattern": "pwd" }
        """,
    )
    assert engine.evaluate(bash("ls", "/w")).action is Action.ALLOW
    assert engine.evaluate(bash("pwd", "/w")).action is Action.ALLOW
    assert engine.evaluate(bash("rm x", "/w")).action is Action.ASK


def test_pattern_rules_never_match_other_tools(sandbox: Sandbox) -> None:
    # pi-control ignored a pattern for non-bash tools, so {"tool": "*", "pattern": "ls *"} allowed
    # every write; here a pattern rule is about commands only.
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "*", "pattern": "ls *" }')
    assert engine.evaluate(tool("write", "/w", path="/w/x")).action is Action.DENY
    assert engine.evaluate(bash("ls -la", "/w")).action is Action.ALLOW


def test_agent_tool_names_are_canonical_in_calls_and_rules(sandbox: Sandbox) -> None:
    engine = rules_engine(
        sandbox,
        """
        { "action": "allow", "tool": "read" },
        { "action": "ask", "tool": "Write" },
        { "action": "allow", "tool": "bash", "pattern": "ls *" }
        """,
    )
    assert engine.evaluate(tool("Read", "/w", file_path="/w/a")).action is Action.ALLOW
    assert engine.evaluate(tool("read_file", "/w", absolute_path="/w/a")).action is Action.ALLOW
    assert engine.evaluate(tool("write_file", "/w", file_path="/w/a")).action is Action.ASK
    assert engine.evaluate(tool("write", "/w", path="/w/a")).action is Action.ASK
    assert engine.evaluate(tool("run_shell_command", "/w", command="ls -la")).action is Action.ALLOW
    assert engine.evaluate(tool("Bash", "/w", command="ls -la")).action is Action.ALLOW
    assert engine.evaluate(tool("Edit", "/w", file_path="/w/a")).action is Action.DENY  # edit, not write


def test_tool_brace_alternatives(sandbox: Sandbox) -> None:
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "{read,ls}" }')
    assert engine.evaluate(tool("read", "/w", path="/w/a")).action is Action.ALLOW
    assert engine.evaluate(tool("ls", "/w")).action is Action.ALLOW
    assert engine.evaluate(tool("write", "/w", path="/w/a")).action is Action.DENY


def test_read_only_rule_matches_only_atoms_that_only_read(sandbox: Sandbox) -> None:
    from policy_engine.decide.judge import Context, LayerJudge
    from policy_engine.model import Access, Atom, Sense

    engine = rules_engine(
        sandbox, '{ "action": "allow", "tool": "bash", "pattern": "cat *", "readOnly": true }'
    )
    judge = LayerJudge(engine.policy_set.layers[0], engine.home)
    context = Context("/w", str(sandbox.home), "/w", lambda p: (p,), Search())
    reads = Atom("bash", "cat a", (Access("/w/a", Sense.READ),))
    writes = Atom("bash", "cat a", (Access("/w/a", Sense.READ), Access("/w/b", Sense.WRITE)))
    doubtful = Atom("bash", "cat a", (), ("dynamic path",))
    assert {v.action for v in judge.judge(reads, context)} == {Action.ALLOW}
    assert {v.action for v in judge.judge(writes, context)} == {Action.DENY}
    assert max(v.action for v in judge.judge(doubtful, context)) is Action.DENY


def test_doubts_raise_the_verdict_to_the_unknown_action(sandbox: Sandbox) -> None:
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "bash" }', default="allow")
    decision = engine.evaluate(tool("bash", "/w"))  # no command text at all
    assert decision.action is Action.ASK
    assert decision.decisive.kind == "doubt"


def test_most_restrictive_across_targets_wins(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        """
        { "policies": { "open": { "defaultAction": "allow" }, "closed": { "defaultAction": "deny" },
                        "note": { "defaultAction": "allow",
                                  "rules": [ { "action": "nudge", "tool": "read", "message": "careful" } ] } },
          "locations": { "/open": "open", "/closed": "closed", "/note": "note" } }
        """,
    )
    decision = engine.evaluate(tool("read_many_files", "/", paths=["/open/a", "/closed/b", "/note/c"]))
    assert decision.action is Action.DENY
    assert decision.decisive.target == "/closed/b"
    nudge = engine.evaluate(tool("read_many_files", "/", paths=["/open/a", "/note/c"]))
    assert nudge.action is Action.NUDGE
    assert nudge.message == "careful"


def test_tool_without_path_is_judged_at_the_cwd(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        '{ "policies": { "a": { "defaultAction": "allow" }, "d": { "defaultAction": "deny" } },'
        ' "locations": { "/safe": "a", "/danger": "d" } }',
    )
    assert engine.evaluate(tool("github_create_issue", "/safe/repo", title="x")).action is Action.ALLOW
    assert engine.evaluate(tool("github_create_issue", "/danger/repo", title="x")).action is Action.DENY
    # directory tools without a path search the cwd
    assert engine.evaluate(tool("grep", "/danger/repo", pattern="TODO")).action is Action.DENY


def test_rule_message_is_added_to_a_deny_reason(sandbox: Sandbox) -> None:
    engine = rules_engine(
        sandbox,
        '{ "action": "deny", "tool": "bash", "pattern": "git push --force*", "message": "Use --force-with-lease." }',
        default="allow",
    )
    decision = engine.evaluate(bash("git push --force origin", "/w"))
    assert decision.action is Action.DENY
    assert decision.reason.endswith("Use --force-with-lease.")
    assert decision.message is None  # message carries nudges only


def test_odd_calls_never_crash(sandbox: Sandbox) -> None:
    engine = rules_engine(sandbox, '{ "action": "allow", "tool": "read" }', default="allow")
    assert engine.evaluate(tool("bash", "/w", command=["not", "a", "string"])).action is Action.ASK
    assert engine.evaluate(ToolCall("bash", ["not a mapping"], "/w")).action is Action.ASK  # type: ignore[arg-type]
    assert (
        engine.evaluate(tool("read", "/w", path=42)).action is Action.ASK
    )  # a path that is not one: a doubt
    assert engine.evaluate(bash("x" * 1_000_000, "/w")).action is Action.ASK  # too long to analyse
    assert engine.evaluate(bash("rm \x00 -rf", "/w")).action is Action.ASK


def test_relative_call_cwd_is_taken_from_the_engine_cwd(sandbox: Sandbox) -> None:
    engine = engine_with(
        sandbox,
        '{ "policies": { "d": { "defaultAction": "deny" } }, "locations": { "/base/sub": "d" } }',
        cwd="/base",
    )
    assert engine.evaluate(tool("write", "sub", path="x")).decisive.target == "/base/sub/x"
    assert engine.evaluate(tool("write", "sub", path="x")).action is Action.DENY


# --- the rule index ----------------------------------------------------------------------------

_GLOB = st.text(alphabet="ab *?", min_size=1, max_size=5)
_RULES = st.lists(
    st.builds(
        lambda action, tool, pattern, read_only: CompiledRule(
            action, tool, pattern, Origin("f", 1, 1, "k"), read_only=read_only
        ),
        st.sampled_from(list(Action)),
        st.sampled_from(["bash", "read", "*", "b*", "re?d", "mcp__*"]),
        st.none() | _GLOB,
        st.booleans(),
    ),
    max_size=12,
)
_ATOMS = st.builds(
    Atom,
    st.sampled_from(["bash", "read", "mcp__x"]),
    st.none() | st.text(alphabet="ab *?", max_size=6),
    st.sampled_from([(), (Access("/x", Sense.WRITE),)]),
)


@settings(max_examples=500, deadline=None)
@given(_RULES, st.lists(_ATOMS, min_size=1, max_size=6))
def test_the_rule_index_finds_what_a_scan_of_every_rule_finds(
    rules: list[CompiledRule], atoms: list[Atom]
) -> None:
    """The first matching rule in winning order wins, the others are beaten: the index (computed,
    or as the compiled-policy cache stores it) only skips rules that cannot match."""
    ordered = tuple(sorted(rules, key=winning_order))
    books = [RuleBook(ordered), RuleBook(ordered, marshal.loads(marshal.dumps(rule_index(ordered))))]
    for atom in atoms:
        matched = [
            rule
            for rule in ordered
            if glob_matches(rule.tool, atom.tool)
            and (
                rule.pattern is None
                or (atom.command is not None and glob_matches(rule.pattern, atom.command))
            )
            and (atom.read_only or not rule.read_only)
        ]
        for book in books:  # asked twice: the second answer comes from the memo
            for _ in range(2):
                winner, beaten, _ = book.match(atom)
                assert (winner, list(beaten)) == ((matched[0], matched[1:]) if matched else (None, []))


_WORD = st.sampled_from(["git", "status", "log", "st", "s", "-C", "x", "--oneline", ""])
_WORDY_RULES = st.lists(
    st.builds(
        lambda action, words, star: CompiledRule(
            action, "bash", " ".join(words) + star, Origin("f", 1, 1, "k")
        ),
        st.sampled_from(list(Action)),
        st.lists(_WORD, min_size=1, max_size=4),
        st.sampled_from(["", "*", " *", "?"]),
    ),
    max_size=12,
)


@settings(max_examples=500, deadline=None)
@given(_WORDY_RULES, st.lists(st.lists(_WORD, min_size=1, max_size=5), min_size=1, max_size=6))
def test_the_rules_of_a_command_s_first_two_words_are_those_a_scan_finds(
    rules: list[CompiledRule], commands: list[list[str]]
) -> None:
    """Commands of words (``git log --oneline x``) against rules of words and wildcards, some
    longer than two words (``git log --oneline*``): the rules kept for a command's first two words
    lose none that a scan of every rule finds."""
    from policy_engine.decide import rules as rulebook

    ordered = tuple(sorted(rules, key=winning_order))
    few = rulebook._FEW
    try:
        for rulebook._FEW in (0, few):  # a first word's rules filtered by two words, and not
            book = RuleBook(ordered)
            for words in commands:
                atom = Atom("bash", " ".join(words))
                matched = [rule for rule in ordered if glob_matches(rule.pattern, atom.command)]
                for _ in range(2):  # the second answer comes from the memo
                    winner, beaten, _ = book.match(atom)
                    assert (winner, list(beaten)) == ((matched[0], matched[1:]) if matched else (None, []))
    finally:
        rulebook._FEW = few
