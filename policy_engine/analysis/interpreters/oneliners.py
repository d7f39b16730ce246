"""Perl, Ruby, PHP and Lua one-liners: harmless only when trivially so.

These languages are not parsed. A program is proven harmless when, once its plain string literals
and (for Perl) its regular expressions are set aside, every word in it is one of a few known to do
nothing but compute and print (``print``, ``split``, ``uc``, ``gsub``...), and it holds none of the
constructs that run code hidden in data (backticks, code in interpolations, ``s///e``). Anything
else (``system``, ``open``, ``unlink``, ``File``, ``os``, a module) is in doubt, naming the word.

Some harmless words hide a file access: Perl's ``<>`` and Ruby's ``gets`` and ``ARGF`` open the files
named in ``@ARGV``/``ARGV``, which are the command's operands (judged by the shell analysis) unless the
program changes them, so naming ``@ARGV`` (and reaching a symbol by name) is in doubt; a PHP function
that takes a callback (``array_map``) calls the function a string names, so its callback must be
written out or name a harmless word.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ...record import Record
from .findings import Program, Setting


class Dialect(Record):
    """What a trivially harmless program of one language may contain."""

    forbidden: tuple[str, ...]
    literals: re.Pattern[str]
    words: frozenset[str]
    regexes: re.Pattern[str] | None = None
    subscripts: re.Pattern[str] | None = None
    locals: re.Pattern[str] | None = None
    definitions: re.Pattern[str] | None = None
    calls: re.Pattern[str] | None = None
    patterns: tuple[tuple[re.Pattern[str], str], ...] = ()  # constructs in doubt, and why
    callbacks: tuple[tuple[str, int, str], ...] = ()  # function, position and name of its callback


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_COMMON = _words(
    "if else for while do end in and or not return true false nil null print printf sprintf length"
)

# Perl: s/a/b/flags, tr/a/b/, y/a/b/ and m/x/ with any delimiter, and /x/ where an operand is due.
# Brackets pair ({a}{b}, (a)(b), [a], <a>): one inside is not followed (no match: the s is then a word
# in doubt), and a closing one ends the part, so that the flags after s{a}{b} are seen.
_BRACKETED = "|".join(rf"\{o}(?:\\.|[^\\\{o}\{c}])*\{c}" for o, c in ("{}", "()", "[]", "<>"))
_PERL_REGEXES = re.compile(
    r"(?<![\w$@%&])(?:s|tr|y)\s*"
    rf"(?:(?P<d>[^\w\s(\[{{<])(?:\\.|(?!(?P=d)).)*(?P=d)(?:\\.|(?!(?P=d)).)*(?P=d)|(?:{_BRACKETED})\s*(?:{_BRACKETED}))"
    r"(?P<flags>[a-zA-Z]*)"
    rf"|(?<![\w$@%&])(?:m|qr)\s*(?:(?P<m>[^\w\s(\[{{<])(?:\\.|(?!(?P=m)).)*(?P=m)|{_BRACKETED})[a-zA-Z]*"
    r"|(?:(?<=[(=~!,;{&|])|^)\s*/(?:\\.|[^/\n])*/[a-zA-Z]*"
    r"|(?:(?<=\bif)|(?<=\bsplit)|(?<=\bunless)|(?<=\band)|(?<=\bor)|(?<=\bnot))\s*/(?:\\.|[^/\n])*/[a-zA-Z]*",
    re.DOTALL,
)

# Ruby: /x/ where an operand is due (`~/x/` matches $_, `=~ /x/`, `if /x/`). A literal holding
# `#{` (interpolated code) is refused before, as anywhere; `e` among the flags is an encoding, but is
# refused like Perl's s///e.
_RUBY_REGEXES = re.compile(
    r"(?:(?<=[(=~!,;{&|])|^)\s*/(?:\\.|[^/\n])*/(?P<flags>[a-z]*)"
    r"|(?:(?<=\bif)|(?<=\bunless)|(?<=\band)|(?<=\bor)|(?<=\bnot)|(?<=\bwhen))\s*/(?:\\.|[^/\n])*/(?P<flags2>[a-z]*)",
)

DIALECTS = {
    "perl": Dialect(
        forbidden=("`", "qx", "(?{", "(??{", "@{", "${", "<<", "&{", "&$", "->", "ENV"),
        literals=re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.DOTALL),
        words=_COMMON
        | _words(
            "say unless elsif foreach until my our local split join uc lc ucfirst lcfirst chomp chop chr "
            "ord reverse sort keys values each defined exists scalar int abs sqrt hex oct substr index "
            "rindex push pop shift unshift map grep last next eq ne lt gt le ge cmp xor x STDIN STDOUT "
            "STDERR F _ q qq qw use strict warnings utf8 BEGIN END die warn exit lc uc join time "
            "localtime gmtime rand srand exp log sin cos atan2 pack unpack sprintf"
        ),
        regexes=_PERL_REGEXES,
        # "$h{EXPR}" and "$a[EXPR]" interpolate an expression, which may call anything.
        subscripts=re.compile(r"[$@][\w:]+\s*[\[{]"),
        patterns=(
            (
                re.compile(r"@ARGV\b|\$#ARGV\b|\$ARGV\s*\["),
                "`@ARGV` names the files `<>` opens, and two-argument open runs a name ending in `|`",
            ),
            (  # *{"ARGV"} = [...] and *$name = [...] replace @ARGV without naming it
                re.compile(
                    r"(?:^|[=(,;{!]|\b(?:local|our|my|return|and|or|not|if|unless|push|unshift))\s*\*\s*[{$]"
                ),
                "a symbol reached by name (`*{...}`, `*$name`) may be @ARGV",
            ),
        ),
    ),
    "ruby": Dialect(
        forbidden=("`", "%x", "#{", "__send__", "::", "ENV", "$*", "$<", "$-"),
        literals=re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.DOTALL),
        words=_COMMON
        | _words(
            "puts p pp format gets chomp strip lstrip rstrip split join upcase downcase capitalize sub gsub "
            "tr to_s to_i to_f to_a to_h to_sym reverse sort sort_by uniq count sum min max first last "
            "size each each_with_index each_line lines map select reject find reduce inject times upto "
            "downto step then case when begin rescue ensure unless elsif until def self include start_with "
            "end_with empty zip flatten compact group_by tally chars bytes ord chr abs round floor ceil "
            "Integer Float String Array Hash ARGF STDIN STDOUT STDERR JSON Math PI sqrt"
        ),
        regexes=_RUBY_REGEXES,
        patterns=((re.compile(r"(?<![\w$@:])ARGV\b"), "`ARGV` names the files `gets` and `ARGF` read"),),
        # Block parameters (|x, y|) and assignment targets (x = ...) are local variables.
        locals=re.compile(
            r"\|([\w\s,*]+)\||\bdef\s+\w+\s*\(([\w\s,]*)\)|(?<![\w=!<>.])([a-z_]\w*)\s*=(?![=~>])"
        ),
        definitions=re.compile(r"\bdef\s+(\w+)"),
    ),
    "php": Dialect(
        forbidden=("`", "{$", "${", "$$", "include", "require", "_ENV", "_SERVER"),
        literals=re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\$])*\"", re.DOTALL),
        words=_COMMON
        | _words(
            "echo var_dump print_r var_export json_encode json_decode strlen strtoupper strtolower ucfirst "
            "str_replace str_repeat str_pad explode implode array count foreach as elseif function fn "
            "PHP_EOL PHP_VERSION PHP_INT_MAX phpversion date time range array_map array_filter array_sum "
            "array_keys array_values array_reverse array_merge in_array max min abs round floor ceil intval "
            "strval floatval trim ltrim rtrim substr strpos sort rsort ksort asort number_format "
            "JSON_PRETTY_PRINT ARRAY_FILTER_USE_KEY ARRAY_FILTER_USE_BOTH sqrt pow"
        ),
        # A function named at run time: $f("id"), ("sys" . "tem")("id"), [$o, "m"]().
        calls=re.compile(r"\$\w+\s*\(|[)\]]\s*\("),
        # array_map("system", $a) calls system: a callback is a closure, null, or a harmless word.
        callbacks=(("array_map", 0, "callback"), ("array_filter", 1, "callback")),
    ),
    "lua": Dialect(
        forbidden=("[[", "[="),
        literals=re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.DOTALL),
        words=_COMMON
        | _words(
            "string format sub gsub upper lower len rep reverse byte char find match gmatch table concat "
            "insert sort math floor ceil max min abs sqrt huge pi tostring tonumber type pairs ipairs local "
            "function then elseif repeat until select"
        ),
        locals=re.compile(
            r"\blocal\s+([\w\s,]+?)\s*(?:=|$)|\bfor\s+([\w\s,]+?)\s*(?:=|\bin\b)"
            r"|\bfunction\s*[\w.:]*\s*\(([\w\s,]*)\)|(?<![\w=~<>.])([a-z_]\w*)\s*=(?!=)",
            re.MULTILINE,
        ),
        definitions=re.compile(r"\bfunction\s+(\w+)\s*\("),
    ),
}

_WORD = re.compile(r"(?<![$@%\w])(?:0[xX][0-9a-fA-F]+|[A-Za-z_]\w*)")


def _set_aside(source: str, dialect: Dialect) -> tuple[str, list[re.Match[str]]]:
    """The source with its string literals and regular expressions blanked, and those spans. They
    are found left to right, as the language reads them: a quote inside a regular expression starts
    no string, nor a slash inside a string a regular expression (blanking all strings first would
    take `/'/; system("id"); '/'` for a string between two slashes)."""
    patterns = [pattern for pattern in (dialect.literals, dialect.regexes) if pattern is not None]
    spans: list[re.Match[str]] = []
    pieces: list[str] = []
    position = 0
    while True:
        found = [match for match in (p.search(source, position) for p in patterns) if match is not None]
        if not found:
            break
        first = min(found, key=lambda match: match.start())
        if first.end() <= position:  # an empty match would not advance
            break
        spans.append(first)
        pieces += [source[position : first.start()], _blank(first)]
        position = first.end()
    pieces.append(source[position:])
    return "".join(pieces), spans


def _blank(match: re.Match[str]) -> str:
    """A removed span, kept as long as it was and with its newlines, so that lines stay true."""
    return re.sub(r"[^\n]", " ", match.group(0))


def analyze(source: str, setting: Setting, language: str) -> Program:
    """No effects when ``source`` is trivially harmless; otherwise a doubt that names why."""
    dialect = DIALECTS[language]
    for construct in dialect.forbidden:
        at = source.find(construct)
        if at >= 0:
            return _doubt(source, at, f"`{construct}` may run code or reveal secrets")
    text, spans = _set_aside(source, dialect)
    if dialect.subscripts is not None:
        for span in spans:
            found = dialect.subscripts.search(span.group(0))
            if found is not None:
                return _doubt(source, span.start(), f"`{found.group(0)}` interpolates an expression")
    for span in spans:
        flags = "".join(v for k, v in span.groupdict().items() if k.startswith("flags") and v)
        if span.re is dialect.regexes and "e" in flags:
            return _doubt(text, span.start(), "a substitution with the e flag runs its replacement")
    if dialect.calls is not None:
        found = dialect.calls.search(text)
        if found is not None:
            return _doubt(text, found.start(), "calls a function named at run time")
    for pattern, why in dialect.patterns:
        found = pattern.search(text)
        if found is not None:
            return _doubt(text, found.start(), why)
    groups: dict[int, list[int]] | None = None
    for function, position, keyword in dialect.callbacks:
        for call in re.finditer(rf"\b{function}\s*\(", text):
            groups = _groups(text) if groups is None else groups
            group = groups.get(call.end() - 1)  # None: the call does not end, its arguments are unknown
            where = (
                call.start() if group is None else _callback(source, text, group, position, keyword, dialect)
            )
            if where is not None:
                return _doubt(text, where, f"`{function}` calls a function a string or variable may name")
    local = _names(dialect.locals, text)
    defined = _names(dialect.definitions, text)  # the program's own functions: their bodies are checked
    for match in _WORD.finditer(text):
        word = match.group(0)
        if word in dialect.words or word in defined or word.startswith(("0x", "0X")):
            continue
        if word in local and not _CALLED.match(source, match.end()):
            continue  # a variable, used as a value (a method call on `x` would be `x(...)`, `x "a"`)
        return _doubt(text, match.start(), f"`{word}` may run commands or touch files")
    return Program()


# A callback written out: a closure (its body is checked as the rest), null alone (array_map zips), or a
# first-class callable of a word (strlen(...)).
_CLOSURE = re.compile(
    r"\s*(?:(?:static\s+)?(?:function|fn)\b|null\s*$|[A-Za-z_]\w*\s*\(\s*\.\.\.\s*\)\s*$)", re.I
)
_NAMED = re.compile(r"\s*(\w+)\s*:(?!:)")


def _groups(text: str) -> dict[int, list[int]]:
    """For each bracket that is closed, its position, then those of the commas directly inside it,
    then that of its closing bracket (one pass, however deep calls nest)."""
    groups: dict[int, list[int]] = {}
    open_groups: list[list[int]] = []
    for at, character in enumerate(text):
        if character in "([{":
            open_groups.append([at])
        elif character in ")]}" and open_groups:
            group = open_groups.pop()
            group.append(at)
            groups[group[0]] = group
        elif character == "," and open_groups:
            open_groups[-1].append(at)
    return groups


def _callback(
    source: str, text: str, group: list[int], position: int, keyword: str, dialect: Dialect
) -> int | None:
    """Where the callback argument of a call (its parentheses and commas: ``group``) is not written
    out (None: it is a closure, ``null``, left out, or a literal naming a harmless function)."""
    arguments = [(begin + 1, end) for begin, end in pairwise(group)]
    chosen = None
    for index, (begin, end) in enumerate(arguments):
        named = _NAMED.match(text, begin, end)  # named arguments (PHP 8) follow the positional ones
        if named is not None and named.group(1) == keyword:
            chosen = (named.end(), end)
        elif named is None and index == position:
            chosen = (begin, end)
    if chosen is None or not source[chosen[0] : chosen[1]].strip():
        return None
    begin, end = chosen
    if _CLOSURE.match(text, begin, end):
        return None
    literal = dialect.literals.fullmatch(source[begin:end].strip())
    if literal is not None and literal.group(0)[1:-1].lstrip("\\").lower() in dialect.words:
        return None
    return begin


# After a name, what makes it a call rather than a value: `(`, or an argument (`system "ls"`).
_CALLED = re.compile(r"[ \t]*(?:[(\"'`:@$]|(?!(?:in|do|then|and|or|not|if|unless|end|else|elsif)\b)\w)")


def _names(pattern: re.Pattern[str] | None, text: str) -> frozenset[str]:
    """The names the program declares (variables, or functions it defines)."""
    if pattern is None:
        return frozenset()
    names = set()
    for match in pattern.finditer(text):
        for group in match.groups():
            if group:
                names.update(re.findall(r"[A-Za-z_]\w*", group))
    return frozenset(names)


def _doubt(text: str, at: int, why: str) -> Program:
    line = text.count("\n", 0, at) + 1
    return Program(doubts=(f"line {line}: {why} (only trivially harmless programs are proven safe)",))
