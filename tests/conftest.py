"""Fixtures shared by every test."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Sandbox, compile_warm_knowledge

# Modules whose tests look at the cache directory from its empty start (what is compiled, what is
# pruned, a file where the directory should be): their sandboxes compile the knowledge cold.
COLD_CACHE = frozenset({"test_cache"})


@pytest.fixture(scope="session", autouse=True)
def warm_knowledge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The command knowledge compiled once per run (per worker), copied into each Sandbox."""
    return compile_warm_knowledge(tmp_path_factory.mktemp("warm-knowledge"))


@pytest.fixture
def sandbox(tmp_path: Path, request: pytest.FixtureRequest) -> Sandbox:
    """A fake machine of its own for each test: nothing of the real user's configuration leaks in."""
    return Sandbox(tmp_path, warm=request.module.__name__.rpartition(".")[2] not in COLD_CACHE)
