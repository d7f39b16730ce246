"""Properties of the shell analysis on generated input: it never raises, and a line that does not
parse is never allowed, even by a policy that allows every command."""

from __future__ import annotations

from helpers import Sandbox, bash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy_engine import Action
from policy_engine.shell.grammar import parser

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
    if parser("bash").parse(text.encode("utf-8", "replace")).root_node.has_error:
        assert decision.action is not Action.ALLOW, text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=shell_like)
def test_shell_like_input(sandbox: Sandbox, text: str) -> None:
    check(sandbox, permissive_engine(sandbox), text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=anything)
def test_arbitrary_text(sandbox: Sandbox, text: str) -> None:
    check(sandbox, permissive_engine(sandbox), text)
