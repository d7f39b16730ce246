"""The shipped data files: ``$name`` pattern presets and the embedded default policy.

Their text is part of the compiled-policy cache key, so editing a preset invalidates every cache.
"""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Installed, the files are the data package policy_engine/presets; in a checkout (an editable
# install too) they are the top-level presets/ folder beside the package.
PRESETS_DIR = next(
    (
        d
        for d in (os.path.join(_PACKAGE, "presets"), os.path.join(os.path.dirname(_PACKAGE), "presets"))
        if os.path.isdir(d)
    ),
    os.path.join(_PACKAGE, "presets"),
)
PATTERNS_DIR = os.path.join(PRESETS_DIR, "patterns")
DEFAULT_POLICY = os.path.join(PRESETS_DIR, "default.jsonc")


def preset_files() -> list[tuple[str, str]]:
    """(``$name``, path) of every pattern preset, sorted by name."""
    found = []
    for entry in sorted(os.listdir(PATTERNS_DIR)):
        if entry.endswith(".jsonc"):
            found.append(("$" + entry.removesuffix(".jsonc"), os.path.join(PATTERNS_DIR, entry)))
    return found


def builtin_texts() -> list[tuple[str, str]]:
    """(path, text) of every shipped data file: the default policy, then the presets."""
    paths = [DEFAULT_POLICY] + [path for _, path in preset_files()]
    texts = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            texts.append((path, handle.read()))
    return texts
