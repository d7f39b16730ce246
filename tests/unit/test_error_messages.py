"""Failures that used to come out as Python's own words (a byte offset, json5's ``<string>:7``,
``RecursionError``, the int-digits limit): each says where (file:line:column), what is wrong and
what to do, through `policy lint` and `policy check --config`; a hook payload nested too deep is
refused by name, with the agent's blocking answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Sandbox
from payloads import claude, copilot

POLICY = '{\n  "policies": { "p": { "defaultAction": "allow" } },\n  "defaultPolicy": "p",\n%s\n}\n'


def assert_reported(sandbox: Sandbox, path: Path, place: str, message: str, hint: str) -> None:
    """`policy check --config FILE ls` exits 3 and `policy lint FILE` fails, both with
    ``FILE:place``, the message and the hint, and no traceback."""
    check = sandbox.run("check", "--config", str(path), "ls")
    assert check.returncode == 3, check.stderr
    assert "Traceback" not in check.stderr
    assert f"{path}:{place}: {message}" in check.stderr
    assert f"hint: {hint}" in check.stderr
    assert "allow" not in check.stdout
    lint = sandbox.run("lint", str(path))
    assert lint.returncode == 1, lint.stderr
    assert "Traceback" not in lint.stderr
    assert f"{path}:{place}: PE001 error: {message}" in lint.stdout + lint.stderr
    assert f"hint: {hint}" in lint.stdout + lint.stderr


@pytest.mark.parametrize("check", ["check", "lint", "test", "diff"])
def test_a_byte_that_is_not_utf8_is_placed_by_line_and_column(sandbox: Sandbox, check: str) -> None:
    path = sandbox.root / "latin1.jsonc"
    path.write_bytes(
        b'{\n  "policies": { "p": { "defaultAction": "allow", "rules": [\n'
        b'    { "action": "deny", "tool": "bash", "pattern": "caf\xe9 *" } ] } }\n}\n'
    )
    message = "not UTF-8 text: byte 0xE9 is not valid here (invalid continuation byte)"
    if check == "check":
        result = sandbox.run("check", "--config", str(path), "ls")
        assert result.returncode == 3
        assert "Traceback" not in result.stderr
        assert f"{path}:3:56: {message}" in result.stderr
        assert "hint: save the file as UTF-8" in result.stderr
    elif check == "lint":
        result = sandbox.run("lint", str(path))
        assert "Traceback" not in result.stderr
        assert f"{path}:3:56: PE001 error: {message}" in result.stdout
    else:  # policy test FILE, policy diff FILE FILE
        result = sandbox.run(check, str(path), *([str(path)] if check == "diff" else []))
        assert "Traceback" not in result.stderr
        assert f"{path}:3:56: {message}" in result.stdout + result.stderr


def test_the_column_of_a_bad_byte_counts_characters_not_bytes(sandbox: Sandbox) -> None:
    path = sandbox.root / "mixed.jsonc"
    path.write_bytes('{\r\n  "a": "héllo '.encode() + b'\xff"\r\n}\r\n')
    result = sandbox.run("check", "--config", str(path), "ls")
    # "é" is two bytes and one character; the CRLF line ends count as one line break each
    assert f"{path}:2:15: not UTF-8 text: byte 0xFF" in result.stderr


def test_a_line_break_inside_a_string(sandbox: Sandbox) -> None:
    path = sandbox.write("newline.jsonc", POLICY % '  "cycleKey": "line one\nline two"')
    assert_reported(
        sandbox,
        path,
        "4:24",  # where the line ends
        "not valid JSONC: the line ends inside a string",
        "close the string with its quote on this line; a line break inside a string is written \\n",
    )
    assert "<string>" not in sandbox.run("check", "--config", str(path), "ls").stderr


@pytest.mark.parametrize("sign", ["", "-"])
def test_a_number_too_long_to_read_names_its_key(sandbox: Sandbox, sign: str) -> None:
    path = sandbox.write("number.jsonc", POLICY % f'  "agentTimeout": {sign}{"9" * 5000}')
    assert_reported(
        sandbox,
        path,
        "4:19",
        "agentTimeout: a number of 5000 digits: numbers longer than 4300 digits cannot be read",
        "no setting takes a number this large; write a smaller one",
    )
    assert "set_int_max_str_digits" not in sandbox.run("check", "--config", str(path), "ls").stderr


def test_digits_in_a_string_are_no_number(sandbox: Sandbox) -> None:
    path = sandbox.write("digits.jsonc", POLICY % f'  "cycleKey": "{"9" * 5000}"')
    result = sandbox.run("check", "--config", str(path), "ls")
    assert "digits" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("depth", [150, 500, 5000])
def test_nesting_deeper_than_100_levels_is_placed(sandbox: Sandbox, depth: int) -> None:
    """500 levels parse (json is C), and used to crash the Python walkers after it with a
    RecursionError; 5000 had no place."""
    path = sandbox.write("deep.jsonc", POLICY % f'  "tests": {"[" * depth}{"]" * depth}')
    assert_reported(
        sandbox,
        path,
        "4:111",  # the 101st bracket: the file's own object is the first level
        "the file nests deeper than 100 levels: this bracket opens level 101",
        "no policy setting nests this deep; check the brackets above for ones that never close",
    )


def test_brackets_in_strings_and_comments_do_not_nest(sandbox: Sandbox) -> None:
    path = sandbox.write(
        "brackets.jsonc", POLICY % f'  // {"[" * 200}\n  "cycleKey": "{"{" * 200}", /* {"[" * 200} */'
    )
    result = sandbox.run("check", "--config", str(path), "ls")
    assert "nests" not in result.stderr and "Traceback" not in result.stderr


def nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth  # json.dumps of nested(1000) would itself exceed the recursion


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(
            json.dumps(claude("/tmp", "Bash", {"command": "ls", "x": 0})).replace(
                '"x": 0', f'"x": {deep_json(1000)}'
            ),
            id="tool-input-1000",
        ),
        pytest.param(
            json.dumps(claude("/tmp", "mcp__a__b", {"x": 0})).replace('"x": 0', f'"x": {deep_json(500)}'),
            id="tool-input-500",
        ),
        pytest.param(
            '{"a": ' * 1000 + "1" + "}" * 1000,
            id="whole-payload-1000",
        ),
    ],
)
def test_a_payload_nested_too_deep_is_refused_by_name(sandbox: Sandbox, payload: str) -> None:
    sandbox.write(sandbox.user_config, POLICY % '  "onError": "deny"')
    result = sandbox.run("hook", "--agent", "claude", stdin=payload)
    assert result.returncode == 2
    assert "the payload is nested deeper than 100 levels" in result.stderr
    assert "internal error" not in result.stderr and "RecursionError" not in result.stderr
    assert "allow" not in result.stdout


def test_a_nested_string_of_tool_arguments_is_refused_by_name(sandbox: Sandbox) -> None:
    """Copilot CLI before 1.0 sent toolArgs as a JSON string: it is read with the same limit."""
    sandbox.write(sandbox.user_config, POLICY % '  "onError": "deny"')
    payload = copilot("/tmp", "mcp__a__b", {})
    payload["toolArgs"] = json.dumps({"x": 0}).replace("0", deep_json(1000))
    result = sandbox.run("hook", "--agent", "copilot", stdin=json.dumps(payload))
    assert result.returncode in (0, 2)
    answer = json.loads(result.stdout) if result.stdout.strip() else {}
    assert answer.get("permissionDecision", "deny") == "deny"
    assert 'the payload\'s "toolArgs" is nested deeper than 100 levels' in result.stdout + result.stderr
    assert "internal error" not in result.stdout + result.stderr


def test_a_payload_nested_within_the_limit_is_judged(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.user_config, POLICY % '  "onError": "deny"')
    payload = json.dumps(claude("/tmp", "mcp__a__b", {"x": nested(90)}))
    result = sandbox.run("hook", "--agent", "claude", stdin=payload)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
