"""paths.spellings with a call's memo of resolved directories answers as without it (realpath),
whatever the links along the way: the memo saves looks at the file system, never changes a path."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

from policy_engine.paths import spellings


def test_a_calls_memo_spells_every_path_as_realpath_does(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "file").write_text("x")
    (real / "sub" / "deep").write_text("x")
    (tmp_path / "to-real").symlink_to(real)  # a linked directory
    (real / "to-file").symlink_to(real / "file")  # a linked last component
    (real / "dangling").symlink_to(tmp_path / "nowhere")  # a link to nothing
    (real / "to-sub").symlink_to("sub")  # relative
    (real / "loop").symlink_to(real / "loop")  # a loop
    (tmp_path / "home").symlink_to(tmp_path / "to-real")  # a link to a link
    names = ["file", "to-file", "dangling", "to-sub", "loop", "missing", "sub", "sub/deep", "to-sub/deep"]
    bases = [real, tmp_path / "to-real", tmp_path / "home", tmp_path / "absent"]
    paths = [str(base / name) for base, name in itertools.product(bases, names)] + [
        "/",
        "/tmp",
        f"{real}/a\0b",
    ]
    memo: dict[str, str] = {}
    assert spellings(str(tmp_path / "home" / "to-file")) == (
        str(tmp_path / "home" / "to-file"),
        str(real / "file"),
    )
    for path in paths * 2:  # the second round answers from the memo
        assert spellings(path, memo) == spellings(path), path
    assert memo  # the directories were remembered


def test_directories_resolved_by_the_kernel_or_from_above_are_where_realpath_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call's memo resolves a directory from the nearest one above it that it knows, or that the
    kernel names (O_PATH, /proc/self/fd), looking at each component below once: through links,
    links to links, relative links, loops, files, missing directories (`path/to/file`) and NUL,
    the answers are realpath's, with the kernel and without /proc, in any order."""
    from policy_engine import paths

    monkeypatch.setattr(paths, "_PROC_FD", paths._PROC_FD)  # restored after the test
    real = tmp_path / "real"
    (real / "sub" / "deeper").mkdir(parents=True)
    (real / "file").write_text("x")
    (tmp_path / "to-real").symlink_to(real)
    (tmp_path / "to-to-real").symlink_to(tmp_path / "to-real")
    (real / "to-sub").symlink_to("sub")
    (real / "loop").symlink_to(real / "loop")
    (real / "dangling").symlink_to(tmp_path / "nowhere")
    names = [
        "x",
        "sub/x",
        "sub/deeper/x",
        "to-sub/deeper/x",
        "file/x",
        "loop/x",
        "dangling/x",
        "missing/x",
        "path/to/file.txt",
        "to-sub/path/to/x",
    ]
    bases = [real, tmp_path / "to-real", tmp_path / "to-to-real", tmp_path / "absent"]
    candidates = [str(base / name) for base, name in itertools.product(bases, names)]
    candidates += ["/x", "/tmp/x", "/proc/self/x", f"{real}/a\0b/c", "/" + "/".join(["d"] * 2000)]
    asked: list[str] = []
    readlink = os.readlink
    monkeypatch.setattr(paths.os, "readlink", lambda fd: asked.append(fd) or readlink(fd))

    def check() -> None:
        shared: dict[str, str] = {}
        for path in [*candidates, *reversed(candidates)]:
            assert spellings(path, {}) == spellings(path), path
            assert spellings(path, shared) == spellings(path), path

    check()
    if sys.platform == "linux":
        assert asked  # the kernel was asked

    def no_proc(fd: str) -> str:
        raise FileNotFoundError(fd)

    monkeypatch.setattr(paths.os, "readlink", no_proc)
    check()
    assert paths._PROC_FD is False  # not asked again once /proc failed
