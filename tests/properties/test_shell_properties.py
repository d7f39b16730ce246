"""Properties of the shell analysis on generated input: it never raises, and a line that does not
parse is never allowed, even by a policy that allows every command."""

from __future__ import annotations

import json

from helpers import Sandbox, bash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy_engine import Action
from policy_engine.analysis.shell.analysis import join_continuations
from policy_engine.analysis.shell.grammar import parse

TOKENS = [
    "rm",
    "-rf",
    "/",
    "ls",
    "git",
    "status",
    "echo",
    "cat",
    "x",
    "~",
    "$HOME",
    "$x",
    "${IFS}",
    "$(",
    ")",
    "`",
    "'",
    '"',
    "\\",
    "|",
    "||",
    "&&",
    "&",
    ";",
    "\n",
    "<",
    ">",
    ">>",
    "2>&1",
    "<<EOF",
    "EOF",
    "<<<",
    "(",
    "{",
    "}",
    "*",
    "?",
    "[",
    "]",
    "=",
    "sudo",
    "bash",
    "-c",
    "env",
    "xargs",
    "find",
    ".",
    "-exec",
    "{}",
    "\\;",
    "if",
    "then",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "case",
    "esac",
    ";;",
    "$'\\x72m'",
    "<(",
    ">(",
    "#",
    " ",
    "  ",
    "\t",
]

shell_like = st.lists(st.sampled_from(TOKENS), max_size=24).map(" ".join)
anything = st.text(max_size=200)


def permissive_engine(sandbox: Sandbox):
    config = sandbox.write(
        "allow.jsonc",
        '{ "policies": { "p": { "defaultAction": "allow", "rules": [ { "action": "allow", "tool": "bash" } ] } }, "defaultPolicy": "p" }',
    )
    return sandbox.engine(config, cwd="/")


def check(sandbox: Sandbox, engine, text: str) -> None:
    decision = engine.evaluate(bash(text, sandbox.root))
    assert decision.action in set(Action)
    # What the engine parses: bash joins backslash-newline pairs before it reads words, and so does
    # the analysis (tree-sitter alone fails on `x\<newline>` at the end, which bash runs as `x`).
    if parse(join_continuations(text).encode("utf-8", "replace")).root_node.has_error:
        assert decision.action is not Action.ALLOW, text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=shell_like)
def test_shell_like_input(sandbox: Sandbox, text: str) -> None:
    check(sandbox, permissive_engine(sandbox), text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=anything)
def test_arbitrary_text(sandbox: Sandbox, text: str) -> None:
    check(sandbox, permissive_engine(sandbox), text)


# Characters beyond the Basic Multilingual Plane once crashed the bash grammar's scanner (it indexes
# a 384-entry C table with the code point): `{` followed by U+F148F killed the process.
astral = st.characters(min_codepoint=0x10000, exclude_categories=("Cs",))
astral_mix = st.lists(st.one_of(st.sampled_from(TOKENS), astral), max_size=16).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=astral_mix)
def test_astral_characters_beside_shell_syntax(sandbox: Sandbox, text: str) -> None:
    check(sandbox, permissive_engine(sandbox), text)


def test_astral_characters_reach_the_user_intact(sandbox: Sandbox) -> None:
    """Run as a real process, so that a crash of the grammar fails this test instead of pytest."""
    for command, action in (("{\U000f148f", "ask"), ("echo {\U0010ffff}", "allow"), ("$(\U000e0041)", "ask")):
        result = sandbox.run("check", "--json", command)
        assert result.returncode >= 0, (command, result.stderr)
        assert json.loads(result.stdout)["action"] == action, command
    data = sandbox.check_json("echo 'release \U0001f389 done'")
    assert data["action"] == "allow"
    assert "\U0001f389" in json.dumps(data["trace"]["atoms"], ensure_ascii=False)
