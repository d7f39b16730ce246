"""The one JSON5 scanner that reading and editing share: where a ``//`` comment ends.

JSON5 ends a line comment at any line terminator: LF, CR, U+2028 or U+2029. The reader used to
end it at LF only, so after a lone CR it took the rest of the line for comment where json5 reads
keys, and then read different values than json5 (the editor already stopped at every terminator).
"""

from __future__ import annotations

import json5
import pytest

from policy_engine.config import json5scan
from policy_engine.config.jsonc import parse
from policy_engine.errors import ConfigError

TERMINATORS = ["\n", "\r", "\r\n", "\u2028", "\u2029"]


@pytest.mark.parametrize("end", TERMINATORS, ids=repr)
def test_a_line_comment_ends_at_every_line_terminator(end: str) -> None:
    text = '{ "a": 1, // one, "hidden": 0' + end + '"b": [2, // two' + end + "3] }"
    top = json5scan.read_container(text, json5scan.top_object(text))
    assert [entry.key for entry in top.entries] == ["a", "b"]
    array = json5scan.read_container(text, top.entries[1].value)
    assert [text[entry.start : entry.end] for entry in array.entries] == ["2", "3"]
    assert top.close == len(text) - 1


@pytest.mark.parametrize("end", ["\n", "\r", "\r\n"], ids=repr)
def test_reading_agrees_with_json5_after_a_comment(end: str) -> None:
    text = '{ "a": 1, // one' + end + '"b": { "c": [2, // two' + end + "3] } }"
    document = parse(text, "policy.jsonc")
    assert document.data == json5.loads(text) == {"a": 1, "b": {"c": [2, 3]}}
    assert {("a",), ("b",), ("b", "c"), ("b", "c", 0), ("b", "c", 1)} <= set(document.places)


def test_a_lone_carriage_return_ends_the_comment_for_duplicate_keys() -> None:
    # Before, the second "a" was read as part of the comment: json5 kept 2, no duplicate was seen.
    with pytest.raises(ConfigError) as caught:
        parse('{ "a": 1, // one\r"a": 2\n}', "policy.jsonc")
    (problem,) = caught.value.problems
    assert "duplicate key" in problem.message and problem.key == "a"


@pytest.mark.parametrize("end", ["\u2028", "\u2029"], ids=repr)
def test_reading_still_refuses_the_separators_reviewers_do_not_see(end: str) -> None:
    with pytest.raises(ConfigError, match="line break"):
        parse('{ "a": 1 // one' + end + "}", "policy.jsonc")


def test_a_comment_in_a_string_is_text() -> None:
    text = "{ \"a\": \"x // y\", 'b': '/* z */', c: 1 }"
    assert [entry.key for entry in json5scan.read_container(text, 0).entries] == ["a", "b", "c"]
    assert parse(text, "policy.jsonc").data == {"a": "x // y", "b": "/* z */", "c": 1}
