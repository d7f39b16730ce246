"""The compiled-policy cache: one marshal file per configuration, read with the standard library.

The key is everything compilation depends on: the engine version, the cache format, and the exact
text of every policy file, shipped preset and trust record involved. The file stores that key in
full and is only used when it matches byte for byte, so no cryptographic hash (and no hashlib
import) is needed on the hot path; the file name is just a CRC of the key. A CRC of the body
catches truncation and corruption; anything odd is a miss, and the cache is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import zlib
from collections.abc import Iterator, Mapping, Sequence

from ..fileio import atomic_write
from ..model import Action, Origin
from .compiled import (
    Breaker,
    Change,
    CompiledPolicy,
    CompiledRule,
    InterpreterSettings,
    Layer,
    LocationEntry,
    PolicySet,
    Protection,
    Sandbox,
)
from .discover import xdg_directory
from .ruleorder import RuleIndex, rule_index

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

# 2: marshal, each policy marshalled apart; 3: a layer's mode; 4: protection senses, approval paths;
# 5: a layer's log setting; 6: its onError; 7: each policy's rule index; 8: what a layer keeps of
# the embedded default, and what its files change of it; 9: a protection's except names; 10: a
# rule's sandbox; 11: no origins of defaultPolicy in a layer (nothing read them)
FORMAT = 11
KEEP = 16  # compiled files kept per cache directory; older ones are pruned on write


def cache_directory(env: dict[str, str] | Any) -> str:
    return os.path.join(xdg_directory(env, "XDG_CACHE_HOME", ".cache"), "policy-engine")


def key_digest(key: list[Any]) -> str:
    """A short digest of a cache key (a CRC: it names files, it does not defend against anyone)."""
    return f"{zlib.crc32(json.dumps(key, separators=(',', ':')).encode('utf-8')):08x}"


def cache_file(directory: str, key: list[Any], kind: str = "compiled") -> str:
    """Where the artifact of ``kind`` compiled for ``key`` is cached."""
    return os.path.join(directory, f"{kind}-{key_digest(key)}.cache")


def _read_body(path: str) -> bytes | None:
    """A cache file's body, when its CRC (the first line) checks out."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    header, _, body = raw.partition(b"\n")
    try:
        return body if int(header, 16) == zlib.crc32(body) else None
    except ValueError:
        return None


def _write_body(path: str, body: bytes) -> None:
    try:
        atomic_write(path, f"{zlib.crc32(body):08x}\n".encode() + body)
        _prune(os.path.dirname(path), os.path.basename(path).split("-")[0])
    except OSError:
        pass


def read_marshal(path: str, key: list[Any]) -> Any:
    """The data cached at ``path`` for ``key``, or None if absent, stale or damaged in any way.
    marshal loads several times faster than JSON; the key must name the Python version, since the
    format is bound to it."""
    body = _read_body(path)
    try:
        data = marshal.loads(body) if body is not None else None
        return data["data"] if isinstance(data, dict) and data.get("key") == key else None
    except (ValueError, EOFError, TypeError, KeyError):
        return None


def write_marshal(path: str, key: list[Any], data: Any) -> None:
    _write_body(path, marshal.dumps({"key": key, "data": data}))


def read(path: str, key: list[Any]) -> PolicySet | None:
    """The cached policy set for ``key``, or None if absent, stale or damaged in any way."""
    data = read_marshal(path, key)
    if data is None:
        return None
    try:
        return _policy_set(data)
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def write(path: str, key: list[Any], policy_set: PolicySet) -> None:
    """Store ``policy_set`` under ``key``, as the plain lists, strings and numbers JSON makes of it
    (marshal takes no NamedTuple or enum), marshalled: it loads several times faster than JSON."""
    data = json.loads(json.dumps(policy_set))
    for layer, compiled in zip(data[0], policy_set.layers, strict=True):
        # Each policy marshalled apart (a call loads only the ones it uses), and each of its rules
        # too, with the rule index: a call decodes only the rules the index points it to.
        layer[3] = {
            name: marshal.dumps(
                [*policy[:3], list(map(marshal.dumps, policy[3])), rule_index(compiled.policies[name].rules)]
            )
            for name, policy in layer[3].items()
        }
    write_marshal(path, key, data)


def _prune(directory: str, kind: str) -> None:
    entries = []
    for name in os.listdir(directory):
        if name.startswith(f"{kind}-") and name.endswith(".json"):  # the format before marshal
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))
        elif name.startswith(f"{kind}-") and name.endswith(".cache"):
            path = os.path.join(directory, name)
            try:
                entries.append((os.stat(path).st_mtime, path))
            except OSError:
                continue
    for _, path in sorted(entries, reverse=True)[KEEP:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


# Decoding: the lists json.dumps made of the NamedTuples (stored with marshal), checked field by field.


def _expect(condition: bool) -> None:
    if not condition:
        raise ValueError("malformed compiled policy")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("malformed compiled policy")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("malformed compiled policy")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("malformed compiled policy")
    return value


def _origin(value: Any) -> Origin:
    file, line, column, key = value
    return Origin(_str(file), _int(line), _int(column), _str(key))


_OPTIONAL: tuple[type, ...] = (str, type(None))
_RULE_FIELDS: tuple[type | tuple[type, ...], ...] = (
    int,
    str,
    _OPTIONAL,
    list,
    _OPTIONAL,
    bool,
    bool,
    _OPTIONAL,
    _OPTIONAL,
    _OPTIONAL,
    _OPTIONAL,
    _OPTIONAL,
    _OPTIONAL,
    (list, type(None)),
)
_ACTIONS = tuple(Action)


def _rule(value: Any, origins: dict[tuple[Any, ...], Origin]) -> CompiledRule:
    """A rule (a policy can hold a thousand of them: $safe-bash expands to hundreds). Rules expanded
    from one preset share one Origin, and their fields are checked once per distinct shape."""
    (
        action,
        tool,
        pattern,
        origin,
        message,
        unanalyzed,
        read_only,
        policy,
        preset,
        path,
        command,
        within,
        confined,
        sandbox,
    ) = value
    key = (
        *origin,
        action,
        tool,
        message,
        unanalyzed,
        read_only,
        policy,
        preset,
        path,
        command,
        within,
        confined,
        repr(sandbox),
    )
    found = origins.get(key)
    if found is None:
        _expect(
            len(value) == len(_RULE_FIELDS)
            and all(isinstance(v, t) for v, t in zip(value, _RULE_FIELDS, strict=True))
        )
        found = origins[key] = _origin(origin)
    else:
        _expect(isinstance(pattern, _OPTIONAL))
    return CompiledRule(
        _ACTIONS[action],
        tool,
        pattern,
        found,
        message,
        unanalyzed,
        read_only,
        policy,
        preset,
        path,
        command,
        within,
        confined,
        _sandbox(sandbox),
    )


def _sandbox(value: Any) -> Sandbox | None:
    if value is None:
        return None
    network, write = value
    _expect(isinstance(write, list))
    return Sandbox(_bool(network), tuple(map(_str, write)))


def _policy(value: Any) -> CompiledPolicy:
    name, default_action, default_origin, rules, index = value
    _expect(isinstance(rules, list) and all(type(r) is bytes for r in rules) and isinstance(index, dict))
    return CompiledPolicy(
        _str(name), Action(_int(default_action)), _origin(default_origin), _LazyRules(rules, index)
    )


class _LazyRules(Sequence[CompiledRule]):
    """A policy's rules, each decoded when first used, with the index that finds them (``RuleBook``
    uses it): a $safe-bash policy holds some 700 rules and a call looks at a few dozen."""

    def __init__(self, raw: list[bytes], index: RuleIndex) -> None:
        self._raw = raw
        self._decoded: list[CompiledRule | None] = [None] * len(raw)
        self._origins: dict[tuple[Any, ...], Origin] = {}
        self.book_index = index  # not `index`: Sequence.index is a method

    def __getitem__(self, position: Any) -> Any:  # int -> CompiledRule, slice -> tuple of them
        if isinstance(position, slice):
            return tuple(self[i] for i in range(len(self))[position])
        found = self._decoded[position]
        if found is None:
            found = self._decoded[position] = _rule(marshal.loads(self._raw[position]), self._origins)
        return found

    def __len__(self) -> int:
        return len(self._raw)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class _LazyPolicies(Mapping[str, CompiledPolicy]):
    """A layer's policies, each decoded when first used: a hook call usually needs one, and a policy
    with $safe-bash holds hundreds of rules."""

    def __init__(self, raw: dict[str, Any]) -> None:
        _expect(all(isinstance(name, str) for name in raw))
        self._raw = raw
        self._decoded: dict[str, CompiledPolicy] = {}

    def __getitem__(self, name: str) -> CompiledPolicy:
        found = self._decoded.get(name)
        if found is None:
            raw = self._raw[name]
            found = self._decoded[name] = _policy(marshal.loads(raw) if isinstance(raw, bytes) else raw)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _location(value: Any) -> LocationEntry:
    key, policy, origin, base = value
    return LocationEntry(_str(key), _str(policy), _origin(origin), _opt_str(base))


def _protection(value: Any) -> Protection:
    pattern, action, anchor, regex, origin, senses, fixed, exact, excepted = value
    _expect(anchor in ("absolute", "home", "project", "anywhere"))
    return Protection(
        _str(pattern),
        Action(_int(action)),
        anchor,
        _str(regex),
        _origin(origin),
        tuple(map(_str, senses)),
        _str(fixed),
        _bool(exact),
        _str(excepted),
    )


def _breaker(value: Any) -> Breaker | None:
    if value is None:
        return None
    events, window, origin = value
    _expect(isinstance(window, int | float))
    return Breaker(_int(events), float(window), _origin(origin))


def _interpreter(value: Any) -> InterpreterSettings:
    enabled, unknown, source_bytes, depth, nodes = value
    return InterpreterSettings(
        _bool(enabled), Action(_int(unknown)), _int(source_bytes), _int(depth), _int(nodes)
    )


def _layer(value: Any) -> Layer:
    (
        name,
        restrict_only,
        files,
        policies,
        locations,
        default_policy,
        approvals,
        protection,
        interpreter,
        agent_timeout,
        nudge_timeout,
        cycle_key,
        mode,
        self_protection,
        log,
        on_error,
        extends,
        fallback,
        fallback_policy,
        changes,
    ) = value
    _expect(isinstance(policies, dict))
    return Layer(
        _str(name),
        _bool(restrict_only),
        tuple(map(_str, files)),
        _LazyPolicies(policies),
        tuple(map(_location, locations)),
        _opt_str(default_policy),
        tuple(_rule(rule, {}) for rule in approvals),
        tuple(map(_protection, protection)),
        _interpreter(interpreter),
        _breaker(agent_timeout),
        _breaker(nudge_timeout),
        _str(cycle_key),
        _opt_str(mode),
        None if self_protection is None else _bool(self_protection),
        None if log is None else _bool(log),
        _opt_str(on_error),
        _bool(extends),
        tuple(map(_location, fallback)),
        _opt_str(fallback_policy),
        tuple(map(_change, changes)),
    )


def _change(value: Any) -> Change:
    kind, text, origin = value
    return Change(_str(kind), _str(text), None if origin is None else _origin(origin))


def _policy_set(value: Any) -> PolicySet:
    layers, project_root, digest = value
    return PolicySet(tuple(map(_layer, layers)), _opt_str(project_root), _str(digest))
