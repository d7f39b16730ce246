"""What JavaScript or TypeScript given inline to an interpreter does (``node -e``, ``node -p``, ``bun -e``,
``deno eval``, a heredoc into node), read statically with tree-sitter.

A user who allows ``node *`` still wants the program that deletes ``~`` or writes outside the project
caught, and does not want to be asked about ``console.log(JSON.stringify(x))``. So the walk follows
the source in statement order and evaluates what it can without running anything:

* constants: string literals, templates and ``+`` of known parts, arrays of them, ``[...].join``,
  ``path.join``, ``os.homedir()``, ``process.cwd()``, and names bound in straight-line code;
* the runtime: which names hold a built-in module or one of its functions (``require``, ``import``,
  destructuring, aliases), so that ``fs.rmSync`` is recognised however it is spelt;
* the working directory, moved by ``process.chdir`` and ``Deno.chdir``.

Whatever could hide an effect from such a reading is a doubt: code built from strings, modules whose
code is not read, effectful functions passed around as values, a write to a path computed at run
time, a computed member of a module. Reading a file is never a doubt by itself, except of a file named
at run time by a program that reads its input. A recursive delete, a rename or a copy acts on the whole
tree under its path (``trees``); a ``file:`` URL stands for the file it names.

The package, by concern:

* ``values``: what the analysis computes (``str``, ``Num``, ``Strings``, ``Api``, ``DATA``, None);
* ``api``, with ``api.json`` (its shape: ``api.schema.json``): knowledge of the runtimes, as data;
* ``syntax``: the grammar's node types that the walk treats alike;
* ``walker``: the state of a walk (its scopes, what it found) and the dispatch on node types;
* ``scopes``: the survey taken before the walk, names and bindings, and loading modules;
* ``calls``: what calls do (files, commands, the process's state, other machines);
* ``walk``: statements and expressions, put together with the rest as ``Analysis``, and ``analyze``.
"""

from .values import DATA, Api, Num, Strings, Value
from .walk import analyze
from .walker import MAX_NESTING

__all__ = ["DATA", "MAX_NESTING", "Api", "Num", "Strings", "Value", "analyze"]
