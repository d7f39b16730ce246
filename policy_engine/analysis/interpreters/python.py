"""What a Python program given inline (``python3 -c CODE``, a heredoc) does, read statically.

A user who allows ``python3 *`` must still be asked about the program that deletes ``~`` or writes
outside the project, and must not be asked about the everyday program that prints, parses JSON or
reads a file. The source is parsed with tree-sitter and walked once, in statement order, with a
small abstract interpreter that never runs anything:

- Values are constants (strings, numbers, lists of constants), references to modules and what they
  hold (``os.remove``, by qualified name, so that aliases and ``from`` imports are followed), pathlib
  paths, objects of a few known kinds (file, archive, the environment), or unknown (None).
- Names are bound flow-sensitively: a use sees the binding before it in straight-line code. A name
  bound in a branch or loop is unknown after it (and inside a loop whose body rebinds it); function
  bodies are analysed as if they ran, at the end of their scope, where a module name bound more than
  once is unknown.
- What the standard library does is data (``_FILE_CALLS``, ``_OPENERS``, ``_RUNNERS``, ``_DANGERS``,
  ``_CONTACTS``, ``_PATH_METHODS``, ``_OBJECT_METHODS``...): a call of a known function reports its
  effects (``_WALKED``: on a whole directory tree); a path or command computed at run time, code run
  from data, an unknown module, a member of a module that touches files (``_FILE_MODULES``) that no
  table models, or an effectful function passed around as a value becomes a doubt. Reading is never
  a doubt by itself, except of a file named at run time by a program that reads its input.

Paths inside the system's temporary directory are spelt with the ``_TEMP`` prefix (a NUL, which no
real path can contain) so that they flow through joins and f-strings and are then left unreported.
"""

from __future__ import annotations

import os.path
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from ...model import Sense
from ...paths import collapse, expand_home, pseudo_file
from ...record import Record
from ..shell.grammar import first_error_line, parse
from .findings import Contact, Effect, Execution, Mentions, Program, Setting, file_url_path
from .modules import Shadow, shadowing

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 100  # expressions and statements nested deeper are not followed (the walk recurses)
MAX_TEXT = 1 << 16  # a computed string longer than this is unknown, so that doubling cannot exhaust memory
MAX_DIGITS = 64

R, W, D = Sense.READ, Sense.WRITE, Sense.DELETE


def _names(text: str) -> frozenset[str]:
    """The names listed, space-separated, in ``text`` (long lists read better as words)."""
    return frozenset(text.split())


_VERBS = {R: "reads", W: "writes", D: "deletes", Sense.EXEC: "runs", Sense.UNKNOWN: "touches"}
_TEMP = "\x00tmp"  # the system's temporary directory (or a directory made in it)
_CWD = "."  # an argument left out that means the working directory


# -- values -----------------------------------------------------------------------------------------


class Const(Record):
    """A constant: a string, bytes, a number, True/False or None."""

    value: str | bytes | int | float | None


class Seq(Record):
    """A list or tuple of known length; ``mutable`` for a list, which a later call may change."""

    items: tuple[Value, ...]
    mutable: bool


class Ref(Record):
    """A module or something reached from one by name (``os``, ``os.remove``); builtins are bare
    (``open``). Names are canonical: ``posix.remove`` and ``shutil.os.remove`` are ``os.remove``."""

    name: str


class PathValue(Record):
    """A pathlib path: its pure spelling, possibly relative (resolved when it is used, as Python
    does), or None when it is computed at run time."""

    text: str | None


class Obj(Record):
    """An object whose methods are known: ``file``, ``zip``, ``tar``, ``etree``, ``tempdir``,
    ``config`` (a ``ConfigParser``), ``cookies`` (a cookie jar kept in a file), ``sqlite`` (a database
    connection or cursor), ``environ`` (a copy of the environment), ``namespace`` (``globals()``),
    ``handle`` (any other). ``path`` is the file the object was made for, as spelt (``""``: none,
    None: computed at run time), for those whose methods default to it (a cookie jar's ``save()``)."""

    kind: str
    path: str | None = ""


class Func(Record):
    """A function, lambda or class of the program itself: calling it does nothing more than its body,
    which is analysed where it is defined."""

    name: str


Value = Const | Seq | Ref | PathValue | Obj | Func | None


class _Call(Record):
    """The arguments of one call, as far as they are known."""

    name: str
    line: int
    args: tuple[Value, ...]
    keywords: dict[str, Value]
    open_ended: bool  # a *args or **kwargs: any argument may be there, with an unknown value

    def arg(self, position: int | None, keyword: str) -> tuple[bool, Value]:
        """Whether the argument at ``position`` or named ``keyword`` may be given, and its value."""
        if position is not None and position < len(self.args):
            return True, self.args[position]
        if keyword in self.keywords:
            return True, self.keywords[keyword]
        return self.open_ended, None


class _Method(Record):
    """A method about to be called: its receiver's value and node (a list it changes is forgotten)."""

    receiver: Value
    name: str
    node: Node


class _State:
    """The names bound so far (None: bound, value unknown) and the working directory (None: unknown)."""

    __slots__ = ("cwd", "env")

    def __init__(self, env: dict[str, Value], cwd: str | None) -> None:
        self.env = env
        self.cwd = cwd

    def copy(self) -> _State:
        return _State(dict(self.env), self.cwd)


# -- knowledge --------------------------------------------------------------------------------------

# A path argument: its sense, position (None: keyword only), keyword, and what it means when left out
# (None: then nothing is touched; _CWD: the working directory).
_Arg = tuple[Sense, int | None, str, str | None]


def _one(sense: Sense, keyword: str = "path", default: str | None = None) -> tuple[_Arg, ...]:
    return ((sense, 0, keyword, default),)


def _two(first: Sense, second: Sense, one: str = "src", other: str = "dst") -> tuple[_Arg, ...]:
    return ((first, 0, one, None), (second, 1, other, None))


_READERS = (
    "os.stat os.lstat os.access os.readlink os.statvfs os.getxattr os.listxattr os.path.exists "
    "os.path.lexists os.path.isfile os.path.isdir os.path.islink os.path.ismount os.path.getsize "
    "os.path.getmtime os.path.getatime os.path.getctime shutil.disk_usage"
)
_WRITERS = (
    "os.mkdir os.mkfifo os.mknod os.chmod os.lchmod os.chown os.lchown os.truncate os.utime os.chflags "
    "os.lchflags os.setxattr os.removexattr shutil.chown"
)
_LOG_FILES = (
    "logging.FileHandler logging.handlers.RotatingFileHandler logging.handlers.TimedRotatingFileHandler "
    "logging.handlers.WatchedFileHandler"
)

_FILE_CALLS: dict[str, tuple[_Arg, ...]] = {
    **dict.fromkeys(("os.remove", "os.unlink", "os.rmdir", "shutil.rmtree"), _one(D)),
    "os.removedirs": _one(D, "name"),
    **dict.fromkeys(("os.rename", "os.replace", "shutil.move"), _two(D, W)),
    "os.renames": _two(D, W, "old", "new"),
    **dict.fromkeys(_WRITERS.split(), _one(W)),
    "os.makedirs": _one(W, "name"),
    "os.symlink": ((W, 1, "dst", None),),
    "os.link": _two(R, W),
    **dict.fromkeys(
        ("shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copymode"), _two(R, W)
    ),
    "shutil.copystat": _two(R, W),
    "shutil.unpack_archive": ((R, 0, "filename", None), (W, 1, "extract_dir", _CWD)),
    **dict.fromkeys(("os.listdir", "os.scandir"), _one(R, "path", _CWD)),
    "os.walk": _one(R, "top"),
    "os.fwalk": _one(R, "top", _CWD),
    **dict.fromkeys(_READERS.split(), _one(R)),
    "os.path.samefile": _two(R, R, "f1", "f2"),
    "filecmp.cmp": _two(R, R, "f1", "f2"),
    "filecmp.dircmp": _two(R, R, "a", "b"),
    "zipfile.is_zipfile": _one(R, "filename"),
    "tarfile.is_tarfile": _one(R, "name"),
    "xml.etree.ElementTree.iterparse": _one(R, "source"),
    "xml.dom.minidom.parse": _one(R, "file"),
    "xml.sax.parse": _one(R, "source"),
    "mimetypes.read_mime_types": _one(R, "file"),
    **dict.fromkeys(_LOG_FILES.split(), _one(W, "filename")),
    "logging.basicConfig": ((W, None, "filename", None),),
    "urllib.request.urlretrieve": ((W, 1, "filename", None),),
    # Functions that read the lines of a file (and hand them back, or print them in a warning).
    **dict.fromkeys(
        _names(
            "linecache.getline linecache.getlines linecache.updatecache linecache.lazycache tokenize.open"
        ),
        _one(R, "filename"),
    ),
    "linecache.checkcache": _one(R, "filename"),
    **dict.fromkeys(
        _names("warnings.warn_explicit warnings.showwarning warnings.formatwarning"),
        ((R, 2, "filename", None),),
    ),
    "traceback.FrameSummary": _one(R, "filename"),
    "mimetypes.init": _one(R, "files"),
    "xml.dom.pulldom.parse": _one(R, "stream_or_string"),
    "xml.etree.ElementInclude.default_loader": _one(R, "href"),
}

# Calls that act on the whole tree under their first path, as ``rm -r``, ``mv`` and ``cp -r`` do: a
# directory there is deleted, moved away or read with everything in it (protections look inside).
_WALKED = _names("shutil.rmtree shutil.move shutil.copytree os.rename os.replace os.renames TarFile.add")

# Calls that open a file: (path position, path keyword, mode position, mode keyword, mode when left
# out, the kind of object returned). A mode with w, a, x or + writes; a computed mode may.
_Opener = tuple[int, str, int | None, str, str, str]
_OPENERS: dict[str, _Opener] = {
    "open": (0, "file", 1, "mode", "r", "file"),
    "io.FileIO": (0, "file", 1, "mode", "r", "file"),
    "codecs.open": (0, "filename", 1, "mode", "r", "file"),
    "io.open_code": (0, "path", None, "", "r", "file"),
    **dict.fromkeys(
        ("gzip.open", "bz2.open", "lzma.open", "gzip.GzipFile"), (0, "filename", 1, "mode", "rb", "file")
    ),
    **dict.fromkeys(("bz2.BZ2File", "lzma.LZMAFile"), (0, "filename", 1, "mode", "r", "file")),
    **dict.fromkeys(("zipfile.ZipFile", "zipfile.PyZipFile"), (0, "file", 1, "mode", "r", "zip")),
    **dict.fromkeys(("tarfile.open", "tarfile.TarFile"), (0, "name", 1, "mode", "r", "tar")),
    "xml.etree.ElementTree.parse": (0, "source", None, "", "r", "etree"),
    "xml.etree.ElementTree.ElementTree": (1, "file", None, "", "r", "etree"),
}

# Calls that make an object whose methods are known (``_OBJECT_METHODS``), without touching a file yet.
_MAKERS: dict[str, str] = {
    "configparser.ConfigParser": "config",
    "configparser.RawConfigParser": "config",
    "socket.socket": "socket",
}

# Socket methods given an address: a string address is a unix socket's path, which connecting or
# binding writes (the engine's own daemon socket lies in its self-protected state directory).
_SOCKET_ADDRESSES: dict[str, int] = {"connect": 0, "connect_ex": 0, "bind": 0, "sendto": 1}

# Calls given a URL: the position and keyword of the URL. A ``file:`` URL reads the file it names.
_URL_CALLS: dict[str, tuple[int, str]] = {
    "urllib.request.urlopen": (0, "url"),
    "urllib.request.urlretrieve": (0, "url"),
    "urllib.request.Request": (0, "url"),
    "xml.sax.parse": (0, "source"),
}

# Calls that run a command: (style, program position, position of the argument list or of argv[0],
# keyword of the command). Styles: "args" (subprocess: a list, or a string run by the shell when shell=True),
# "shell" (shell code), "vector" (a program and its argv list), "list"/"list-env" (a program and its
# words as arguments, the environment last), "argv" (one list), "all" (every argument is a word).
_Runner = tuple[str, int, int, str]
_SUBPROCESS = "subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen"
_SHELLS = "os.system os.popen subprocess.getoutput subprocess.getstatusoutput asyncio.create_subprocess_shell"
_RUNNERS: dict[str, _Runner] = {
    **dict.fromkeys(_SUBPROCESS.split(), ("args", 0, 0, "args")),
    **dict.fromkeys(_SHELLS.split(), ("shell", 0, 0, "cmd")),
    **dict.fromkeys(("os.execv", "os.execve", "os.execvp", "os.execvpe"), ("vector", 0, 1, "path")),
    **dict.fromkeys(("os.posix_spawn", "os.posix_spawnp"), ("vector", 0, 1, "path")),
    **dict.fromkeys(("os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe"), ("vector", 1, 2, "file")),
    **dict.fromkeys(("os.execl", "os.execlp"), ("list", 0, 1, "path")),
    **dict.fromkeys(("os.execle", "os.execlpe"), ("list-env", 0, 1, "path")),
    **dict.fromkeys(("os.spawnl", "os.spawnlp"), ("list", 1, 2, "file")),
    **dict.fromkeys(("os.spawnle", "os.spawnlpe"), ("list-env", 1, 2, "file")),
    "pty.spawn": ("argv", 0, 0, "argv"),
    "asyncio.create_subprocess_exec": ("all", 0, 0, "program"),
    "imaplib.IMAP4_stream": ("shell", 0, 0, "command"),  # talks IMAP to a command run by /bin/sh
    "multiprocessing.util.spawnv_passfds": ("vector", 0, 1, "path"),
}

# Names (and, by prefix, everything under them) whose use cannot be followed, with why; an empty
# reason exempts a name under a dangerous prefix.
_DANGERS: dict[str, str] = {
    **dict.fromkeys(("eval", "exec"), "runs code built at run time"),
    "compile": "compiles code built at run time",
    "__import__": "imports a module chosen at run time",
    "breakpoint": "starts the debugger",
    "help": "of a name or of nothing looks it up or starts the interactive help, which can import any module",
    "importlib": "imports a module chosen at run time",
    "importlib.metadata": "",
    "runpy": "runs another Python program",
    "ctypes": "calls C code",
    "cffi": "calls C code",
    "code": "starts an interactive interpreter",
    "pdb": "starts the debugger",
    "webbrowser": "opens a web browser",
    **dict.fromkeys(
        ("pickle.load", "pickle.loads", "pickle.Unpickler", "marshal.load", "marshal.loads"),
        "loads data that can run any code",
    ),
    "shelve.open": "opens a shelve database, whose pickled data can run any code",
    **dict.fromkeys(("os.fork", "os.forkpty", "pty.fork"), "forks the process"),
    **dict.fromkeys(("os.kill", "os.killpg", "signal.pthread_kill"), "sends a signal to another process"),
    "os.chroot": "changes the root directory",
    "fcntl.ioctl": "controls a device directly (it can type into the terminal)",
    **dict.fromkeys(
        ("sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile", "sys.addaudithook"),
        "hooks into the interpreter",
    ),
    **dict.fromkeys(
        _names(
            "sys._getframe sys.remote_exec inspect.currentframe inspect.stack inspect.trace "
            "inspect.getouterframes inspect.getinnerframes"
        ),
        "reaches into the interpreter",
    ),
    **dict.fromkeys(
        ("types.CodeType", "types.FunctionType", "types.LambdaType"), "builds a function from raw code"
    ),
    **dict.fromkeys(
        ("typing.get_type_hints", "typing_extensions.get_type_hints"), "evaluates annotations, which are code"
    ),
    "string.Formatter": "reaches attributes named in a string",
    **dict.fromkeys(
        _names("unittest.main unittest.TestProgram unittest.TestLoader unittest.defaultTestLoader"),
        "imports and runs test modules found at run time",
    ),
    "multiprocessing.set_executable": "chooses the program new processes run",
    "multiprocessing.set_forkserver_preload": "imports modules named at run time",
    "xml.etree.ElementInclude.include": "reads the files a document includes",
    "sys.modules": "reaches the loaded modules",
    **dict.fromkeys(("sys.meta_path", "sys.path_hooks"), "changes how modules are imported"),
    **dict.fromkeys(("timeit.timeit", "timeit.repeat", "timeit.Timer"), "runs code given as a string"),
    "doctest": "runs code found in docstrings",
    "logging.config": "configures logging from data that can import any module",
    **dict.fromkeys(("zipfile.main", "tarfile.main", "gzip.main"), "runs the module's command line"),
    **dict.fromkeys(("gc.get_objects", "gc.get_referrers", "gc.get_referents"), "reaches any object"),
}

# Modules that are a doubt as soon as they are imported.
_DANGEROUS_IMPORTS = {
    "ctypes": "can call any C function",
    "_ctypes": "can call any C function",
    "cffi": "can call any C function",
    "_posixsubprocess": "can run commands",
    "site": "can change where modules are loaded from",
}

# Calls that talk to another machine: exact names, and every call under a module (empty: exempt).
_CONTACTS: dict[str, str] = {
    **dict.fromkeys(
        _names(
            "socket.socket socket.create_connection socket.create_server socket.getaddrinfo "
            "socket.gethostbyname socket.gethostbyname_ex socket.gethostbyaddr socket.getfqdn "
            "socket.fromfd urllib.request.urlopen urllib.request.urlretrieve urllib.request.Request "
            "urllib.request.build_opener asyncio.open_connection asyncio.start_server "
            "ssl.get_server_certificate requests httpx urllib3 aiohttp ftplib smtplib telnetlib poplib "
            "imaplib nntplib http.client http.server socketserver xmlrpc.client xmlrpc.server"
        ),
        "contact",
    ),
    **dict.fromkeys(("requests.exceptions", "requests.utils", "httpx.URL"), ""),
}

# Modules whose effects are known (with all their submodules): importing them is no doubt.
_KNOWN_MODULES = _names(
    "__future__ abc argparse array ast asyncio atexit base64 binascii bisect builtins bz2 calendar "
    "cmath codecs collections colorsys concurrent configparser contextlib contextvars copy csv "
    "dataclasses datetime decimal difflib dis doctest email enum errno fcntl filecmp fnmatch "
    "fractions ftplib functools gc getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac "
    "html http imaplib importlib inspect io ipaddress itertools json keyword linecache locale logging "
    "lzma marshal math mimetypes multiprocessing nntplib numbers operator optparse os pathlib pdb "
    "pickle platform plistlib poplib posix posixpath pprint pty pwd queue quopri random re reprlib "
    "requests httpx runpy sched secrets select selectors shelve shlex shutil signal smtplib socket "
    "socketserver sqlite3 ssl stat statistics string struct subprocess sys sysconfig tarfile "
    "telnetlib tempfile termios textwrap threading time timeit token tokenize tomllib traceback tty "
    "types typing typing_extensions unicodedata unittest urllib uuid warnings weakref webbrowser xml "
    "xmlrpc zipfile zoneinfo zlib code codeop genericpath ntpath"
)

# Modules some of whose functions touch files in ways the tables above do not all model: a call of a
# member that no table knows (a handler, an opener, a maker...) and that is not listed here as
# harmless is a doubt, and so is handing such a member on as a value. Exceptions are harmless.
_FILE_MODULES: dict[str, frozenset[str]] = {
    "linecache": _names("clearcache"),
    "tokenize": _names("tokenize generate_tokens detect_encoding untokenize TokenInfo Untokenizer"),
    "io": _names(
        "StringIO BytesIO TextIOWrapper BufferedReader BufferedWriter BufferedRandom BufferedRWPair IOBase "
        "RawIOBase BufferedIOBase TextIOBase IncrementalNewlineDecoder text_encoding"
    ),
    "configparser": _names(
        "Interpolation BasicInterpolation ExtendedInterpolation LegacyInterpolation SectionProxy "
        "ConverterMapping"
    ),
    "http.cookiejar": _names("CookieJar DefaultCookiePolicy CookiePolicy Cookie"),
    "sqlite3": _names(
        "Row Binary register_adapter register_converter adapt complete_statement "
        "enable_callback_tracebacks PrepareProtocol"
    ),
    "zipfile": _names("ZipInfo BadZipFile BadZipfile LargeZipFile"),
    "tarfile": _names("TarInfo data_filter tar_filter fully_trusted_filter"),
    "gzip": _names("compress decompress BadGzipFile"),
    "bz2": _names("compress decompress BZ2Compressor BZ2Decompressor"),
    "lzma": _names("compress decompress LZMACompressor LZMADecompressor is_check_supported"),
    "shutil": _names(
        "copyfileobj which ignore_patterns get_terminal_size get_archive_formats get_unpack_formats "
        "register_archive_format unregister_archive_format register_unpack_format unregister_unpack_format"
    ),
    "mimetypes": _names("guess_type guess_all_extensions guess_extension guess_file_type add_type"),
    "warnings": _names("warn simplefilter filterwarnings resetwarnings catch_warnings deprecated"),
    "traceback": _names(
        "print_exc format_exc print_exception format_exception format_exception_only print_tb format_tb "
        "extract_tb extract_stack print_stack format_stack print_last clear_frames TracebackException"
    ),
    # inspect.getsource(m) reads the file m.__file__ names, which the program may set.
    "inspect": _names(
        "signature Signature Parameter BoundArguments isclass isfunction ismethod ismodule isbuiltin "
        "isroutine iscoroutinefunction isgeneratorfunction isasyncgenfunction iscoroutine isgenerator "
        "isasyncgen isawaitable isabstract isdatadescriptor ismethoddescriptor iscode isframe istraceback "
        "getdoc cleandoc getmro getfullargspec getmodulename getfile getsourcefile"
    ),
    "xml.etree.ElementInclude": frozenset(),
    "xml.dom.pulldom": _names("parseString"),
}

_FILE_PACKAGES = frozenset(module.partition(".")[0] for module in _FILE_MODULES)

# Module names that other modules re-export (``shutil.os``): a reference through them is theirs.
_REEXPORTED = _names(
    "os _os sys _sys shutil subprocess builtins io _io socket pathlib signal pty tempfile glob "
    "importlib ctypes runpy posix _posixsubprocess codecs"
)
_ALIASES = {
    "posix": "os",
    "nt": "os",
    "_os": "os",
    "_sys": "sys",
    "posixpath": "os.path",
    "ntpath": "os.path",
    "genericpath": "os.path",
    "_io": "io",
    "io.open": "open",
    "asyncio.subprocess": "asyncio",
    "xml.etree.cElementTree": "xml.etree.ElementTree",
    "sqlite3.dbapi2": "sqlite3",
    "sqlite3.Connection": "sqlite3.connect",
    **dict.fromkeys(
        _names("tarfile.TarFile.open tarfile.TarFile.taropen tarfile.TarFile.gzopen tarfile.TarFile.bz2open")
        | {"tarfile.TarFile.xzopen"},
        "tarfile.open",
    ),
    **dict.fromkeys(
        (
            "pathlib.PosixPath",
            "pathlib.PurePath",
            "pathlib.PurePosixPath",
            "pathlib.WindowsPath",
            "pathlib.PureWindowsPath",
        ),
        "pathlib.Path",
    ),
}
_CONSTANTS: dict[str, str | int] = {
    "os.sep": "/",
    "os.path.sep": "/",
    "os.curdir": ".",
    "os.path.curdir": ".",
    "os.pardir": "..",
    "os.path.pardir": "..",
    "os.extsep": ".",
    "os.devnull": "/dev/null",
    "os.path.devnull": "/dev/null",
    "os.linesep": "\n",
    "os.pathsep": ":",
    "os.name": "posix",
    "os.O_RDONLY": 0,
}
_PRIVATE_ALLOWED = frozenset(("os._exit",))

# Builtins the analysis knows by name; any other unbound name is unknown.
_BUILTINS = _names(
    "open eval exec compile __import__ breakpoint help getattr setattr delattr hasattr globals locals "
    "vars print input len str bytes int float bool list tuple dict set frozenset repr isinstance "
    "issubclass id type callable dir hash map filter sorted reversed enumerate zip range min max sum "
    "any all iter next abs round format ord chr super object property staticmethod classmethod exit "
    "quit"
)
# Builtin types: what their attributes hold are methods and descriptors, never strings (but dunders).
_BUILTIN_TYPES = _names(
    "str bytes bytearray int float complex bool list tuple dict set frozenset object type range slice "
    "memoryview property staticmethod classmethod enumerate zip map filter reversed super"
)
# Callees that are given modules or functions only to look at them.
_INSPECTORS = _names(
    "print isinstance issubclass hasattr id type callable repr str dir getattr setattr delattr vars help"
)

# pathlib methods: the paths they touch (-1: the path itself, n: the n-th argument) and how.
_PATH_READS = (
    "read_text read_bytes exists is_dir is_file is_symlink is_mount is_socket is_fifo is_block_device "
    "is_char_device iterdir glob rglob walk stat lstat owner group readlink"
)
_PATH_METHODS: dict[str, tuple[tuple[Sense, int], ...]] = {
    **dict.fromkeys(_PATH_READS.split(), ((R, -1),)),
    "samefile": ((R, -1), (R, 0)),
    **dict.fromkeys(("write_text", "write_bytes", "touch", "mkdir", "chmod", "lchmod"), ((W, -1),)),
    **dict.fromkeys(("unlink", "rmdir"), ((D, -1),)),
    **dict.fromkeys(("rename", "replace", "move"), ((D, -1), (W, 0))),
    "symlink_to": ((W, -1),),
    "hardlink_to": ((W, -1), (R, 0)),
    "copy": ((R, -1), (W, 0)),
    "copy_into": ((R, -1),),  # and writes the directory given / its name (_Analyzer._path_method)
    "move_into": ((D, -1),),
}
# Methods that act on everything under the path (a directory is moved or copied whole).
_PATH_WALKED = _names("rename replace move move_into copy copy_into")
_PATH_EFFECT_METHODS = frozenset(
    {name for name, specs in _PATH_METHODS.items() if any(sense is not R for sense, _ in specs)} | {"open"}
)
_PATH_TRANSFORMS = _names(
    "joinpath with_name with_suffix with_stem expanduser resolve absolute relative_to with_segments"
)

# Methods that, on a receiver of unknown type, may be a path's (or an archive's) with an effect: with
# the number of positional arguments that method takes, so that str.replace(a, b) or dict.copy() pass.
_SUSPECTS: dict[str, tuple[int, int]] = {
    "write_text": (1, 4),
    "write_bytes": (1, 1),
    "touch": (0, 2),
    "mkdir": (0, 3),
    "chmod": (1, 1),
    "lchmod": (1, 1),
    "unlink": (0, 1),
    "rmdir": (0, 0),
    "rename": (1, 1),
    "replace": (1, 1),
    "move": (1, 1),
    "copy": (1, 1),
    "copy_into": (1, 1),
    "move_into": (1, 1),
    "symlink_to": (1, 2),
    "hardlink_to": (1, 1),
    "extractall": (0, 3),
    "extract": (1, 3),
}
# Attribute names so particular to paths and archives that merely taking them is suspect.
_STRICT_SUSPECTS = frozenset(
    ["write_text", "write_bytes", "unlink", "rmdir", "symlink_to", "hardlink_to", "extractall", "move_into"]
)
# Attributes that reach an interpreter frame, whose f_builtins and f_globals hold every function.
_FRAME_ATTRIBUTES = _names("f_builtins f_globals f_locals f_back f_code tb_frame gi_frame cr_frame ag_frame")

# The methods of known objects (``Obj.kind``) that touch files, as ``_FILE_CALLS`` gives them. A cookie
# jar's ``save``, ``load`` and ``revert`` default to its own file; a database runs SQL
# (``_Analyzer._object_method``).
_OBJECT_METHODS: dict[str, dict[str, tuple[_Arg, ...]]] = {
    "zip": {
        "extractall": ((W, 0, "path", _CWD),),
        "extract": ((W, 1, "path", _CWD),),
        "write": ((R, 0, "filename", None),),
    },
    "tar": {
        "extractall": ((W, 0, "path", _CWD),),
        "extract": ((W, 1, "path", _CWD),),
        "add": ((R, 0, "name", None),),
    },
    "etree": {"write": ((W, 0, "file", None),), "parse": ((R, 0, "source", None),)},
    "config": {"read": ((R, 0, "filenames", None),)},
    "cookies": {
        "save": ((W, 0, "filename", None),),
        "load": ((R, 0, "filename", None),),
        "revert": ((R, 0, "filename", None),),
    },
    "handle": {"retrieve": ((W, 1, "filename", None),)},  # urllib's URLopener
}
_KIND_NAMES = {
    "zip": "ZipFile",
    "tar": "TarFile",
    "etree": "ElementTree",
    "config": "ConfigParser",
    "cookies": "CookieJar",
    "handle": "URLopener",
    "socket": "socket",
}
_COOKIE_JARS = _names(
    "http.cookiejar.FileCookieJar http.cookiejar.MozillaCookieJar http.cookiejar.LWPCookieJar"
)
# Methods of a database connection or cursor that run SQL, and those that load native code.
_SQL_METHODS = _names("execute executemany executescript")
_SQL_DANGERS = _names("enable_load_extension load_extension")

# A program that reads its input (input(), sys.stdin, fileinput, open(0)) may be told a file's name.
_READS_INPUT = re.compile(
    rb"\binput\s*\(|stdin|fileinput|/dev/fd/0|/dev/tty|\b(?:open|fdopen|read)\s*\(\s*0\s*[,)]"
)

_MUTATORS = _names("append extend insert remove pop clear sort reverse __setitem__ __delitem__ __iadd__")
_PLAIN_DUNDERS = frozenset(
    ["__name__", "__doc__", "__version__", "__file__", "__all__", "__module__", "__qualname__"]
)
_INTERNAL_DUNDERS = _names(
    "__subclasses__ __globals__ __builtins__ __code__ __closure__ __mro__ __bases__ __base__ "
    "__getattribute__ __reduce__ __reduce_ex__ __loader__ __spec__ __import__ __func__ __self__"
)
_MODE = re.compile(r"[rwaxbtU+]{1,4}")
_ENVIRON = frozenset(("os.environ", "os.environb"))


# -- pure helpers ----------------------------------------------------------------------------------


def _prefixes(name: str) -> Iterator[str]:
    """``a.b.c``, ``a.b``, ``a``."""
    while name:
        yield name
        name = name.rpartition(".")[0]


def _by_prefix(name: str, table: Mapping[str, str]) -> str | None:
    """The entry of the longest prefix of ``name`` in ``table``."""
    for prefix in _prefixes(name):
        if prefix in table:
            return table[prefix]
    return None


def _alias(name: str) -> str:
    for prefix in _prefixes(name):
        if prefix in _ALIASES:
            return _ALIASES[prefix] + name[len(prefix) :]
    return name


def _canonical(name: str) -> str:
    """The one name a module member goes by: aliases and re-exports resolved, builtins bare."""
    name = _alias(name)
    parts = name.split(".")
    for index in range(len(parts) - 1, 0, -1):
        if parts[index] in _REEXPORTED and parts[index] != parts[index - 1]:  # glob.glob is glob's own
            name = _alias(".".join(parts[index:]))
            break
    return name[len("builtins.") :] if name.startswith("builtins.") else name


def _known_module(name: str) -> bool:
    return any(prefix in _KNOWN_MODULES for prefix in _prefixes(name))


def _effectful_names() -> frozenset[str]:
    names = set(_OPENERS) | set(_RUNNERS) | {n for n, reason in _DANGERS.items() if reason}
    names |= {n for n, specs in _FILE_CALLS.items() if any(spec[0] is not R for spec in specs)}
    names |= {n for n, kind in _CONTACTS.items() if kind}
    names |= {"os.open", "os.chdir", "os.fchdir", "os.putenv", "setattr", "delattr", "getattr", "globals"}
    names |= {"locals", "vars", "shutil.make_archive", "operator.methodcaller", "operator.attrgetter"}
    names |= {"sqlite3.connect", *_MAKERS, *_COOKIE_JARS}
    return frozenset(names)


_EFFECTFUL = _effectful_names()
# Modules with an effectful member: passing one around as a value hides what is called on it.
_EFFECTFUL_MODULES = frozenset(
    {prefix for name in _EFFECTFUL for prefix in _prefixes(name) if prefix != name}
    | {"builtins", "pathlib"}
    | set(_FILE_MODULES)
)


def _contacts(name: str) -> bool:
    """Whether calling ``name`` talks to another machine (the exceptions of network modules do not)."""
    return bool(_by_prefix(name, _CONTACTS)) and not name.endswith(
        ("Error", "Exception", "Warning", "Timeout")
    )


def _effectful(name: str) -> bool:
    """Whether calling ``name`` may have an effect the analysis reports or doubts."""
    if name in _EFFECTFUL or _by_prefix(name, _DANGERS) or _contacts(name) or _file_member(name):
        return True
    head, _, method = name.rpartition(".")
    return head == "pathlib.Path" and method in _PATH_EFFECT_METHODS


def _file_member(name: str) -> bool:
    """Whether ``name`` is a member of a module of ``_FILE_MODULES`` that is not listed as harmless:
    it touches files (handing it on as a value hides which)."""
    if name.partition(".")[0] not in _FILE_PACKAGES:
        return False
    module = next((prefix for prefix in _prefixes(name) if prefix in _FILE_MODULES), None)
    if module is None or module == name:
        return False
    member = name[len(module) + 1 :]
    first = member.partition(".")[0]
    harmless = _FILE_MODULES[module]
    return not (member in harmless or first in harmless or first.endswith(("Error", "Exception", "Warning")))


def _unmodelled(name: str) -> bool:
    """Whether calling ``name`` touches files in a way no table models."""
    return name not in _MODELLED and _file_member(name)


def _is_environ(value: Value) -> bool:
    return (isinstance(value, Ref) and value.name in _ENVIRON) or (
        isinstance(value, Obj) and value.kind == "environ"
    )


def _same(a: Value | object, b: Value | object) -> bool:
    """Equality that tells value kinds apart (NamedTuples compare as plain tuples)."""
    return type(a) is type(b) and a == b


def _string_value(value: Value) -> str | None:
    return value.value if isinstance(value, Const) and isinstance(value.value, str) else None


def _path_text(value: Value) -> str | None:
    """The path a value spells (as written: possibly relative), or None when it is not known."""
    if isinstance(value, Const):
        if isinstance(value.value, str):
            return value.value
        if isinstance(value.value, bytes):
            return value.value.decode("utf-8", "replace")
    elif isinstance(value, PathValue):
        return value.text
    elif isinstance(value, Obj) and value.kind == "tempdir":
        return _TEMP
    return None


def _not_a_path(value: Value) -> bool:
    """Whether a value is a file descriptor, None (an argument's default) or an open file: no path."""
    if isinstance(value, Const):
        return not isinstance(value.value, str | bytes)
    return isinstance(value, Obj) and value.kind != "tempdir"


def _is_absolute(text: str) -> bool:
    return text.startswith(("/", _TEMP))


def _join(base: str, part: str) -> str:
    """``os.path.join`` of two parts, knowing that a temporary directory is absolute."""
    if _is_absolute(part) or base in ("", "."):
        return part
    return base + part if base.endswith("/") else base + "/" + part


def _pure(text: str) -> str:
    """A path spelt as pathlib spells it: no empty or ``.`` components."""
    parts = [p for p in text.split("/") if p not in ("", ".")]
    joined = "/".join(parts)
    return "/" + joined if text.startswith("/") else joined or "."


def _parent(text: str | None) -> str | None:
    if text is None or text == _TEMP:
        return None
    parts = text.split("/")
    if len(parts) == 1:
        return "."
    return "/".join(parts[:-1]) or "/"


def _expand_home(text: str, home: str) -> str | None:
    """``expanduser``: ``~`` and ``~/x`` under ``home``; another user's ``~bob`` is unknown."""
    expanded = expand_home(text, home)
    return None if expanded.startswith("~") else expanded


def _absolute(text: str | None, cwd: str | None) -> str | None:
    """``text`` made absolute against the working directory, collapsed; None when it cannot be."""
    if text is None or (_TEMP in text[1:]):
        return None
    if text.startswith(_TEMP):
        return text
    if not text.startswith("/"):
        if cwd is None:
            return None
        if cwd.startswith(_TEMP):
            return cwd + "/" + text
        text = cwd + "/" + text
    return collapse(text)


def _climbs_out(text: str) -> bool:
    """Whether a path inside the temporary directory goes above it with ``..``."""
    depth = 0
    for part in text[len(_TEMP) :].split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _locate(text: str, cwd: str | None) -> tuple[str | None, str | None]:
    """The absolute path ``text`` names, or why it cannot be told (both None: nothing to report)."""
    if text.startswith(_TEMP):
        return None, ("a path climbs out of the temporary directory" if _climbs_out(text) else None)
    if _TEMP in text:
        return None, "cannot tell which file a path built around a temporary directory names"
    if not text or "\x00" in text:
        return None, None  # Python refuses such a path
    if not text.startswith("/"):
        if cwd is None:
            return None, f"cannot tell where {text!r} is: the working directory is unknown"
        if cwd.startswith(_TEMP):
            return _locate(cwd + "/" + text, cwd)
        text = cwd + "/" + text
    path = collapse(text)
    if pseudo_file(path):
        return None, None
    return path, None


def _static_part(pattern: str) -> str:
    """The directory a glob pattern reads: its components before the first wildcard."""
    static: list[str] = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?["):
            break
        static.append(part)
    else:
        return pattern
    return "/".join(static) or ("/" if pattern.startswith("/") else ".")


def _writes(mode: str) -> bool:
    return any(c in mode for c in "wax+")


def _mode(present: bool, value: Value, default: str) -> tuple[Sense, str]:
    """The sense a file mode opens with, and how evidence spells it."""
    if not present or (isinstance(value, Const) and value.value is None):
        return (W if _writes(default) else R), ""
    mode = _string_value(value)
    if mode is None:
        return W, "(computed mode)"
    return (W if _writes(mode) else R), f"(mode {mode!r})"


def _as_text(value: Value, numeric: bool = False) -> str | None:
    """How a value prints in an f-string or a ``%``/``format`` field, when it is a plain constant."""
    if isinstance(value, Const):
        if isinstance(value.value, bool) or value.value is None:
            return None if numeric else str(value.value)
        if isinstance(value.value, int):
            return str(value.value)
        if isinstance(value.value, str) and not numeric:
            return value.value
    if isinstance(value, PathValue) and not numeric:
        return value.text
    return None


def _short(text: str | bytes | None) -> Value:
    """A computed constant, unless it grew too long to keep."""
    return Const(text) if text is not None and len(text) <= MAX_TEXT else None


def _percent(template: str, values: tuple[Value, ...]) -> str | None:
    """``template % values`` for ``%s``, ``%d`` and ``%%`` only."""
    out: list[str] = []
    used = 0
    for piece in re.split(r"(%.?)", template, flags=re.S):
        if not piece.startswith("%"):
            out.append(piece)
        elif piece == "%%":
            out.append("%")
        elif piece in ("%s", "%d", "%i") and used < len(values):
            text = _as_text(values[used], numeric=piece != "%s")
            if text is None:
                return None
            out.append(text)
            used += 1
        else:
            return None
    return "".join(out) if used == len(values) else None


def _format(template: str, args: tuple[Value, ...], keywords: dict[str, Value]) -> str | None:
    """``template.format(...)`` for plain ``{}``, ``{0}`` and ``{name}`` fields only."""
    out: list[str] = []
    automatic = 0
    for token in re.split(r"(\{\{|\}\}|\{[^{}]*\})", template):
        if token in ("{{", "}}"):
            out.append(token[0])
            continue
        if not token.startswith("{"):
            if "{" in token or "}" in token:
                return None
            out.append(token)
            continue
        field = token[1:-1]
        value: Value
        if field == "":
            value, automatic = (args[automatic] if automatic < len(args) else None), automatic + 1
        elif field.isdigit():
            value = args[int(field)] if int(field) < len(args) else None
        else:
            value = keywords.get(field)
        text = _as_text(value)
        if text is None:
            return None
        out.append(text)
    return "".join(out)


_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPES |= {"v": "\v", "\n": "", "\r": ""}


def _unescape(text: str, is_bytes: bool) -> str | None:
    """The character an escape sequence stands for (None: cannot tell)."""
    body = text[1:]
    if not body:
        return text
    try:
        if body in _ESCAPES or body == "\r\n":
            return _ESCAPES.get(body, "")
        if body[0] in "01234567":
            return chr(int(body, 8))
        if body[0] == "x":
            return chr(int(body[1:], 16))
        if not is_bytes and body[0] in "uU":
            return chr(int(body[1:], 16))
        if not is_bytes and body.startswith("N{") and body.endswith("}"):
            import unicodedata

            return unicodedata.lookup(body[2:-1])
    except (ValueError, KeyError, OverflowError):
        return None
    return text  # an unknown escape stays as written


def _integer(text: str) -> Value:
    text = text.replace("_", "").lower()
    if len(text) > MAX_DIGITS or text.endswith(("l", "j")):
        return None
    try:
        return Const(int(text, 0))
    except ValueError:
        return None


def _target_names(target: Node | None, source: bytes) -> list[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``); the base of ``a[i]``/``a.x``."""
    names: list[str] = []
    pending = [target] if target is not None else []
    while pending:
        node = pending.pop()
        if node.type in ("identifier", "keyword_identifier"):
            names.append(source[node.start_byte : node.end_byte].decode("utf-8", "replace"))
        elif node.type in ("attribute", "subscript"):
            base = node.child_by_field_name("object" if node.type == "attribute" else "value")
            if base is not None:
                pending.append(base)
        else:
            pending.extend(node.named_children)
    return names


_REBINDING_FIELDS = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "named_expression": "name",
    "function_definition": "name",
    "class_definition": "name",
}


class _Bindings(Record):
    """What a part of the program binds: each binding site of a name, what the imports among them
    bind it to, the names whose value it may change in place (``a.append(x)``, ``a[0] = x``), and
    those it declares global or nonlocal."""

    sites: list[str]
    imports: dict[str, list[str]]
    mutated: set[str]
    declared: set[str]

    def unstable(self) -> frozenset[str]:
        """The names bound more than once (importing one module twice binds it once)."""
        counts = Counter(self.sites)
        for name, imported in self.imports.items():
            counts[name] -= len(imported) - len(set(imported))
        return frozenset(name for name, count in counts.items() if count > 1)


def _bindings(root: Node, source: bytes) -> _Bindings:
    result = _Bindings([], {}, set(), set())
    pending = [root]
    while pending:
        node = pending.pop()
        pending.extend(node.named_children)
        kind = node.type
        field = _REBINDING_FIELDS.get(kind)
        if field is not None:
            target = node.child_by_field_name(field)
            names = _target_names(target, source)
            plain = target is not None and target.type in ("identifier", "pattern_list", "tuple_pattern")
            if kind in ("assignment", "augmented_assignment") and not plain:
                result.mutated.update(names)
            else:
                result.sites.extend(names)
        elif kind in ("as_pattern_target", "delete_statement", "case_pattern"):
            result.sites.extend(_target_names(node, source))
        elif kind in ("global_statement", "nonlocal_statement"):
            result.declared.update(_target_names(node, source))
        elif kind in ("import_statement", "import_from_statement"):
            _import_bindings(node, source, result)
        elif kind == "call":
            _mutation(node, source, result)
    return result


def _import_bindings(node: Node, source: bytes, result: _Bindings) -> None:
    module = node.child_by_field_name("module_name")
    prefix = _dotted(_node_text(module, source)) + "." if module is not None else ""
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            name = _node_text(child.child_by_field_name("alias"), source)
            imported = prefix + _dotted(_node_text(child.child_by_field_name("name"), source))
        else:
            imported = prefix + _dotted(_node_text(child, source))
            name = imported.split(".")[0] if not prefix else imported[len(prefix) :]
            imported = imported if prefix else name
        result.sites.append(name)
        result.imports.setdefault(name, []).append(imported)


def _mutation(node: Node, source: bytes, result: _Bindings) -> None:
    """``a.append(x)`` changes the list ``a`` holds."""
    function = node.child_by_field_name("function")
    if function is None or function.type != "attribute":
        return
    attribute = function.child_by_field_name("attribute")
    obj = function.child_by_field_name("object")
    if obj is not None and obj.type == "identifier" and _node_text(attribute, source) in _MUTATORS:
        result.mutated.update(_target_names(obj, source))


def _node_text(node: Node | None, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace") if node is not None else ""


def _walrus_names(root: Node, source: bytes) -> list[str]:
    names: list[str] = []
    pending = [root]
    while pending:
        node = pending.pop()
        pending.extend(node.named_children)
        if node.type == "named_expression":
            names.extend(_target_names(node.child_by_field_name("name"), source))
    return names


def _forget_mutated(state: _State, bindings: _Bindings) -> None:
    """Lists that code changes in place (``.append``) are no longer known constants."""
    for name in bindings.mutated:
        value = state.env.get(name)
        if isinstance(value, Seq) and value.mutable:
            state.env[name] = None


def _too_big(root: Node, limit: int) -> bool:
    count = 0
    pending = [root]
    while pending:
        node = pending.pop()
        count += 1
        if count > limit:
            return True
        pending.extend(node.named_children)
    return False


def _line_of(doubt: str) -> int:
    match = re.match(r"line (\d+):", doubt)
    return int(match.group(1)) if match else 0


# -- the analysis ---------------------------------------------------------------------------------


class _Analyzer(Mentions):
    """One walk over one program; its findings accumulate in lists."""

    INPUT = _READS_INPUT

    def __init__(self, source: bytes, setting: Setting, bindings: _Bindings) -> None:
        self.source = source
        self.setting = setting
        self.unstable = bindings.unstable()
        self.mutated = frozenset(bindings.mutated)
        self.moves_cwd = b"chdir" in source
        self.effects: list[Effect] = []
        self.executions: list[Execution] = []
        self.contacts: list[Contact] = []
        self.doubts: list[str] = []
        self.depth = 0
        self.too_deep = False
        self.deferred: list[list[Node]] = []
        self.environment_changes: list[str] = []
        self.path_changed = False
        self.imports: list[tuple[str, int, str | None]] = []  # module, line, working directory then

    # -- plumbing ---------------------------------------------------------------------------------

    # Besides what Mentions looks for: sqlite3 (whose SQL can write files), a cookie jar's file changed
    # after it was made.

    @cached_property
    def uses_sqlite(self) -> bool:
        return b"sqlite3" in self.source

    @cached_property
    def retargets(self) -> bool:
        return _RETARGETS.search(self.source) is not None

    def _text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def _doubt(self, line: int, message: str) -> None:
        self.doubts.append(f"line {line}: {message}")

    def _eval(self, node: Node | None, state: _State) -> Value:
        """The value of an expression (None for a statement), recording what evaluating it does."""
        if node is None:
            return None
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                if not self.too_deep:
                    self.too_deep = True
                    self._doubt(
                        _line(node),
                        f"the code nests deeper than {MAX_NESTING} levels; the rest is not analysed",
                    )
                return None
            return _HANDLERS.get(node.type, _Analyzer._generic)(self, node, state)
        finally:
            self.depth -= 1

    def _use(self, node: Node | None, state: _State) -> Value:
        """The value of an expression that is handed on (an argument, an element, a return value)."""
        value = self._eval(node, state)
        if node is not None:
            self._escape(value, _line(node))
        return value

    def _escape(self, value: Value, line: int, aliasing: bool = False) -> None:
        """Doubt a value that hides effects once handed on: an effectful function (it may be called
        anywhere), a module with effectful members, the whole environment. Binding a module or the
        environment to a name (``aliasing``) is followed instead."""
        if _is_environ(value):
            if not aliasing:
                self._doubt(line, "reads every environment variable, secrets included")
        elif isinstance(value, Ref):
            if _effectful(value.name):
                self._doubt(line, f"{value.name} is used as a value; where it is called cannot be followed")
            elif not aliasing and value.name in _EFFECTFUL_MODULES:
                self._doubt(line, f"the {value.name} module is passed as a value; its use cannot be followed")

    def _generic(self, node: Node, state: _State) -> Value:
        """Any other node (a return, a raise, a slice, an ERROR...): its parts are evaluated and
        handed on, so that nothing inside escapes notice."""
        for child in node.named_children:
            if child.type != "comment":
                self._use(child, state)
        return None

    def _values(self, node: Node, state: _State) -> Value:
        """Blocks, expression statements, type annotations and comparisons: each part evaluated in
        order, nothing handed on."""
        for child in node.named_children:
            self._eval(child, state)
        return None

    def _classes(self, node: Node | None, state: _State) -> Value:
        """``except (A, B)``, ``isinstance(x, (A, B))``: classes looked at, not handed on."""
        if node is not None and node.type in ("tuple", "parenthesized_expression"):
            return self._values(node, state)
        return self._eval(node, state)

    def _nothing(self, node: Node, state: _State) -> Value:
        return None

    # -- scopes and statements --------------------------------------------------------------------

    def run(self, root: Node) -> None:
        self._scope(root, _State({}, self.setting.cwd))

    def _scope(self, body: Node, state: _State) -> None:
        """A module or function body, then the functions it defines (which may run at any time after)."""
        self.deferred.append([])
        self._eval(body, state)
        for function in self.deferred.pop():
            self._function_body(function, state)

    def _function_body(self, function: Node, outer: _State) -> None:
        env = {name: self._closure_value(name, value) for name, value in outer.env.items()}
        env.update(dict.fromkeys(self.unstable))
        inner = _State(env, None if self.moves_cwd else self.setting.cwd)
        parameters = function.child_by_field_name("parameters")
        if parameters is not None:
            inner.env.update(dict.fromkeys(self._parameter_names(parameters)))
        body = function.child_by_field_name("body")
        self.depth += 1  # a function nested in another nests the walk too
        try:
            if self.depth <= MAX_NESTING and body is not None:
                self._scope(body, inner)
        finally:
            self.depth -= 1

    def _closure_value(self, name: str, value: Value) -> Value:
        if name in self.unstable or (name in self.mutated and isinstance(value, Seq) and value.mutable):
            return None
        return value

    def _parameter_names(self, parameters: Node) -> list[str]:
        names: list[str] = []
        for child in parameters.named_children:
            if "default" in child.type:
                target = child.child_by_field_name("name")
            elif child.type == "typed_parameter":
                target = child.named_children[0] if child.named_children else None
            else:
                target = child
            names.extend(_target_names(target, self.source))
        return names

    def _merge(self, state: _State, outcomes: list[_State]) -> None:
        """``state`` after one of ``outcomes`` happened: a name they disagree on is unknown, except that
        a module or function imported in one of them keeps its name (calling it is what matters)."""
        names = {name for outcome in outcomes for name in outcome.env}
        for name in names:
            fallback: Value = Ref(name) if name in _BUILTINS else None
            values = [outcome.env.get(name, fallback) for outcome in outcomes]
            if all(_same(v, values[0]) for v in values):
                state.env[name] = values[0]
                continue
            refs = {v for v in values if isinstance(v, Ref)}
            rest = [
                v for v in values if not isinstance(v, Ref) and v is not None and not _same(v, Const(None))
            ]
            state.env[name] = refs.pop() if len(refs) == 1 and not rest else None
        cwds = {outcome.cwd for outcome in outcomes}
        state.cwd = cwds.pop() if len(cwds) == 1 else None

    def _forget(self, state: _State, node: Node) -> None:
        """Before a loop body: what it binds or changes may differ from one iteration to the next."""
        bindings = _bindings(node, self.source)
        for name in bindings.sites:
            state.env[name] = None
        _forget_mutated(state, bindings)
        if b"chdir" in self.source[node.start_byte : node.end_byte]:
            state.cwd = None

    def _if(self, node: Node, state: _State) -> Value:
        self._eval(node.child_by_field_name("condition"), state)
        branch = state.copy()
        self._eval(node.child_by_field_name("consequence"), branch)
        outcomes = [branch]
        otherwise = False
        for alternative in node.children_by_field_name("alternative"):
            if alternative.type == "elif_clause":
                self._eval(alternative.child_by_field_name("condition"), state)
                body = alternative.child_by_field_name("consequence")
            else:
                otherwise = True
                body = alternative.child_by_field_name("body")
            branch = state.copy()
            self._eval(body, branch)
            outcomes.append(branch)
        if not otherwise:
            outcomes.append(state.copy())
        self._merge(state, outcomes)
        return None

    def _loop(self, node: Node, state: _State) -> Value:
        """``for`` and ``while``: the body may run any number of times, the else clause after it."""
        if node.type == "for_statement":
            self._eval(node.child_by_field_name("right"), state)
        loop = state.copy()
        self._forget(loop, node)
        self._eval(node.child_by_field_name("condition"), loop)
        self._eval(node.child_by_field_name("body"), loop)
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            self._eval(alternative.child_by_field_name("body"), loop)
        self._merge(state, [state.copy(), loop])
        return None

    def _try(self, node: Node, state: _State) -> Value:
        """The body may stop anywhere; a handler runs after part of it, the else clause after all of it."""
        body = state.copy()
        self._eval(node.child_by_field_name("body"), body)
        partly = state.copy()
        self._merge(partly, [state.copy(), body])
        outcomes = []
        final: Node | None = None
        for clause in node.named_children:
            if clause.type in ("except_clause", "except_group_clause"):
                handler = partly.copy()
                for part in clause.named_children:
                    if part.type == "as_pattern":
                        self._classes(_pattern_value(part), handler)
                        for name in _target_names(part.child_by_field_name("alias"), self.source):
                            handler.env[name] = None
                    else:
                        self._classes(part, handler)
                outcomes.append(handler)
            elif clause.type == "else_clause":
                self._eval(clause.child_by_field_name("body"), body)
            elif clause.type == "finally_clause":
                final = clause
        self._merge(state, [body, *outcomes])
        if final is not None:
            self._values(final, state)
        return None

    def _with(self, node: Node, state: _State) -> Value:
        for clause in node.named_children:
            if clause.type != "with_clause":
                continue
            for item in clause.named_children:
                value = item.child_by_field_name("value")
                if value is not None and value.type == "as_pattern":
                    entered = self._eval(_pattern_value(value), state)
                    self._bind_entered(value.child_by_field_name("alias"), entered, state)
                else:
                    self._eval(value, state)
        self._eval(node.child_by_field_name("body"), state)
        return None

    def _bind_entered(self, alias: Node | None, entered: Value, state: _State) -> None:
        """``with X as name``: an open file or archive stays one; a temporary directory is its path."""
        names = _target_names(alias, self.source)
        if isinstance(entered, Obj) and entered.kind == "tempdir":
            entered = Const(_TEMP)
        elif not isinstance(entered, Obj) or entered.kind == "environ":
            entered = None
        for name in names:
            state.env[name] = entered if len(names) == 1 else None

    def _match(self, node: Node, state: _State) -> Value:
        self._use(node.child_by_field_name("subject"), state)
        outcomes = [state.copy()]
        body = node.child_by_field_name("body")
        for case in body.named_children if body is not None else []:
            if case.type != "case_clause":
                continue
            branch = state.copy()
            for pattern in case.named_children:
                if pattern.type == "case_pattern":
                    for name in _target_names(pattern, self.source):
                        branch.env[name] = None
            self._eval(case.child_by_field_name("guard"), branch)
            self._eval(case.child_by_field_name("consequence"), branch)
            outcomes.append(branch)
        self._merge(state, outcomes)
        return None

    def _function(self, node: Node, state: _State) -> Value:
        """A definition: defaults and annotations now, the body at the end of the scope. What the body
        may change outside it (a global, a list it appends to) is unknown from here on."""
        parameters = node.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            self._use(parameter.child_by_field_name("value"), state)
            self._eval(parameter.child_by_field_name("type"), state)
        self._eval(node.child_by_field_name("return_type"), state)
        self._forget_escaping(node, state)
        name = self._text(node.child_by_field_name("name"))
        state.env[name] = Func(name)
        self.deferred[-1].append(node)
        return None

    def _forget_escaping(self, node: Node, state: _State) -> None:
        body = node.child_by_field_name("body")
        if body is None:
            return
        bindings = _bindings(body, self.source)
        for name in bindings.declared:
            state.env[name] = None
        _forget_mutated(state, bindings)

    def _class(self, node: Node, state: _State) -> Value:
        """A class body runs now, in a namespace of its own; its methods are functions of the scope."""
        bases = node.child_by_field_name("superclasses")
        for base in bases.named_children if bases is not None else []:
            value = self._eval(
                base.child_by_field_name("value") if base.type == "keyword_argument" else base, state
            )
            if isinstance(value, Ref) and _contacts(value.name):
                self.contacts.append(Contact(_line(base), value.name))
        self._forget_escaping(node, state)
        self._eval(node.child_by_field_name("body"), state.copy())
        name = self._text(node.child_by_field_name("name"))
        state.env[name] = Func(name)
        return None

    def _decorated(self, node: Node, state: _State) -> Value:
        for child in node.named_children:
            if child.type == "decorator":
                self._generic(child, state)
        self._eval(node.child_by_field_name("definition"), state)
        return None

    def _names_unknown(self, node: Node, state: _State) -> Value:
        """``global``, ``nonlocal`` and ``del``: the names no longer hold what they held."""
        for child in node.named_children:
            if child.type in ("identifier", "keyword_identifier"):
                state.env[self._text(child)] = None
            else:
                self._store(child, None, state, _line(child))
        return None

    def _exec_statement(self, node: Node, state: _State) -> Value:
        self._doubt(_line(node), "exec runs code built at run time")
        return self._generic(node, state)

    # -- imports ----------------------------------------------------------------------------------

    def _import(self, node: Node, state: _State) -> Value:
        line = _line(node)
        for child in node.named_children:
            if child.type == "aliased_import":
                module = _dotted(self._text(child.child_by_field_name("name")))
                self._check_import(module, line, state)
                state.env[self._text(child.child_by_field_name("alias"))] = Ref(_canonical(module))
            elif child.type == "dotted_name":
                module = _dotted(self._text(child))
                self._check_import(module, line, state)
                top = module.split(".")[0]
                state.env[top] = Ref(_canonical(top))
        return None

    def _import_from(self, node: Node, state: _State) -> Value:
        line = _line(node)
        source = node.child_by_field_name("module_name")
        module = _dotted(self._text(source))
        relative = source is None or source.type == "relative_import"
        if relative:
            self._doubt(line, f"imports from a local package ({module}), whose effects are not known")
        else:
            self._check_import(module, line, state)
        for child in node.children_by_field_name("name"):
            name_node = child.child_by_field_name("name") if child.type == "aliased_import" else child
            alias_node = child.child_by_field_name("alias") if child.type == "aliased_import" else child
            name = _dotted(self._text(name_node))
            state.env[self._text(alias_node)] = None if relative else Ref(_canonical(f"{module}.{name}"))
        wildcard = any(child.type == "wildcard_import" for child in node.named_children)
        if (
            wildcard
            and not relative
            and (_canonical(module) in _EFFECTFUL_MODULES or not _known_module(module))
        ):
            self._doubt(line, f"imports every name of {module}, so its functions cannot be followed")
        return None

    def _check_import(self, module: str, line: int, state: _State) -> None:
        self.imports.append((module, line, state.cwd))
        if self.path_changed:
            self._doubt(line, f"imports {module} after sys.path was changed (it may load other code)")
        danger = _by_prefix(module, _DANGEROUS_IMPORTS)
        if danger:
            self._doubt(line, f"imports {module}, which {danger}")
        elif not _known_module(module):
            self._doubt(line, f"imports {module}, whose effects are not known")

    def shadowing(self) -> None:
        """Modules of the working directory the program would import in place of installed ones
        (``modules.py``): Python looks there first, for what the program imports and for what the
        standard library imports on its behalf. Such a module is run, its code unread."""
        start = self.setting.cwd
        if start is not None and start.startswith(_TEMP):
            start = None
        here = {module: line for module, line, cwd in reversed(self.imports) if cwd == self.setting.cwd}
        for shadow in shadowing(start, reversed(here), self.setting.settled):  # first line of each
            self._shadowed(here.get(shadow.module or "", 1), shadow)
        for module, line, cwd in self.imports:
            if cwd == self.setting.cwd:
                continue
            if cwd is None or cwd.startswith(_TEMP):
                where = "where Python looks first is unknown"
                self._doubt(line, f"imports {module} after changing directory: {where}")
                continue
            for shadow in shadowing(cwd, [module]):
                self._shadowed(line, shadow)

    def _shadowed(self, line: int, shadow: Shadow) -> None:
        if shadow.path is None:
            self._doubt(line, shadow.why)
            return
        self.effects.append(Effect(shadow.path, Sense.EXEC, line, "import"))
        self._doubt(line, f"{shadow.why}; its code is not analysed")

    # -- assignments ------------------------------------------------------------------------------

    def _assignment(self, node: Node, state: _State) -> Value:
        right = node.child_by_field_name("right")
        self._eval(node.child_by_field_name("type"), state)
        if right is None:
            return None
        value = self._eval(right, state)
        if right.type not in ("assignment", "augmented_assignment"):
            self._escape(value, _line(right), aliasing=True)
        if right.type == "identifier" and isinstance(value, Seq) and value.mutable:
            state.env[self._text(right)] = value = None  # two names for one list: either may change it
        self._store(node.child_by_field_name("left"), value, state, _line(node))
        return value

    def _augmented(self, node: Node, state: _State) -> Value:
        self._use(node.child_by_field_name("right"), state)
        self._store(node.child_by_field_name("left"), None, state, _line(node))
        return None

    def _walrus(self, node: Node, state: _State) -> Value:
        value = self._eval(node.child_by_field_name("value"), state)
        self._escape(value, _line(node), aliasing=True)
        state.env[self._text(node.child_by_field_name("name"))] = None
        return value

    def _store(self, target: Node | None, value: Value, state: _State, line: int) -> None:
        """Bind ``value`` to an assignment target (or forget it, for ``del`` and ``+=``)."""
        if target is None:
            return
        kind = target.type
        if kind in ("identifier", "keyword_identifier"):
            state.env[self._text(target)] = value
        elif kind in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"):
            parts = [c for c in target.named_children if c.type != "comment"]
            known = isinstance(value, Seq) and len(value.items) == len(parts)
            starred = any(p.type in ("list_splat_pattern", "list_splat") for p in parts)
            for index, part in enumerate(parts):
                item = value.items[index] if isinstance(value, Seq) and known and not starred else None
                self._store(part, item, state, line)
        elif kind == "attribute":
            self._store_attribute(target, value, state, line)
        elif kind == "subscript":
            self._store_item(target, value, state, line)
        elif kind in ("list_splat_pattern", "list_splat", "parenthesized_expression"):
            for child in target.named_children:
                self._store(child, None, state, line)
        else:
            self._eval(target, state)

    def _store_attribute(self, target: Node, value: Value, state: _State, line: int) -> None:
        self._escape(value, line)
        base = self._eval(target.child_by_field_name("object"), state)
        if not isinstance(base, Ref):
            return
        name = _canonical(f"{base.name}.{self._text(target.child_by_field_name('attribute'))}")
        if name in ("sys.path", "sys.modules", "sys.meta_path", "sys.path_hooks"):
            self.path_changed = True
        if _effectful(name) or name in _EFFECTFUL_MODULES or name == "sys.modules":
            self._doubt(line, f"replaces {name}")

    def _store_item(self, target: Node, value: Value, state: _State, line: int) -> None:
        self._escape(value, line)
        base_node = target.child_by_field_name("value")
        base = self._eval(base_node, state)
        keys = [self._use(key, state) for key in target.children_by_field_name("subscript")]
        if (
            base_node is not None
            and base_node.type == "identifier"
            and isinstance(base, Seq)
            and base.mutable
        ):
            state.env[self._text(base_node)] = None
        if isinstance(base, Ref) and base.name in _ENVIRON:
            name = _string_value(keys[0]) if len(keys) == 1 else None
            self.environment_changes.append(name or "?")
        elif isinstance(base, Ref) and base.name in ("sys.modules", "sys.path"):
            self.path_changed = True
            if base.name == "sys.modules":
                self._doubt(line, "changes the loaded modules through sys.modules")
        elif isinstance(base, Obj) and base.kind == "namespace":
            self._doubt(line, "defines names through globals() or vars(), which cannot be followed")

    # -- expressions ------------------------------------------------------------------------------

    def _identifier(self, node: Node, state: _State) -> Value:
        name = self._text(node)
        if name in state.env:
            return state.env[name]
        if name == "__builtins__":
            return Ref("builtins")
        return Ref(name) if name in _BUILTINS else None

    def _constant(self, node: Node, state: _State) -> Value:
        if node.type == "integer":
            return _integer(self._text(node))
        return Const({"true": True, "false": False}.get(node.type))

    def _string(self, node: Node, state: _State) -> Value:
        """A string literal, f-string included, when every part of it is known."""
        prefix = self._text(node.children[0] if node.children else None).rstrip("'\"").lower()
        known = "t" not in prefix
        parts: list[str] = []
        for child in node.named_children:
            if child.type == "string_content":
                piece = self._content(child, prefix)
                known = known and piece is not None
                parts.append(piece or "")
            elif child.type == "interpolation":
                piece = self._interpolation(child, state)
                known = known and piece is not None
                parts.append(piece or "")
        if not known:
            return None
        text = "".join(parts)
        if "b" in prefix:
            try:
                return Const(text.encode("latin-1"))
            except UnicodeEncodeError:
                return None
        return Const(text)

    def _content(self, node: Node, prefix: str) -> str | None:
        pieces: list[str] = []
        position = node.start_byte
        for child in node.children:
            pieces.append(self.source[position : child.start_byte].decode("utf-8", "replace"))
            text = self._text(child)
            if child.type == "escape_interpolation" and "f" in prefix:
                pieces.append(text[0])
            elif child.type == "escape_sequence" and "r" not in prefix:
                decoded = _unescape(text, "b" in prefix)
                if decoded is None:
                    return None
                pieces.append(decoded)
            else:
                pieces.append(text)
            position = child.end_byte
        pieces.append(self.source[position : node.end_byte].decode("utf-8", "replace"))
        return "".join(pieces)

    def _interpolation(self, node: Node, state: _State) -> str | None:
        value = self._use(node.child_by_field_name("expression"), state)
        plain = True
        for child in node.children:
            if child.type in ("type_conversion", "format_specifier", "="):
                plain = False
                if child.type == "format_specifier":
                    self._generic(child, state)
        return _as_text(value) if plain else None

    def _concatenated(self, node: Node, state: _State) -> Value:
        values = [self._eval(child, state) for child in node.named_children if child.type != "comment"]
        texts = [v.value for v in values if isinstance(v, Const) and isinstance(v.value, str)]
        if len(texts) == len(values):
            return _short("".join(texts))
        data = [v.value for v in values if isinstance(v, Const) and isinstance(v.value, bytes)]
        return _short(b"".join(data)) if len(data) == len(values) else None

    def _sequence(self, node: Node, state: _State) -> Value:
        items: list[Value] = []
        known = node.type != "set"
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type in ("list_splat", "parenthesized_list_splat", "dictionary_splat"):
                known = False
            items.append(self._use(child, state))
        return Seq(tuple(items), node.type == "list") if known else None

    def _dictionary(self, node: Node, state: _State) -> Value:
        environ = False
        for child in node.named_children:
            if child.type == "dictionary_splat":
                for inner in child.named_children:
                    value = self._eval(inner, state)
                    environ = environ or _is_environ(value)
                    if not _is_environ(value):
                        self._escape(value, _line(inner))
            elif child.type == "pair":
                self._use(child.child_by_field_name("key"), state)
                self._use(child.child_by_field_name("value"), state)
            elif child.type != "comment":
                self._use(child, state)
        return Obj("environ") if environ else None

    def _parenthesized(self, node: Node, state: _State) -> Value:
        value: Value = None
        for child in node.named_children:
            if child.type != "comment":
                value = self._eval(child, state)
        return value

    def _conditional(self, node: Node, state: _State) -> Value:
        """``a if c else b``: known only when both sides are the same."""
        parts = [child for child in node.named_children if child.type != "comment"]
        if len(parts) != 3:
            return self._generic(node, state)
        body = self._use(parts[0], state)
        self._eval(parts[1], state)
        alternative = self._use(parts[2], state)
        return body if _same(body, alternative) else None

    def _binary(self, node: Node, state: _State) -> Value:
        left = self._use(node.child_by_field_name("left"), state)
        right = self._use(node.child_by_field_name("right"), state)
        operator = self._text(node.child_by_field_name("operator"))
        if operator == "+":
            return _plus(left, right)
        if operator == "/":
            return _divide(left, right)
        if operator == "%" and isinstance(left, Const) and isinstance(left.value, str):
            values = right.items if isinstance(right, Seq) and not right.mutable else (right,)
            return _short(_percent(left.value, values))
        return None

    def _subscript(self, node: Node, state: _State) -> Value:
        base = self._eval(node.child_by_field_name("value"), state)
        keys = [self._use(key, state) for key in node.children_by_field_name("subscript")]
        line = _line(node)
        key = keys[0] if len(keys) == 1 else None
        if _is_environ(base):
            return self._variable(key, line)
        if isinstance(base, Ref) and base.name == "sys.modules":
            self._doubt(line, "reaches a module through sys.modules")
        elif isinstance(base, Ref) and base.name in _EFFECTFUL_MODULES:
            self._doubt(line, f"reaches a member of {base.name} by a subscript, which cannot be followed")
        elif isinstance(base, Obj) and base.kind == "namespace":
            self._doubt(line, "reaches names through globals() or vars(), which cannot be followed")
        elif isinstance(base, Seq) and isinstance(key, Const) and type(key.value) is int:
            index = key.value
            return base.items[index] if -len(base.items) <= index < len(base.items) else None
        return None

    def _attribute(self, node: Node, state: _State) -> Value:
        base = self._eval(node.child_by_field_name("object"), state)
        name = self._text(node.child_by_field_name("attribute"))
        line = _line(node)
        if self._internal(base, name, line):
            return None
        if isinstance(base, Ref) and not _is_environ(base):
            return self._member(base.name, name, line)
        if isinstance(base, PathValue):
            if name in _PATH_EFFECT_METHODS:
                self._doubt(line, f"Path.{name} is used as a value; where it is called cannot be followed")
            return _path_attribute(base, name)
        if isinstance(base, Obj) and base.kind == "tempdir" and name == "name":
            return Const(_TEMP)
        if (base is None or isinstance(base, Func)) and name in _STRICT_SUSPECTS:
            self._doubt(line, f".{name} is used as a value; where it is called cannot be followed")
        return None

    def _internal(self, base: Value, name: str, line: int) -> bool:
        """Doubt an attribute that reaches the interpreter's internals (``os.__dict__``,
        ``().__class__.__mro__``), through which any function can be reached unseen."""
        if name in _FRAME_ATTRIBUTES:
            self._doubt(line, f"reaches an interpreter frame through .{name}")
            return True
        if not (name.startswith("__") and name.endswith("__")) or name in _PLAIN_DUNDERS:
            return False
        if isinstance(base, Ref) or name in _INTERNAL_DUNDERS:
            self._doubt(line, f"reaches Python internals through .{name}")
            return True
        return False

    def _member(self, module: str, name: str, line: int) -> Value:
        full = _canonical(f"{module}.{name}")
        if full in _CONSTANTS:
            return Const(_CONSTANTS[full])
        parts = full.split(".")[1:]
        # A module's __version__, __file__, __doc__... are data, not a way into its internals.
        plain = bool(parts) and parts[-1] in _PLAIN_DUNDERS
        private = any(part.startswith("_") for part in (parts[:-1] if plain else parts))
        known = _known_module(full.split(".")[0]) and not _by_prefix(full, _DANGERS)
        if private and full not in _PRIVATE_ALLOWED and known:
            self._doubt(line, f"reaches {full}, a private name")
        return None if plain and not private else Ref(full)  # a string or a list of names

    def _lambda(self, node: Node, state: _State) -> Value:
        env = {name: self._closure_value(name, value) for name, value in state.env.items()}
        inner = _State(env, None if self.moves_cwd else state.cwd)
        parameters = node.child_by_field_name("parameters")
        if parameters is not None:
            for parameter in parameters.named_children:
                self._use(parameter.child_by_field_name("value"), state)
            inner.env.update(dict.fromkeys(self._parameter_names(parameters)))
        self._use(node.child_by_field_name("body"), inner)
        return Func("lambda")

    def _comprehension(self, node: Node, state: _State) -> Value:
        """The clauses in order, then the body, with the loop variables unknown."""
        inner = state.copy()
        for clause in node.named_children:
            if clause.type == "for_in_clause":
                self._eval(clause.child_by_field_name("right"), inner)
                for name in _target_names(clause.child_by_field_name("left"), self.source):
                    inner.env[name] = None
            elif clause.type == "if_clause":
                self._generic(clause, inner)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "pair":
            self._generic(body, inner)
        else:
            self._use(body, inner)
        for name in _walrus_names(node, self.source):
            state.env[name] = None  # a := inside a comprehension binds in the enclosing scope
        return None

    # -- calls ------------------------------------------------------------------------------------

    def _call(self, node: Node, state: _State) -> Value:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return self._generic(node, state)
        line = _line(node)
        target = self._callee(function, state, line)
        call = self._arguments(arguments, state, target, line)
        if isinstance(target, Ref):
            return self._call_ref(target.name, call, state)
        if isinstance(target, _Method):
            return self._call_method(target, call, state)
        return None

    def _callee(self, function: Node, state: _State, line: int) -> Value | _Method:
        if function.type != "attribute":
            return self._eval(function, state)
        receiver = function.child_by_field_name("object")
        name = self._text(function.child_by_field_name("attribute"))
        base = self._eval(receiver, state)
        if receiver is None or self._internal(base, name, line):
            return None
        if isinstance(base, Ref) and not _is_environ(base):
            return self._member(base.name, name, line)
        return _Method(base, name, receiver)

    def _arguments(self, node: Node, state: _State, target: Value | _Method, line: int) -> _Call:
        """Evaluate the arguments; doubt those that hide effects, except where the callee only looks
        at them (``isinstance(x, os.PathLike)``) or takes the environment (``env=os.environ``)."""
        name = target.name if isinstance(target, Ref | _Method) else "call"
        looks = isinstance(target, Ref) and target.name in _INSPECTORS
        environ = (isinstance(target, Ref) and (target.name in _RUNNERS or target.name == "dict")) or (
            isinstance(target, _Method) and _is_environ(target.receiver)
        )
        args: list[Value] = []
        keywords: dict[str, Value] = {}
        open_ended = False
        children = [node] if node.type == "generator_expression" else node.named_children
        for child in children:
            if child.type == "comment":
                continue
            if child.type in ("list_splat", "dictionary_splat", "parenthesized_list_splat"):
                open_ended = True
                inner = child.named_children
                value = self._eval(inner[0], state) if inner else None
            elif child.type == "keyword_argument":
                value = self._eval(child.child_by_field_name("value"), state)
                keywords[self._text(child.child_by_field_name("name"))] = value
            else:
                value = self._classes(child, state) if looks else self._eval(child, state)
                if not open_ended:
                    args.append(value)
            if not (
                (looks and isinstance(value, Ref) and not _is_environ(value))
                or (environ and _is_environ(value))
            ):
                self._escape(value, line)
            changeable = child.type == "identifier" and isinstance(value, Seq) and value.mutable
            if changeable and not isinstance(target, Ref):
                state.env[self._text(child)] = None  # the callee may change the list
        return _Call(name, line, tuple(args), keywords, open_ended)

    def _call_ref(self, name: str, call: _Call, state: _State) -> Value:
        """A call of a known name: every table it appears in says what it does."""
        danger = _by_prefix(name, _DANGERS)
        if danger and not (name == "help" and self._documents(call)):
            self._doubt(call.line, f"{name} {danger}")
        contact = _contacts(name)
        if contact:
            self.contacts.append(Contact(call.line, name))
        specs = _FILE_CALLS.get(name)
        if specs is not None:
            self._file_call(name, specs, call, state)
        url = _URL_CALLS.get(name)
        if url is not None:
            self._url(*call.arg(*url), call.line, name, state)
        if name in _RUNNERS:
            self._run(name, call, state)
        if call.keywords or call.open_ended:
            self._evaluated_annotations(name, call)
        if name in _OPENERS:
            return self._open(name, call, state)
        special = _SPECIAL.get(name)
        if special is not None:
            return special(self, call, state)
        if name in _MAKERS:
            return Obj(_MAKERS[name])
        if name in _COOKIE_JARS:
            present, file = call.arg(0, "filename")
            return Obj("cookies", _path_text(file) if present and not _same(file, Const(None)) else "")
        head, _, method = name.rpartition(".")
        if head == "pathlib.Path" and (
            method in _PATH_METHODS or method in _PATH_TRANSFORMS or method == "open"
        ):
            text = _path_text(call.arg(0, "self")[1])
            path = PathValue(_pure(text) if text is not None else None)
            return self._path_method(path, method, call._replace(args=call.args[1:]), state)
        if _unmodelled(name):
            self._doubt(call.line, f"{name} may touch files in a way this analysis does not follow")
        return Obj("handle") if contact else None

    def _documents(self, call: _Call) -> bool:
        """``help(obj)`` of an object known not to be a string only prints its documentation (pydoc
        pages it through $PAGER on a terminal, so not once the program changed the environment);
        a string names a module, keyword or topic to import and look up, and no argument is the
        interactive help."""
        if call.keywords or call.open_ended or len(call.args) != 1 or self.environment_changes:
            return False
        value = call.args[0]
        if isinstance(value, Ref):  # sys.platform is a string too: only what cannot be one
            parts = value.name.split(".")
            if any(part.startswith("_") for part in parts):
                return False
            if len(parts) == 1:  # a builtin function or type, or a module imported as such
                return value.name in _BUILTINS or value.name in _KNOWN_MODULES
            return len(parts) == 2 and parts[0] in _BUILTIN_TYPES  # str.split: a method
        return value is not None and not (isinstance(value, Const) and isinstance(value.value, str))

    def _call_method(self, method: _Method, call: _Call, state: _State) -> Value:
        receiver, name = method.receiver, method.name
        if (
            isinstance(receiver, Seq)
            and receiver.mutable
            and name in _MUTATORS
            and method.node.type == "identifier"
        ):
            state.env[self._text(method.node)] = None
        if _is_environ(receiver):
            return self._environ_method(receiver, name, call)
        if isinstance(receiver, PathValue):
            return self._path_method(receiver, name, call, state)
        if isinstance(receiver, Obj):
            return self._object_method(receiver, name, call, state)
        if isinstance(receiver, Const):
            return _text_method(receiver.value, name, call)
        if receiver is None or isinstance(receiver, Func):
            self._suspect(name, call, state)
        return None

    def _suspect(self, name: str, call: _Call, state: _State) -> None:
        """A method of an unknown receiver that may be a path's (``p.unlink()``): doubt it unless its
        arguments show it is not (``s.replace("a", "b")``, ``d.copy()``, ``dt.replace(year=1)``). SQL
        run on it is read as a database's would be."""
        if name in _SQL_METHODS:
            self._sql(name, call, state, self.uses_sqlite)
            return
        if name in ("subprocess_exec", "subprocess_shell"):
            self._doubt(call.line, f".{name}() runs a command computed at run time")
            return
        if name == "open":
            present, mode = call.arg(0, "mode")
            text = _string_value(mode)
            keyword = "mode" in call.keywords
            if present and (
                (text is None and keyword) or (text is not None and _MODE.fullmatch(text) and _writes(text))
            ):
                self._doubt(call.line, "cannot tell which file .open() writes")
            return
        bounds = _SUSPECTS.get(name)
        if bounds is None:
            return
        count = len(call.args) + (1 if "target" in call.keywords else 0)
        if name in ("rename", "replace") and set(call.keywords) - {"target"}:
            return
        if call.open_ended or bounds[0] <= count <= bounds[1]:
            self._doubt(call.line, f"cannot tell which file .{name}() touches")

    def _file_call(self, evidence: str, specs: Iterable[_Arg], call: _Call, state: _State) -> None:
        for index, (sense, position, keyword, default) in enumerate(specs):
            present, value = call.arg(position, keyword)
            if not present or (default is not None and isinstance(value, Const) and value.value is None):
                if default is None:
                    continue
                value = Const(default)
            tree = "all" if index == 0 and evidence in _WALKED else None
            self._touch(value, sense, call.line, evidence, state, tree)

    def _touch(
        self, value: Value, sense: Sense, line: int, evidence: str, state: _State, tree: str | None = None
    ) -> None:
        """Report that ``value`` (a path, or a list of them) is accessed, or doubt it when it is not
        known: unless only read, or read by a program that reads its input (which may name it)."""
        if isinstance(value, Seq):
            for item in value.items:
                self._touch(item, sense, line, evidence, state, tree)
            return
        if _not_a_path(value):
            return
        text = _path_text(value)
        if text is None:
            self._unknown_file(line, evidence, sense)
            return
        path, problem = _locate(text, state.cwd)
        if problem is not None and sense is not R:
            self._doubt(line, problem)
        if path is not None:
            self.effects.append(Effect(path, sense, line, evidence, tree))

    def _evaluated_annotations(self, name: str, call: _Call) -> None:
        """``inspect.signature(f, eval_str=True)`` runs the annotations written as strings."""
        how = call.keywords.get("eval_str")
        evaluates = "eval_str" in call.keywords or (call.open_ended and name.startswith("inspect."))
        if evaluates and not (isinstance(how, Const) and not how.value):
            self._doubt(call.line, f"{name} evaluates annotations, which are code")

    def _unknown_file(self, line: int, evidence: str, sense: Sense) -> None:
        if sense is not R:
            self._doubt(line, f"cannot tell which file {evidence} {_VERBS[sense]} (computed at run time)")
        elif self.reads_input:
            self._doubt(line, f"cannot tell which file {evidence} reads (its name may come from the input)")

    def _url(self, present: bool, value: Value, line: int, evidence: str, state: _State) -> None:
        """A URL given to ``evidence``: a ``file:`` URL reads the file it names."""
        if not present or isinstance(value, Obj):
            return  # a Request: its URL was judged when it was made
        text = _string_value(value)
        if text is None:
            if self.file_urls:
                self._doubt(line, f"cannot tell which file a file: URL given to {evidence} reads")
            return
        path = file_url_path(text)
        if path is not None:
            self._touch(Const(path), R, line, f"{evidence}(file: URL)", state)

    def _open(self, name: str, call: _Call, state: _State) -> Value:
        path_position, path_keyword, mode_position, mode_keyword, default, kind = _OPENERS[name]
        present, target = call.arg(path_position, path_keyword)
        given, mode = call.arg(mode_position, mode_keyword) if mode_keyword else (False, None)
        sense, spelling = _mode(given, mode, default)
        if present and not (name == "sqlite3.connect" and _string_value(target) in (":memory:", "")):
            self._touch(target, sense, call.line, name + spelling, state)
        return Obj(kind)

    # -- commands ---------------------------------------------------------------------------------

    def _run(self, name: str, call: _Call, state: _State) -> None:
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

    def _command(self, name: str, call: _Call) -> tuple[tuple[str, ...] | None, str | None]:
        """The argument vector or shell code a runner is given, both None when it is computed."""
        style, program, vector, keyword = _RUNNERS[name]
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

    def _subprocess_command(self, call: _Call) -> tuple[tuple[str, ...] | None, str | None]:
        _, args = call.arg(0, "args")
        shell_given, shell = call.arg(None, "shell")
        if shell_given and not isinstance(shell, Const):
            return None, None
        if shell_given and isinstance(shell, Const) and shell.value:
            code = args.items[0] if isinstance(args, Seq) and args.items else args
            return None, self._word(code)
        words = self._words(args)
        executable_given, executable = call.arg(None, "executable")
        if words and executable_given and not _same(executable, Const(None)):
            program = self._word(executable)
            return (None if program is None else (program, *words[1:])), None
        return words, None

    def _word(self, value: Value) -> str | None:
        if isinstance(value, Ref) and value.name == "sys.executable":
            return "python3"
        text = _path_text(value)
        return None if text is None or "\x00" in text else text

    def _words(self, value: Value) -> tuple[str, ...] | None:
        """A command's words: a list of constants, or one string (the program, as Python runs it)."""
        if isinstance(value, Seq):
            words = [self._word(item) for item in value.items]
            return tuple(w for w in words if w is not None) if None not in words else None
        word = self._word(value)
        return (word,) if word is not None else None

    def _run_directory(self, call: _Call, state: _State) -> str | None:
        present, value = call.arg(None, "cwd")
        base = (
            state.cwd if not present or _same(value, Const(None)) else _absolute(_path_text(value), state.cwd)
        )
        return None if base is None or _TEMP in base else base

    # -- methods of known objects ----------------------------------------------------------------

    def _path_method(self, path: PathValue, name: str, call: _Call, state: _State) -> Value:
        if name == "open":
            given, mode = call.arg(0, "mode")
            sense, spelling = _mode(given, mode, "r")
            self._touch_path(path, sense, call, "open", spelling, state)
            return Obj("file")
        specs = _PATH_METHODS.get(name)
        if specs is None:
            return _path_transform(path, name, call, self.setting.home, state.cwd)
        tree = "all" if name in _PATH_WALKED else None
        for sense, index in specs:
            if index < 0:
                self._touch_path(path, sense, call, name, "", state, tree)
            else:
                present, value = call.arg(index, "target")
                if present:
                    self._touch(value, sense, call.line, f"Path.{name}", state)
        if name in ("copy_into", "move_into"):  # target_dir / this path's name is written
            present, directory = call.arg(0, "target_dir")
            text, base = _path_text(directory), _string_value(_path_attribute(path, "name"))
            if present:
                landing = Const(_join(text, base)) if text is not None and base is not None else None
                self._touch(landing, W, call.line, f"Path.{name}", state)
        if name in ("rename", "replace", "move"):
            text = _path_text(call.arg(0, "target")[1])
            return PathValue(_pure(text) if text is not None else None)
        return None

    def _touch_path(
        self,
        path: PathValue,
        sense: Sense,
        call: _Call,
        name: str,
        spelling: str,
        state: _State,
        tree: str | None = None,
    ) -> None:
        if path.text is None:
            if sense is not R:
                self._doubt(call.line, f"cannot tell which file .{name}() touches")
            else:
                self._unknown_file(call.line, f"Path.{name}", R)
            return
        self._touch(path, sense, call.line, f"Path.{name}{spelling}", state, tree)

    def _object_method(self, obj: Obj, name: str, call: _Call, state: _State) -> Value:
        kind = obj.kind
        if kind == "namespace":
            self._doubt(call.line, "reaches names through globals() or vars(), which cannot be followed")
            return None
        if kind == "sqlite":
            return self._sql(name, call, state, True)
        evidence = f"{_KIND_NAMES.get(kind, kind)}.{name}"
        if kind == "socket":
            position = _SOCKET_ADDRESSES.get(name)
            present, address = call.arg(position, "address") if position is not None else (False, None)
            if present and isinstance(address, Const) and isinstance(address.value, str | bytes):
                self._touch(address, W, call.line, evidence, state)
            return None
        if kind == "handle" and name in ("open", "retrieve"):  # an OpenerDirector or URLopener
            self._url(*call.arg(0, "fullurl" if name == "open" else "url"), call.line, evidence, state)
        specs = _OBJECT_METHODS.get(kind, {}).get(name)
        if specs is None:
            return None
        present, file = call.arg(0, "filename")
        if kind == "cookies" and (not present or _same(file, Const(None))):  # the jar's own file
            if self.retargets or obj.path is None:
                self._doubt(call.line, f"cannot tell which file {evidence} {_VERBS[specs[0][0]]}")
            elif obj.path:
                self._touch(Const(obj.path), specs[0][0], call.line, evidence, state)
            return None
        self._file_call(evidence, specs, call, state)
        return None

    def _sql(self, name: str, call: _Call, state: _State, database: bool) -> Value:
        """A method of a database connection or cursor (``database``), or a method of an unknown object
        named like one (judged as one when it is given SQL text). ``ATTACH 'f'`` and ``VACUUM INTO
        'f'`` write the file ``f``; SQL computed at run time may."""
        if name in _SQL_DANGERS and database:
            self._doubt(call.line, f".{name}() loads native code")
            return None
        if name not in _SQL_METHODS:
            return Obj("sqlite") if name == "cursor" and database else None
        present, sql = call.arg(0, "sql_script" if name == "executescript" else "sql")
        text = _string_value(sql)
        if text is None:
            if present and database:
                self._doubt(call.line, f"runs SQL computed at run time (.{name}); ATTACH can write any file")
            return Obj("sqlite") if database else None
        files, problem = _sql_files(text)
        for file in files:
            self._touch(Const(file), W, call.line, f"SQL {file!r}", state)
        if problem is not None:
            self._doubt(call.line, problem)
        return Obj("sqlite") if database else None

    def _environ_method(self, receiver: Value, name: str, call: _Call) -> Value:
        real = isinstance(receiver, Ref)
        if name in ("get", "pop", "setdefault", "__getitem__"):
            present, key = call.arg(0, "key")
            if real and name in ("pop", "setdefault"):
                self.environment_changes.append(_string_value(key) or "?")
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
        name = _string_value(key)
        if name is None:
            self._doubt(line, "reads an environment variable whose name is computed")
            return None
        if self.setting.secret(name):
            self._doubt(line, f"reads ${name}, which looks like a secret")
        return Const(self.setting.home) if name == "HOME" else None

    # -- special calls ----------------------------------------------------------------------------

    def _make_path(self, call: _Call, state: _State) -> Value:
        if call.open_ended or call.keywords:
            return PathValue(None)
        text = "."
        for value in call.args:
            part = _path_text(value)
            if part is None:
                return PathValue(None)
            text = _join(text, part)
        return PathValue(_pure(text))

    def _home(self, call: _Call, state: _State) -> Value:
        return PathValue(self.setting.home)

    def _from_uri(self, call: _Call, state: _State) -> Value:
        text = _string_value(call.arg(0, "uri")[1])
        path = file_url_path(text) if text is not None else None
        return PathValue(_pure(path) if path is not None else None)

    def _getcwd(self, call: _Call, state: _State) -> Value:
        if call.name == "pathlib.Path.cwd":
            return PathValue(state.cwd)
        return Const(state.cwd) if state.cwd is not None else None

    def _os_path(self, call: _Call, state: _State) -> Value:
        """The pure ``os.path`` functions, on known arguments."""
        texts = [_path_text(value) for value in call.args]
        if call.open_ended or not texts or None in texts:
            return None
        parts = [t for t in texts if t is not None]
        first, function = parts[0], call.name.rpartition(".")[2]
        result: str | None
        if function == "join":
            result = first
            for part in parts[1:]:
                result = _join(result, part)
        elif function in ("split", "splitext"):
            pair = os.path.split(first) if function == "split" else os.path.splitext(first)
            return Seq((Const(pair[0]), Const(pair[1])), False)
        elif function in ("abspath", "realpath"):
            result = _absolute(first, state.cwd)
        elif function == "expanduser":
            result = _expand_home(first, self.setting.home)
        elif function == "expandvars":
            result = re.sub(r"\$(HOME\b|\{HOME\})", lambda _: self.setting.home, first)
            result = None if "$" in result else result
        elif function == "basename":
            result = os.path.basename(first)
        else:
            result = os.path.dirname(first) if function == "dirname" else os.path.normpath(first)
            if first.startswith(_TEMP) and not result.startswith(_TEMP):
                result = None  # went above the temporary directory
        return _short(result)

    def _to_string(self, call: _Call, state: _State) -> Value:
        if not call.args and not call.open_ended:
            return Const("")
        text = _as_text(call.args[0]) if call.args and len(call.args) == 1 and not call.keywords else None
        return Const(text) if text is not None else None

    def _to_sequence(self, call: _Call, state: _State) -> Value:
        value = call.args[0] if len(call.args) == 1 and not call.keywords else None
        return Seq(value.items, call.name == "list") if isinstance(value, Seq) else None

    def _dict(self, call: _Call, state: _State) -> Value:
        return Obj("environ") if any(_is_environ(value) for value in call.args) else None

    def _shlex(self, call: _Call, state: _State) -> Value:
        import shlex

        value = call.args[0] if len(call.args) == 1 and not call.keywords else None
        function = call.name.rpartition(".")[2]
        text = _string_value(value)
        if function == "join" and isinstance(value, Seq):
            words = self._words(value)
            return _short(shlex.join(words)) if words is not None else None
        if text is None:
            return None
        if function == "quote":
            return _short(shlex.quote(text))
        try:
            return Seq(tuple(Const(w) for w in shlex.split(text)), True)
        except ValueError:
            return None

    def _getenv(self, call: _Call, state: _State) -> Value:
        present, key = call.arg(0, "key")
        return self._variable(key if present else None, call.line)

    def _putenv(self, call: _Call, state: _State) -> Value:
        self.environment_changes.append(_string_value(call.arg(0, "key")[1]) or "?")
        return None

    def _chdir(self, call: _Call, state: _State) -> Value:
        _, value = call.arg(0, "path")
        state.cwd = _absolute(_path_text(value), state.cwd)
        return None

    def _os_open(self, call: _Call, state: _State) -> Value:
        present, target = call.arg(0, "path")
        _, flags = call.arg(1, "flags")
        reading = isinstance(flags, Const) and flags.value == 0 and not isinstance(flags.value, bool)
        if present:
            self._touch(target, R if reading else W, call.line, "os.open", state)
        return None

    def _namespace(self, call: _Call, state: _State) -> Value:
        if call.name == "vars" and call.args and not isinstance(call.args[0], Ref):
            return None
        return Obj("namespace")

    def _getattr(self, call: _Call, state: _State) -> Value:
        """``getattr``/``setattr``/``delattr``: a module's member or a computed name cannot be followed."""
        _, obj = call.arg(0, "")
        _, attribute = call.arg(1, "")
        name = _string_value(attribute)
        if isinstance(obj, Ref) and (obj.name in _EFFECTFUL_MODULES or _effectful(obj.name)):
            self._doubt(call.line, f"{call.name} on {obj.name} can reach any of its functions")
            return Ref(_canonical(f"{obj.name}.{name}")) if name and call.name == "getattr" else None
        if isinstance(obj, Obj) and obj.kind == "namespace":
            self._doubt(call.line, f"{call.name} on a namespace cannot be followed")
        elif name is None:
            self._doubt(call.line, f"{call.name} with a computed name cannot be followed")
        else:
            self._dynamic_name(call, name)
        return Ref(_canonical(f"{obj.name}.{name}")) if isinstance(obj, Ref) and name else None

    def _dynamic_name(self, call: _Call, name: str) -> None:
        """A method named by a string: doubt the names of path methods and internals."""
        if any(
            part in _SUSPECTS or part in _INTERNAL_DUNDERS or part in _FRAME_ATTRIBUTES or part == "open"
            for part in name.split(".")
        ):
            self._doubt(call.line, f"{call.name} reaches .{name}, which may touch files")

    def _method_caller(self, call: _Call, state: _State) -> Value:
        name = _string_value(call.arg(0, "")[1])
        if name is None:
            self._doubt(call.line, f"{call.name} with a computed name cannot be followed")
        else:
            self._dynamic_name(call, name)
        return None

    def _import_module(self, call: _Call, state: _State) -> Value:
        name = _string_value(call.arg(0, "name")[1])
        if not name or name.startswith("."):
            return None
        return Ref(_canonical(name.split(".")[0] if call.name == "__import__" else name))

    def _temporary(self, call: _Call, state: _State) -> Value:
        """Files and directories made in the temporary directory are not reported; one made in a
        directory given as ``dir=`` writes there."""
        present, directory = call.arg(None, "dir")
        function = call.name.rpartition(".")[2]
        is_file = function in ("NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile")
        if present and not _same(directory, Const(None)):
            self._touch(directory, W, call.line, call.name, state)
            return Obj("file") if is_file else (Seq((None, None), False) if function == "mkstemp" else None)
        if is_file:
            return Obj("file")
        if function == "TemporaryDirectory":
            return Obj("tempdir")
        return Seq((None, Const(_TEMP)), False) if function == "mkstemp" else Const(_TEMP)

    def _glob(self, call: _Call, state: _State) -> Value:
        present, pattern = call.arg(0, "pathname")
        text = _path_text(pattern)
        if present and text is not None:
            self._touch(Const(_static_part(text)), R, call.line, call.name, state)
        return None

    def _make_archive(self, call: _Call, state: _State) -> Value:
        present, base = call.arg(0, "base_name")
        if present:
            self._touch(base, W, call.line, call.name, state)
        given, root = call.arg(2, "root_dir")
        self._touch(
            root if given and not _same(root, Const(None)) else Const(_CWD),
            R,
            call.line,
            call.name,
            state,
            "all",  # everything under it goes into the archive
        )
        return None

    def _sqlite_connect(self, call: _Call, state: _State) -> Value:
        """``sqlite3.connect(database)`` reads and writes the file (created if missing). A ``file:``
        URI names it (``mode=ro``: read only) with ``uri=True``, and without it too where SQLite is
        built to take URIs everywhere (Debian's is): then the name may be either."""
        present, target = call.arg(0, "database")
        given, uri = call.arg(7, "uri")
        text = _path_text(target)
        if not present or text in (":memory:", ""):
            return Obj("sqlite")
        senses: tuple[Sense, ...] = (R, W)
        if text is not None and text[:5].lower() == "file:":
            location, _, query = text.partition("?")
            if not (given and _same(uri, Const(True))):  # a plain file name, if URIs are off
                self._touch(Const(text), W, call.line, call.name, state)
            if re.search(r"(?:^|&)mode=memory(?:&|$)", query):
                return Obj("sqlite")
            senses = (R,) if re.search(r"(?:^|&)mode=ro(?:&|$)", query) else senses
            target = Const(file_url_path(location) or location)
        for sense in senses:
            self._touch(target, sense, call.line, call.name, state)
        return Obj("sqlite")

    def _source_of(self, call: _Call, state: _State) -> Value:
        """``inspect.getsource(obj)`` reads the file ``obj`` comes from: a module's or function's own,
        unless the object is one the program made (``m.__file__ = '.env'``)."""
        present, value = call.arg(0, "object")
        if present and not isinstance(value, Ref | Func):
            self._doubt(call.line, f"{call.name} reads the file an object names, which the program may set")
        return None

    def _closing(self, call: _Call, state: _State) -> Value:
        """``contextlib.closing(x)`` enters as ``x``."""
        return call.args[0] if len(call.args) == 1 and isinstance(call.args[0], Obj) else None

    def _sys_path(self, call: _Call, state: _State) -> Value:
        self.path_changed = True
        return None


def _pattern_value(node: Node) -> Node | None:
    """The expression of ``expr as name`` (the grammar gives it no field)."""
    for child in node.named_children:
        if child.type not in ("as_pattern_target", "comment"):
            return child
    return None


def _dotted(text: str) -> str:
    return re.sub(r"[\s\\]", "", text)


def _line(node: Node) -> int:
    return int(node.start_point[0]) + 1


def _plus(left: Value, right: Value) -> Value:
    if isinstance(left, Const) and isinstance(right, Const):
        if isinstance(left.value, str) and isinstance(right.value, str):
            return _short(left.value + right.value)
        if isinstance(left.value, bytes) and isinstance(right.value, bytes):
            return _short(left.value + right.value)
    if isinstance(left, Seq) and isinstance(right, Seq) and len(left.items) + len(right.items) <= MAX_TEXT:
        return Seq(left.items + right.items, left.mutable)
    return None


def _divide(left: Value, right: Value) -> Value:
    """``path / "part"`` and ``"base" / path``."""
    if not isinstance(left, PathValue) and not isinstance(right, PathValue):
        return None
    base, part = _path_text(left), _path_text(right)
    if base is None or part is None:
        return PathValue(None)
    return PathValue(_pure(_join(base, part)))


def _path_attribute(path: PathValue, name: str) -> Value:
    text = path.text
    if name == "parent":
        return PathValue(_parent(text))
    if text is None or name not in ("name", "stem", "suffix"):
        return None
    base = text.rpartition("/")[2] if text not in (".", "/") else ""
    stem, dot, suffix = base.rpartition(".")
    if not stem:
        stem, dot, suffix = base, "", ""
    return Const({"name": base, "stem": stem, "suffix": dot + suffix}[name])


def _path_transform(path: PathValue, name: str, call: _Call, home: str, cwd: str | None) -> Value:
    """A path method that makes another path (or its spelling) from this one."""
    text = path.text
    if name in ("as_posix", "__str__", "__fspath__"):
        return Const(text) if text is not None else None
    if name not in _PATH_TRANSFORMS:
        return None
    arguments = [_path_text(value) for value in call.args]
    if text is None or call.open_ended or None in arguments:
        return PathValue(None)
    parts = [a for a in arguments if a is not None]
    result: str | None = None
    if name == "joinpath":
        result = text
        for part in parts:
            result = _join(result, part)
    elif name == "expanduser":
        result = _expand_home(text, home)
    elif name in ("resolve", "absolute"):
        result = _absolute(text, cwd)
    elif name in ("with_name", "with_suffix", "with_stem") and len(parts) == 1:
        result = _renamed(text, name, parts[0])
    return PathValue(_pure(result) if result is not None else None)


def _renamed(text: str, how: str, part: str) -> str | None:
    parent, _, base = text.rpartition("/")
    if not base or base in (".", ".."):
        return None
    stem, dot, suffix = base.rpartition(".")
    if not stem:
        stem, suffix = base, ""
    else:
        suffix = dot + suffix
    new = {"with_name": part, "with_suffix": stem + part, "with_stem": part + suffix}[how]
    return f"{parent}/{new}" if parent or text.startswith("/") else new


def _text_method(receiver: str | bytes | int | float | None, name: str, call: _Call) -> Value:
    """The str methods that build commands and paths (``" ".join``, ``.format``), on constants."""
    if not isinstance(receiver, str) or call.open_ended:
        return None
    args = tuple(_string_value(value) for value in call.args)
    if name == "join" and len(call.args) == 1 and isinstance(call.args[0], Seq):
        items = [_string_value(item) for item in call.args[0].items]
        return _short(receiver.join(i for i in items if i is not None)) if None not in items else None
    if name == "format":
        return _short(_format(receiver, call.args, call.keywords))
    if None in args or call.keywords:
        return None
    texts = [a for a in args if a is not None]
    if name in ("strip", "lstrip", "rstrip") and len(texts) <= 1:
        return Const(getattr(receiver, name)(*texts))
    if name in ("lower", "upper") and not texts:
        return Const(getattr(receiver, name)())
    if name in ("removeprefix", "removesuffix") and len(texts) == 1:
        return Const(getattr(receiver, name)(texts[0]))
    if name == "replace" and len(texts) == 2:
        return _short(receiver.replace(texts[0], texts[1]))
    if name == "split" and len(texts) <= 1 and (not texts or texts[0]):
        parts = receiver.split(texts[0]) if texts else receiver.split()
        return Seq(tuple(Const(part) for part in parts), True)
    return None


_Handler = Callable[[_Analyzer, "Node", _State], Value]
_HANDLERS: dict[str, _Handler] = {
    "module": _Analyzer._values,
    "block": _Analyzer._values,
    "expression_statement": _Analyzer._values,
    "if_statement": _Analyzer._if,
    "for_statement": _Analyzer._loop,
    "while_statement": _Analyzer._loop,
    "try_statement": _Analyzer._try,
    "with_statement": _Analyzer._with,
    "match_statement": _Analyzer._match,
    "function_definition": _Analyzer._function,
    "class_definition": _Analyzer._class,
    "decorated_definition": _Analyzer._decorated,
    "import_statement": _Analyzer._import,
    "import_from_statement": _Analyzer._import_from,
    "future_import_statement": _Analyzer._nothing,
    "global_statement": _Analyzer._names_unknown,
    "nonlocal_statement": _Analyzer._names_unknown,
    "delete_statement": _Analyzer._names_unknown,
    "exec_statement": _Analyzer._exec_statement,
    "pass_statement": _Analyzer._nothing,
    "break_statement": _Analyzer._nothing,
    "continue_statement": _Analyzer._nothing,
    "type_alias_statement": _Analyzer._nothing,
    "comment": _Analyzer._nothing,
    "assignment": _Analyzer._assignment,
    "augmented_assignment": _Analyzer._augmented,
    "named_expression": _Analyzer._walrus,
    "identifier": _Analyzer._identifier,
    "keyword_identifier": _Analyzer._identifier,
    "string": _Analyzer._string,
    "concatenated_string": _Analyzer._concatenated,
    "integer": _Analyzer._constant,
    "true": _Analyzer._constant,
    "false": _Analyzer._constant,
    "none": _Analyzer._constant,
    "float": _Analyzer._nothing,
    "ellipsis": _Analyzer._nothing,
    "list": _Analyzer._sequence,
    "tuple": _Analyzer._sequence,
    "set": _Analyzer._sequence,
    "expression_list": _Analyzer._sequence,
    "dictionary": _Analyzer._dictionary,
    "parenthesized_expression": _Analyzer._parenthesized,
    "conditional_expression": _Analyzer._conditional,
    "binary_operator": _Analyzer._binary,
    "comparison_operator": _Analyzer._values,
    "type": _Analyzer._values,
    "subscript": _Analyzer._subscript,
    "attribute": _Analyzer._attribute,
    "call": _Analyzer._call,
    "lambda": _Analyzer._lambda,
    "list_comprehension": _Analyzer._comprehension,
    "set_comprehension": _Analyzer._comprehension,
    "dictionary_comprehension": _Analyzer._comprehension,
    "generator_expression": _Analyzer._comprehension,
}

_Special = Callable[[_Analyzer, _Call, _State], Value]
_OS_PATH = "join dirname basename abspath realpath normpath expanduser expandvars split splitext"
_TEMPORARY = (
    "mkdtemp gettempdir gettempdirb mkstemp TemporaryDirectory NamedTemporaryFile TemporaryFile "
    "SpooledTemporaryFile"
)
_SPECIAL: dict[str, _Special] = {
    "pathlib.Path": _Analyzer._make_path,
    "pathlib.Path.home": _Analyzer._home,
    "pathlib.Path.from_uri": _Analyzer._from_uri,
    "pathlib.Path.cwd": _Analyzer._getcwd,
    "os.getcwd": _Analyzer._getcwd,
    "os.getcwdb": _Analyzer._getcwd,
    **{f"os.path.{name}": _Analyzer._os_path for name in _OS_PATH.split()},
    "str": _Analyzer._to_string,
    "os.fspath": _Analyzer._to_string,
    "list": _Analyzer._to_sequence,
    "tuple": _Analyzer._to_sequence,
    "dict": _Analyzer._dict,
    "shlex.split": _Analyzer._shlex,
    "shlex.quote": _Analyzer._shlex,
    "shlex.join": _Analyzer._shlex,
    "os.getenv": _Analyzer._getenv,
    "os.getenvb": _Analyzer._getenv,
    "os.putenv": _Analyzer._putenv,
    "os.chdir": _Analyzer._chdir,
    "os.fchdir": _Analyzer._chdir,
    "os.open": _Analyzer._os_open,
    "globals": _Analyzer._namespace,
    "locals": _Analyzer._namespace,
    "vars": _Analyzer._namespace,
    "getattr": _Analyzer._getattr,
    "setattr": _Analyzer._getattr,
    "delattr": _Analyzer._getattr,
    "operator.methodcaller": _Analyzer._method_caller,
    "operator.attrgetter": _Analyzer._method_caller,
    "__import__": _Analyzer._import_module,
    "importlib.import_module": _Analyzer._import_module,
    **{f"tempfile.{name}": _Analyzer._temporary for name in _TEMPORARY.split()},
    "glob.glob": _Analyzer._glob,
    "glob.iglob": _Analyzer._glob,
    "shutil.make_archive": _Analyzer._make_archive,
    "sqlite3.connect": _Analyzer._sqlite_connect,
    "contextlib.closing": _Analyzer._closing,
    **dict.fromkeys(
        _names("inspect.getsource inspect.getsourcelines inspect.findsource inspect.getcomments"),
        _Analyzer._source_of,
    ),
    "sys.path.insert": _Analyzer._sys_path,
    "sys.path.append": _Analyzer._sys_path,
    "sys.path.extend": _Analyzer._sys_path,
}


# Every call some table models: a member of a file module that is none of these is a doubt.
_MODELLED = frozenset(
    {*_FILE_CALLS, *_OPENERS, *_RUNNERS, *_SPECIAL, *_MAKERS, *_COOKIE_JARS, *_URL_CALLS}
    | {name for name, reason in _DANGERS.items() if reason}
)

# What changes the file a cookie jar was made for (``jar.filename = ...``, ``setattr``, ``__init__``).
_RETARGETS = re.compile(rb"\.\s*filename\b|setattr|__init__|__dict__|\bvars\b")
# SQL text: comments and literals ('text', and "text", which SQLite also takes as text), and the
# statements that name a file to write.
_SQL_TOKENS = re.compile(r"--[^\n]*|/\*.*?(?:\*/|$)|'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?", re.S)
_SQL_FILE_STATEMENTS = re.compile(
    r"\bATTACH\b(?:\s+DATABASE\b)?|\bVACUUM\b\s*(?:\w{1,128}|\[[^\]]{0,128}\]|`[^`]{0,128}`)?\s*\bINTO\b",
    re.I,
)


def _sql_files(sql: str) -> tuple[list[str], str | None]:
    """The files SQL text writes (``ATTACH 'f' AS x``, ``VACUUM INTO 'f'``), and a doubt when one is
    named by an expression or a URI that cannot be followed."""
    literals: dict[int, str] = {}

    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        if token[0] in "'\"":
            literals[match.start()] = token[1:-1].replace(token[0] * 2, token[0])
        return " " * len(token)

    code = _SQL_TOKENS.sub(blank, sql)
    files: list[str] = []
    for statement in _SQL_FILE_STATEMENTS.finditer(code):
        at = statement.end()
        while at < len(code) and code[at].isspace() and at not in literals:
            at += 1
        name = literals.get(at)
        if name is None:
            return files, f"SQL {statement.group(0).split()[0].upper()} names its file with an expression"
        if name[:5].lower() == "file:":
            path = file_url_path(name)
            name = path.partition("?")[0] if path is not None else name
        if name not in ("", ":memory:"):
            files.append(name)
    return files, None


def analyze(source: str, setting: Setting) -> Program:
    """What ``source`` does to files, which commands it runs and machines it contacts, and what of
    it cannot be proven. Never raises: an input the analysis cannot handle is a doubt."""
    try:
        return _analyze(source, setting)
    except RecursionError:
        return Program(doubts=("the Python source nests too deeply to be analysed",))
    except Exception as error:  # a bug must cost a question, never a crash or an allow
        return Program(doubts=(f"the Python source could not be analysed ({type(error).__name__})",))


def _analyze(source: str, setting: Setting) -> Program:
    data = source.encode("utf-8", "replace")
    root = parse(data, "python").root_node
    if _too_big(root, setting.max_nodes):
        return Program(
            doubts=(f"the Python source has more than {setting.max_nodes} syntax nodes; it is not analysed",)
        )
    analyzer = _Analyzer(data, setting, _bindings(root, data))
    if root.has_error:
        analyzer._doubt(first_error_line(root), "the code does not parse as Python")
    analyzer.run(root)
    analyzer.shadowing()
    effects = sorted(dict.fromkeys(analyzer.effects), key=lambda e: e.line)
    executions = sorted(analyzer.executions, key=lambda e: e.line)
    contacts = sorted(dict.fromkeys(analyzer.contacts), key=lambda c: c.line)
    doubts = sorted(dict.fromkeys(analyzer.doubts), key=_line_of)
    return Program(tuple(effects), tuple(executions), tuple(contacts), tuple(doubts))
