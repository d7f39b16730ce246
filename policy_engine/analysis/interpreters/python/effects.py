"""What calls do: paths touched, files opened, URLs read, objects' methods, SQL, the environment, and the
commands a program runs (``subprocess``, ``os.system``, ``os.exec*``...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ....model import WHOLE_TREE, Sense, Walk
from ..findings import Effect, Execution, file_url_path
from .api import ArgSpec
from .core import Core
from .operations import path_attribute, path_transform
from .paths import TEMP, absolute, join, locate, pure
from .scopes import State
from .values import Call, Const, Obj, PathValue, Ref, Seq, Value, not_a_path, path_text, same, string_value

R, W, D = Sense.READ, Sense.WRITE, Sense.DELETE
# How a doubt says what a sense does to a file it cannot name.
VERBS = {R: "reads", W: "writes", D: "deletes", Sense.EXEC: "runs", Sense.UNKNOWN: "touches"}
# A string that can be an open() mode (a receiver of unknown type's .open(mode) may be a path's).
MODE = re.compile(r"[rwaxbtU+]{1,4}")


def writes(mode: str) -> bool:
    return any(c in mode for c in "wax+")


def mode_sense(present: bool, value: Value, default: str) -> tuple[Sense, str]:
    """The sense a file mode opens with, and how evidence spells it."""
    if not present or (isinstance(value, Const) and value.value is None):
        return (W if writes(default) else R), ""
    mode = string_value(value)
    if mode is None:
        return W, "(computed mode)"
    return (W if writes(mode) else R), f"(mode {mode!r})"


class Effects(Core):
    """Files, URLs, the environment and commands, as the tables of ``api.json`` say calls touch them."""

    def _file_call(self, evidence: str, specs: Iterable[ArgSpec], call: Call, state: State) -> None:
        for index, (sense, position, keyword, default) in enumerate(specs):
            present, value = call.arg(position, keyword)
            if not present or (default is not None and isinstance(value, Const) and value.value is None):
                if default is None:
                    continue
                value = Const(default)
            tree = WHOLE_TREE if index == 0 and evidence in self.api.walked else None
            self._touch(value, sense, call.line, evidence, state, tree)

    def _touch(
        self, value: Value, sense: Sense, line: int, evidence: str, state: State, tree: Walk | None = None
    ) -> None:
        """Report that ``value`` (a path, or a list of them) is accessed, or doubt it when it is not
        known: unless only read, or read by a program that reads its input (which may name it)."""
        if isinstance(value, Seq):
            for item in value.items:
                self._touch(item, sense, line, evidence, state, tree)
            return
        if not_a_path(value):
            return
        text = path_text(value)
        if text is None:
            self._unknown_file(line, evidence, sense)
            return
        path, problem = locate(text, state.cwd)
        if problem is not None and sense is not R:
            self._doubt(line, problem)
        if path is not None:
            self.effects.append(Effect(path, sense, line, evidence, tree))

    def _unknown_file(self, line: int, evidence: str, sense: Sense) -> None:
        if sense is not R:
            self._doubt(line, f"cannot tell which file {evidence} {VERBS[sense]} (computed at run time)")
        elif self.reads_input:
            self._doubt(line, f"cannot tell which file {evidence} reads (its name may come from the input)")

    def _url(self, present: bool, value: Value, line: int, evidence: str, state: State) -> None:
        """A URL given to ``evidence``: a ``file:`` URL reads the file it names."""
        if not present or isinstance(value, Obj):
            return  # a Request: its URL was judged when it was made
        text = string_value(value)
        if text is None:
            if self.file_urls:
                self._doubt(line, f"cannot tell which file a file: URL given to {evidence} reads")
            return
        path = file_url_path(text)
        if path is not None:
            self._touch(Const(path), R, line, f"{evidence}(file: URL)", state)

    def _open(self, name: str, call: Call, state: State) -> Value:
        path_position, path_keyword, mode_position, mode_keyword, default, kind = self.api.openers[name]
        present, target = call.arg(path_position, path_keyword)
        given, mode = call.arg(mode_position, mode_keyword) if mode_keyword else (False, None)
        sense, spelling = mode_sense(given, mode, default)
        if present and not (name == "sqlite3.connect" and string_value(target) in (":memory:", "")):
            self._touch(target, sense, call.line, name + spelling, state)
        return Obj(kind)

    # -- methods of known objects ----------------------------------------------------------------

    def _path_method(self, path: PathValue, name: str, call: Call, state: State) -> Value:
        if name == "open":
            given, mode = call.arg(0, "mode")
            sense, spelling = mode_sense(given, mode, "r")
            self._touch_path(path, sense, call, "open", spelling, state)
            return Obj("file")
        specs = self.api.path_methods.get(name)
        if specs is None:
            return path_transform(path, name, call, self.setting.home, state.cwd, self.api.path_transforms)
        tree = WHOLE_TREE if name in self.api.path_walked else None
        for sense, index in specs:
            if index < 0:
                self._touch_path(path, sense, call, name, "", state, tree)
            else:
                present, value = call.arg(index, "target")
                if present:
                    self._touch(value, sense, call.line, f"Path.{name}", state)
        if name in ("copy_into", "move_into"):  # target_dir / this path's name is written
            present, directory = call.arg(0, "target_dir")
            text, base = path_text(directory), string_value(path_attribute(path, "name"))
            if present:
                landing = Const(join(text, base)) if text is not None and base is not None else None
                self._touch(landing, W, call.line, f"Path.{name}", state)
        if name in ("rename", "replace", "move"):
            text = path_text(call.arg(0, "target")[1])
            return PathValue(pure(text) if text is not None else None)
        return None

    def _touch_path(
        self,
        path: PathValue,
        sense: Sense,
        call: Call,
        name: str,
        spelling: str,
        state: State,
        tree: Walk | None = None,
    ) -> None:
        if path.text is None:
            if sense is not R:
                self._doubt(call.line, f"cannot tell which file .{name}() touches")
            else:
                self._unknown_file(call.line, f"Path.{name}", R)
            return
        self._touch(path, sense, call.line, f"Path.{name}{spelling}", state, tree)

    def _object_method(self, obj: Obj, name: str, call: Call, state: State) -> Value:
        kind = obj.kind
        if kind == "namespace":
            self._doubt(call.line, "reaches names through globals() or vars(), which cannot be followed")
            return None
        if kind == "sqlite":
            return self._sql(name, call, state, True)
        evidence = f"{self.api.kind_names.get(kind, kind)}.{name}"
        if kind == "socket":
            position = self.api.socket_addresses.get(name)
            present, address = call.arg(position, "address") if position is not None else (False, None)
            if present and isinstance(address, Const) and isinstance(address.value, str | bytes):
                self._touch(address, W, call.line, evidence, state)
            return None
        if kind == "handle" and name in ("open", "retrieve"):  # an OpenerDirector or URLopener
            self._url(*call.arg(0, "fullurl" if name == "open" else "url"), call.line, evidence, state)
        specs = self.api.object_methods.get(kind, {}).get(name)
        if specs is None:
            return None
        present, file = call.arg(0, "filename")
        if kind == "cookies" and (not present or same(file, Const(None))):  # the jar's own file
            if self.retargets or obj.path is None:
                self._doubt(call.line, f"cannot tell which file {evidence} {VERBS[specs[0][0]]}")
            elif obj.path:
                self._touch(Const(obj.path), specs[0][0], call.line, evidence, state)
            return None
        self._file_call(evidence, specs, call, state)
        return None

    def _sql(self, name: str, call: Call, state: State, database: bool) -> Value:
        """A method of a database connection or cursor (``database``), or a method of an unknown object
        named like one (judged as one when it is given SQL text). ``ATTACH 'f'`` and ``VACUUM INTO
        'f'`` write the file ``f``; SQL computed at run time may."""
        if name in self.api.sql_dangers and database:
            self._doubt(call.line, f".{name}() loads native code")
            return None
        if name not in self.api.sql_methods:
            return Obj("sqlite") if name == "cursor" and database else None
        present, sql = call.arg(0, "sql_script" if name == "executescript" else "sql")
        text = string_value(sql)
        if text is None:
            if present and database:
                self._doubt(call.line, f"runs SQL computed at run time (.{name}); ATTACH can write any file")
            return Obj("sqlite") if database else None
        from .sql import sql_files  # here: its expressions are compiled only for a program that runs SQL

        files, problem = sql_files(text)
        for file in files:
            self._touch(Const(file), W, call.line, f"SQL {file!r}", state)
        if problem is not None:
            self._doubt(call.line, problem)
        return Obj("sqlite") if database else None

    def _environ_method(self, receiver: Value, name: str, call: Call) -> Value:
        real = isinstance(receiver, Ref)
        if name in ("get", "pop", "setdefault", "__getitem__"):
            present, key = call.arg(0, "key")
            if real and name in ("pop", "setdefault"):
                self.environment_changes.append(string_value(key) or "?")
            return self._variable(key if present else None, call.line)
        if name in ("items", "values"):
            self._doubt(call.line, "reads every environment variable, secrets included")
        elif name == "copy":
            return Obj("environ")
        elif real and name in ("update", "clear", "__setitem__", "__delitem__", "popitem"):
            self.environment_changes.append("?")
        return None

    def _variable(self, key: Value, line: int) -> Value:
        """An environment variable read by name: a doubt when the name looks like a secret's or is
        computed; ``$HOME`` is the home directory."""
        name = string_value(key)
        if name is None:
            self._doubt(line, "reads an environment variable whose name is computed")
            return None
        if self.setting.secret(name):
            self._doubt(line, f"reads ${name}, which looks like a secret")
        return Const(self.setting.home) if name == "HOME" else None

    # -- commands: the argument vector or shell code each runner is given

    def _run(self, name: str, call: Call, state: State) -> None:
        argv, shell = self._command(name, call)
        if argv is None and shell is None:
            self._doubt(call.line, f"{name} runs a command computed at run time")
            return
        if not argv and shell is None:
            return
        if self.environment_changes:
            changed = ", ".join(f"${n}" for n in dict.fromkeys(self.environment_changes))
            self._doubt(call.line, f"runs a command after the environment was changed ({changed})")
        self.executions.append(Execution(call.line, name, argv, shell, self._run_directory(call, state)))

    def _command(self, name: str, call: Call) -> tuple[tuple[str, ...] | None, str | None]:
        """The argument vector or shell code a runner is given, both None when it is computed."""
        style, program, vector, keyword = self.api.runners[name]
        if style == "shell":
            present, command = call.arg(0, keyword)
            return None, self._word(command) if present else None
        if style == "args":
            return self._subprocess_command(call)
        if style == "argv":
            return self._words(call.arg(0, keyword)[1]), None
        if style == "all":
            return (None if call.open_ended else self._words(Seq(call.args, False))), None
        present, first = call.arg(program, keyword)
        word = self._word(first)
        if word is None:
            return None, None
        if style == "vector":
            words = self._words(call.arg(vector, "args")[1])
        else:
            items = call.args[vector : -1 if style == "list-env" else None]
            words = None if call.open_ended else self._words(Seq(items, False))
        # the first word is argv[0], which the program run does not depend on
        return (None if words is None else (word, *words[1:])), None

    def _subprocess_command(self, call: Call) -> tuple[tuple[str, ...] | None, str | None]:
        _, args = call.arg(0, "args")
        shell_given, shell = call.arg(None, "shell")
        if shell_given and not isinstance(shell, Const):
            return None, None
        if shell_given and isinstance(shell, Const) and shell.value:
            code = args.items[0] if isinstance(args, Seq) and args.items else args
            return None, self._word(code)
        words = self._words(args)
        executable_given, executable = call.arg(None, "executable")
        if words and executable_given and not same(executable, Const(None)):
            program = self._word(executable)
            return (None if program is None else (program, *words[1:])), None
        return words, None

    def _word(self, value: Value) -> str | None:
        if isinstance(value, Ref) and value.name == "sys.executable":
            return "python3"
        text = path_text(value)
        return None if text is None or "\x00" in text else text

    def _words(self, value: Value) -> tuple[str, ...] | None:
        """A command's words: a list of constants, or one string (the program, as Python runs it)."""
        if isinstance(value, Seq):
            words = [self._word(item) for item in value.items]
            return tuple(w for w in words if w is not None) if None not in words else None
        word = self._word(value)
        return (word,) if word is not None else None

    def _run_directory(self, call: Call, state: State) -> str | None:
        present, value = call.arg(None, "cwd")
        base = state.cwd if not present or same(value, Const(None)) else absolute(path_text(value), state.cwd)
        return None if base is None or TEMP in base else base
