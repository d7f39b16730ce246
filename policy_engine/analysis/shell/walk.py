"""The tree walk: a parsed bash line -> every simple command it can run, in order, with its context.

Statements are dispatched by node type (``_STATEMENTS``). Every command and process substitution is
found wherever it hides — in double quotes, ``${...}``, arithmetic, redirect targets, heredoc bodies,
test operands, assignment values, case and for words — and walked as commands of its own. The
working directory is followed through ``cd``/``pushd``/``popd``: sequentially through lists, not out
of subshells, pipelines or substitutions, and into "unknown" when a branch or loop may change it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ...paths import normalize
from ...record import Record
from . import producers
from .effects import variable_doubts
from .knowledge import Knowledge
from .producers import comes_apart
from .words import Variables, Word, listed_words, words_of

MAX_NESTING = 48  # statements and substitutions nested deeper than this are not followed


class Redirect(Record):
    """A redirection: its operator (``>``, ``>>``, ``<``, ``&>``, ``>&``...), file descriptor, and target
    (None for a descriptor duplication or close)."""

    operator: str
    descriptor: str | None
    target: Word | None


class Stdin(Record):
    """What a command reads on standard input, when it is more than the terminal: ``pipe``,
    ``heredoc`` or ``herestring`` (``text`` is the body when it is static) or ``file``;
    ``listing`` the words of the paths a pipe carries when the stage before only lists paths
    (``find . -name '*.py' |``, see producers.py)."""

    kind: str
    text: str | None = None
    listing: tuple[Word, ...] = ()


class Command(Record):
    """A simple command as bash would run it (before wrappers are looked through)."""

    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...]
    redirects: tuple[Redirect, ...]
    cwd: str | None
    stdin: Stdin | None
    depth: int
    doubts: tuple[str, ...]
    text: str


class Walk(Record):
    """Everything a line runs, plus what the walk itself could not follow, and shell code found
    in it that must be parsed on its own (a backtick substitution that nests another, escaped)."""

    commands: list[Command]
    doubts: list[str]
    code: list[tuple[str, str | None]]


class _State:
    """The shell's working directory (None: unknown) and its pushd stack, as the walk goes, and
    the loop variables bound to a known word in the loop being walked."""

    __slots__ = ("bound", "cwd", "previous", "stack")

    def __init__(
        self,
        cwd: str | None,
        previous: str | None = None,
        stack: tuple[str | None, ...] = (),
        bound: tuple[tuple[str, Word], ...] = (),
    ) -> None:
        self.cwd = cwd
        self.previous = previous
        self.stack = stack
        self.bound = bound

    def copy(self) -> _State:
        return _State(self.cwd, self.previous, self.stack, self.bound)

    def same_as(self, other: _State) -> bool:
        return self.cwd == other.cwd and self.stack == other.stack


_DANGEROUS_TARGET = "cannot tell where a redirect writes (its target is dynamic)"

MAX_LOOP_WORDS = 16  # a loop over more words is walked once, its variable unknown
MAX_BINDINGS = (
    64  # per line: loops inside loops multiply their turns, and each assignment tried reads the line
)


def _bindable(word: Word) -> bool:
    """A loop word ``$NAME`` can stand for: a listing, a glob, or a literal bash would not split
    or glob again when NAME is expanded unquoted."""
    if word.walk is not None or (word.static and word.glob):
        return True
    return word.static and not comes_apart(word.text)


def _only_expanded(name: str, body: str) -> bool:
    """Whether ``body`` uses ``name`` only in expansions (``$name``, ``${name}``): nothing in it
    can assign the variable (``read name``, ``name=x``, ``declare``), nor split it anew (IFS)."""
    if not name or re.search(r"\bIFS\b|\beval\b|\bsource\b|\bdeclare\b|\btypeset\b|\blocal\b", body):
        return False
    escaped = re.escape(name)
    uses = len(re.findall(rf"(?<!\w){escaped}(?!\w)", body))
    expansions = len(re.findall(rf"\${escaped}(?!\w)|\$\{{{escaped}\}}", body))
    return uses == expansions


class Walker:
    """Walks one parsed line; ``variables`` resolve ``~``, ``$HOME`` and the target of ``cd``."""

    def __init__(self, source: bytes, variables: Variables, knowledge: Knowledge, depth: int = 0) -> None:
        self.source = source
        self.variables = variables
        self.knowledge = knowledge
        self.base_depth = depth
        self.commands: list[Command] = []
        self.doubts: list[str] = []
        self.code: list[tuple[str, str | None]] = []
        self.calls: dict[str, set[str]] = {}  # function defined in the line -> the commands its body runs
        self.bindings_left = MAX_BINDINGS  # loop bodies walked, and assignments tried, with a bound variable
        # Names an `alias` of the line defines: zsh, sh and bash in POSIX mode (or with
        # expand_aliases) expand them in later lines, so a later command so named runs the value.
        self.aliases: set[str] = set()

    # -- entry points ---------------------------------------------------------------------------

    def walk(self, root: Node, cwd: str | None) -> Walk:
        self._statement(root, _State(cwd), self.base_depth)
        recursive = sorted(name for name, called in self.calls.items() if called & self.calls.keys())
        if recursive:  # :(){ :|:& };: -- each call is judged as the builtin its name shadows
            self.doubts.append(
                f"the function `{recursive[0]}` runs a function defined in the same line: "
                "calls may recurse without end (a fork bomb)"
            )
        return Walk(self.commands, self.doubts, self.code)

    # -- helpers --------------------------------------------------------------------------------

    def _text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _words(self, node: Node, state: _State) -> list[Word]:
        variables = self.variables._replace(cwd=state.cwd, bound=state.bound)
        return words_of(node, self.source, variables)

    def _too_deep(self, depth: int) -> bool:
        if depth > MAX_NESTING:
            self.doubts.append(
                f"the command nests deeper than {MAX_NESTING} levels; the rest is not analysed"
            )
            return True
        return False

    def _nested(self, node: Node, state: _State, depth: int) -> None:
        """Walk the substitutions anywhere below ``node`` (not a statement itself) as commands."""
        pending = [node]
        while pending:
            current = pending.pop()
            if (
                current.type == "command_substitution"
                and (body := self._escaped_backticks(current)) is not None
            ):
                self.code.append((body, state.cwd))
            elif current.type in ("command_substitution", "process_substitution"):
                if not self._too_deep(depth + 1):
                    for child in current.named_children:
                        self._statement(child, state.copy(), depth + 1)
            elif current.type in _STATEMENTS and current is not node and current.type != "ERROR":
                self._statement(current, state.copy(), depth + 1)
            else:
                if current.type == "expansion" and _INDIRECT.fullmatch(self._text(current)):
                    self.doubts.append(_INDIRECT_DOUBT)
                pending.extend(reversed(current.children))

    def _escaped_backticks(self, node: Node) -> str | None:
        """The body of a backtick substitution that nests another with an escaped backtick (bash
        unescapes the body and runs it as code), or None for any other substitution."""
        text = self._text(node)
        if not text.startswith("`") or "\\`" not in text:
            return None
        body = text[1:-1] if text.endswith("`") else text[1:]
        return body.replace("\\\\", "\x00").replace("\\`", "`").replace("\\$", "$").replace("\x00", "\\")

    # -- statements -----------------------------------------------------------------------------

    def _statement(self, node: Node, state: _State, depth: int, stdin: Stdin | None = None) -> None:
        if self._too_deep(depth):
            return
        handler = _STATEMENTS.get(node.type)
        if handler is None:
            if node.is_named and node.type not in _IGNORED:
                self.doubts.append(f"unsupported shell construct: {node.type}")
            self._nested(node, state, depth)
            return
        handler(self, node, state, depth, stdin)

    def _sequence(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """Statements one after another (``;``, ``&``, newlines); ``&`` runs its left side apart."""
        children = node.children
        for index, child in enumerate(children):
            if not child.is_named or child.type == "comment":
                continue
            following = children[index + 1].type if index + 1 < len(children) else ""
            if following == "&":
                self._statement(child, state.copy(), depth)
            else:
                self._statement(child, state, depth)

    def _list(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """``a && b || c``, flattened (the grammar nests it to the left, as deep as the chain is long)."""
        items: list[Node | str] = []
        pending: list[Node | str] = [node]
        while pending:
            current = pending.pop()
            if isinstance(current, str) or current.type != "list":
                items.append(current)
                continue
            pending.extend(reversed([c if c.is_named else c.type for c in current.children]))
        before = state.copy()
        for item in items:
            if isinstance(item, str):
                if item == "||":  # the right side runs when the left failed, e.g. a cd that failed
                    state.cwd, state.previous, state.stack = before.cwd, before.previous, before.stack
                continue
            before = state.copy()
            self._statement(item, state, depth, stdin)

    def _pipeline(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """Each stage runs in a subshell; every stage after a ``|`` reads the pipe, whose text is
        known when the stage before only prints static text (``echo 'print(1)' | python3``)."""
        output = Stdin("pipe")
        for child in node.children:
            if child.type == "|&":  # the stage's errors go down the pipe too: no longer only paths
                stdin = output._replace(listing=())
            elif child.type == "|":
                stdin = output
            elif child.is_named:
                count = len(self.commands)
                self._statement(child, state.copy(), depth, stdin)
                printer = self.commands[-1] if len(self.commands) == count + 1 else None
                output = Stdin(
                    "pipe",
                    _printed(printer) if printer is not None else None,
                    _listed(printer) if printer is not None else (),
                )

    def _subshell(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        self._sequence(node, state.copy(), depth, None)

    def _block(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """Statements in the current shell; words among them (case patterns...) may hide substitutions."""
        for child in node.named_children:
            if child.type in _STATEMENTS:
                self._statement(child, state, depth, stdin)
            else:
                self._nested(child, state, depth)

    def _branching(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """if / case / loops: a body may run or not, so a cd inside leaves the directory unknown."""
        start = state.copy()
        self._block(node, state, depth, stdin)
        if not state.same_as(start):
            state.cwd, state.stack = None, ()

    def _for(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """``for NAME in WORDS``: when every word is known (a literal, a glob, a listing such as
        ``$(git ls-files)``) and the body only expands NAME, the body is walked with ``$NAME``
        bound to each word in turn (a glob or a listing stands for all of its paths at once)."""
        name_node = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values = node.children_by_field_name("value")
        words = [w for value in values for w in self._words(value, state)]
        name = self._text(name_node) if name_node is not None else ""
        if (
            body is None
            or not values
            or len(words) > MAX_LOOP_WORDS
            or len(words) > self.bindings_left
            or not all(_bindable(w) for w in words)
            or not _only_expanded(name, self._text(body))
        ):
            self._branching(node, state, depth, stdin)
            return
        for value in values:
            self._nested(value, state, depth)
        self.bindings_left -= len(words)
        start = state.copy()
        for word in words:
            state.bound = (*start.bound, (name, word))
            self._statement(body, state, depth, stdin)
            if not word.static and not state.same_as(start):  # later turns start elsewhere
                state.cwd, state.stack = None, ()
                self._statement(body, state, depth, stdin)
        state.bound = start.bound
        if not state.same_as(start):
            state.cwd, state.stack = None, ()

    def _function(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """A function body is judged where it is defined; defining it changes nothing."""
        body = node.child_by_field_name("body")
        name = node.child_by_field_name("name")
        count = len(self.commands)
        if body is not None:
            self._statement(body, state.copy(), depth)
        if name is not None:
            called = self.calls.setdefault(self._text(name), set())
            called.update(c.words[0].text for c in self.commands[count:] if c.words)

    def _redirected(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        body = node.child_by_field_name("body")
        if (body is None or body.type != "command") and any(
            _extra_destinations(c) for c in node.named_children if c.type == "file_redirect"
        ):
            self.doubts.append("words follow a redirect where no command can take them")
        # Node objects are created afresh on each access: compare identities by id.
        redirects = [
            c for c in node.children if c.is_named and c.type != "ERROR" and (body is None or c.id != body.id)
        ]
        if any(c.type == "ERROR" for c in node.children):
            self.doubts.append("a redirection does not parse")
        extra: list[Word] = []
        if body is not None and redirects:
            # The grammar drops a bare word between a command and its heredoc (`python3 - <<EOF`).
            gap = self.source[body.end_byte : redirects[0].start_byte].decode("utf-8", "replace").split()
            extra = [Word(part, True, False, part) for part in gap]
        if body is None:  # `> file` alone truncates it
            self._emit(node, [], [], redirects, state, depth, stdin)
        elif body.type == "command":
            self._command(body, state, depth, stdin, redirects, extra)
        else:
            for redirect in redirects:
                self._nested(redirect, state, depth)
            self._statement(body, state, depth, stdin)
            # The files a compound statement's redirects read or write: an atom of their own, as `:`.
            self._emit(node, [], [], redirects, state, depth, None)

    def _assignment(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """``NAME=value`` on its own: no command runs, but the value may hold substitutions, and
        setting a variable that changes what later commands run is a doubt."""
        self._nested(node, state, depth)
        name = node.child_by_field_name("name")
        if name is not None:
            self._check_assignment(self._text(name), node.child_by_field_name("value"))
            self._bind(node, self._text(name), state)

    def _bind(self, node: Node, name: str, state: _State) -> None:
        """``ROOT=$(git rev-parse --show-toplevel); ls "$ROOT/src"``: a variable set once, by a
        statement of the line's top level, to a word the walk knows, is that word where it is
        expanded afterwards (nothing else in the line may set it, nor split it anew)."""
        value = node.child_by_field_name("value")
        parent = node.parent
        if value is None or parent is None or parent.type != "program" or self.bindings_left <= 0:
            return
        self.bindings_left -= 1  # each try reads the whole line: a line of many assignments tries a few
        words = self._words(value, state)
        if len(words) != 1 or not _bindable(words[0]):
            return
        source = self.source.decode("utf-8", "replace")
        mine = self._text(node)
        if source.count(mine) != 1:
            return
        if _only_expanded(name, source.replace(mine, "", 1)):
            state.bound = (*state.bound, (name, words[0]))

    def _check_assignment(self, name: str, value: Node | None) -> None:
        if self.knowledge.dangerous_variable(name, None):
            self.doubts.append(f"sets {name}, which changes what later commands run")
        if value is not None and _SUBSCRIPT_CODE.search(self._text(value)):
            self.doubts.append(
                f"the value of {name} holds a subscript with a substitution, which bash runs when "
                f"{name} is used in arithmetic or as a name (${{!{name}}}, declare -n)"
            )

    def _declaration(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """export / declare / local / readonly: like assignments; the names they declare. Without a
        name they print the variables (`export -p`, `declare -x`), values and secrets included, as
        `-p NAME` prints NAME's."""
        self._nested(node, state, depth)
        letters = ""  # the option letters given (-px: p and x)
        names: list[str] = []
        for child in node.named_children:
            if (
                child.type == "variable_assignment"
                and (name := child.child_by_field_name("name")) is not None
            ):
                self._check_assignment(self._text(name), child.child_by_field_name("value"))
                names.append(self._text(name))
            elif child.type != "variable_assignment":
                self._names(child, state, assigns=True)
                for word in self._words(child, state):
                    if word.static and word.text[:1] in ("-", "+") and len(word.text) > 1:
                        letters += word.text[1:]
                    else:
                        names.append(word.text if word.static else word.raw)
        keyword = self._text(node.children[0]) if node.children else "declare"
        if not names and not (letters and set(letters) <= _NAMES_ONLY):
            self.doubts.append(f"`{keyword}` without a name prints the variables it lists, secrets included")
        elif "p" in letters:
            secret = self.knowledge.secret_variable
            self.doubts += [f"prints ${name}, which looks like a secret" for name in names if secret(name)]

    def _nested_only(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        self._nested(node, state, depth)

    def _unset(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """unset NAME...: the names it unsets."""
        self._nested(node, state, depth)
        for child in node.named_children:
            self._names(child, state, assigns=False)

    def _test(self, node: Node, state: _State, depth: int, stdin: Stdin | None) -> None:
        """[ ... ] and [[ ... ]]: the names ``-v`` and ``-R`` test. ``[abc]`` (no blank after the
        bracket) is no test for bash: a pattern it expands to the name of the command it runs."""
        text = self._text(node)
        if not _TEST_OPENING.match(text):
            self.doubts.append(f"the command name `{text.split()[0]}` is a pattern")
        self._nested(node, state, depth)
        pending = list(node.named_children)
        while pending:
            current = pending.pop()
            children = current.named_children
            if (
                current.type == "unary_expression"
                and len(children) == 2
                and self._text(children[0]) in ("-v", "-R")
            ):
                self._names(children[1], state, assigns=False)
            elif current.type not in ("command_substitution", "process_substitution"):
                pending.extend(children)

    def _names(self, node: Node, state: _State, *, assigns: bool) -> None:
        """The doubts of a word that names a variable (``effects.variable_doubts``), which it sets
        if ``assigns`` and it has a value (``declare NAME=value``); options are not names."""
        for word in self._words(node, state):
            if not (word.static and word.text.startswith("-")):
                self.doubts.extend(variable_doubts(word, self.knowledge, assigns and "=" in word.text))

    # -- commands -------------------------------------------------------------------------------

    def _command(
        self,
        node: Node,
        state: _State,
        depth: int,
        stdin: Stdin | None,
        outer_redirects: list[Node] | None = None,
        extra: list[Word] | None = None,
    ) -> None:
        assignments: list[Node] = []
        words: list[Node] = []
        redirects: list[Node] = []
        for index, child in enumerate(node.children):
            field = node.field_name_for_child(index)
            if child.type == "variable_assignment":
                assignments.append(child)
            elif field == "redirect" or child.type.endswith("_redirect"):
                redirects.append(child)
            elif field in ("name", "argument"):
                words.append(child.named_children[0] if child.type == "command_name" else child)
            elif child.type == "ERROR":
                self.doubts.append("part of a command does not parse")
                self._nested(child, state, depth)
        redirects += outer_redirects or []
        # A redirect written after a heredoc's start sits inside it (`cat <<EOF > /etc/x`).
        redirects += [
            r
            for h in redirects
            if h.type == "heredoc_redirect"
            for r in h.named_children
            if r.type == "file_redirect"
        ]
        # Words after a redirect's target are the command's arguments (`find . 2>/dev/null -delete`);
        # the grammar files them under the redirect, as more "destinations".
        words += [extra for r in redirects for extra in _extra_destinations(r)]
        for part in (*assignments, *words):
            self._nested(part, state, depth)
        for redirect in redirects:
            self._nested(redirect, state, depth)
        self._emit(node, words, assignments, redirects, state, depth, stdin, extra or [])

    def _emit(
        self,
        node: Node,
        word_nodes: list[Node],
        assignment_nodes: list[Node],
        redirect_nodes: list[Node],
        state: _State,
        depth: int,
        stdin: Stdin | None,
        extra: list[Word] | None = None,
    ) -> None:
        words = [word for part in word_nodes for word in self._words(part, state)]
        doubts: list[str] = self._secrets([*word_nodes, *redirect_nodes])
        if extra:
            words[1:1] = extra
        doubts += self._alias_use(words)
        assignments = []
        for child in assignment_nodes:
            name = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            word = self._words(value, state)[0] if value is not None else Word("", True, False, "")
            assignments.append((self._text(name) if name is not None else "", word))
        redirects = []
        for child in redirect_nodes:
            redirect = self._redirect(child, state)
            if redirect is None:
                continue
            redirects.append(redirect)
            if redirect.target is not None and not redirect.target.static:
                doubts.append(_DANGEROUS_TARGET)
            if child.type == "heredoc_redirect":
                stdin = self._heredoc(child)
            elif child.type == "herestring_redirect":
                stdin = Stdin(
                    "herestring", redirect.target.text if redirect.target and redirect.target.static else None
                )
            elif redirect.operator == "<" and redirect.target is not None and stdin is None:
                stdin = Stdin("file", redirect.target.text)
        command = Command(
            tuple(words),
            tuple(assignments),
            tuple(redirects),
            state.cwd,
            stdin,
            depth,
            tuple(doubts),
            self._text(node),
        )
        self.commands.append(command)
        _follow_directory(command, state, self.variables)

    def _alias_use(self, words: list[Word]) -> list[str]:
        """A command named by an alias defined earlier in the line runs the alias's value with its
        words where aliases are expanded (`alias ls='rm -rf'` then `ls ~`); an `alias` command
        records the names it defines."""
        if not words or not words[0].static:
            return []
        name = words[0].text
        if name == "alias":
            self.aliases.update(w.text.partition("=")[0] for w in words[1:] if w.static and "=" in w.text)
            return []
        if name in self.aliases:
            return [f"`{name}` is an alias defined earlier in the line: where aliases expand, its value runs"]
        return []

    def _secrets(self, nodes: list[Node]) -> list[str]:
        """A doubt for every expansion of a variable whose name says it holds a secret."""
        found = []
        pending = list(nodes)
        while pending:
            node = pending.pop()
            if node.type == "variable_name" and node.parent is not None and node.parent.type in _EXPANSIONS:
                name = self._text(node)
                if self.knowledge.secret_variable(name):
                    found.append(f"expands ${name}, which looks like a secret")
            elif node.type not in ("command_substitution", "process_substitution"):
                pending.extend(node.children)
        return found

    def _redirect(self, node: Node, state: _State) -> Redirect | None:
        if node.type == "heredoc_redirect":
            return Redirect("<<", None, None)
        if node.type == "herestring_redirect":
            values = [c for c in node.named_children]
            target = self._words(values[-1], state)[0] if values else None
            return Redirect("<<<", None, target)
        if node.type != "file_redirect":
            return None
        descriptor = node.child_by_field_name("descriptor")
        destination = node.child_by_field_name("destination")
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = self._words(destination, state)[0] if destination is not None else None
        if operator in (">&", "<&", ">&-", "<&-") and (
            target is None or target.text.isdigit() or target.text == "-"
        ):
            target = None  # a file-descriptor duplication or close
        return Redirect(operator, self._text(descriptor) if descriptor is not None else None, target)

    def _heredoc(self, node: Node) -> Stdin:
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
        text = self._text(body) if body is not None else ""
        quoted = start is not None and any(q in self._text(start) for q in "'\"\\")
        expands = body is not None and any(
            c.type in ("command_substitution", "simple_expansion", "expansion", "arithmetic_expansion")
            for c in body.named_children
        )
        if quoted:
            pass  # the body as written
        elif expands:
            return Stdin("heredoc", None)
        else:  # bash removes the backslash before $, `, \ and a newline in an unquoted body
            text = _BODY_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)
        if any(c.type == "<<-" for c in node.children):  # <<- strips the lines' leading tabs
            text = _LEADING_TABS.sub("", text)
        return Stdin("heredoc", text)


def _printed(command: Command) -> str | None:
    """The text a command prints when it only prints static text: ``echo`` without options, or
    ``cat`` of its heredoc or here-string; None for anything else."""
    words = command.words
    redirected = any(redirect.operator not in ("<<", "<<<") for redirect in command.redirects)
    if not words or redirected or not all(word.static and not word.glob for word in words):
        return None
    name = words[0].text
    if name == "echo" and not any(word.text.startswith("-") for word in words[1:2]):
        return " ".join(word.text for word in words[1:]) + "\n"
    if name == "cat" and len(words) == 1 and command.stdin is not None and command.stdin.kind != "file":
        return command.stdin.text
    return None


def _listed(command: Command) -> tuple[Word, ...]:
    """The paths ``command`` lists on its output, as words (see producers.py), when its words are
    all known and nothing but its own output goes down the pipe."""
    if any(not w.static for w in command.words) or command.assignments:
        return ()
    if any(
        r.target is None or r.operator.startswith("&") or r.descriptor in (None, "1")
        for r in command.redirects
    ):
        return ()  # 2>&1 sends errors down the pipe; > f sends the output elsewhere
    globs = frozenset(i for i, w in enumerate(command.words) if w.glob)
    found = producers.listing([w.text for w in command.words], command.cwd, globs)
    raw = " ".join(w.raw for w in command.words)
    return tuple(listed_words(found or [], f"$({raw})"))


_LEADING_TABS = re.compile(r"^\t+", re.MULTILINE)
_BODY_ESCAPE = re.compile(r"\\([$`\\\n])")


def _extra_destinations(redirect: Node) -> list[Node]:
    """The words after the first target of a file redirect (the grammar's extra "destinations")."""
    if redirect.type != "file_redirect":
        return []
    return redirect.children_by_field_name("destination")[1:]


def _follow_directory(command: Command, state: _State, variables: Variables) -> None:
    """Update the walk's working directory after ``cd``, ``pushd`` or ``popd``."""
    words = list(command.words)
    while words and words[0].text in ("builtin", "command") and words[0].static:
        words = words[1:]
    if not words or words[0].text not in ("cd", "pushd", "popd") or not words[0].static:
        return
    name = words[0].text
    if name != "cd" and any(not w.static or re.fullmatch(r"[+-]\d+", w.text) for w in words[1:]):
        # pushd +N / popd -N rotate or drop entries of the directory stack: not followed
        state.cwd, state.previous = None, None
        state.stack = tuple(None for _ in state.stack)
        return
    operands = [w for w in words[1:] if not (w.static and w.text.startswith("-") and w.text not in ("-",))]
    if name == "popd":
        if state.stack:
            state.previous, state.cwd = state.cwd, state.stack[0]
            state.stack = state.stack[1:]
        return
    if not operands:
        target: str | None = variables.home if name == "cd" else None
    elif len(operands) > 1 or not operands[0].static or operands[0].glob:
        target = None
    elif operands[0].text == "-":
        target = state.previous
    elif operands[0].text.startswith("/"):
        target = normalize(operands[0].text, "/", variables.home)
    elif state.cwd is not None:
        target = normalize(operands[0].text, state.cwd, variables.home)
    else:
        target = None
    if name == "pushd":
        state.stack = (state.cwd, *state.stack)
    state.previous, state.cwd = state.cwd, target


_STATEMENTS: dict[str, Callable[[Walker, Node, _State, int, Stdin | None], None]] = {
    "program": Walker._sequence,
    "list": Walker._list,
    "pipeline": Walker._pipeline,
    "command": lambda self, node, state, depth, stdin: self._command(node, state, depth, stdin),
    "redirected_statement": Walker._redirected,
    "subshell": Walker._subshell,
    "compound_statement": Walker._block,
    "do_group": Walker._block,
    "else_clause": Walker._block,
    "elif_clause": Walker._block,
    "case_item": Walker._block,
    "negated_command": Walker._block,
    "if_statement": Walker._branching,
    "case_statement": Walker._branching,
    "for_statement": Walker._for,
    "c_style_for_statement": Walker._branching,
    "while_statement": Walker._branching,
    "function_definition": Walker._function,
    "variable_assignment": Walker._assignment,
    "variable_assignments": Walker._nested_only,
    "declaration_command": Walker._declaration,
    "unset_command": Walker._unset,
    "test_command": Walker._test,
    "ERROR": Walker._block,  # unparsable text: the commands recognised inside are walked all the same
}

_IGNORED = frozenset({"comment", "heredoc_body", "heredoc_start", "heredoc_end"})
_EXPANSIONS = frozenset({"simple_expansion", "expansion"})
# ${!name}: the value of the variable that name names. Bash evaluates an array subscript in that
# name as arithmetic, running its command substitutions (x='a[$(cmd)]'; echo ${!x} runs cmd).
# ${!name[@]}, ${!name[*]} (the keys) and ${!prefix*}, ${!prefix@} (the names) evaluate nothing.
_INDIRECT = re.compile(r"\$\{!(?!\w+\[[@*]\]\}$|\w+[*@]\}$).*", re.DOTALL)
_INDIRECT_DOUBT = (
    "an indirect expansion (${!name}) evaluates the subscript of the name it holds, which can run commands"
)
# A subscript holding a substitution: `a[$(cmd)]`, `a[`cmd`]`, `a[${x}]`.
# How a test command opens: `[` or `[[` and a blank (or the end of the line).
_TEST_OPENING = re.compile(r"\[\[?(\s|$)")
# declare -F without a name lists the functions' names only, no value.
_NAMES_ONLY = frozenset("F")
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(?:\$[({]|`)")
