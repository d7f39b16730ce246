"""Knowledge of the runtimes (Node, Bun, Deno, the web globals), read from ``api.json``.

The tables are data so that teaching the analysis a new API is a line in ``api.json`` (its shape
is ``api.schema.json``) and a test case, not code. They are read with the standard library's
``json`` once, at the first program analysed: the hook is a new process per tool call, and most
calls never meet JavaScript. The schema is checked by the tests, not here, for the same reason.

Calls whose effect needs code of its own (``require``, ``path.join``, ``child_process.spawn``...)
are not here but in ``calls.py``, which maps them to their handlers.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import Any

from ....model import Sense
from ....record import Record
from .values import Api, Num, Value

# ``fs.readFileSync`` is ``fs.readFile``: the Sync suffix (of a member or of one of its parts) is
# dropped before a table is consulted.
SYNC = re.compile(r"Sync(?=\.|$)")

API_FILE = os.path.join(os.path.dirname(__file__), "api.json")

Operations = tuple[tuple[int, Sense], ...]


class Tables(Record):
    """The tables of ``api.json``, in the forms the analysis looks them up in (each is described
    in ``api.schema.json``). A call is looked up by its key (see ``key``)."""

    modules: dict[str, str]
    files: dict[str, Operations]
    trees: frozenset[str]
    doubts: dict[str, str]
    contacts: frozenset[str]
    socket_calls: frozenset[str]
    pure: frozenset[str]
    network: frozenset[str]
    code: frozenset[str]
    strict: frozenset[str]
    harmless: dict[str, frozenset[str]]
    aliases: dict[str, str]
    constants: dict[str, Value]
    env_holders: frozenset[str]
    steering: frozenset[str]
    suspect_methods: frozenset[str]
    global_objects: frozenset[str]
    global_apis: frozenset[str]
    global_values: dict[str, Value]
    read_flags: tuple[Value, ...]
    deno_writing_options: tuple[str, ...]
    bun_file_methods: dict[str, Sense]


def _operations(senses: list[str | None]) -> Operations:
    """A ``files`` entry, one sense (or null) per argument, as (position, sense) pairs."""
    return tuple((index, Sense(sense)) for index, sense in enumerate(senses) if sense is not None)


def _flag(flag: str | int) -> Value:
    """A flag of ``fs.open`` as the analysis computes it: a string, or an integer's ``Num``."""
    return flag if isinstance(flag, str) else Num(str(flag))


def parse(data: Any) -> Tables:
    """The tables of the parsed ``api.json`` (taken to be valid against the schema: the tests check
    it, and a hook process should not pay for a validator)."""
    get = data.__getitem__
    return Tables(
        modules=dict(get("modules")),
        files={name: _operations(senses) for name, senses in get("files").items()},
        trees=frozenset(get("trees")),
        doubts=dict(get("doubts")),
        contacts=frozenset(get("contacts")),
        socket_calls=frozenset(get("socketCalls")),
        pure=frozenset(get("pure")),
        network=frozenset(get("network")),
        code=frozenset(get("code")),
        strict=frozenset(get("strict")),
        harmless={module: frozenset(names) for module, names in get("harmless").items()},
        aliases=dict(get("aliases")),
        constants=dict(get("constants")),
        env_holders=frozenset(get("envHolders")),
        steering=frozenset(get("steering")),
        suspect_methods=frozenset(get("suspectMethods")),
        global_objects=frozenset(get("globalObjects")),
        global_apis=frozenset(get("globalApis")),
        global_values=dict(get("globalValues")),
        read_flags=tuple(_flag(flag) for flag in get("readFlags")),
        deno_writing_options=tuple(get("denoWritingOptions")),
        bun_file_methods={name: Sense(sense) for name, sense in get("bunFileMethods").items()},
    )


@cache
def tables() -> Tables:
    """The tables, read from ``api.json`` at the first call."""
    import json  # here: a hook process that meets no JavaScript does not pay for it

    with open(API_FILE, encoding="utf-8") as file:
        return parse(json.load(file))


def key(api: Api) -> str:
    """The name an API is looked up under: ``fs.promises.X`` is ``fs.X``, and ``Sync`` is dropped."""
    module = "fs" if api.module == "fs.promises" else api.module
    member = SYNC.sub("", api.member)
    return f"{module}.{member}" if member else module


def inert(api: Api) -> bool:
    """Whether ``api`` does nothing worth following when passed around or called: pure modules and
    the harmless members of the others (``process.argv``, ``fs.constants``)."""
    known = tables()
    if api.module in known.pure:
        return key(api) not in known.doubts
    harmless = known.harmless.get(api.module)
    return harmless is not None and SYNC.sub("", api.member).split(".")[0] in harmless


def global_value(name: str) -> Value:
    """What a name that no scope binds refers to."""
    known = tables()
    if name in known.global_objects:
        return Api("globalThis")
    if name in known.global_apis:
        return Api(name)
    return known.global_values.get(name)
