"""Perl, Ruby, PHP and Lua one-liners: harmless only when trivially so.

These languages are not parsed. A program is proven harmless when, once its plain string literals
and (for Perl) its regular expressions are set aside, every word in it is one of a few known to do
nothing but compute and print (``print``, ``split``, ``uc``, ``gsub``...), and it holds none of the
constructs that run code hidden in data (backticks, code in interpolations, ``s///e``). Anything
else (``system``, ``open``, ``unlink``, ``File``, ``os``, a module) is in doubt, naming the word.
"""

from __future__ import annotations

import re

from ..record import Record
from .program import Program, Setting


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


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_COMMON = _words(
    "if else for while do end in and or not return true false nil null print printf sprintf length"
)

# Perl: s/a/b/flags, tr/a/b/, y/a/b/ and m/x/ with any delimiter, and /x/ where an operand is due.
_PERL_REGEXES = re.compile(
    r"(?<![\w$@%&])(?:s|tr|y)\s*([^\w\s])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1(?P<flags>[a-zA-Z]*)"
    r"|(?<![\w$@%&])(?:m|qr)\s*([^\w\s])(?:\\.|(?!\3).)*\3[a-zA-Z]*"
    r"|(?:(?<=[(=~!,;{&|])|^)\s*/(?:\\.|[^/\n])*/[a-zA-Z]*"
    r"|(?:(?<=\bif)|(?<=\bsplit)|(?<=\bunless)|(?<=\band)|(?<=\bor)|(?<=\bnot))\s*/(?:\\.|[^/\n])*/[a-zA-Z]*",
    re.DOTALL,
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
            "STDERR ARGV F _ q qq qw use strict warnings utf8 BEGIN END die warn exit lc uc join time "
            "localtime gmtime rand srand exp log sin cos atan2 pack unpack sprintf"
        ),
        regexes=_PERL_REGEXES,
        # "$h{EXPR}" and "$a[EXPR]" interpolate an expression, which may call anything.
        subscripts=re.compile(r"[$@][\w:]+\s*[\[{]"),
    ),
    "ruby": Dialect(
        forbidden=("`", "%x", "#{", "__send__", "::", "ENV"),
        literals=re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.DOTALL),
        words=_COMMON
        | _words(
            "puts p pp format gets chomp strip lstrip rstrip split join upcase downcase capitalize sub gsub "
            "tr to_s to_i to_f to_a to_h to_sym reverse sort sort_by uniq count sum min max first last "
            "size each each_with_index each_line lines map select reject find reduce inject times upto "
            "downto step then case when begin rescue ensure unless elsif until def self include start_with "
            "end_with empty zip flatten compact group_by tally chars bytes ord chr abs round floor ceil "
            "Integer Float String Array Hash ARGF STDIN STDOUT STDERR ARGV JSON Math PI sqrt"
        ),
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
            "JSON_PRETTY_PRINT sqrt pow"
        ),
        # A function named at run time: $f("id"), ("sys" . "tem")("id"), [$o, "m"]().
        calls=re.compile(r"\$\w+\s*\(|[)\]]\s*\("),
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

_NONE = re.compile(r"(?!)")
_WORD = re.compile(r"(?<![$@%\w])(?:0[xX][0-9a-fA-F]+|[A-Za-z_]\w*)")


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
    if dialect.subscripts is not None:
        for span in (*dialect.literals.finditer(source), *(dialect.regexes or _NONE).finditer(source)):
            found = dialect.subscripts.search(span.group(0))
            if found is not None:
                return _doubt(source, span.start(), f"`{found.group(0)}` interpolates an expression")
    text = dialect.literals.sub(_blank, source)
    if dialect.regexes is not None:
        for match in dialect.regexes.finditer(text):
            if "e" in (match.group("flags") or ""):
                return _doubt(text, match.start(), "a substitution with the e flag runs its replacement")
        text = dialect.regexes.sub(_blank, text)
    if dialect.calls is not None:
        found = dialect.calls.search(text)
        if found is not None:
            return _doubt(text, found.start(), "calls a function named at run time")
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
