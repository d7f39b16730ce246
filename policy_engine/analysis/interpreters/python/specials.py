"""Calls whose meaning is code, not a table row: they compute a value (``pathlib.Path``,
``os.path.join``, ``tempfile.mkdtemp``) or have an effect no table can say (``os.chdir``, ``getattr``).
"""

from __future__ import annotations

import os.path
import re
from collections.abc import Callable

from ....model import WHOLE_TREE, Sense
from ..findings import file_url_path
from .effects import Effects
from .paths import CWD, TEMP, absolute, expand_user, join, pure, static_part
from .scopes import State
from .values import (
    Call,
    Const,
    Func,
    Obj,
    PathValue,
    Ref,
    Seq,
    Value,
    as_text,
    is_environ,
    path_text,
    same,
    short,
    string_value,
)

R, W = Sense.READ, Sense.WRITE


class Specials(Effects):
    """The handlers of ``SPECIAL``: each is given the call and returns its value."""

    def _make_path(self, call: Call, state: State) -> Value:
        if call.open_ended or call.keywords:
            return PathValue(None)
        text = "."
        for value in call.args:
            part = path_text(value)
            if part is None:
                return PathValue(None)
            text = join(text, part)
        return PathValue(pure(text))

    def _home(self, call: Call, state: State) -> Value:
        return PathValue(self.setting.home)

    def _from_uri(self, call: Call, state: State) -> Value:
        text = string_value(call.arg(0, "uri")[1])
        path = file_url_path(text) if text is not None else None
        return PathValue(pure(path) if path is not None else None)

    def _getcwd(self, call: Call, state: State) -> Value:
        if call.name == "pathlib.Path.cwd":
            return PathValue(state.cwd)
        return Const(state.cwd) if state.cwd is not None else None

    def _os_path(self, call: Call, state: State) -> Value:
        """The pure ``os.path`` functions, on known arguments."""
        texts = [path_text(value) for value in call.args]
        if call.open_ended or not texts or None in texts:
            return None
        parts = [t for t in texts if t is not None]
        first, function = parts[0], call.name.rpartition(".")[2]
        result: str | None
        if function == "join":
            result = first
            for part in parts[1:]:
                result = join(result, part)
        elif function in ("split", "splitext"):
            pair = os.path.split(first) if function == "split" else os.path.splitext(first)
            return Seq((Const(pair[0]), Const(pair[1])), False)
        elif function in ("abspath", "realpath"):
            result = absolute(first, state.cwd)
        elif function == "expanduser":
            result = expand_user(first, self.setting.home)
        elif function == "expandvars":
            result = re.sub(r"\$(HOME\b|\{HOME\})", lambda _: self.setting.home, first)
            result = None if "$" in result else result
        elif function == "basename":
            result = os.path.basename(first)
        else:
            result = os.path.dirname(first) if function == "dirname" else os.path.normpath(first)
            if first.startswith(TEMP) and not result.startswith(TEMP):
                result = None  # went above the temporary directory
        return short(result)

    def _to_string(self, call: Call, state: State) -> Value:
        if not call.args and not call.open_ended:
            return Const("")
        text = as_text(call.args[0]) if call.args and len(call.args) == 1 and not call.keywords else None
        return Const(text) if text is not None else None

    def _to_sequence(self, call: Call, state: State) -> Value:
        value = call.args[0] if len(call.args) == 1 and not call.keywords else None
        return Seq(value.items, call.name == "list") if isinstance(value, Seq) else None

    def _dict(self, call: Call, state: State) -> Value:
        return Obj("environ") if any(is_environ(value) for value in call.args) else None

    def _shlex(self, call: Call, state: State) -> Value:
        import shlex

        value = call.args[0] if len(call.args) == 1 and not call.keywords else None
        function = call.name.rpartition(".")[2]
        text = string_value(value)
        if function == "join" and isinstance(value, Seq):
            words = self._words(value)
            return short(shlex.join(words)) if words is not None else None
        if text is None:
            return None
        if function == "quote":
            return short(shlex.quote(text))
        try:
            return Seq(tuple(Const(w) for w in shlex.split(text)), True)
        except ValueError:
            return None

    def _getenv(self, call: Call, state: State) -> Value:
        present, key = call.arg(0, "key")
        return self._variable(key if present else None, call.line)

    def _putenv(self, call: Call, state: State) -> Value:
        self.environment_changes.append(string_value(call.arg(0, "key")[1]) or "?")
        return None

    def _chdir(self, call: Call, state: State) -> Value:
        _, value = call.arg(0, "path")
        state.cwd = absolute(path_text(value), state.cwd)
        return None

    def _os_open(self, call: Call, state: State) -> Value:
        present, target = call.arg(0, "path")
        _, flags = call.arg(1, "flags")
        reading = isinstance(flags, Const) and flags.value == 0 and not isinstance(flags.value, bool)
        if present:
            self._touch(target, R if reading else W, call.line, "os.open", state)
        return None

    def _namespace(self, call: Call, state: State) -> Value:
        if call.name == "vars" and call.args and not isinstance(call.args[0], Ref):
            return None
        return Obj("namespace")

    def _getattr(self, call: Call, state: State) -> Value:
        """``getattr``/``setattr``/``delattr``: a module's member or a computed name cannot be followed."""
        _, obj = call.arg(0, "")
        _, attribute = call.arg(1, "")
        name = string_value(attribute)
        if isinstance(obj, Ref) and (obj.name in self.api.effectful_modules or self.api.effectful(obj.name)):
            self._doubt(call.line, f"{call.name} on {obj.name} can reach any of its functions")
            return Ref(self.api.canonical(f"{obj.name}.{name}")) if name and call.name == "getattr" else None
        if isinstance(obj, Obj) and obj.kind == "namespace":
            self._doubt(call.line, f"{call.name} on a namespace cannot be followed")
        elif name is None:
            self._doubt(call.line, f"{call.name} with a computed name cannot be followed")
        else:
            self._dynamic_name(call, name)
        return Ref(self.api.canonical(f"{obj.name}.{name}")) if isinstance(obj, Ref) and name else None

    def _dynamic_name(self, call: Call, name: str) -> None:
        """A method named by a string: doubt the names of path methods and internals."""
        if any(
            part in self.api.suspects
            or part in self.api.internal_dunders
            or part in self.api.frame_attributes
            or part == "open"
            for part in name.split(".")
        ):
            self._doubt(call.line, f"{call.name} reaches .{name}, which may touch files")

    def _method_caller(self, call: Call, state: State) -> Value:
        name = string_value(call.arg(0, "")[1])
        if name is None:
            self._doubt(call.line, f"{call.name} with a computed name cannot be followed")
        else:
            self._dynamic_name(call, name)
        return None

    def _import_module(self, call: Call, state: State) -> Value:
        name = string_value(call.arg(0, "name")[1])
        if not name or name.startswith("."):
            return None
        return Ref(self.api.canonical(name.split(".")[0] if call.name == "__import__" else name))

    def _temporary(self, call: Call, state: State) -> Value:
        """Files and directories made in the temporary directory are not reported; one made in a
        directory given as ``dir=`` writes there."""
        present, directory = call.arg(None, "dir")
        function = call.name.rpartition(".")[2]
        is_file = function in ("NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile")
        if present and not same(directory, Const(None)):
            self._touch(directory, W, call.line, call.name, state)
            return Obj("file") if is_file else (Seq((None, None), False) if function == "mkstemp" else None)
        if is_file:
            return Obj("file")
        if function == "TemporaryDirectory":
            return Obj("tempdir")
        return Seq((None, Const(TEMP)), False) if function == "mkstemp" else Const(TEMP)

    def _glob(self, call: Call, state: State) -> Value:
        present, pattern = call.arg(0, "pathname")
        text = path_text(pattern)
        if present and text is not None:
            self._touch(Const(static_part(text)), R, call.line, call.name, state)
        return None

    def _make_archive(self, call: Call, state: State) -> Value:
        present, base = call.arg(0, "base_name")
        if present:
            self._touch(base, W, call.line, call.name, state)
        given, root = call.arg(2, "root_dir")
        self._touch(
            root if given and not same(root, Const(None)) else Const(CWD),
            R,
            call.line,
            call.name,
            state,
            WHOLE_TREE,  # everything under it goes into the archive
        )
        return None

    def _sqlite_connect(self, call: Call, state: State) -> Value:
        """``sqlite3.connect(database)`` reads and writes the file (created if missing). A ``file:``
        URI names it (``mode=ro``: read only) with ``uri=True``, and without it too where SQLite is
        built to take URIs everywhere (Debian's is): then the name may be either."""
        present, target = call.arg(0, "database")
        given, uri = call.arg(7, "uri")
        text = path_text(target)
        if not present or text in (":memory:", ""):
            return Obj("sqlite")
        senses: tuple[Sense, ...] = (R, W)
        if text is not None and text[:5].lower() == "file:":
            location, _, query = text.partition("?")
            if not (given and same(uri, Const(True))):  # a plain file name, if URIs are off
                self._touch(Const(text), W, call.line, call.name, state)
            if re.search(r"(?:^|&)mode=memory(?:&|$)", query):
                return Obj("sqlite")
            senses = (R,) if re.search(r"(?:^|&)mode=ro(?:&|$)", query) else senses
            target = Const(file_url_path(location) or location)
        for sense in senses:
            self._touch(target, sense, call.line, call.name, state)
        return Obj("sqlite")

    def _source_of(self, call: Call, state: State) -> Value:
        """``inspect.getsource(obj)`` reads the file ``obj`` comes from: a module's or function's own,
        unless the object is one the program made (``m.__file__ = '.env'``)."""
        present, value = call.arg(0, "object")
        if present and not isinstance(value, Ref | Func):
            self._doubt(call.line, f"{call.name} reads the file an object names, which the program may set")
        return None

    def _closing(self, call: Call, state: State) -> Value:
        """``contextlib.closing(x)`` enters as ``x``."""
        return call.args[0] if len(call.args) == 1 and isinstance(call.args[0], Obj) else None

    def _sys_path(self, call: Call, state: State) -> Value:
        self.path_changed = True
        return None


_Special = Callable[[Specials, Call, State], Value]
_OS_PATH = "join dirname basename abspath realpath normpath expanduser expandvars split splitext"
_TEMPORARY = (
    "mkdtemp gettempdir gettempdirb mkstemp TemporaryDirectory NamedTemporaryFile TemporaryFile "
    "SpooledTemporaryFile"
)
SPECIAL: dict[str, _Special] = {
    "pathlib.Path": Specials._make_path,
    "pathlib.Path.home": Specials._home,
    "pathlib.Path.from_uri": Specials._from_uri,
    "pathlib.Path.cwd": Specials._getcwd,
    "os.getcwd": Specials._getcwd,
    "os.getcwdb": Specials._getcwd,
    **{f"os.path.{name}": Specials._os_path for name in _OS_PATH.split()},
    "str": Specials._to_string,
    "os.fspath": Specials._to_string,
    "list": Specials._to_sequence,
    "tuple": Specials._to_sequence,
    "dict": Specials._dict,
    "shlex.split": Specials._shlex,
    "shlex.quote": Specials._shlex,
    "shlex.join": Specials._shlex,
    "os.getenv": Specials._getenv,
    "os.getenvb": Specials._getenv,
    "os.putenv": Specials._putenv,
    "os.chdir": Specials._chdir,
    "os.fchdir": Specials._chdir,
    "os.open": Specials._os_open,
    "globals": Specials._namespace,
    "locals": Specials._namespace,
    "vars": Specials._namespace,
    "getattr": Specials._getattr,
    "setattr": Specials._getattr,
    "delattr": Specials._getattr,
    "operator.methodcaller": Specials._method_caller,
    "operator.attrgetter": Specials._method_caller,
    "__import__": Specials._import_module,
    "importlib.import_module": Specials._import_module,
    **{f"tempfile.{name}": Specials._temporary for name in _TEMPORARY.split()},
    "glob.glob": Specials._glob,
    "glob.iglob": Specials._glob,
    "shutil.make_archive": Specials._make_archive,
    "sqlite3.connect": Specials._sqlite_connect,
    "contextlib.closing": Specials._closing,
    **dict.fromkeys(
        ["inspect.getsource", "inspect.getsourcelines", "inspect.findsource", "inspect.getcomments"],
        Specials._source_of,
    ),
    "sys.path.insert": Specials._sys_path,
    "sys.path.append": Specials._sys_path,
    "sys.path.extend": Specials._sys_path,
}
