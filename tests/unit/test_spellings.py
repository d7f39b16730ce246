"""paths.spellings with a call's memo of resolved directories answers as without it (realpath),
whatever the links along the way: the memo saves looks at the file system, never changes a path."""

from __future__ import annotations

import itertools
from pathlib import Path

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
