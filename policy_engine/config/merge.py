"""Deep merge of policy files, remembering which file wrote every value.

pi-control's merge: objects merge key by key, arrays and scalars (``null`` included) replace, and
``approvalRules`` lists are concatenated. Provenance follows each value, so an error or a trace
found in the merged configuration still points at the file and line that wrote it.
"""

from __future__ import annotations

import copy
from typing import Any

from ..record import Record
from .jsonc import Document, Path, Place


class Written(Record):
    """The file and place a value of the merged configuration comes from."""

    file: str
    place: Place


Provenance = dict[Path, Written]


def provenance_of(document: Document) -> Provenance:
    return {path: Written(document.file, place) for path, place in document.places.items()}


def merge(documents: list[Document]) -> tuple[dict[str, Any], Provenance]:
    """Merge ``documents`` in order (later ones win) into one configuration and its provenance."""
    merged: dict[str, Any] = {}
    where: Provenance = {}
    approvals: list[Any] = []
    for document in documents:
        origin = provenance_of(document)
        where.setdefault((), origin[()])
        for key, value in document.data.items():
            if key == "approvalRules" and isinstance(value, list):
                for index, rule in enumerate(value):
                    _graft(where, origin, ("approvalRules", index), ("approvalRules", len(approvals)))
                    approvals.append(copy.deepcopy(rule))
                where.setdefault(("approvalRules",), origin[("approvalRules",)])
                continue
            _merge_value(merged, key, value, (key,), where, origin)
    if approvals:
        merged["approvalRules"] = approvals
    return merged, where


def _merge_value(
    target: dict[str, Any], key: str, value: Any, path: Path, where: Provenance, origin: Provenance
) -> None:
    if isinstance(value, dict) and isinstance(target.get(key), dict):
        where[path] = origin[path]
        for inner_key, inner_value in value.items():
            _merge_value(target[key], inner_key, inner_value, (*path, inner_key), where, origin)
        return
    target[key] = copy.deepcopy(value)
    for old in [p for p in where if p[: len(path)] == path]:
        del where[old]
    _graft(where, origin, path, path)


def _graft(where: Provenance, origin: Provenance, source: Path, destination: Path) -> None:
    """Copy the provenance of the subtree at ``source`` to ``destination``."""
    size = len(source)
    for path, written in origin.items():
        if path[:size] == source:
            where[destination + path[size:]] = written
