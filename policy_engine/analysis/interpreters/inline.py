"""Which analysis reads a program of each language, within the size limit.

Python and JavaScript/TypeScript are parsed with their tree-sitter grammars (loaded only when such
a program is met). For Perl, Ruby, PHP and Lua a program is proven harmless only when it is
trivially so (``oneliners.py``); programs in any other language are in doubt.
"""

from importlib import import_module

from .findings import Program, Setting

# language -> (how a reason names it, the module that analyses it, what that module is told besides
# the source: TypeScript rather than JavaScript, or the dialect of a trivially checked language)
_LANGUAGES: dict[str, tuple[str, str | None, str | bool | None]] = {
    "python": ("Python", "python", None),
    "javascript": ("JavaScript", "javascript", None),
    "typescript": ("TypeScript", "javascript", True),
    "perl": ("Perl", "oneliners", "perl"),
    "ruby": ("Ruby", "oneliners", "ruby"),
    "php": ("PHP", "oneliners", "php"),
    "lua": ("Lua", "oneliners", "lua"),
    "applescript": ("AppleScript", None, None),
    "r": ("R", None, None),
    "julia": ("Julia", None, None),
    "java": ("Java", None, None),
    "tcl": ("Tcl", None, None),
}


def language_name(language: str) -> str:
    """How reasons name a language (``Python``)."""
    known = _LANGUAGES.get(language)
    return known[0] if known is not None else language


def analyze(language: str, source: str, setting: Setting, max_bytes: int) -> Program:
    """What ``source`` does, as far as the analysis of its language can show."""
    name, module, variant = _LANGUAGES.get(language, (language, None, None))
    if module is None:
        return Program(doubts=(f"{name} programs are not analysed",))
    size = len(source.encode("utf-8", "replace"))
    if size > max_bytes:
        return Program(doubts=(f"the program is {size} bytes, more than the {max_bytes} analysed",))
    arguments = (source, setting) if variant is None else (source, setting, variant)
    try:
        return import_module(f"{__package__}.{module}").analyze(*arguments)  # type: ignore[no-any-return]
    except Exception as error:  # a bug in an analysis must cost a question, never a crash or an allow
        return Program(doubts=(f"the {name} analysis failed ({type(error).__name__})",))
