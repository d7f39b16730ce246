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
    _MISSING = object()  # a field given no value
    # A class built this many times gets a constructor of its own signature, as namedtuple compiles
    # for every class up front (about 15 µs each): several times faster than the generic one with
    # keywords or defaults. A hook process builds most classes a few times only, and skips that.
    _SPECIALIZE_AFTER = 64
    _uses = {}

    def _specialize(cls):
        if not cls._fields:
            return
        names = ", ".join(cls._fields)
        namespace = {"_tuple_new": tuple.__new__}
        exec(f"def __new__(_cls, {names}):\n    return _tuple_new(_cls, ({names},))", namespace)
        new = namespace["__new__"]
        new.__defaults__ = cls._tail or None
        new.__qualname__ = f"{cls.__qualname__}.__new__"
        cls.__new__ = staticmethod(new)

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
            required = len(fields) - len(defaults)
            if any(field in defaults for field in fields[:required]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            namespace["__slots__"] = ()
            namespace["_fields"] = fields
            namespace["_field_defaults"] = defaults
            namespace["_required"] = required
            namespace["_tail"] = tuple(defaults.values())  # the defaults, for the trailing fields
            namespace["_aligned"] = (_MISSING,) * required + namespace["_tail"]  # one per field
            namespace["__match_args__"] = fields
            for position, field in enumerate(fields):
                namespace[field] = property(itemgetter(position), doc=f"Field {position}: {field}")
            return super().__new__(mcs, name, bases, namespace)

    class Record(tuple, metaclass=_RecordType):
        """Base of the records: ``class Point(Record): x: int; y: int = 0``."""

        __slots__ = ()
        _fields = ()
        _field_defaults = {}  # noqa: RUF012 (set per record class by _RecordType; never mutated)
        _required = 0
        _tail = ()

        def __new__(cls, *args, **kwargs):
            uses = _uses[cls] = _uses.get(cls, 0) + 1
            if uses == _SPECIALIZE_AFTER:
                _specialize(cls)
            given = len(args)
            if not kwargs:  # the common case, kept short: values by position, then the defaults
                if given == len(cls._fields):
                    return tuple.__new__(cls, args)
                if cls._required <= given < len(cls._fields):
                    return tuple.__new__(cls, args + cls._tail[given - cls._required :])
            values = args + tuple(map(kwargs.pop, cls._fields[given:], cls._aligned[given:]))
            if kwargs or given > len(cls._fields) or _MISSING in values:
                raise TypeError(cls._mistake(args, kwargs, values))
            return tuple.__new__(cls, values)

        @classmethod
        def _mistake(cls, args, unknown, values):
            if len(args) > len(cls._fields):
                return f"{cls.__name__} takes {len(cls._fields)} fields, {len(args)} were given"
            if unknown:
                return f"{cls.__name__} got unexpected or repeated fields {sorted(unknown)}"
            missing = [field for field, value in zip(cls._fields, values, strict=True) if value is _MISSING]
            return f"{cls.__name__} is missing the fields {missing}"

        @classmethod
        def _make(cls, iterable):
            return cls(*iterable)

        def _replace(self, /, **changes):
            record = tuple.__new__(type(self), map(changes.pop, self._fields, self))
            if changes:
                raise TypeError(f"{type(self).__name__} has no fields {sorted(changes)}")
            return record

        def _asdict(self):
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self):
            return tuple(self)

        def __repr__(self):
            shown = ", ".join(f"{field}={value!r}" for field, value in zip(self._fields, self, strict=True))
            return f"{type(self).__name__}({shown})"


__all__ = ["Record"]
