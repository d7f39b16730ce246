"""The tree-sitter grammars, loaded once per process and as cheaply as possible.

``import tree_sitter_bash`` runs a package ``__init__`` that imports ``importlib.resources`` (several
milliseconds, on every hook call) only to offer a highlighting query we never use. We load the
grammar's compiled extension module directly instead, and fall back to the normal import if the
package is laid out differently.

``parse`` is the only way in: it keeps the grammars' external scanners away from characters beyond
the Basic Multilingual Plane. tree-sitter-bash's scanner passes the character it looks at to C's
``isalpha``, which indexes a 384-entry table; a code point such as U+F148F reads far past it and
crashes the whole process (found by the property tests: ``{`` followed by such a character).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import re
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tree_sitter

# A character of four UTF-8 bytes, and what the parser sees instead: two characters of two bytes
# each, so that every node keeps its byte offsets into the real source. The stand-in is an ordinary
# word character, as the real one is to bash.
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")
_STAND_IN = "\u00e9\u00e9".encode()


def _binding(package: str) -> Any:
    """The ``_binding`` extension module of a grammar package, without running its ``__init__``."""
    name = f"{package}._binding"
    for directory in sys.path:
        base = os.path.join(directory or ".", package)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(base, "_binding" + suffix)
            if os.path.isfile(path):
                loader = importlib.machinery.ExtensionFileLoader(name, path)
                spec = importlib.machinery.ModuleSpec(name, loader, origin=path)
                module = loader.create_module(spec)
                loader.exec_module(module)
                sys.modules[name] = module  # listed like any import (the tests check what is loaded)
                return module
    return importlib.import_module(package)


@cache
def parser(language: str = "bash") -> tree_sitter.Parser:
    """A parser for ``language`` (bash, python, javascript, typescript)."""
    import tree_sitter

    if language == "typescript":
        grammar = _binding("tree_sitter_typescript").language_typescript()
    else:
        grammar = _binding(f"tree_sitter_{language}").language()
    return tree_sitter.Parser(tree_sitter.Language(grammar))


def first_error_line(root: tree_sitter.Node) -> int:
    """The 1-based line of the first syntax error or missing token under ``root`` (1 if none)."""
    pending = [root]
    while pending:
        node = pending.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point.row + 1
        if node.has_error:
            pending.extend(reversed(node.children))
    return root.start_point.row + 1


def parse(source: bytes, language: str = "bash") -> tree_sitter.Tree:
    """The syntax tree of ``source`` (valid UTF-8). Read node text from ``source`` by byte offsets,
    not from the nodes: the tree was parsed from a copy where astral characters are stood in for."""
    safe = source if source.isascii() else _ASTRAL.sub(_STAND_IN, source)
    return parser(language).parse(safe)
