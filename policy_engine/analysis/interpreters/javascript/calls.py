"""Calls and ``new``: which API is called, and what calling it does — to files, to processes, to
the process's own state, to other machines.

A call of a known API is judged by its key (``api.key``): first the calls that need code of their
own (``SPECIAL``, ``RUNS`` at the end: these tables name handlers, so they are code, not data), then
the data of ``api.json`` (``files``, ``doubts``, ``contacts``, and the module-wide ``code``,
``network`` and ``strict`` lists). A method of a plain value is harmless, save the names that
suggest a module's function reached where we cannot see (``suspectMethods``).

The handlers are mixins by concern: options objects (``{cwd, env, shell}``), files (``fs.open``'s
flags, ``Deno.open``'s options, ``file:`` URLs, ``fetch``, ``Bun.file``), commands (what they run
and where, judged by the shell analysis as commands of their own), and the runtime (the working
directory, paths, the home and temporary directories, environment variables, timers).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from ....model import WHOLE_TREE, Sense
from ....paths import collapse
from ..findings import Execution, file_url_path
from .api import Operations, inert, key, tables
from .scopes import Modules, Names
from .syntax import FUNCTIONS
from .values import DATA, Api, Options, Strings, Value, as_text, is_file, join, resolve_url, scheme, words

if TYPE_CHECKING:
    from tree_sitter import Node


# -- options objects -----------------------------------------------------------------------------------------


class OptionObjects(Names):
    """Reading the options and argument vectors of calls."""

    def _options(self, node: Node) -> Options:
        """The properties of an options object literal, evaluated; ``env: {...process.env}`` is no doubt:
        it hands the environment on to a child, as running it would anyway."""
        options: Options = {}
        for child in node.named_children:
            if child.type == "pair":
                key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                name = self._key_name(key)
                if value is None:
                    continue
                result = self._environment(value) if name == "env" else self.value(value)
                if name is not None:
                    options[name] = (result, value)
            elif child.type == "shorthand_property_identifier":
                options[self._text(child)] = (self.value(child), child)
            elif child.type != "comment":
                self.value(child)
        return options

    def _environment(self, node: Node) -> Value:
        parts = node.named_children if node.type == "object" else [node]
        holders = tables().env_holders
        for part in parts:
            if part.type not in (
                "spread_element",
                "parenthesized_expression",
                "identifier",
                "member_expression",
            ):
                self.value(part)
                continue
            result = self._first(part) if part.type == "spread_element" else self.visit(part)
            if isinstance(result, Api) and not (result.member == "env" and result.module in holders):
                self._escape(result, part)
        return DATA

    def _trailing(self, args: list[Node]) -> Options | None:
        """The options among the last arguments of a call: {} when there are none, None when they are
        not written out (a variable)."""
        options: Options | None = {}
        for argument in args:
            if argument.type == "object":
                options = self._options(argument)
            elif argument.type in FUNCTIONS:
                self.visit(argument)
            elif self.value(argument) is None:
                options = None
        return options

    def _argv(self, file: Value, args: list[Node]) -> tuple[tuple[str, ...] | None, Options | None]:
        """The argument vector of ``spawn(file, [args], options)`` and its options."""
        arguments: Value = Strings(())
        if args and args[0].type != "object" and args[0].type not in FUNCTIONS:
            arguments = self.value(args[0])
            args = args[1:]
        options = self._trailing(args)
        if isinstance(file, str) and isinstance(arguments, Strings):
            return (file, *arguments.items), options
        return None, options


# -- files ---------------------------------------------------------------------------------------------------


class Files(OptionObjects):
    """The file calls of a walk (``calls.SPECIAL`` maps the keys of the irregular ones here)."""

    def _files(self, api: Api, operations: Operations, args: list[Node], node: Node) -> Value:
        senses = dict(operations)
        walks = key(api) in tables().trees
        for index, argument in enumerate(args):
            if index in senses:
                tree = WHOLE_TREE if walks and index == 0 else None
                self._touch_value(self.visit(argument), senses[index], node, api.name, tree)
            else:
                self.value(argument)
        return DATA

    def _fs_open(self, api: Api, args: list[Node], node: Node) -> Value:
        """``fs.open(path, flags)``: a read for ``r`` (or no flags), a write for any other flags."""
        path = self.visit(args[0]) if args else None
        rest = [self.value(argument) for argument in args[1:]]
        reading = (
            len(args) < 2
            or args[1].type in FUNCTIONS
            or args[1].type == "undefined"
            or rest[0] in tables().read_flags
        )
        self._touch_value(path, Sense.READ if reading else Sense.WRITE, node, api.name)
        return DATA

    def _deno_open(self, api: Api, args: list[Node], node: Node) -> Value:
        """``Deno.open(path, {write: true})``: a write when any writing option may be set."""
        path = self.visit(args[0]) if args else None
        options = self._trailing(args[1:])
        writing = options is None or any(
            option in options and options[option][1].type != "false"
            for option in tables().deno_writing_options
        )
        self._touch_value(path, Sense.WRITE if writing else Sense.READ, node, api.name)
        return DATA

    def _deno_temp(self, api: Api, args: list[Node], node: Node) -> Value:
        """``Deno.makeTempFile({dir})``: a write in ``dir``, or in the temporary directory."""
        options = self._trailing(args)
        directory = options.get("dir") if options is not None else None
        path = directory[0] if directory is not None else "/tmp" if options is not None else None
        self._touch_value(path, Sense.WRITE, node, api.name)
        return DATA

    def _url(self, api: Api, args: list[Node], node: Node) -> Value:
        """``new URL(text, base)``, ``URL.parse`` and ``pathToFileURL(path)``: a ``file:`` URL stands for
        the file it names, which is touched by what it is given to; any other URL is data. A URL
        that cannot be read, in a program that spells ``file:`` URLs, is a doubt."""
        values = [
            self._url_part(argument) if index < 2 else self.value(argument)
            for index, argument in enumerate(args)
        ]
        text = values[0] if values else None
        if api.member == "pathToFileURL":
            return Api("URL", "file()", text if isinstance(text, str) else None)
        based = len(values) > 1 and api.member != "fileURLToPath"
        base = values[1] if based else None
        computed = based and not isinstance(base, str) and not is_file(base)
        if is_file(text):  # fileURLToPath(new URL(...))
            path = text.path if isinstance(text, Api) else None
        elif isinstance(text, str) and computed and not scheme().match(text):
            # new URL("./x", import.meta.url): a computed base, which for a program given inline is
            # a file: URL in the working directory
            from urllib.parse import unquote

            path = unquote(text.partition("#")[0].partition("?")[0])
        else:
            url = resolve_url(text, base) if isinstance(text, str) and not computed else None
            if url is None:
                if self.file_urls:
                    self._doubt(node, f"cannot tell which file the URL given to {api.name} names")
                return DATA
            path = file_url_path(url, whatwg=True)
            if path is None:
                return DATA
        if api.member == "fileURLToPath":
            return path if path is not None else DATA
        return Api("URL", "file()", path)

    def _url_part(self, node: Node) -> Value:
        """A URL or base given to a URL function: a file URL object stays one; any other API is
        handed on."""
        value = self.visit(node)
        return self._escape(value, node) if isinstance(value, Api) and not is_file(value) else value

    def _fetch(self, api: Api, args: list[Node], node: Node) -> Value:
        """``fetch(url)`` talks to another machine, or (Deno, Bun) reads the file a ``file:`` URL names."""
        first = self._url_part(args[0]) if args else None
        for argument in args[1:]:
            self.value(argument)
        if is_file(first):
            self._touch_value(first, Sense.READ, node, "fetch")
            return DATA
        if isinstance(first, str):
            path = file_url_path(first, whatwg=True)
            if path is not None:
                self._touch(path, Sense.READ, node, "fetch")
                return DATA
        elif self.file_urls:
            self._doubt(node, "cannot tell which file the URL given to fetch names")
        self._contact(node, api.name)
        return DATA

    def _bun_file(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        path = values[0] if values and isinstance(values[0], str) else None
        return Api("Bun", "file()", path)

    def _bun_file_method(self, file: Api, name: str, args: list[Node], node: Node) -> Value:
        for argument in args:
            self.value(argument)
        if name == "slice":
            return file
        sense = tables().bun_file_methods.get(name)
        if sense is not None:
            self._touch_value(file, sense, node, f"Bun.file().{name}")
        return DATA


# -- commands ------------------------------------------------------------------------------------------------


class Processes(OptionObjects):
    """The command-running calls of a walk (``calls.RUNS`` maps their keys here)."""

    def _execute(
        self, api: Api, node: Node, argv: tuple[str, ...] | None, shell: Value, options: Options | None
    ) -> None:
        """Record what a call runs, where; ``{shell: true}`` makes an argument vector shell code."""
        cwd = self._option_cwd(options)
        shell_option = options.get("shell") if options is not None else None
        if argv is not None and shell_option is not None and shell_option[1].type != "false":
            shell, argv = " ".join(argv), None
        line = node.start_point.row + 1
        if isinstance(shell, str):
            self.executions.append(Execution(line, api.name, shell=shell, cwd=cwd))
        elif argv:
            self.executions.append(Execution(line, api.name, argv=argv, cwd=cwd))
        else:
            self._doubt(node, f"{api.name} runs a command computed at run time")

    def _option_cwd(self, options: Options | None) -> str | None:
        if options is None:
            return None
        entry = options.get("cwd")
        if entry is None:
            return self.cwd
        value = entry[0]
        if not isinstance(value, str):
            return None
        if value.startswith("/"):
            return collapse(value)
        return collapse(f"{self.cwd}/{value}") if self.cwd is not None else None

    def _exec_shell(self, api: Api, args: list[Node], node: Node) -> None:
        """``exec(command, options, callback)``: shell code."""
        command = self.value(args[0]) if args else None
        self._execute(api, node, None, command, self._trailing(args[1:]))

    def _exec_file(self, api: Api, args: list[Node], node: Node) -> None:
        """``spawn``/``execFile(file, [args], options)``: an argument vector."""
        file = self.value(args[0]) if args else None
        argv, options = self._argv(file, args[1:])
        self._execute(api, node, argv, None, options)

    def _fork(self, api: Api, args: list[Node], node: Node) -> None:
        """``fork(script, [args], options)``: node runs the script."""
        script = self.value(args[0]) if args else None
        argv, options = self._argv(script, args[1:])
        self._execute(api, node, ("node", *argv) if argv is not None else None, None, options)

    def _bun_spawn(self, api: Api, args: list[Node], node: Node) -> None:
        """``Bun.spawn([...], options)`` or ``Bun.spawn({cmd: [...], ...})``."""
        if args and args[0].type == "object":
            options: Options | None = self._options(args[0])
            for argument in args[1:]:
                self.value(argument)
            entry = options.get("cmd") if options is not None else None
            argv = entry[0] if entry is not None else None
        else:
            argv = self.value(args[0]) if args else None
            options = self._trailing(args[1:])
        self._execute(api, node, argv.items if isinstance(argv, Strings) else None, None, options)

    def _deno_command(self, api: Api, args: list[Node], node: Node) -> None:
        """``new Deno.Command(cmd, {args: [...], cwd})``."""
        command = self.value(args[0]) if args else None
        options = self._trailing(args[1:])
        entry = options.get("args") if options is not None else None
        arguments = entry[0] if entry is not None else Strings(()) if options is not None else None
        argv = (
            (command, *arguments.items)
            if isinstance(command, str) and isinstance(arguments, Strings)
            else None
        )
        self._execute(api, node, argv, None, options)

    def _deno_run(self, api: Api, args: list[Node], node: Node) -> None:
        """``Deno.run({cmd: [...], cwd})``."""
        options = self._trailing(args)
        entry = options.get("cmd") if options is not None else None
        argv = entry[0] if entry is not None else None
        self._execute(api, node, argv.items if isinstance(argv, Strings) else None, None, options)


# -- the runtime ---------------------------------------------------------------------------------------------


class Runtime(Names):
    """The calls that read or change the process's state (``calls.SPECIAL`` maps their keys here)."""

    def _chdir(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        target = values[0] if values else None
        self.moves += 1
        if isinstance(target, str) and target.startswith("/"):
            self.cwd = collapse(target)
        elif isinstance(target, str) and self.cwd is not None:
            self.cwd = collapse(f"{self.cwd}/{target}")
        else:
            self.cwd = None
        return DATA

    def _cwd(self, api: Api, args: list[Node], node: Node) -> Value:
        return self.cwd if self.cwd is not None else DATA

    def _homedir(self, api: Api, args: list[Node], node: Node) -> Value:
        return self.setting.home

    def _tmpdir(self, api: Api, args: list[Node], node: Node) -> Value:
        return "/tmp"

    def _path(self, api: Api, args: list[Node], node: Node) -> Value:
        """``path.join``, ``resolve``, ``dirname``, ``basename``, ``normalize`` of known strings."""
        values = [self.value(argument) for argument in args]
        parts = [value for value in values if isinstance(value, str)]
        if len(parts) != len(values) or (not parts and api.member != "join" and api.member != "resolve"):
            return DATA
        if api.member == "join":
            return join(parts)
        if api.member == "resolve":
            absolute = next((i for i in range(len(parts) - 1, -1, -1) if parts[i].startswith("/")), None)
            if absolute is None and self.cwd is None:
                return DATA
            base = [self.cwd or "/"] if absolute is None else []
            return collapse(join(base + parts[absolute or 0 :]))
        stripped = parts[0].rstrip("/") or parts[0][:1]
        if api.member == "dirname":
            return posixpath.dirname(stripped) or "."
        if api.member == "basename":
            return posixpath.basename(stripped)
        return posixpath.normpath(parts[0])

    def _deno_env_get(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        if values and isinstance(values[0], str):
            return self._env_read(values[0], node)
        self._doubt(node, "reads an environment variable whose name is computed at run time")
        return DATA

    def _deno_env_set(self, api: Api, args: list[Node], node: Node) -> Value:
        values = [self.value(argument) for argument in args]
        self._steering(values[0] if values else None, node)
        return DATA

    def _every_variable(self, api: Api, args: list[Node], node: Node) -> Value:
        self._doubt(node, "reads every environment variable, secrets included")
        return DATA

    def _timer(self, api: Api, args: list[Node], node: Node) -> Value:
        """``setTimeout("code", ms)`` evaluates its string; a function is an ordinary callback."""
        values = [self.value(argument) for argument in args]
        if values and (
            isinstance(values[0], str) or args[0].type in ("string", "template_string", "binary_expression")
        ):
            self._doubt(node, f"{api.name} runs a string as code")
        return DATA


# -- calls ---------------------------------------------------------------------------------------------------


class Calls(Files, Processes, Runtime, Modules):
    """The calls of a walk, and every handler the call tables name."""

    def _arguments(self, node: Node | None) -> list[Node]:
        if node is None:
            return []
        return [child for child in node.named_children if child.type != "comment"]

    def _call(self, node: Node) -> Value:
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return self._children(node)
        if function.type == "import":
            return self._dynamic_import(self._arguments(arguments), node)
        if arguments.type == "template_string":
            return self._tagged(function, arguments, node)
        args = self._arguments(arguments)
        self._socket_path(function, args, node)
        target = function.child_by_field_name("object")
        if target is not None and function.type in ("member_expression", "subscript_expression"):
            # A method: the receiver is kept, to judge methods of values that are not modules.
            receiver = self.visit(target)
            index = function.child_by_field_name("index")
            if function.type == "member_expression":
                name: Value = self._text(function.child_by_field_name("property"))
            else:
                name = self.value(index) if index is not None else None
            if isinstance(name, str) and (not isinstance(receiver, Api) or receiver.member == "file()"):
                if name == "constructor":
                    self._constructor(function)
                return self._method(receiver, name, args, node)
            if function.type == "member_expression" and isinstance(name, str):
                callee = self._member(receiver, name, function)
            else:
                callee = self._element(receiver, name, index, function)
        else:
            callee = self.visit(function)
        if isinstance(callee, Api):
            return self._api_call(callee, args, node)
        for argument in args:
            self.value(argument)
        return None

    def _socket_path(self, function: Node, args: list[Node], node: Node) -> None:
        """``x.listen('/run/app.sock')``, ``net.connect('/x.sock')``: a unix socket at that path,
        which listening or connecting writes (the engine's daemon socket is self-protected)."""
        name = self._text(function).rsplit(".", 1)[-1]
        if name in tables().socket_calls and args and args[0].type == "string":
            path = self.value(args[0])
            if isinstance(path, str) and path.startswith("/"):
                self._touch(path, Sense.WRITE, node, f"{name} on a unix socket")

    def _method(self, receiver: Value, name: str, args: list[Node], node: Node) -> Value:
        """A method of a plain value: harmless, but folded where it builds a string (``join``), and a
        doubt where an unknown value may be a module (``x.rmSync(p)``)."""
        if isinstance(receiver, Api):
            return self._bun_file_method(receiver, name, args, node)
        values = [self.value(argument) for argument in args]
        if receiver is None:
            if name in tables().suspect_methods:
                self._doubt(
                    node, f"cannot tell what .{name}() is called on (it may change files or run commands)"
                )
            return None
        if name == "join" and isinstance(receiver, Strings):
            separator = values[0] if values else ","
            return separator.join(receiver.items) if isinstance(separator, str) else DATA
        if name == "concat" and isinstance(receiver, str):
            texts = [as_text(value) for value in values]
            return receiver + "".join(t for t in texts if t is not None) if None not in texts else DATA
        if name in ("toString", "valueOf") and isinstance(receiver, str):
            return receiver
        return DATA

    def _tagged(self, function: Node, template: Node, node: Node) -> Value:
        """A tagged template: ``Bun.$`ls``` runs shell code; a known API given the template is a doubt."""
        callee = self.visit(function)
        text = self.visit(template)
        if isinstance(callee, Api) and callee.name == "Bun.$":
            if isinstance(text, str):
                self.executions.append(Execution(node.start_point.row + 1, "Bun.$", shell=text, cwd=self.cwd))
            else:
                self._doubt(node, "Bun.$ runs a command computed at run time")
            return DATA
        if isinstance(callee, Api):  # setTimeout`code` and Function`code` take the template as code
            self._doubt(node, f"{callee.name} is called with a template string")
        return None

    def _api_call(self, api: Api, args: list[Node], node: Node) -> Value:
        """A call (or ``new``) of a known API, judged by the tables."""
        name = key(api)
        special = SPECIAL.get(name)
        if special is not None:
            return special(self, api, args, node)
        known = tables()
        files = known.files.get(name)
        if files is not None:
            return self._files(api, files, args, node)
        runner = RUNS.get(name)
        if runner is not None:
            runner(self, api, args, node)
            return DATA
        for argument in args:
            self.value(argument)
        reason = known.doubts.get(name)
        if reason is None and api.module in known.code:
            reason = "runs code that is not analysed"
        if reason is None and (api.module in known.network or name in known.contacts):
            self._contact(node, api.name)
            return DATA
        if reason is None and api.module in known.strict and not inert(api):
            reason = "is not analysed"
        if reason is not None:
            self._doubt(node, f"{api.name} {reason}")
            return None
        return DATA


Runner: TypeAlias = Callable[[Calls, Api, list["Node"], "Node"], None]

# Calls that run commands, by key.
RUNS: dict[str, Runner] = {
    "child_process.exec": Calls._exec_shell,
    "child_process.execFile": Calls._exec_file,
    "child_process.spawn": Calls._exec_file,
    "child_process.fork": Calls._fork,
    "Bun.spawn": Calls._bun_spawn,
    "Deno.Command": Calls._deno_command,
    "Deno.run": Calls._deno_run,
}

Special: TypeAlias = Callable[[Calls, Api, list["Node"], "Node"], Value]

# Calls whose result or effect needs more than a table row, by key.
SPECIAL: dict[str, Special] = {
    "require": Calls._require,
    "require.main.require": Calls._require,
    "module.require": Calls._require,
    "process.mainModule.require": Calls._require,
    "process.getBuiltinModule": Calls._require,
    "module.createRequire": Calls._create_require,
    "process.chdir": Calls._chdir,
    "Deno.chdir": Calls._chdir,
    "process.cwd": Calls._cwd,
    "Deno.cwd": Calls._cwd,
    "os.homedir": Calls._homedir,
    "os.tmpdir": Calls._tmpdir,
    **dict.fromkeys(
        ("path.join", "path.resolve", "path.dirname", "path.basename", "path.normalize"), Calls._path
    ),
    "Bun.file": Calls._bun_file,
    **dict.fromkeys(
        words(
            "URL URL.parse url.URL url.pathToFileURL url.fileURLToPath Bun.pathToFileURL Bun.fileURLToPath"
        ),
        Calls._url,
    ),
    "fetch": Calls._fetch,
    "fs.open": Calls._fs_open,
    "Deno.open": Calls._deno_open,
    "Deno.makeTempFile": Calls._deno_temp,
    "Deno.makeTempDir": Calls._deno_temp,
    "Deno.env.get": Calls._deno_env_get,
    "Deno.env.set": Calls._deno_env_set,
    "Deno.env.toObject": Calls._every_variable,
    "setTimeout": Calls._timer,
    "setInterval": Calls._timer,
}
