"""Fixtures shared by every test."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Sandbox


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A fake machine of its own for each test: nothing of the real user's configuration leaks in."""
    return Sandbox(tmp_path)
