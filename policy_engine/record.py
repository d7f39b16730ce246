"""Immutable records: ``typing.NamedTuple`` for type checkers, a lighter equivalent at run time.

A hook is a new process per tool call, and the engine's values (calls, atoms, verdicts, rules...)
are some forty record types. ``typing.NamedTuple`` costs ``import typing`` (about 2 ms with what it
imports) and about 70 µs per class (it compiles code for each); this module builds the same kind of
class — a tuple subclass with named read-only fields, defaults, ``_replace``, ``_asdict``,
``_fields``, ``_field_defaults``, equality and hashing as tuples — in a few microseconds, with
nothing but the standard library's already loaded parts.

Type checkers see ``typing.NamedTuple`` itself (``TYPE_CHECKING``), so every record is checked as
one. Modules of the hook's path also spell ``TYPE_CHECKING = False`` themselves rather than import
it from ``typing``: type checkers treat any constant of that name as true.
"""

from __future__ import annotations

from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:

    class _RecordType(type):
        """Turns the annotated names of a record's class body into its fields (in order), the values
        given to some of them into their defaults, and each field into a read-only property."""

        def __new__(mcs, name, bases, namespace):
            if bases == (tuple,) or bases != (Record,):  # Record itself, or a record's subclass
                namespace.setdefault("__slots__", ())
                return super().__new__(mcs, name, bases, namespace)
            if "__annotations__" not in namespace and "__annotate__" in namespace:
                # Annotations evaluated lazily (Python 3.14 without the future import)
                raise TypeError(f"{name}: a record's module needs `from __future__ import annotations`")
            fields = tuple(namespace.get("__annotations__", {}))
            defaults = {field: namespace.pop(field) for field in fields if field in namespace}
            namespace["__slots__"] = ()
            namespace["_fields"] = fields
            namespace["_field_defaults"] = defaults
            namespace["__match_args__"] = fields
            for position, field in enumerate(fields):
                namespace[field] = property(itemgetter(position), doc=f"Field {position}: {field}")
            return super().__new__(mcs, name, bases, namespace)

    class Record(tuple, metaclass=_RecordType):
        """Base of the records: ``class Point(Record): x: int; y: int = 0``."""

        __slots__ = ()
        _fields = ()
        _field_defaults = {}  # noqa: RUF012 (set per record class by _RecordType; never mutated)

        def __new__(cls, *args, **kwargs):
            fields = cls._fields
            if not kwargs and len(args) == len(fields):
                return tuple.__new__(cls, args)
            if len(args) > len(fields):
                raise TypeError(f"{cls.__name__} takes {len(fields)} fields, {len(args)} were given")
            values = list(args)
            for field in fields[len(args) :]:
                if field in kwargs:
                    values.append(kwargs.pop(field))
                elif field in cls._field_defaults:
                    values.append(cls._field_defaults[field])
                else:
                    raise TypeError(f"{cls.__name__} is missing the field {field!r}")
            if kwargs:
                raise TypeError(f"{cls.__name__} got unexpected or repeated fields {sorted(kwargs)}")
            return tuple.__new__(cls, values)

        @classmethod
        def _make(cls, iterable):
            return cls(*iterable)

        def _replace(self, /, **changes):
            values = [changes.pop(field, value) for field, value in zip(self._fields, self, strict=True)]
            if changes:
                raise TypeError(f"{type(self).__name__} has no fields {sorted(changes)}")
            return tuple.__new__(type(self), values)

        def _asdict(self):
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self):
            return tuple(self)

        def __repr__(self):
            shown = ", ".join(f"{field}={value!r}" for field, value in zip(self._fields, self, strict=True))
            return f"{type(self).__name__}({shown})"


__all__ = ["Record"]
