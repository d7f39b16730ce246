"""Records (record.py) behave as the typing.NamedTuple classes type checkers take them for."""

from __future__ import annotations

import copy
import pickle
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policy_engine.model import Access, Sense, ToolCall
from policy_engine.record import Record


class Point(Record):
    """A point."""

    x: int
    y: int = 0
    label: str | None = None

    def moved(self, dx: int) -> Point:
        return self._replace(x=self.x + dx)


class TypedPoint(NamedTuple):
    x: int
    y: int = 0
    label: str | None = None


class Labelled(Point):
    """A subclass that adds behaviour, not fields."""

    def title(self) -> str:
        return self.label or "?"


def test_fields_defaults_and_keywords() -> None:
    assert Point(1) == (1, 0, None)
    assert Point(1, 2, "a") == Point(x=1, y=2, label="a") == Point(1, label="a", y=2)
    assert Point._fields == TypedPoint._fields == ("x", "y", "label")
    assert Point._field_defaults == TypedPoint._field_defaults == {"y": 0, "label": None}
    assert Point.__match_args__ == ("x", "y", "label")
    assert (Point(3).x, Point(3).y, Point(3).label) == (3, 0, None)


def test_methods_docstrings_and_subclasses() -> None:
    assert Point(1).moved(2) == Point(3)
    assert type(Point(1).moved(2)) is Point
    assert Point.__doc__ == "A point."
    item = Labelled(1, 2, "b")
    assert item.title() == "b" and item.x == 1 and isinstance(item, Point)
    assert type(item._replace(y=5)) is Labelled


def test_values_are_immutable_tuples() -> None:
    point = Point(1, 2)
    with pytest.raises(AttributeError):
        point.x = 5
    with pytest.raises(AttributeError):
        point.other = 5
    assert isinstance(point, tuple) and len(point) == 3 and point[0] == 1
    assert point == TypedPoint(1, 2) and hash(point) == hash((1, 2, None))
    assert {point: "a"}[Point(1, 2)] == "a"


def test_helpers_match_named_tuples() -> None:
    point, typed = Point(1, 2, "a"), TypedPoint(1, 2, "a")
    assert point._asdict() == typed._asdict()
    assert point._replace(y=9) == typed._replace(y=9)
    assert Point._make([4, 5, None]) == TypedPoint._make([4, 5, None])
    assert repr(point) == repr(typed).replace("TypedPoint", "Point")
    assert copy.copy(point) == point and copy.deepcopy(point) == point
    assert pickle.loads(pickle.dumps(point)) == point


def test_mistakes_are_type_errors_as_with_named_tuples() -> None:
    for make in (Point, TypedPoint):
        with pytest.raises(TypeError):
            make()  # no x
        with pytest.raises(TypeError):
            make(1, 2, "a", "extra")
        with pytest.raises(TypeError):
            make(1, x=2)
        with pytest.raises(TypeError):
            make(1, depth=2)
    with pytest.raises(TypeError):
        Point(1)._replace(depth=3)


def test_the_engines_values_are_records() -> None:
    access = Access("/a", Sense.READ)
    assert access.via is None and access._replace(via="x").via == "x"
    call = ToolCall("bash", {"command": "ls"}, "/")
    assert call.session_id is None and call._asdict()["cwd"] == "/"


@given(
    st.lists(st.integers(), min_size=1, max_size=3),
    st.dictionaries(st.sampled_from(["x", "y", "label"]), st.integers() | st.none() | st.text()),
)
def test_construction_and_replace_agree_with_named_tuples(
    positional: list[int], changes: dict[str, object]
) -> None:
    point, typed = Point(*positional), TypedPoint(*positional)
    assert tuple(point) == tuple(typed)
    assert tuple(point._replace(**changes)) == tuple(typed._replace(**changes))


def test_a_class_built_often_gets_its_own_constructor_and_keeps_its_behaviour() -> None:
    class Pair(Record):
        left: int
        right: str = "r"

    generic = Pair.__new__
    for number in range(100):
        assert Pair(number) == (number, "r") and Pair(number, right="x") == (number, "x")
    assert Pair.__new__ is not generic  # specialized, as namedtuple compiles up front
    assert type(Pair(1)) is Pair and Pair(left=2) == (2, "r") and Pair(1)._replace(right="y") == (1, "y")
    for mistake in (lambda: Pair(), lambda: Pair(1, "a", 3), lambda: Pair(1, left=2), lambda: Pair(1, up=2)):
        with pytest.raises(TypeError):
            mistake()
