"""The tree-sitter grammars, loaded once per process and as cheaply as possible.

``import tree_sitter_bash`` runs a package ``__init__`` that imports ``importlib.resources`` (several
milliseconds, on every hook call) only to offer a highlighting query we never use. We load the
grammar's compiled extension module directly instead, and fall back to the normal import if the
package is laid out differently.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tree_sitter


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
