"""What a Python program given inline (``python3 -c CODE``, a heredoc) does, read statically.

A user who allows ``python3 *`` must still be asked about the program that deletes ``~`` or writes
outside the project, and must not be asked about the everyday program that prints, parses JSON or
reads a file. The source is parsed with tree-sitter and walked once, in statement order, with a
small abstract interpreter that never runs anything:

- Values are constants (strings, numbers, lists of constants), references to modules and what they
  hold (``os.remove``, by qualified name, so that aliases and ``from`` imports are followed), pathlib
  paths, objects of a few known kinds (file, archive, the environment), or unknown (None)
  (``values.py``).
- Names are bound flow-sensitively: a use sees the binding before it in straight-line code. A name
  bound in a branch or loop is unknown after it (and inside a loop whose body rebinds it); function
  bodies are analysed as if they ran, at the end of their scope, where a module name bound more than
  once is unknown (``scopes.py``, ``statements.py``).
- What the standard library does is data, ``api.json`` (described by ``api.schema.json``, loaded by
  ``api.py``): a call of a known function reports its effects (``effects.py``; the
  ``walked`` calls act on a whole directory tree); a path or command computed at run time, code run
  from data, an unknown module, a member of a module that touches files (``fileModules``) that no
  table models, or an effectful function passed around as a value becomes a doubt. Reading is never
  a doubt by itself, except of a file named at run time by a program that reads its input. Calls
  whose meaning is code rather than a table row are ``specials.py``.

The walk is a set of mixins over ``core.Core``, one per concern, put together in ``analyzer.py``.
"""

from .analyzer import Analyzer, analyze
from .api import Api, load
from .values import Call, Const, Func, Method, Obj, PathValue, Ref, Seq, Value

__all__ = [
    "Analyzer",
    "Api",
    "Call",
    "Const",
    "Func",
    "Method",
    "Obj",
    "PathValue",
    "Ref",
    "Seq",
    "Value",
    "analyze",
    "load",
]
