"""Editing approvalRules in a policy file's text: one entry added or removed, every other byte kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine.config.edit import add_approval, remove_approval
from policy_engine.config.jsonc import parse
from policy_engine.errors import ConfigError

FILE = "policy.jsonc"
RULE = {"action": "allow", "tool": "bash", "pattern": "git status", "policy": "work"}
LINE = json.dumps(RULE)  # how the rule is written: one line, keys in the dict's order
EXAMPLES = Path(__file__).parents[2] / "examples"


def approvals(text: str) -> Any:
    return parse(text, FILE).data.get("approvalRules")


# --- adding: representative files, exact results ---------------------------------------------

PI_CONTROL = """\
// Personal policy: everything asks, a few things are approved.
{
  "policies": {
    "work": {
      "defaultAction": "ask",
      "rules": [
        { "action": "allow", "tool": "read" },  // reading is harmless
      ],
    },
  },
  "locations": { "~/work": "work" },  // one location for now
  // Approvals the agent asked for and I granted.
  "approvalRules": [
    // builds
    { "action": "allow", "tool": "bash", "pattern": "make", "policy": "work" },
    { "action": "allow", "tool": "bash", "pattern": "make test" },  // added by hand
  ],
  "defaultPolicy": "work",
}
"""

PI_CONTROL_ADDED = PI_CONTROL.replace(
    '"make test" },  // added by hand\n',
    f'"make test" }},  // added by hand\n    {LINE},\n',
)


def test_adds_to_a_commented_file_with_trailing_commas() -> None:
    result = add_approval(PI_CONTROL, RULE, FILE)
    assert result == PI_CONTROL_ADDED
    assert result.count("\n") == PI_CONTROL.count("\n") + 1
    assert approvals(result)[-1] == RULE


def test_adds_after_a_same_line_comment_and_puts_the_comma_before_it() -> None:
    text = '{\n  "approvalRules": [\n    { "action": "allow", "tool": "read" }  // why: harmless\n  ]\n}\n'
    assert add_approval(text, RULE, FILE) == (
        '{\n  "approvalRules": [\n'
        '    { "action": "allow", "tool": "read" },  // why: harmless\n'
        f"    {LINE}\n"
        "  ]\n}\n"
    )


def test_adds_before_comments_that_follow_the_last_element() -> None:
    text = '{\n  "approvalRules": [\n    { "tool": "read", "action": "allow" },\n    // { "tool": "rm", "action": "allow" }\n  ]\n}\n'
    assert add_approval(text, RULE, FILE) == (
        '{\n  "approvalRules": [\n'
        '    { "tool": "read", "action": "allow" },\n'
        f"    {LINE},\n"
        '    // { "tool": "rm", "action": "allow" }\n'
        "  ]\n}\n"
    )


def test_keeps_tab_indentation() -> None:
    text = '{\n\t"policies": {},\n\t"approvalRules": [\n\t\t{ "action": "allow", "tool": "read" }\n\t]\n}\n'
    assert add_approval(text, RULE, FILE) == (
        '{\n\t"policies": {},\n\t"approvalRules": [\n'
        '\t\t{ "action": "allow", "tool": "read" },\n'
        f"\t\t{LINE}\n"
        "\t]\n}\n"
    )


def test_tab_indentation_also_shapes_a_new_key() -> None:
    text = '{\n\t"policies": {}\n}\n'
    assert add_approval(text, RULE, FILE) == (
        f'{{\n\t"policies": {{}},\n\t"approvalRules": [\n\t\t{LINE}\n\t]\n}}\n'
    )


def test_keeps_crlf_line_endings() -> None:
    text = '{\r\n  "approvalRules": [\r\n    { "action": "allow", "tool": "read" }\r\n  ]\r\n}\r\n'
    result = add_approval(text, RULE, FILE)
    assert result == (
        '{\r\n  "approvalRules": [\r\n'
        '    { "action": "allow", "tool": "read" },\r\n'
        f"    {LINE}\r\n"
        "  ]\r\n}\r\n"
    )
    assert "\n" not in result.replace("\r\n", "")


def test_crlf_after_a_same_line_comment() -> None:
    text = '{\r\n  "approvalRules": [\r\n    1 // one\r\n  ]\r\n}\r\n'
    assert add_approval(text, RULE, FILE) == (
        f'{{\r\n  "approvalRules": [\r\n    1, // one\r\n    {LINE}\r\n  ]\r\n}}\r\n'
    )


def test_single_quoted_and_unquoted_keys() -> None:
    single = "{\n  'approvalRules': [\n    { 'action': 'allow', 'tool': 'read' },\n  ],\n}\n"
    assert add_approval(single, RULE, FILE) == (
        f"{{\n  'approvalRules': [\n    {{ 'action': 'allow', 'tool': 'read' }},\n    {LINE},\n  ],\n}}\n"
    )
    bare = "{\n  approvalRules: [\n    { action: 'allow', tool: 'read' }\n  ]\n}\n"
    assert add_approval(bare, RULE, FILE) == (
        f"{{\n  approvalRules: [\n    {{ action: 'allow', tool: 'read' }},\n    {LINE}\n  ]\n}}\n"
    )


def test_strings_and_comments_with_brackets_do_not_confuse_the_scanner() -> None:
    text = (
        "{\n"
        '  // "approvalRules": [ { "old": "]" } ] was here; /* not a block */\n'
        '  "approvalRules": [ /* ] } [ { \' " */\n'
        '    { "action": "deny", "tool": "bash", "pattern": "echo ] // not a comment \\" ] }" },\n'
        '    { "action": "ask", "tool": "bash", "pattern": \'it\\\'s /* [ */\' }\n'
        "  ]\n"
        "}\n"
    )
    rule = {"action": "allow", "tool": "bash", "pattern": "echo ']' // \"x\" [ {"}
    result = add_approval(text, rule, FILE)
    assert result == text.replace(
        "/* [ */' }\n", f"/* [ */' }},\n    {json.dumps(rule, ensure_ascii=False)}\n"
    )
    assert approvals(result)[-1] == rule


def test_a_nested_approval_rules_key_is_not_the_top_level_one() -> None:
    text = (
        "{\n"
        '  "policies": {\n'
        '    "p": { "approvalRules": [ { "nested": true } ] }\n'
        "  },\n"
        '  "approvalRules": [\n'
        '    { "top": true }\n'
        "  ]\n"
        "}\n"
    )
    result = add_approval(text, RULE, FILE)
    assert result == text.replace('{ "top": true }\n', f'{{ "top": true }},\n    {LINE}\n')
    assert parse(result, FILE).data["policies"]["p"]["approvalRules"] == [{"nested": True}]


def test_an_absent_key_is_added_after_the_last_member() -> None:
    text = '// settings\n{\n  "policies": {\n    "p": { "approvalRules": [] }\n  }  // end of policies\n}\n'
    assert add_approval(text, RULE, FILE) == (
        "// settings\n"
        "{\n"
        '  "policies": {\n'
        '    "p": { "approvalRules": [] }\n'
        "  },  // end of policies\n"
        '  "approvalRules": [\n'
        f"    {LINE}\n"
        "  ]\n"
        "}\n"
    )


def test_an_absent_key_keeps_the_trailing_comma_style() -> None:
    text = '{\n    "defaultPolicy": "p",\n}\n'
    assert add_approval(text, RULE, FILE) == (
        f'{{\n    "defaultPolicy": "p",\n    "approvalRules": [\n        {LINE}\n    ],\n}}\n'
    )


def test_an_empty_object() -> None:
    assert add_approval("{}\n", RULE, FILE) == f'{{\n  "approvalRules": [\n    {LINE}\n  ]\n}}\n'
    assert add_approval("{ }", RULE, FILE) == f'{{\n  "approvalRules": [\n    {LINE}\n  ]\n}}'


def test_an_object_on_one_line() -> None:
    assert add_approval('{ "defaultPolicy": "p" }\n', RULE, FILE) == (
        f'{{\n  "defaultPolicy": "p",\n  "approvalRules": [\n    {LINE}\n  ]\n}}\n'
    )


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "\t\n "])
def test_an_empty_file(text: str) -> None:
    assert add_approval(text, RULE, FILE) == f'{{\n  "approvalRules": [\n    {LINE}\n  ]\n}}\n'


def test_a_file_of_comments_keeps_them() -> None:
    assert add_approval("// my policy\n/* later */", RULE, FILE) == (
        f'// my policy\n/* later */\n{{\n  "approvalRules": [\n    {LINE}\n  ]\n}}\n'
    )


@pytest.mark.parametrize("empty", ["[]", "[ ]"])
def test_an_empty_array(empty: str) -> None:
    text = f'{{\n  "approvalRules": {empty},\n  "defaultPolicy": "p"\n}}\n'
    assert add_approval(text, RULE, FILE) == (
        f'{{\n  "approvalRules": [\n    {LINE}\n  ],\n  "defaultPolicy": "p"\n}}\n'
    )


def test_an_array_holding_only_comments() -> None:
    text = '{\n  "approvalRules": [\n      // nothing approved yet [ ]\n  ]\n}\n'
    assert add_approval(text, RULE, FILE) == (
        f'{{\n  "approvalRules": [\n      // nothing approved yet [ ]\n      {LINE}\n  ]\n}}\n'
    )
    inline = '{\n  "approvalRules": [ /* none */ ]\n}\n'
    assert add_approval(inline, RULE, FILE) == (
        f'{{\n  "approvalRules": [\n    /* none */\n    {LINE}\n  ]\n}}\n'
    )


def test_an_array_on_one_line_gets_a_line_per_element() -> None:
    text = '{\n  "approvalRules": [{ "action": "allow", "tool": "read" }, { "action": "ask", "tool": "ls" }], // two\n  "defaultPolicy": "p"\n}\n'
    assert add_approval(text, RULE, FILE) == (
        "{\n"
        '  "approvalRules": [\n'
        '    { "action": "allow", "tool": "read" },\n'
        '    { "action": "ask", "tool": "ls" },\n'
        f"    {LINE}\n"
        "  ], // two\n"
        '  "defaultPolicy": "p"\n'
        "}\n"
    )


def test_elements_that_continue_the_bracket_line_keep_their_column() -> None:
    text = '{\n  "approvalRules": [{ "tool": "a" },\n                    { "tool": "b" }]\n}\n'
    assert add_approval(text, RULE, FILE) == (
        '{\n  "approvalRules": [{ "tool": "a" },\n'
        '                    { "tool": "b" },\n'
        f"                    {LINE}]\n}}\n"
    )


def test_keeps_a_byte_order_mark_and_non_ascii_text() -> None:
    text = '\ufeff{\n  "approvalRules": [\n    { "pattern": "écho" }\n  ]\n}\n'
    rule = {"action": "allow", "tool": "bash", "pattern": "café ☕"}
    assert add_approval(text, rule, FILE) == (
        '\ufeff{\n  "approvalRules": [\n    { "pattern": "écho" },\n'
        '    {"action": "allow", "tool": "bash", "pattern": "café ☕"}\n  ]\n}\n'
    )


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.jsonc")), ids=lambda p: p.name)
def test_every_example_file_keeps_its_lines(path: Path) -> None:
    text = path.read_text()
    result = add_approval(text, RULE, str(path))
    assert approvals(result) == [*(approvals(text) or []), RULE]
    # Each original line survives, at most gaining a comma before its comment or at its end.
    kept = iter(result.splitlines())
    for line in text.splitlines():
        assert any(_same_but_comma(line, new) for new in kept), line


def _same_but_comma(old: str, new: str) -> bool:
    if old == new:
        return True
    code, sep, comment = old.partition("//")
    return new == code.rstrip() + "," + code[len(code.rstrip()) :] + sep + comment


# --- removing ----------------------------------------------------------------------------------


def test_removes_an_element_with_its_line_and_keeps_comments_before_others() -> None:
    text = (
        "{\n"
        '  "approvalRules": [\n'
        "    // first\n"
        '    { "tool": "a" },  // goes with a\n'
        "    // about b\n"
        '    { "tool": "b" },\n'
        '    { "tool": "c" }\n'
        "  ]\n"
        "}\n"
    )
    assert remove_approval(text, 0, FILE) == text.replace('    { "tool": "a" },  // goes with a\n', "")
    assert remove_approval(text, 1, FILE) == text.replace('    { "tool": "b" },\n', "")
    assert remove_approval(text, 2, FILE) == text.replace(
        '{ "tool": "b" },\n    { "tool": "c" }\n', '{ "tool": "b" }\n'
    )


def test_removing_keeps_a_trailing_comma_style() -> None:
    text = '{\n  "approvalRules": [\n    { "tool": "a" },\n    { "tool": "b" },\n  ],\n}\n'
    assert remove_approval(text, 1, FILE) == '{\n  "approvalRules": [\n    { "tool": "a" },\n  ],\n}\n'


def test_removing_the_last_element_moves_its_comma_not_its_neighbours_comment() -> None:
    text = '{\n  "approvalRules": [\n    { "tool": "a" }, // about a\n    { "tool": "b" }\n  ]\n}\n'
    assert (
        remove_approval(text, 1, FILE) == '{\n  "approvalRules": [\n    { "tool": "a" } // about a\n  ]\n}\n'
    )


def test_removing_a_multi_line_element() -> None:
    text = (
        '{\n  "approvalRules": [\n    {\n      "tool": "a"\n    },\n    {\n      "tool": "b"\n    }\n  ]\n}\n'
    )
    assert (
        remove_approval(text, 0, FILE) == '{\n  "approvalRules": [\n    {\n      "tool": "b"\n    }\n  ]\n}\n'
    )


@pytest.mark.parametrize(
    ("index", "expected"),
    [(0, '[{ "b": 2 }, { "c": 3 }]'), (1, '[{ "a": 1 }, { "c": 3 }]'), (2, '[{ "a": 1 }, { "b": 2 }]')],
)
def test_removing_from_a_one_line_array(index: int, expected: str) -> None:
    text = '{ "approvalRules": [{ "a": 1 }, { "b": 2 }, { "c": 3 }] }'
    assert remove_approval(text, index, FILE) == '{ "approvalRules": ' + expected + " }"


@pytest.mark.parametrize("array", ['[{ "a": 1 }]', '[ { "a": 1 } ]', '[\n    { "a": 1 },\n  ]'])
def test_removing_the_only_element_leaves_an_empty_array(array: str) -> None:
    text = '{\n  "approvalRules": ' + array + "\n}\n"
    assert remove_approval(text, 0, FILE) == '{\n  "approvalRules": []\n}\n'


def test_removing_the_only_element_keeps_comments_in_the_array() -> None:
    text = '{\n  "approvalRules": [\n    // none left\n    { "a": 1 }\n  ]\n}\n'
    assert remove_approval(text, 0, FILE) == '{\n  "approvalRules": [\n    // none left\n  ]\n}\n'


def test_removing_from_crlf_and_tabs() -> None:
    text = '{\r\n\t"approvalRules": [\r\n\t\t1,\r\n\t\t2 // two\r\n\t]\r\n}\r\n'
    assert remove_approval(text, 1, FILE) == '{\r\n\t"approvalRules": [\r\n\t\t1\r\n\t]\r\n}\r\n'
    assert remove_approval(text, 0, FILE) == '{\r\n\t"approvalRules": [\r\n\t\t2 // two\r\n\t]\r\n}\r\n'


def test_removing_only_touches_the_top_level_array() -> None:
    text = '{\n  "policies": { "p": { "approvalRules": [1, 2] } },\n  "approvalRules": [\n    3,\n    4\n  ]\n}\n'
    result = remove_approval(text, 0, FILE)
    assert result == text.replace("    3,\n", "")
    assert parse(result, FILE).data["policies"]["p"]["approvalRules"] == [1, 2]


# --- round trips -------------------------------------------------------------------------------

ROUND_TRIPS = [
    pytest.param(PI_CONTROL, id="pi-control"),
    pytest.param('{\n  "approvalRules": [\n    { "tool": "a" }  // why\n  ]\n}\n', id="no-trailing-comma"),
    pytest.param('{\n  "approvalRules": [],\n  "x": 1\n}\n', id="empty-array"),
    pytest.param('{ "approvalRules": [] }', id="empty-array-one-line"),
    pytest.param('{\n  "approvalRules": [\n    // none yet\n  ]\n}\n', id="only-comments"),
    pytest.param('{\r\n\t"approvalRules": [\r\n\t\t1,\r\n\t],\r\n}\r\n', id="crlf-tabs"),
    pytest.param(
        '{\n  "approvalRules": [{ "tool": "a" },\n                    { "tool": "b" }]\n}\n',
        id="bracket-line",
    ),
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_add_then_remove_gives_back_the_original(text: str) -> None:
    added = add_approval(text, RULE, FILE)
    assert remove_approval(added, len(approvals(added)) - 1, FILE) == text


# --- errors ------------------------------------------------------------------------------------


def problem_of(call: Any, *args: Any) -> Any:
    with pytest.raises(ConfigError) as caught:
        call(*args)
    (problem,) = caught.value.problems
    assert problem.file == FILE
    return problem


@pytest.mark.parametrize("call", [add_approval, remove_approval])
def test_top_level_must_be_an_object(call: Any) -> None:
    args = (RULE,) if call is add_approval else (0,)
    problem = problem_of(call, "[1, 2]", *args, FILE)
    assert "expected a JSON object" in problem.message


@pytest.mark.parametrize("call", [add_approval, remove_approval])
def test_approval_rules_must_be_an_array(call: Any) -> None:
    args = (RULE,) if call is add_approval else (0,)
    problem = problem_of(call, '{\n  "approvalRules": "git status"\n}\n', *args, FILE)
    assert (problem.line, problem.column, problem.key) == (2, 20, "approvalRules")
    assert problem.message == "expected an array, got a string"


@pytest.mark.parametrize("index", [2, -1, 10])
def test_index_out_of_range(index: int) -> None:
    problem = problem_of(remove_approval, '{\n  "approvalRules": [1, 2]\n}', index, FILE)
    assert (problem.line, problem.key) == (2, "approvalRules")
    assert f"no approval rule at index {index}" in problem.message
    assert "0 to 1" in problem.message


def test_index_when_there_are_no_approvals() -> None:
    problem = problem_of(remove_approval, '{ "policies": {} }', 0, FILE)
    assert problem.message == "there is no approval rule at index 0: the file has none"


@pytest.mark.parametrize("text", ['{ "approvalRules": [1,, 2] }', '{ "a": 1 "b": 2 }', "{", "   "])
@pytest.mark.parametrize("call", [add_approval, remove_approval])
def test_invalid_json5(call: Any, text: str) -> None:
    if call is add_approval and not text.strip():
        return  # an empty file is where add_approval starts a new policy
    args = (RULE,) if call is add_approval else (0,)
    problem = problem_of(call, text, *args, FILE)
    assert problem.message.startswith(("not valid JSONC", "the file is empty"))


def test_a_layout_the_scanner_cannot_place_is_refused_not_mangled() -> None:
    # json5 reads the escaped key as "approvalRules"; the scanner sees other text, so it must
    # refuse instead of adding a second, duplicate key.
    problem = problem_of(add_approval, "{ approval\\u0052ules: [] }", RULE, FILE)
    assert "could not be edited safely" in problem.message


# --- properties --------------------------------------------------------------------------------

TRICKY = st.text(alphabet=st.sampled_from(list("ab ]/[{}*'\"\\,:é")), max_size=8)
RULES = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["allow", "ask", "deny"]),
        "tool": st.sampled_from(["bash", "read", "github_*"]),
        "pattern": TRICKY,
    }
)
COMMENT = TRICKY.map(lambda text: "// " + text)


@st.composite
def policy_files(draw: st.DrawFn) -> tuple[str, list[dict[str, str]], list[str], str]:
    """A commented policy file built from random approvals and styles; returns the text, its
    approvals, its comments and its layout ("lines", "one-line" or "absent")."""
    listed = draw(st.lists(RULES, max_size=4))
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    trailing = draw(st.booleans())
    layout = draw(st.sampled_from(["lines", "one-line", "absent"]))
    quote = draw(st.sampled_from(['"approvalRules"', "'approvalRules'", "approvalRules"]))
    comments = [draw(COMMENT) for _ in range(3)]
    lines = [comments[0], "{", f'{unit}"policies": {{ "p": {{ "approvalRules": [{{ "x": 1 }}] }} }},']
    lines.append(unit + comments[1])
    if layout == "absent":
        listed = []
    elif layout == "one-line" or not listed:
        elements = ", ".join(json.dumps(rule) for rule in listed)
        lines.append(f"{unit}{quote}: [{elements}],")
    else:
        lines.append(f"{unit}{quote}: [")
        for number, rule in enumerate(listed):
            comma = "," if trailing or number < len(listed) - 1 else ""
            if draw(st.booleans()):
                lines.append(unit * 2 + draw(COMMENT))
                comments.append(lines[-1].strip())
            after = draw(st.one_of(st.just(""), COMMENT.map(lambda c: "  " + c)))
            lines.append(unit * 2 + json.dumps(rule) + comma + after)
            comments += [after.strip()] if after else []
        lines.append(unit + "],")
    lines += [f'{unit}"defaultPolicy": "p"' + ("," if trailing else "") + "  " + comments[2], "}", ""]
    return newline.join(lines), listed, comments, layout


@settings(max_examples=300, deadline=None)
@given(policy_files(), RULES)
def test_adding_appends_and_keeps_every_comment(
    file: tuple[str, list[dict[str, str]], list[str], str], rule: dict[str, str]
) -> None:
    text, listed, comments, _ = file
    assert approvals(text) in (listed, None)
    result = add_approval(text, rule, FILE)
    assert approvals(result) == [*listed, rule]
    for comment in comments:
        assert comment in result
    old_lines = [line for line in text.splitlines() if line.strip().startswith("//")]
    assert set(old_lines) <= set(result.splitlines())


@settings(max_examples=300, deadline=None)
@given(policy_files(), RULES)
def test_adding_then_removing_restores_a_multi_line_file(
    file: tuple[str, list[dict[str, str]], list[str], str], rule: dict[str, str]
) -> None:
    text, listed, _, layout = file
    if layout == "absent" or (layout == "one-line" and listed):
        return  # a new key, or an array split into lines, cannot be un-added byte for byte
    added = add_approval(text, rule, FILE)
    assert remove_approval(added, len(listed), FILE) == text


@settings(max_examples=300, deadline=None)
@given(policy_files(), st.data())
def test_removing_drops_exactly_one_element(
    file: tuple[str, list[dict[str, str]], list[str], str], data: st.DataObject
) -> None:
    text, listed, _, _ = file
    if not listed:
        return
    index = data.draw(st.integers(0, len(listed) - 1))
    result = remove_approval(text, index, FILE)
    assert approvals(result) == listed[:index] + listed[index + 1 :]
    own_line_comments = [line for line in text.splitlines() if line.strip().startswith("//")]
    assert set(own_line_comments) <= set(result.splitlines())


# --- a // comment ends at any JSON5 line terminator, a lone CR included ------------------------
# (Reading used to end it at LF only, so these files could not be edited safely.)


def test_adding_after_a_comment_ended_by_a_lone_carriage_return() -> None:
    text = '{\n  "approvalRules": [ // list\r    1\n  ]\n}\n'
    result = add_approval(text, RULE, FILE)
    assert result == f'{{\n  "approvalRules": [ // list\r    1,\n    {LINE}\n  ]\n}}\n'
    assert approvals(result) == [1, RULE]


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (0, '{"approvalRules": [\r 2], "x": 3}'),  # the comment on its line goes with it
        (1, '{"approvalRules": [1 // one\r], "x": 3}'),
    ],
)
def test_removing_after_a_comment_ended_by_a_lone_carriage_return(index: int, expected: str) -> None:
    text = '{"approvalRules": [1, // one\r 2], "x": 3}'
    assert remove_approval(text, index, FILE) == expected
