"""The packaging suite's fixtures: every test here is marked ``packaging`` (run with ``-m packaging``;
``.ci/run`` does, with the sdist and wheel it built in POLICY_ENGINE_DIST)."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.packaging)
