"""Properties checked on generated inputs: glob matching, file positions, and never crashing."""

from __future__ import annotations

import functools
import json
import re
import string
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from policy_engine.config.compiled import LocationEntry, Protection
from policy_engine.config.jsonc import key_path, parse
from policy_engine.decide.protect import Guard
from policy_engine.globs import expand_braces, glob_matches, literal_prefix

GLOB_ALPHABET = "ab *?.-[]()$\\\n"
TEXT_ALPHABET = "ab .-[]()$\\\n"


def reference_match(glob: str, text: str) -> bool:
    """The definition: * is any run of characters, ? any one character, all else literal."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.fullmatch(body, text, re.DOTALL) is not None


@given(st.text(GLOB_ALPHABET, max_size=12), st.text(TEXT_ALPHABET, max_size=16))
@settings(max_examples=2000)
def test_glob_matches_agrees_with_its_definition(glob: str, text: str) -> None:
    assert glob_matches(glob, text) == reference_match(glob, text)


@given(st.text(GLOB_ALPHABET, max_size=12), st.text(TEXT_ALPHABET, max_size=8))
def test_a_glob_matches_its_own_literal_text_with_wildcards_filled(glob: str, filler: str) -> None:
    text = "".join(filler if c == "*" else (filler[:1] or "x") if c == "?" else c for c in glob)
    if "?" in glob and len(filler[:1] or "x") != 1:
        return
    assert glob_matches(glob, text)
    assert text.startswith(literal_prefix(glob))


@given(st.lists(st.text(string.ascii_lowercase, min_size=1, max_size=4), min_size=1, max_size=4))
def test_brace_alternatives_expand_to_each_choice(choices: list[str]) -> None:
    assert expand_braces("pre_{" + ",".join(choices) + "}_post") == tuple(f"pre_{c}_post" for c in choices)


# A policy file may not hold U+2028/U+2029 raw (test_config_errors.py: JSON5 ends a comment there,
# where a reviewer sees none), so the located texts are made of the other characters.
_LOCATABLE = st.characters(codec="utf-8", exclude_characters="\u2028\u2029")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(_LOCATABLE, max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(_LOCATABLE, max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def all_paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from all_paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from all_paths(inner, (*prefix, index))


@given(
    st.dictionaries(st.text(_LOCATABLE, max_size=6), json_values, max_size=5),
    st.sampled_from([None, 1, 4]),
    st.booleans(),
)
def test_every_key_and_element_is_located_at_its_text(data, indent, comments: bool) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=bool(indent))
    if comments:
        text = "// leading comment\n" + text.replace("\n", "\n/* c */ ", 3)
    document = parse(text, "f.jsonc")
    assert document.data == data
    lines = text.split("\n")
    for path in all_paths(data):
        place = document.places[path]
        if not path:
            continue
        at = lines[place.key_line - 1][place.key_column - 1 :]
        if isinstance(path[-1], str):
            assert at.startswith(json.dumps(path[-1], ensure_ascii=bool(indent))), (key_path(path), at)
        value = lines[place.value_line - 1][place.value_column - 1 :]
        inner = data
        for part in path:
            inner = inner[part]
        expected_start = {dict: "{", list: "["}.get(type(inner)) or json.dumps(
            inner, ensure_ascii=bool(indent)
        )[:1]
        assert value.startswith(expected_start), (key_path(path), value)


@given(
    st.dictionaries(st.text(max_size=6), json_values, max_size=5),
    st.sampled_from([None, 2]),
    st.lists(st.sampled_from(["// a ] comment, ", "/* x, } */", ",", "'", "\n"]), max_size=6),
    st.randoms(use_true_random=False),
)
@settings(max_examples=1000)
def test_json_with_comments_reads_as_json5_does(data, indent, noise: list[str], random) -> None:
    # The fast path (the standard library's JSON once comments and trailing commas are gone) must
    # give json5's value, or leave the text to json5: never a different value.
    import json5

    from policy_engine.config.json5scan import join_surrogates
    from policy_engine.config.jsonc import _NOT_PLAIN, _plain_json

    text = json.dumps(data, indent=indent)
    for piece in noise:
        at = random.randrange(len(text) + 1)
        text = text[:at] + piece + text[at:]
    try:
        expected = json5.loads(text, allow_duplicate_keys=True)
    except ValueError:
        assert _plain_json(text) is _NOT_PLAIN
        return
    got = _plain_json(text)
    assert got is _NOT_PLAIN or join_surrogates(got) == join_surrogates(expected)


# Directories spelt the ways locations and targets reach the index: nested, with doubled and
# trailing slashes, the root itself, and (rarely) relative.
_PART = st.sampled_from(["a", "b", "ab", "A", ".x"])
_SPELLED = st.builds(
    lambda parts, lead, tail, double: (lead + ("//" if double else "/").join(parts) + tail) or "/",
    st.lists(_PART, max_size=4),
    st.sampled_from(["/", "/", "/", ""]),
    st.sampled_from(["", "", "/"]),
    st.booleans(),
)


@settings(max_examples=1000)
@given(st.lists(_SPELLED, max_size=6), _SPELLED, st.booleans())
def test_whether_a_path_holds_another_is_what_inside_says(
    others: list[str], directory: str, case_insensitive: bool
) -> None:
    """What a consequence asks once per atom (explain/consequences.py: does another path of the
    atom lie inside this one?) is what asking ``inside`` of every pair gives, in either case mode."""
    from policy_engine import paths
    from policy_engine.explain.consequences import holds_another
    from policy_engine.paths import inside

    saved = paths.CASE_INSENSITIVE
    paths.CASE_INSENSITIVE = case_insensitive
    try:
        expected = any(path != directory and inside(path, directory) for path in others)
        ordered = sorted({paths.fold(path) for path in others})
        folded = paths.fold(directory)
        respelt = any(paths.fold(path) == folded and path != directory for path in others)
        assert expected == (holds_another(ordered, folded) or respelt)
    finally:
        paths.CASE_INSENSITIVE = saved


@settings(max_examples=400)
@given(st.lists(st.lists(_SPELLED, min_size=1, max_size=2), max_size=8), st.lists(_SPELLED, max_size=6))
def test_the_location_index_resolves_as_trying_every_location(
    spellings: list[list[str]], targets: list[str]
) -> None:
    """LocationIndex walks a path's components up a dictionary; the definition tries every
    location in order. They must pick the same entry for any target (ties included)."""
    from policy_engine.decide.locations import LocationIndex
    from policy_engine.model import Origin

    entries = tuple(LocationEntry(f"k{i}", f"p{i}", Origin("f", 1, 1, "")) for i in range(len(spellings)))

    def directories(index: int, entry: LocationEntry) -> tuple[str, ...]:
        return tuple(spellings[index])

    index = LocationIndex(entries, directories)
    # Each target, and paths beside it (the index keeps what lies above the paths of a directory).
    siblings = [target.rstrip("/") + "/" + name for target in targets for name in ("b", "ab", ".", "")]
    for target in [*targets, *siblings, *targets]:
        assert index.resolve(target) == _longest_holding(entries, target, directories), target


def _longest_holding(
    entries: tuple[LocationEntry, ...],
    target: str,
    directories: Callable[[int, LocationEntry], tuple[str, ...]],
) -> LocationEntry | None:
    """The definition: the entry whose directory holds ``target`` with the longest spelling, the
    first of equals, found by trying every location in order."""
    from policy_engine.paths import inside

    best: LocationEntry | None = None
    best_length = -1
    for index, entry in enumerate(entries):
        for directory in directories(index, entry):
            if len(directory) > best_length and inside(target, directory):
                best, best_length = entry, len(directory)
    return best


# Paths near what the embedded default, sample.jsonc and self-protection protect: names they
# protect, names beside them, doubled and trailing slashes, under the home, the project, the
# interpreter's packages and elsewhere.
_NEAR = st.sampled_from(
    [
        ".ssh",
        "id_rsa",
        ".env",
        ".env.example",
        "a.pem",
        ".git",
        "config",
        "hooks",
        ".claude",
        "settings.json",
        ".config",
        "git",
        "proc",
        "1",
        "environ",
        "src",
        "x",
        ".aws",
        "credentials",
        ".cursor",
        "hooks.json",
        ".codex",
        ".policy-engine",
        "x.pth",
        "trustedFolders.json",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["home", "project", "/", "/tmp", "packages"]), st.lists(_NEAR, max_size=5), st.booleans()
)
@example("packages", ["x.pth"], False)  # what each kind of protection names, always tried
@example("home", [".claude", "settings.json"], False)
@example("project", ["src", ".cursor", "hooks.json"], False)
@example("project", [".git", "hooks", "x"], False)
@example("/", ["proc", "1", "environ"], False)
def test_the_protection_index_names_what_trying_every_guard_names(
    where: str, parts: list[str], doubled: bool
) -> None:
    """Shield.naming and Shield.under(directory) walk an index and (once a shield has named enough
    paths) combined regexes; trying each placed guard in turn is the definition. Same guards, same
    order, for any path, before and after the regexes are combined."""
    import os
    import sysconfig

    from policy_engine.decide.protect import _COMBINE_AFTER, Shield, guards, matches

    home, project = "/home/ada", "/home/ada/work/app"
    for config in _protections():
        placed = guards(config, home, project, project)
        fresh, seasoned = Shield(placed), Shield(placed)
        for _ in range(_COMBINE_AFTER):  # past the paths after which it combines its regexes
            seasoned.naming(home)
        packages = sysconfig.get_paths()["purelib"]  # where self-protection guards .pth files
        base = {"home": home, "project": project, "packages": packages}.get(where, where)
        path = os.path.join(base, *parts) if parts else base
        if doubled:
            path = path.replace("/", "//", 1)
        expected = [guard for guard in placed if _named_by(guard, path)]
        assert expected == [guard for guard in placed if matches(guard, path)], path
        for shield in (fresh, seasoned):
            assert shield.naming(path) == expected, path
            directory = os.path.dirname(path.rstrip("/")) or "/"
            if path.startswith(directory.rstrip("/") + "/"):
                assert shield.under(directory)(path) == expected, (directory, path)


def _named_by(guard: Guard, path: str) -> bool:
    """Whether ``guard``'s pattern names ``path``, by its regex alone (protect.matches skips the
    regex where a cheaper test can tell): the definition the shield is held to."""
    import re

    from policy_engine.paths import inside

    entry = guard.entry
    if entry.exact and entry.anchor != "anywhere":
        named = inside(path, guard.place)
    elif path == guard.base or inside(path, guard.base):
        relative = path[len(guard.base.rstrip("/")) + 1 :] if path != guard.base else ""
        regex = re.compile(entry.regex)
        named = bool(regex.match(relative) or regex.match(relative + "/"))
    else:
        return False
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return named and not (entry.excepted and re.match(entry.excepted, last))


@functools.cache
def _protections() -> list[tuple[Protection, ...]]:
    """The protections of the embedded default and of examples/sample.jsonc, compiled, with the
    engine's self-protection."""
    import tempfile
    from pathlib import Path

    from policy_engine import Engine

    sample = Path(__file__).resolve().parents[2] / "examples" / "sample.jsonc"
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            "HOME": scratch,
            "XDG_CACHE_HOME": scratch,
            "XDG_CONFIG_HOME": scratch,
            "XDG_DATA_HOME": scratch,
            "POLICY_ENGINE_MANAGED_CONFIG": f"{scratch}/none",
            "POLICY_ENGINE_DAEMON": "0",
        }
        for config in (None, str(sample)):
            engine = Engine(config, cwd=scratch, env=env, use_cache=False)
            # Each layer's, self-protection included (the agents' settings, .pth files, the key).
            found += [judge.protection for judge in engine._judges]
    return found


_SEARCH = st.tuples(
    st.sampled_from(["read", "write", "delete"]),
    st.sampled_from(["all", "visible", "follow", "into"]),
    st.sampled_from([(), ("*",), (".env*",), ("config",), ("*.pem", "x"), ("environ",), ("none",)]),
    st.sampled_from([(), ("x",)]),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "home", "home/.ssh", "home/work/app"]),
            st.lists(_NEAR, min_size=1, max_size=4),
        ),
        min_size=1,
        max_size=25,
    ),
    st.integers(min_value=2, max_value=30),
    st.lists(_SEARCH, min_size=1, max_size=8),
)
def test_a_tree_remembered_too_large_answers_as_a_fresh_walk(
    entries: list[tuple[str, list[str]]],
    limit: int,
    searches: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]],
) -> None:
    """A tree a walk found too large is remembered with what its first entries hold (trees.py), and
    later searches of it, for other protections, names, senses or walks, are answered from that: the
    same answer, and the same share of the call's budget spent, as walking the tree afresh."""
    import tempfile
    from pathlib import Path

    from policy_engine import trees
    from policy_engine.decide import protect
    from policy_engine.model import TreeKind, Walk

    saved = protect.WALK_LIMIT
    protect.WALK_LIMIT = limit  # trees of a few entries are "too large"
    try:
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            home, project = root / "home", root / "home" / "work" / "app"
            project.mkdir(parents=True)
            for number, (prefix, parts) in enumerate(entries):
                path = root.joinpath(prefix, *parts[:-1])
                try:
                    path.mkdir(parents=True, exist_ok=True)
                except OSError:
                    continue  # a file of that name is on the way
                leaf = path / parts[-1]
                if not (leaf.exists() or leaf.is_symlink()):  # a dangling link is there too
                    if number % 5 == 4:
                        leaf.symlink_to(home if number % 2 else root / ".env")  # a link to follow
                    else:
                        leaf.write_text("x")
            for config in _protections():
                shield = protect.Shield(protect.guards(config, str(home), str(project), str(project)))
                trees.forget()
                for sense, kind, names, skipped in searches:
                    walk = Walk(TreeKind(kind), names, skipped)
                    for directory in (str(root), str(home)):
                        remembered = protect.Search()
                        answer = protect.protections_hit(shield, directory, sense, walk, remembered)
                        held = dict(trees._cautious.answers)
                        trees.forget()
                        fresh = protect.Search()
                        expected = protect.protections_hit(shield, directory, sense, walk, fresh)
                        trees.forget()
                        trees._cautious.answers.update(held)
                        assert (answer, remembered.left) == (expected, fresh.left), (
                            directory,
                            sense,
                            walk,
                            sorted(str(p.relative_to(root)) for p in root.rglob("*")),
                        )
    finally:
        protect.WALK_LIMIT = saved
        trees.forget()


_PATTERN_PARTS = st.sampled_from(
    ["a", "b", ".env", ".git", "config", "x.txt", "*", "**", "*.txt", "?", "[ab]", ".e*", "c?nfig", "[!a]b"]
)
_PATH_PARTS = st.sampled_from(
    ["a", "b", ".env", ".env.local", ".git", "config", "x.txt", "ab", "c0nfig", "bb"]
)


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(["", "/", "~/"]),
    st.lists(_PATTERN_PARTS, min_size=1, max_size=4),
    st.booleans(),
    st.lists(_PATH_PARTS, min_size=1, max_size=5),
)
def test_every_path_a_protection_pattern_names_holds_its_needed_text(
    lead: str, parts: list[str], directory: bool, path_parts: list[str]
) -> None:
    """The protections' shield skips a path that holds none of the texts its patterns need
    (protect.needed_text): whenever a pattern's regex names a path (as a file or a directory,
    relative to the pattern's base), that text is in it."""
    import re

    from policy_engine.config.compile import compile_protection_pattern
    from policy_engine.decide.protect import needed_text

    pattern = lead + "/".join(parts) + ("/" if directory else "")
    try:
        _, source = compile_protection_pattern(pattern)
    except ValueError:
        return
    needed = needed_text(pattern)
    relative = "/".join(path_parts)
    regex = re.compile(source)
    if needed is not None and (regex.match(relative) or regex.match(relative + "/")):
        assert needed in relative, (pattern, needed, relative)


_TREE_NAMES = st.sampled_from(["a", "b", ".env", ".env.local", ".git", ".claude", "x.txt", "node_modules"])
_TREE_CHANGE = st.tuples(
    st.sampled_from(["file", "directory", "link", "remove", "rename"]),
    st.lists(_TREE_NAMES, min_size=1, max_size=3),
    st.lists(_TREE_NAMES, min_size=1, max_size=3),
)


def _change_tree(root: Path, how: str, parts: list[str], other: list[str]) -> None:
    """Make one change to the tree under ``root`` (a file, a directory or a link made, an entry
    removed or renamed); none when it cannot be made."""
    import shutil

    path, to = root.joinpath(*parts), root.joinpath(*other)
    try:
        if how in ("file", "directory", "link"):
            path.parent.mkdir(parents=True, exist_ok=True)
        if how == "file":
            path.write_text("x")
        elif how == "directory":
            path.mkdir()
        elif how == "link":
            path.symlink_to(to)
        elif how == "remove":
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        elif to != path and not to.is_relative_to(path):
            to.parent.mkdir(parents=True, exist_ok=True)
            path.rename(to)
    except OSError:
        pass  # there already, not there, in the way: the tree stays as it is


@contextmanager
def _changed_project(tree: list[tuple[str, list[str], list[str]]]) -> Iterator[tuple[Path, list[Any]]]:
    """A scratch project (under a scratch home) holding ``tree``, and the embedded default's
    protections placed for it; meanwhile "changed just before" (trees.RACY_NS) is 20 ms, not 2 s,
    so that a change made 25 ms before a walk is settled."""
    import tempfile

    from policy_engine import trees
    from policy_engine.decide import protect

    saved = trees.RACY_NS
    trees.RACY_NS = 20_000_000
    try:
        with tempfile.TemporaryDirectory() as scratch:
            home = Path(scratch) / "home"
            project = home / "work" / "app"
            project.mkdir(parents=True)
            for how, parts, other in tree:
                _change_tree(project, how, parts, other)
            yield project, protect.guards(_protections()[0], str(home), str(project), str(project))
    finally:
        trees.RACY_NS = saved


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_TREE_CHANGE, max_size=12),
    st.lists(st.tuples(st.lists(_TREE_CHANGE, max_size=4), st.booleans()), min_size=1, max_size=4),
    st.integers(min_value=3, max_value=40),
)
def test_a_sandbox_walk_of_kept_listings_answers_as_a_fresh_walk(
    tree: list[tuple[str, list[str], list[str]]],
    rounds: list[tuple[list[tuple[str, list[str], list[str]]], bool]],
    limit: int,
) -> None:
    """The sandbox's walk of the project keeps each directory's listing while the directory is
    unchanged (sandbox/plan.py): after any changes to the tree, made just before the walk or long
    enough before it, it finds what walking afresh finds, and gives up where that gives up."""
    import time

    from policy_engine.decide import protect
    from policy_engine.model import Action
    from policy_engine.sandbox import plan as plans

    def walk(root: Path, reads: list[protect.Guard], writes: list[protect.Guard]) -> object:
        try:
            found = plans._walk((str(root),), reads, writes, limit)
        except plans.Unconfinable as refused:
            return str(refused)
        return sorted(found[0]), sorted(found[1])

    try:
        with _changed_project(tree) as (project, guards):
            reads = [g for g in guards if g.entry.action >= Action.ASK and "read" in g.entry.senses]
            writes = [g for g in guards if g.entry.action >= Action.ASK and "write" in g.entry.senses]
            plans._LISTED.clear()
            time.sleep(0.025)
            walk(project, reads, writes)  # every listing kept
            for changes, settled in rounds:
                for how, parts, other in changes:
                    _change_tree(project, how, parts, other)
                if settled:
                    time.sleep(0.025)
                kept = walk(project, reads, writes)
                remembered = {
                    key: (screen, dict(listings)) for key, (screen, listings) in plans._LISTED.items()
                }
                plans._LISTED.clear()
                assert kept == walk(project, reads, writes), sorted(
                    str(p.relative_to(project)) for p in project.rglob("*")
                )
                plans._LISTED.clear()
                plans._LISTED.update(remembered)
    finally:
        plans._LISTED.clear()


_TREE_SEARCH = st.tuples(
    st.sampled_from(["read", "write", "delete"]),
    st.sampled_from(["all", "visible", "git", "into"]),  # a walk that follows links is never kept
    st.sampled_from([(), ("*",), (".env*",), ("x.txt", "b")]),
    st.sampled_from([(), ("a",)]),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_TREE_CHANGE, max_size=12),
    st.lists(st.tuples(st.lists(_TREE_CHANGE, max_size=4), st.booleans()), min_size=1, max_size=4),
    st.lists(_TREE_SEARCH, min_size=1, max_size=4),
)
def test_a_remembered_search_answers_as_a_fresh_one(
    tree: list[tuple[str, list[str], list[str]]],
    rounds: list[tuple[list[tuple[str, list[str], list[str]]], bool]],
    searches: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]],
) -> None:
    """What a search that finished found is kept with the stamps of the directories it listed
    (trees.py): after any changes to the tree, made just before the search or long enough before
    it, a search answers as a fresh one does, and spends as much of the call's budget."""
    import time

    from policy_engine import trees
    from policy_engine.decide import protect
    from policy_engine.model import TreeKind, Walk

    try:
        with _changed_project(tree) as (project, guards):
            shield = protect.Shield(guards)

            def answers() -> list[object]:
                found: list[object] = []
                for sense, kind, names, skipped in searches:
                    search = protect.Search()
                    walk = Walk(TreeKind(kind), names, skipped)
                    found.append(
                        (protect.protections_hit(shield, str(project), sense, walk, search), search.left)
                    )
                return found

            trees.forget()
            time.sleep(0.025)
            answers()
            answers()  # kept from the second search on
            for changes, settled in rounds:
                for how, parts, other in changes:
                    _change_tree(project, how, parts, other)
                if settled:
                    time.sleep(0.025)
                remembered = answers()
                kept = dict(trees._searched.answers)
                trees.forget()
                assert remembered == answers(), sorted(
                    str(p.relative_to(project)) for p in project.rglob("*")
                )
                trees.forget()
                trees._searched.answers.update(kept)
    finally:
        trees.forget()
