"""The Python analysis on its own: inline source -> effects, executions, contacts and doubts.

The program runs in /p, the home directory is /home/me, and a variable whose name holds SECRET or
TOKEN is a secret. Effects are written "sense:path"; doubts are matched by substrings, one per doubt,
in line order.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine.analysis.interpreters.findings import Execution, Program, Setting
from policy_engine.analysis.interpreters.modules import shadowing
from policy_engine.analysis.interpreters.python import analyze
from policy_engine.model import Sense

SETTING = Setting("/p", "/home/me", lambda name: "SECRET" in name or "TOKEN" in name)


def run(source: str, cwd: str | None = "/p", max_nodes: int = 10000) -> Program:
    return analyze(source, SETTING._replace(cwd=cwd, max_nodes=max_nodes))


def effects(program: Program) -> list[str]:
    return [f"{e.sense.value}:{e.path}" for e in program.effects]


def assert_doubts(program: Program, expected: list[str]) -> None:
    assert len(program.doubts) == len(expected), program.doubts
    for doubt, part in zip(program.doubts, expected, strict=True):
        assert doubt.startswith("line "), doubt
        assert part in doubt, (part, doubt)


# -- file effects: source -> every effect, in order; none of these is a doubt -----------------------

EFFECTS: list[tuple[str, list[str]]] = [
    # open and its relatives: the mode decides
    ("open('x')", ["read:/p/x"]),
    ("open('x', 'w')", ["write:/p/x"]),
    ("open('/etc/hosts', 'a')", ["write:/etc/hosts"]),
    ("open('x', mode='r+')", ["write:/p/x"]),
    ("open('x', 'xb')", ["write:/p/x"]),
    ("open(file='x', mode='rb')", ["read:/p/x"]),
    ("m = 'w'\nopen('x', m)", ["write:/p/x"]),
    ("import sys\nopen('x', sys.argv[1])", ["write:/p/x"]),  # a computed mode may write
    ("open('~/x', 'w')", ["write:/p/~/x"]),  # Python does not expand ~
    ("open('../up/./x', 'w')", ["write:/up/x"]),
    ("open('/dev/null', 'w')", []),
    ("import io\nio.open('x', 'w')", ["write:/p/x"]),
    ("import io\nio.FileIO('x', 'w')", ["write:/p/x"]),
    ("import io\nio.FileIO('x')", ["read:/p/x"]),
    ("import codecs\ncodecs.open('x', 'w', 'utf-8')", ["write:/p/x"]),
    ("import os\nos.open('x', os.O_RDONLY)", ["read:/p/x"]),
    ("import os\nos.open('x', os.O_WRONLY | os.O_CREAT)", ["write:/p/x"]),
    ("with open('a') as f, open('b', 'w') as g:\n    g.write(f.read())", ["read:/p/a", "write:/p/b"]),
    ("import json\njson.dump({}, open('out.json', 'w'))", ["write:/p/out.json"]),
    ("import gzip\ngzip.open('d.gz', 'wt').write('x')", ["write:/p/d.gz"]),
    ("import gzip\ngzip.open('d.gz').read()", ["read:/p/d.gz"]),
    # os
    ("import os\nos.remove('x')", ["delete:/p/x"]),
    ("import os\nos.unlink('/tmp/a')", ["delete:/tmp/a"]),
    ("import os\nos.rmdir('d')", ["delete:/p/d"]),
    ("import os\nos.removedirs('a/b')", ["delete:/p/a/b"]),
    ("import os\nos.rename('a', 'b')", ["delete:/p/a", "write:/p/b"]),
    ("import os\nos.replace('a', '/b')", ["delete:/p/a", "write:/b"]),
    ("import os\nos.renames(old='a', new='b')", ["delete:/p/a", "write:/p/b"]),
    ("import os\nos.makedirs('out/x', exist_ok=True)", ["write:/p/out/x"]),
    ("import os\nos.mkdir('d')", ["write:/p/d"]),
    ("import os\nos.chmod('/usr/bin/x', 0o777)", ["write:/usr/bin/x"]),
    ("import os\nos.chown('f', 0, 0)", ["write:/p/f"]),
    ("import os\nos.truncate('f', 0)", ["write:/p/f"]),
    ("import os\nos.utime('f')", ["write:/p/f"]),
    ("import os\nos.symlink('/etc/passwd', 'link')", ["write:/p/link"]),
    ("import os\nos.link('a', 'b')", ["read:/p/a", "write:/p/b"]),
    ("import os\nos.mkfifo('fifo')", ["write:/p/fifo"]),
    ("import os\nos.listdir()", ["read:/p"]),
    ("import os\nos.listdir('/etc')", ["read:/etc"]),
    ("import os\nfor r, d, f in os.walk('src'):\n    pass", ["read:/p/src"]),
    ("import os\nos.stat('x')", ["read:/p/x"]),
    ("import os\nos.path.exists('setup.py')", ["read:/p/setup.py"]),
    ("import os\nos.path.isdir('/x') and os.path.getsize('/y')", ["read:/x", "read:/y"]),
    # os.path computes paths
    ("import os\nos.remove(os.path.join('a', 'b', 'c'))", ["delete:/p/a/b/c"]),
    ("import os\nos.remove(os.path.join('/tmp', '/etc', 'x'))", ["delete:/etc/x"]),
    ("import os\nos.remove(os.path.expanduser('~/x'))", ["delete:/home/me/x"]),
    ("import os\nos.remove(os.path.expanduser('~'))", ["delete:/home/me"]),
    ("import os\nos.remove(os.path.abspath('x'))", ["delete:/p/x"]),
    ("import os\nos.remove(os.path.dirname('/a/b/c'))", ["delete:/a/b"]),
    ("import os\nos.remove(os.path.join(os.getcwd(), 'x'))", ["delete:/p/x"]),
    ("import os\nos.remove(os.path.expandvars('$HOME/x'))", ["delete:/home/me/x"]),
    ("import os.path\nimport os\nos.remove(os.path.normpath('a/../b'))", ["delete:/p/b"]),
    ("import os\nos.remove(os.environ['HOME'] + '/.x')", ["delete:/home/me/.x"]),
    ("import os\nos.remove(os.getenv('HOME') + os.sep + 'y')", ["delete:/home/me/y"]),
    # strings are computed when every part is known
    ("import os\nos.remove('/a' 'b' r'\\c')", ["delete:/ab\\c"]),
    ("import os\nd = '/t'\nos.remove(f'{d}/x')", ["delete:/t/x"]),
    ("import os\nos.remove('/'.join(['', 'a', 'b']))", ["delete:/a/b"]),
    ("import os\nos.remove('/%s/%d' % ('a', 1))", ["delete:/a/1"]),
    ("import os\nos.remove('/{}/{name}'.format('a', name='b'))", ["delete:/a/b"]),
    ("import os\nos.remove('/a\\x2fb')", ["delete:/a/b"]),
    ("import os\nos.remove(b'/bytes')", ["delete:/bytes"]),
    # shutil
    ("import shutil\nshutil.rmtree('build')", ["delete:/p/build"]),
    ("import shutil\nshutil.rmtree(path='/')", ["delete:/"]),
    ("import shutil\nshutil.move('a', 'b')", ["delete:/p/a", "write:/p/b"]),
    ("import shutil\nshutil.copy('a', '/b')", ["read:/p/a", "write:/b"]),
    ("import shutil\nshutil.copytree('src', 'dst')", ["read:/p/src", "write:/p/dst"]),
    ("import shutil\nshutil.copyfile('a', 'b')", ["read:/p/a", "write:/p/b"]),
    ("import shutil\nshutil.make_archive('/tmp/arch', 'zip', 'src')", ["write:/tmp/arch", "read:/p/src"]),
    ("import shutil\nshutil.unpack_archive('e.zip')", ["read:/p/e.zip", "write:/p"]),
    ("import shutil\nshutil.unpack_archive('e.zip', '/opt')", ["read:/p/e.zip", "write:/opt"]),
    ("import shutil\nshutil.chown('f', 'root')", ["write:/p/f"]),
    # pathlib
    ("from pathlib import Path\nPath('x').unlink()", ["delete:/p/x"]),
    ("from pathlib import Path\nPath('~/x').unlink()", ["delete:/p/~/x"]),
    ("from pathlib import Path\nPath('~/x').expanduser().unlink()", ["delete:/home/me/x"]),
    ("from pathlib import Path\n(Path.home() / '.ssh' / 'id').write_text('k')", ["write:/home/me/.ssh/id"]),
    ("from pathlib import Path\nPath('a', 'b').write_bytes(b'')", ["write:/p/a/b"]),
    ("from pathlib import Path\n('/x' / Path('y')).touch()", ["write:/x/y"]),
    ("from pathlib import Path\nPath.cwd().joinpath('w').mkdir()", ["write:/p/w"]),
    ("from pathlib import Path\nPath('/x/y').parent.rmdir()", ["delete:/x"]),
    ("from pathlib import Path\nPath('a/b.txt').with_suffix('.md').chmod(0o600)", ["write:/p/a/b.md"]),
    ("from pathlib import Path\nPath('a/b.txt').with_name('c').unlink()", ["delete:/p/a/c"]),
    ("from pathlib import Path\nPath('rel').resolve().unlink()", ["delete:/p/rel"]),
    ("from pathlib import Path\nPath('a').rename('b')", ["delete:/p/a", "write:/p/b"]),
    ("from pathlib import Path\nPath('a').replace('/b')", ["delete:/p/a", "write:/b"]),
    ("from pathlib import Path\nPath('l').symlink_to('/etc')", ["write:/p/l"]),
    ("from pathlib import Path\nPath('x').open('w')", ["write:/p/x"]),
    ("from pathlib import Path\nPath('x').read_text()", ["read:/p/x"]),
    ("from pathlib import Path\nPath('x').exists()", ["read:/p/x"]),
    ("from pathlib import Path\nlist(Path('src').rglob('*.py'))", ["read:/p/src"]),
    ("from pathlib import Path\nPath.unlink(Path('/u'))", ["delete:/u"]),
    ("import pathlib\npathlib.PurePath('/a').joinpath('b')\npathlib.PosixPath('/c').unlink()", ["delete:/c"]),
    ("import pathlib\nimport os\nos.remove(str(pathlib.Path('/a') / 'b'))", ["delete:/a/b"]),
    # archives, logging, databases, XML
    (
        "import zipfile\nwith zipfile.ZipFile('a.zip') as z:\n    z.extractall('out')",
        ["read:/p/a.zip", "write:/p/out"],
    ),
    ("import zipfile\nzipfile.ZipFile('a.zip', 'w').write('src.py')", ["write:/p/a.zip", "read:/p/src.py"]),
    ("import tarfile\nt = tarfile.open('c.tar')\nt.extractall()", ["read:/p/c.tar", "write:/p"]),
    (
        "import tarfile\nwith tarfile.open('b.tgz', 'w:gz') as t:\n    t.add('src')",
        ["write:/p/b.tgz", "read:/p/src"],
    ),
    ("import logging\nlogging.basicConfig(filename='app.log')", ["write:/p/app.log"]),
    ("import logging\nlogging.FileHandler('/var/log/x.log')", ["write:/var/log/x.log"]),
    (
        "import sqlite3\nsqlite3.connect('app.db')\nsqlite3.connect(':memory:')",
        ["read:/p/app.db", "write:/p/app.db"],
    ),
    (
        "import xml.etree.ElementTree as ET\nt = ET.parse('in.xml')\nt.write('out.xml')",
        ["read:/p/in.xml", "write:/p/out.xml"],
    ),
    ("import urllib.request\nurllib.request.urlretrieve('https://x', 'out.bin')", ["write:/p/out.bin"]),
    # globs read the directory their static part names
    ("import glob\nglob.glob('src/**/*.py', recursive=True)", ["read:/p/src"]),
    ("import glob\nglob.glob('*.txt')", ["read:/p"]),
    # temporary files are not reported; a dir= is written
    ("import tempfile, os\nd = tempfile.mkdtemp()\nopen(os.path.join(d, 'x'), 'w')", []),
    ("import tempfile\nwith tempfile.TemporaryDirectory() as t:\n    open(f'{t}/y', 'w')", []),
    ("import tempfile, os\nfd, path = tempfile.mkstemp()\nos.remove(path)", []),
    ("import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write('x')", []),
    ("import tempfile\ntempfile.NamedTemporaryFile(dir='.')", ["write:/p"]),
    # aliases, re-exports and from-imports are followed
    ("import os as o\no.remove('x')", ["delete:/p/x"]),
    ("from os import remove as rm\nrm('x')", ["delete:/p/x"]),
    ("from os import path\nimport os\nos.remove(path.join('a', 'b'))", ["delete:/p/a/b"]),
    ("import shutil\nshutil.os.remove('x')", ["delete:/p/x"]),
    ("import posix\nposix.unlink('x')", ["delete:/p/x"]),
    ("import builtins\nbuiltins.open('x', 'w')", ["write:/p/x"]),
    ("import os\nq = os\nq.remove('x')", ["delete:/p/x"]),
    ("try:\n    from os import remove\nexcept ImportError:\n    remove = None\nremove('x')", ["delete:/p/x"]),
    ("if True:\n    import shutil\nshutil.rmtree('y')", ["delete:/p/y"]),
    # functions and classes count as if they ran, even never called
    ("def never():\n    import shutil\n    shutil.rmtree('/data')", ["delete:/data"]),
    ("import os\nclass C:\n    def m(self):\n        os.remove('/m')", ["delete:/m"]),
    ("import os\nx = '/x'\ndef main():\n    os.remove(x)\nmain()", ["delete:/x"]),
    ("def f():\n    from os import remove\n    remove('/r')\nimport os\n", ["delete:/r"]),
    ("import os\nlambda: os.remove('/l')", ["delete:/l"]),
    ("import os\n[os.remove('/c') for _ in range(3)]", ["delete:/c"]),
]


@pytest.mark.parametrize(("source", "expected"), EFFECTS, ids=[s for s, _ in EFFECTS])
def test_effects(source: str, expected: list[str]) -> None:
    program = run(source)
    assert effects(program) == expected
    assert program.doubts == ()


def test_effect_lines_and_evidence() -> None:
    program = run("import os, shutil\n\nopen('a', 'w')\nshutil.rmtree('b')\nos.open('c', 1)\nopen('d')")
    assert [(e.line, e.evidence) for e in program.effects] == [
        (3, "open(mode 'w')"),
        (4, "shutil.rmtree"),
        (5, "os.open"),
        (6, "open"),
    ]
    program = run("from pathlib import Path\nPath('x').write_text('y')\nPath('z').open('a')")
    assert [e.evidence for e in program.effects] == ["Path.write_text", "Path.open(mode 'a')"]
    assert program.effects[0].sense is Sense.WRITE


# -- the working directory ----------------------------------------------------------------------------

CWD: list[tuple[str, list[str], list[str]]] = [
    ("import os\nos.chdir('/srv')\nos.remove('x')", ["delete:/srv/x"], []),
    ("import os\nos.remove('a')\nos.chdir('sub')\nos.remove('b')", ["delete:/p/a", "delete:/p/sub/b"], []),
    ("import os\nos.chdir('..')\nopen('x', 'w')", ["write:/x"], []),
    (
        "import os, sys\nos.chdir(sys.argv[1])\nopen('x', 'w')\nos.remove('/abs')",
        ["delete:/abs"],
        ["line 3: cannot tell where 'x'"],
    ),
    ("import os, sys\nos.chdir(sys.argv[1])\nopen('x')", [], []),  # a read is no doubt
    ("import os\nif c:\n    os.chdir('/a')\nos.remove('x')", [], ["line 4: cannot tell where 'x'"]),
    ("import os\nos.chdir('/a')\ndef f():\n    os.remove('x')", [], ["line 4: cannot tell where 'x'"]),
    ("import tempfile, os\nos.chdir(tempfile.mkdtemp())\nopen('x', 'w')", [], []),
]


@pytest.mark.parametrize(("source", "expected", "doubts"), CWD, ids=[s for s, _, _ in CWD])
def test_working_directory(source: str, expected: list[str], doubts: list[str]) -> None:
    program = run(source)
    assert effects(program) == expected
    assert_doubts(program, doubts)


def test_unknown_working_directory() -> None:
    program = run("import os\nos.remove('/abs')\nos.remove('rel')\nopen('r')", cwd=None)
    assert effects(program) == ["delete:/abs"]
    # Python imports from the working directory first: an unknown one may hold any module.
    assert_doubts(
        program,
        [
            "line 1: the working directory, where Python looks for modules first, is unknown",
            "line 3: cannot tell where 'rel' is: the working directory is unknown",
        ],
    )
    assert run("import subprocess\nsubprocess.run(['ls'])", cwd=None).executions[0].cwd is None


# -- flow-sensitive constants ------------------------------------------------------------------------

COMPUTED = "cannot tell which file os.remove deletes (computed at run time)"
FLOW: list[tuple[str, list[str], list[str]]] = [
    ("import os\np = '/tmp/a'\nos.remove(p)\np = '/etc/x'", ["delete:/tmp/a"], []),
    ("import os\np = '/a'\np = '/b'\nos.remove(p)", ["delete:/b"], []),
    ("import os\na, b = '/a', '/b'\nos.remove(b)", ["delete:/b"], []),
    ("import os\na = b = '/c'\nos.remove(a)\nos.remove(b)", ["delete:/c", "delete:/c"], []),
    ("import os\nif c:\n    p = '/in'\n    os.remove(p)", ["delete:/in"], []),  # known inside its branch
    ("import os\nif c:\n    p = '/in'\nos.remove(p)", [], [f"line 4: {COMPUTED}"]),
    ("import os\nif c:\n    p = '/x'\nelse:\n    p = '/x'\nos.remove(p)", ["delete:/x"], []),
    ("import os\np = 'a' if c else 'b'\nos.remove(p)", [], [f"line 3: {COMPUTED}"]),
    ("import os\np = '/x' if c else '/x'\nos.remove(p)", ["delete:/x"], []),
    ("import os\nfor p in ['/a', '/b']:\n    os.remove(p)", [], [f"line 3: {COMPUTED}"]),
    ("import os\np = '/c'\nwhile x:\n    os.remove(p)\n    p = '/d'", [], [f"line 4: {COMPUTED}"]),
    ("import os\np = '/c'\nfor i in x:\n    pass\nos.remove(p)", ["delete:/c"], []),
    ("import os\np = '/c'\nfor i in x:\n    p = '/d'\nos.remove(p)", [], [f"line 5: {COMPUTED}"]),
    ("import os\np = '/a'\np += 'b'\nos.remove(p)", [], [f"line 4: {COMPUTED}"]),
    ("import os\nif (p := '/w'):\n    pass\nos.remove(p)", [], [f"line 4: {COMPUTED}"]),
    ("import os\nwith open('x') as p:\n    os.remove(p)", ["read:/p/x"], []),  # an open file is no path
    ("import os\ntry:\n    p = '/t'\nexcept E as p:\n    pass\nos.remove(p)", [], [f"line 6: {COMPUTED}"]),
    (
        "import os\np = '/g'\ndef f():\n    global p\n    p = '/h'\nf()\nos.remove(p)",
        [],
        [f"line 7: {COMPUTED}"],
    ),
    ("import os\nx = '/x'\ndef main():\n    os.remove(x)\nx = '/y'\nmain()", [], [f"line 4: {COMPUTED}"]),
    ("import os\ndef f(p):\n    os.remove(p)", [], [f"line 3: {COMPUTED}"]),
    ("import os\np = '/o'\ndef f(p='/d'):\n    os.remove(p)", [], [f"line 4: {COMPUTED}"]),
    ("import os\nclass C:\n    p = '/k'\nos.remove(p)", [], [f"line 4: {COMPUTED}"]),
    ("import os\nmatch x:\n    case 1:\n        p = '/m'\nos.remove(p)", [], [f"line 5: {COMPUTED}"]),
    ("import os\np = '/x'\ndel p\nos.remove(p)", [], [f"line 4: {COMPUTED}"]),
]


@pytest.mark.parametrize(("source", "expected", "doubts"), FLOW, ids=[s for s, _, _ in FLOW])
def test_flow(source: str, expected: list[str], doubts: list[str]) -> None:
    program = run(source)
    assert effects(program) == expected
    assert_doubts(program, doubts)


# -- commands ------------------------------------------------------------------------------------------

EXECUTIONS: list[tuple[str, list[Execution]]] = [
    (
        "import subprocess\nsubprocess.run(['git', 'status'])",
        [Execution(2, "subprocess.run", ("git", "status"), cwd="/p")],
    ),
    (
        "import subprocess\nsubprocess.run('ls -la', shell=True)",
        [Execution(2, "subprocess.run", shell="ls -la", cwd="/p")],
    ),
    (
        "import subprocess\nsubprocess.Popen('ls -la')",
        [Execution(2, "subprocess.Popen", ("ls -la",), cwd="/p")],
    ),
    (
        "import subprocess\nsubprocess.call(['echo hi'], shell=True)",
        [Execution(2, "subprocess.call", shell="echo hi", cwd="/p")],
    ),
    (
        "import subprocess\nsubprocess.check_output(('ls',), cwd='/tmp')",
        [Execution(2, "subprocess.check_output", ("ls",), cwd="/tmp")],
    ),
    (
        "import subprocess\nsubprocess.run(['ls'], cwd='sub')",
        [Execution(2, "subprocess.run", ("ls",), cwd="/p/sub")],
    ),
    (
        "import subprocess\nsubprocess.check_call(['ls', '-l'], executable='/bin/busybox')",
        [Execution(2, "subprocess.check_call", ("/bin/busybox", "-l"), cwd="/p")],
    ),
    (
        "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pip'])",
        [Execution(2, "subprocess.run", ("python3", "-m", "pip"), cwd="/p")],
    ),
    (
        "import subprocess, shlex\nsubprocess.run(shlex.split('git log -n 1'))",
        [Execution(2, "subprocess.run", ("git", "log", "-n", "1"), cwd="/p")],
    ),
    (
        "import subprocess\nsubprocess.run('git diff'.split())",
        [Execution(2, "subprocess.run", ("git", "diff"), cwd="/p")],
    ),
    (
        "import subprocess\nb = ['git']\nsubprocess.run(b + ['pull'])",
        [Execution(3, "subprocess.run", ("git", "pull"), cwd="/p")],
    ),
    (
        "import subprocess\ncmd = ['make']\nsubprocess.run(cmd)",
        [Execution(3, "subprocess.run", ("make",), cwd="/p")],
    ),
    ("import os\nos.system('rm -rf /')", [Execution(2, "os.system", shell="rm -rf /", cwd="/p")]),
    ("import os\nd = 'x'\nos.popen(f'ls {d}')", [Execution(3, "os.popen", shell="ls x", cwd="/p")]),
    ("import os\nos.chdir('/w')\nos.system('make')", [Execution(3, "os.system", shell="make", cwd="/w")]),
    ("import os\nos.execvp('vim', ['vim', 'x'])", [Execution(2, "os.execvp", ("vim", "x"), cwd="/p")]),
    (
        "import os\nos.execl('/bin/sh', 'sh', '-c', 'id')",
        [Execution(2, "os.execl", ("/bin/sh", "-c", "id"), cwd="/p")],
    ),
    (
        "import os\nos.execle('/bin/sh', 'sh', '-c', 'id', {})",
        [Execution(2, "os.execle", ("/bin/sh", "-c", "id"), cwd="/p")],
    ),
    (
        "import os\nos.spawnlp(os.P_WAIT, 'cp', 'cp', 'a', 'b')",
        [Execution(2, "os.spawnlp", ("cp", "a", "b"), cwd="/p")],
    ),
    (
        "import os\nos.posix_spawn('/bin/ls', ['ls', '/'], {})",
        [Execution(2, "os.posix_spawn", ("/bin/ls", "/"), cwd="/p")],
    ),
    ("import pty\npty.spawn('/bin/bash')", [Execution(2, "pty.spawn", ("/bin/bash",), cwd="/p")]),
    (
        "import asyncio\nasyncio.create_subprocess_exec('ls', '-la', cwd='/tmp')",
        [Execution(2, "asyncio.create_subprocess_exec", ("ls", "-la"), cwd="/tmp")],
    ),
    (
        "import asyncio\nasyncio.create_subprocess_shell('echo hi')",
        [Execution(2, "asyncio.create_subprocess_shell", shell="echo hi", cwd="/p")],
    ),
    (
        "import subprocess, os\nsubprocess.run(['env'], env={**os.environ, 'A': '1'})",
        [Execution(2, "subprocess.run", ("env",), cwd="/p")],
    ),
    ("from subprocess import run as r\nr(['id'])", [Execution(2, "subprocess.run", ("id",), cwd="/p")]),
]


@pytest.mark.parametrize(("source", "expected"), EXECUTIONS, ids=[s for s, _ in EXECUTIONS])
def test_executions(source: str, expected: list[Execution]) -> None:
    program = run(source)
    assert list(program.executions) == expected
    assert program.doubts == ()


# -- other machines ----------------------------------------------------------------------------------

CONTACTS: list[tuple[str, list[str]]] = [
    ("import socket\nsocket.socket()", ["socket.socket"]),
    ("import socket\nsocket.create_connection(('h', 80))", ["socket.create_connection"]),
    ("import urllib.request\nurllib.request.urlopen('https://x')", ["urllib.request.urlopen"]),
    ("from urllib.request import Request\nRequest('https://x')", ["urllib.request.Request"]),
    ("import requests\nrequests.get('https://x')", ["requests.get"]),
    ("import requests\ns = requests.Session()\ns.get('u')", ["requests.Session"]),
    ("import httpx\nhttpx.post('https://x')", ["httpx.post"]),
    ("import http.client\nhttp.client.HTTPSConnection('h')", ["http.client.HTTPSConnection"]),
    ("import ftplib\nftplib.FTP('h')", ["ftplib.FTP"]),
    ("import smtplib\nsmtplib.SMTP('h')", ["smtplib.SMTP"]),
    (
        "import http.server\nclass H(http.server.BaseHTTPRequestHandler):\n    pass",
        ["http.server.BaseHTTPRequestHandler"],
    ),
    ("import urllib.parse\nurllib.parse.quote('a b')", []),
]


@pytest.mark.parametrize(("source", "expected"), CONTACTS, ids=[s for s, _ in CONTACTS])
def test_contacts(source: str, expected: list[str]) -> None:
    program = run(source)
    assert [c.evidence for c in program.contacts] == expected
    assert program.doubts == ()


# -- doubts: what cannot be proven -------------------------------------------------------------------

DOUBTS: list[tuple[str, list[str]]] = [
    # code run at run time
    ("eval('1')", ["line 1: eval runs code built at run time"]),
    ("exec(compile('x', 'f', 'exec'))", ["compile compiles code", "exec runs code"]),
    ("__import__('os').system('id')", ["__import__ imports a module chosen at run time"]),
    ("import importlib\nimportlib.import_module('os')", ["line 2: importlib.import_module"]),
    ("import runpy\nrunpy.run_path('x.py')", ["runpy.run_path runs another Python program"]),
    ("import ctypes", ["imports ctypes, which can call any C function"]),
    ("import pickle\npickle.loads(b'')", ["pickle.loads loads data that can run any code"]),
    ("import marshal\nmarshal.loads(b'')", ["marshal.loads"]),
    ("import shelve\nshelve.open('db')", ["shelve.open"]),
    ("import os\nos.fork()", ["os.fork forks the process"]),
    ("import os\nos.kill(1, 9)", ["os.kill sends a signal"]),
    ("import os\nos.killpg(1, 9)", ["os.killpg sends a signal"]),
    ("import signal\nsignal.pthread_kill(1, 9)", ["signal.pthread_kill"]),
    ("import sys\nsys.settrace(f)", ["sys.settrace hooks into the interpreter"]),
    ("import code\ncode.interact()", ["code.interact starts an interactive interpreter"]),
    ("import pdb\npdb.set_trace()", ["pdb.set_trace starts the debugger"]),
    ("import webbrowser\nwebbrowser.open('https://x')", ["webbrowser.open opens a web browser"]),
    ("import timeit\ntimeit.timeit('x')", ["runs code given as a string"]),
    # imports whose effects are unknown
    ("import numpy", ["imports numpy, whose effects are not known"]),
    ("import foo.bar as b", ["imports foo.bar"]),
    ("from . import x", ["imports from a local package (.)"]),
    ("from .mod import y", ["imports from a local package (.mod)"]),
    ("from os import *", ["imports every name of os"]),
    ("from shutil import *\nrmtree('x')", ["imports every name of shutil"]),
    ("import site", ["imports site"]),
    ("import sys\nsys.path.insert(0, '.')\nimport json", ["line 3: imports json after sys.path was changed"]),
    # evasions
    ("import os\ngetattr(os, 'sys' + 'tem')('ls')", ["getattr on os can reach any of its functions"]),
    ("import os\ngetattr(os, name)", ["getattr on os"]),
    ("getattr(x, name)()", ["getattr with a computed name"]),
    ("getattr(p, 'unlink')()", ["getattr reaches .unlink"]),
    ("import os\nsetattr(os, 'x', 1)", ["setattr on os"]),
    ("import os\nf = os.remove", ["os.remove is used as a value"]),
    ("import os\nlist(map(os.remove, paths))", ["os.remove is used as a value"]),
    ("import os\n[os.system][0]('ls')", ["os.system is used as a value"]),
    ("import shutil, atexit\natexit.register(shutil.rmtree, 'x')", ["shutil.rmtree is used as a value"]),
    ("import os\nd = {'rm': os.unlink}", ["os.unlink is used as a value"]),
    ("from pathlib import Path\ncb = Path('x').unlink", ["Path.unlink is used as a value"]),
    ("import os\nrun(os)", ["the os module is passed as a value"]),
    ("import os\nos.__dict__['system']('x')", ["reaches Python internals through .__dict__"]),
    ("().__class__.__mro__[1].__subclasses__()", [".__mro__", ".__subclasses__"]),
    ("globals()['os']", ["reaches names through globals()"]),
    ("import os\nvars(os)['system']('y')", ["reaches names through globals() or vars()"]),
    ("import sys\nsys.modules['os']", ["reaches a module through sys.modules"]),
    ("import sys\nsys.modules['json'] = x", ["changes the loaded modules"]),
    ("import os\nos.remove = print", ["replaces os.remove"]),
    ("import sys\nsys._getframe(1)", ["sys._getframe reaches into the interpreter"]),
    ("import operator\noperator.methodcaller('unlink')(p)", ["operator.methodcaller reaches .unlink"]),
    ("__builtins__['eval']('1')", ["reaches a member of builtins by a subscript"]),
    ("getattr(__builtins__, 'ex' + 'ec')('x')", ["getattr on builtins", "exec runs code"]),
    ("import os\nos.remove.__call__('/x')", ["reaches Python internals through .__call__"]),
    ("import os\n(lambda f: f('/x'))(os.remove)", ["os.remove is used as a value"]),
    ("import os\ndef f(g=os.remove):\n    g('x')", ["os.remove is used as a value"]),
    ("import os\n@os.system\ndef f():\n    pass", ["os.system is used as a value"]),
    (
        "import os\nglobals().update(x=os.remove)",
        ["os.remove is used as a value", "reaches names through globals()"],
    ),
    ("import shutil\nshutil.rmtree(*['/x'])", ["cannot tell which file shutil.rmtree deletes"]),
    ("import shutil\nshutil.rmtree(**{'path': '/y'})", ["cannot tell which file shutil.rmtree deletes"]),
    ("from pathlib import Path\nfn = getattr(Path('/y'), 'unlink')", ["getattr reaches .unlink"]),
    ("import fcntl\nfcntl.ioctl(0, 0x5412, b'x')", ["fcntl.ioctl controls a device directly"]),
    ("import os\nos.system(cmd)", ["line 2: os.system runs a command computed at run time"]),
    (
        "import subprocess\nsubprocess.run(['git', 'commit', '-m', msg])",
        ["subprocess.run runs a command computed"],
    ),
    ("import subprocess\nsubprocess.run('x', shell=flag)", ["subprocess.run runs a command computed"]),
    ("import os\nos.execv(p, ['x'])", ["os.execv runs a command computed"]),
    ("loop.subprocess_exec(f, 'ls')", [".subprocess_exec() runs a command computed"]),
    # paths that cannot be told
    ("open(p, 'w')", ["line 1: cannot tell which file open(mode 'w') writes (computed at run time)"]),
    ("import io\nio.FileIO(p, 'w')", ["cannot tell which file io.FileIO(mode 'w') writes"]),
    (
        "import shutil\nshutil.rmtree(p)",
        ["cannot tell which file shutil.rmtree deletes (computed at run time)"],
    ),
    ("import os, sys\nos.remove(sys.argv[1])", ["cannot tell which file os.remove deletes"]),
    ("import shutil\nshutil.copy('a', d)", ["cannot tell which file shutil.copy writes"]),
    ("p.unlink()", ["line 1: cannot tell which file .unlink() touches"]),
    ("p.write_text('x')", ["cannot tell which file .write_text() touches"]),
    ("p.rename('b')", ["cannot tell which file .rename() touches"]),
    ("p.replace('b')", ["cannot tell which file .replace() touches"]),
    ("p.mkdir(parents=True)", ["cannot tell which file .mkdir() touches"]),
    ("p.open('w')", ["cannot tell which file .open() writes"]),
    ("z.extractall()", ["cannot tell which file .extractall() touches"]),
    ("from pathlib import Path\nPath(x).touch()", ["cannot tell which file .touch() touches"]),
    (
        "from pathlib import Path\nimport sys\n(Path(sys.argv[1]) / 'x').unlink()",
        ["cannot tell which file .unlink() touches"],
    ),
    (
        "from pathlib import Path\nfor f in Path('.').glob('*.pyc'):\n    f.unlink()",
        ["line 3: cannot tell which file .unlink()"],
    ),
    (
        "import tempfile, os\nd = tempfile.mkdtemp()\nos.remove(os.path.join(d, '..', '..', 'x'))",
        ["climbs out of the temporary directory"],
    ),
    ("import tempfile, os\nos.remove('/x' + tempfile.mkdtemp())", ["built around a temporary directory"]),
    (
        "import os\ncmd = ['echo']\ncmd.append('x')\nimport subprocess\nsubprocess.run(cmd)",
        ["runs a command computed"],
    ),
    (
        "import subprocess\ndef add(c):\n    c.append('-rf')\na = ['rm']\nadd(a)\nsubprocess.run(a)",
        ["runs a command computed"],
    ),
    # the environment
    ("import os\nos.environ['AWS_SECRET']", ["reads $AWS_SECRET, which looks like a secret"]),
    ("import os\nos.environ.get('GH_TOKEN')", ["reads $GH_TOKEN"]),
    ("import os\nos.getenv('MY_SECRET', '')", ["reads $MY_SECRET"]),
    ("import os\nos.environ.get(name)", ["reads an environment variable whose name is computed"]),
    ("import os\nprint(os.environ)", ["reads every environment variable, secrets included"]),
    ("import os, json\njson.dumps(dict(os.environ))", ["reads every environment variable"]),
    ("import os\nfor k, v in os.environ.items():\n    pass", ["reads every environment variable"]),
    ("import os\nprint(os.environ.copy())", ["reads every environment variable"]),
    ("import os\nenv = os.environ\nprint(env)", ["line 3: reads every environment variable"]),
    (
        "import os, subprocess\nos.environ['PATH'] = '/x'\nsubprocess.run(['ls'])",
        ["runs a command after the environment was changed ($PATH)"],
    ),
    ("import os\nos.putenv('LD_PRELOAD', 'x')\nos.system('ls')", ["($LD_PRELOAD)"]),
    # the source itself
    ("def f(:\n    pass", ["line 1: the code does not parse as Python"]),
    ("x = 1\nif x\n    y = 2", ["line 2: the code does not parse as Python"]),
    ("exec 'code'", ["exec runs code built at run time"]),
]


@pytest.mark.parametrize(("source", "doubts"), DOUBTS, ids=[s for s, _ in DOUBTS])
def test_doubts(source: str, doubts: list[str]) -> None:
    assert_doubts(run(source), doubts)


def test_resolved_evasions_still_report_what_they_do() -> None:
    """Where the name is constant, the function reached is followed as well as doubted."""
    program = run("__import__('os').system('id')\nimport os\ngetattr(os, 'sys' + 'tem')('ls')")
    assert [e.shell for e in program.executions] == ["id", "ls"]
    program = run(
        "import os\nf = os.remove\nf('y')\nimport importlib\nimportlib.import_module('os').remove('q')"
    )
    assert effects(program) == ["delete:/p/y", "delete:/p/q"]
    assert len(program.doubts) == 2


def test_syntax_error_keeps_other_effects() -> None:
    program = run("import os\nos.remove('/a')\nx = (\nos.remove('/b')\n)]")
    assert "delete:/a" in effects(program)
    assert any("does not parse as Python" in d for d in program.doubts)


def test_too_many_nodes() -> None:
    source = "import os\nos.remove('/x')\n" + "print(1)\n" * 50
    program = run(source, max_nodes=40)
    assert program == Program(doubts=("the Python source has more than 40 syntax nodes; it is not analysed",))
    assert effects(run(source, max_nodes=1000)) == ["delete:/x"]


@pytest.mark.parametrize(
    "source",
    [
        "(" * 3000 + "1" + ")" * 3000,
        "x = " + " + ".join(["'a'"] * 2000),
        "".join("    " * i + "if x:\n" for i in range(200)) + "    " * 200 + "pass\n",
        "".join("    " * i + f"def f{i}():\n" for i in range(300)) + "    " * 300 + "pass\n",
        "f(" * 2000 + ")" * 2000,
        "(" * 2000 + "a" + ")" * 2000 + " = 1",
    ],
    ids=["parentheses", "sum", "ifs", "functions", "calls", "target"],
)
def test_deep_nesting_is_a_doubt(source: str) -> None:
    program = run(source, max_nodes=10**6)
    assert program.doubts
    assert any("nest" in d for d in program.doubts)


def test_string_doubling_is_bounded() -> None:
    program = run("import os\na = '/x'\n" + "a = a + a\n" * 40 + "os.remove(a)")
    assert program.effects == ()
    assert_doubts(program, [COMPUTED])


# -- harmless programs: no doubt, nothing but reads (and the commands they plainly run) ------------

HARMLESS: list[str] = [
    "print('hello')",
    "import json\nprint(json.dumps({'a': [1, 2]}, indent=2))",
    "import json\nd = json.loads('{\"a\": 1}')\nprint(d['a'])",
    "import re\nm = re.match(r'(\\d+)-(\\d+)', '12-34')\nif m:\n    print(m.group(1), m.groups())",
    "import re\nprint(re.sub(r'\\s+', ' ', 'a  b'), re.findall('a', 'aa'))",
    "import math, statistics\nprint(math.sqrt(2), statistics.mean([1, 2, 3]))",
    "import sys\nprint(sys.argv, sys.version, sys.platform)\nsys.stdout.write('x\\n')\nsys.stderr.write('y')",
    "import sys\nsys.exit(0)",
    "import sys\nprint('x', file=sys.stderr)",
    "import sys\ndata = sys.stdin.read()\nprint(len(data.splitlines()))",
    "with open('data.txt') as f:\n    for line in f:\n        print(line.strip())",
    "with open('x') as f:\n    print(f.read())",
    "lines = []\nlines.append(1)\nlines.extend([2])\nprint(lines)",
    "d = {'a': 1}\nfor k, v in d.items():\n    print(k, v)\nd.setdefault('b', []).append(2)\nd.update(c=3)",
    "s = 'hello world'\nprint(s.replace('o', '0').upper().split(), s.title())",
    "x = input()\nprint(x.replace('a', 'b'), x.strip().lower())",
    "import datetime\nnow = datetime.datetime.now()\nprint(now.replace(microsecond=0).isoformat())",
    "import collections\nc = collections.Counter('hello')\nprint(c.most_common(2))",
    "from collections import defaultdict, namedtuple\nd = defaultdict(list)\nd['a'].append(1)\nP = namedtuple('P', 'x y')",
    "import textwrap\nprint(textwrap.dedent('  a\\n  b'), textwrap.fill('x' * 100, 20))",
    "import itertools\nprint(list(itertools.chain([1], [2])), list(itertools.product('ab', repeat=2)))",
    "name = 'x'\nprint(f'{name!r} has {len(name)} chars: {name:>10}')",
    "print([x * 2 for x in range(10) if x % 2])\nprint({k: v for k, v in zip('ab', 'cd')})",
    "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n    def __repr__(self):\n        return f'Point({self.x}, {self.y})'\nprint(Point(1, 2))",
    "class A(Exception):\n    def __init__(self, msg):\n        super().__init__(msg)\n        self.msg = msg",
    "try:\n    int('x')\nexcept ValueError as e:\n    print('bad', e)\nfinally:\n    print('done')",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\ndef main():\n    for i in range(10):\n        print(i, fib(i))\n\n\nif __name__ == '__main__':\n    main()",
    "import subprocess\nr = subprocess.run(['git', 'status'], capture_output=True, text=True)\nprint(r.stdout)",
    "import os\nprint(os.environ.get('HOME'), os.environ['USER'])",
    "import os\nprint(os.getcwd(), os.path.join('a', 'b'))",
    "import os\nprint(os.listdir('.'), os.path.exists('setup.py'))",
    "from pathlib import Path\nprint(Path('README.md').read_text()[:100])",
    "from pathlib import Path\nfor p in Path('.').glob('*.py'):\n    print(p.name, p.stat().st_size)",
    "import argparse\np = argparse.ArgumentParser()\np.add_argument('--x', type=int)\nargs = p.parse_args()\nprint(vars(args))",
    "import hashlib, base64, uuid, struct\nprint(hashlib.sha256(b'x').hexdigest(), base64.b64encode(b'x'), uuid.uuid4(), struct.pack('<I', 1))",
    "import csv, io\nbuf = io.StringIO()\ncsv.writer(buf).writerow(['a'])\nprint(buf.getvalue())",
    "import csv\nwith open('data.csv', newline='') as f:\n    for row in csv.DictReader(f):\n        print(row)",
    "import logging\nlogging.basicConfig(level=logging.INFO)\nlogging.getLogger(__name__).info('hi')",
    "from dataclasses import dataclass, field\nfrom typing import List, Optional\n@dataclass\nclass A:\n    x: int = 0\n    ys: List[int] = field(default_factory=list)\n    z: Optional[str] = None",
    "import functools\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n\nprint(f(3))",
    "import asyncio\nasync def main():\n    await asyncio.sleep(0.1)\nasyncio.run(main())",
    "import threading, queue\nq = queue.Queue()\ndef worker():\n    while True:\n        print(q.get())\nthreading.Thread(target=worker, daemon=True).start()",
    "import glob, os\nfor f in glob.glob('src/**/*.py', recursive=True):\n    print(f, os.path.getsize(f))",
    "import json\nwith open('package.json') as f:\n    data = json.load(f)\nprint(data.get('name'), data['version'])",
    "import time, random\nprint(random.choice([1, 2]), random.randint(1, 6), time.time(), time.strftime('%Y'))",
    "data = [3, 1, 2]\ndata.sort(key=lambda x: -x)\nprint(sorted(data, key=str), max(data), any(x > 2 for x in data))",
    "import difflib\nprint('\\n'.join(difflib.unified_diff(['a'], ['b'])))",
    "import enum\nclass Color(enum.Enum):\n    RED = 1\nprint(Color.RED.name)",
    "import decimal, fractions\nprint(decimal.Decimal('1.1') + 1, fractions.Fraction(1, 3))",
    "import platform, getpass\nprint(platform.system(), getpass.getuser())",
    "print(b'abc'.decode(), 'a,b'.split(','), '%s-%d' % ('a', 1), '{}-{}'.format(1, 2))",
    "import os\nfor root, dirs, files in os.walk('.'):\n    for f in files:\n        print(os.path.join(root, f))",
    "import shlex\nprint(shlex.split(\"a 'b c'\"), shlex.quote('x y'))",
    "import pprint, copy\npprint.pprint(copy.deepcopy({'a': [1]}))",
    "import typing\nT = typing.TypeVar('T')\ndef first(xs: typing.List[T]) -> T:\n    return xs[0]",
    "import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()) as buf:\n    print('x')\nprint(buf.getvalue())",
    "import xml.etree.ElementTree as ET\nroot = ET.fromstring('<a><b/></a>')\nprint([c.tag for c in root])",
    "import heapq, bisect\nh = [3, 1]\nheapq.heapify(h)\nbisect.insort(h, 2)",
    "import traceback, warnings\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.print_exc()",
    "import importlib.metadata\nprint(importlib.metadata.version('pip'))",
    "import os, subprocess\nsubprocess.check_output(['git', 'log', '-1'], cwd=os.getcwd(), env=os.environ)",
    "import os, subprocess\nenv = os.environ.copy()\nenv['X'] = '1'\nsubprocess.run(['make'], env=env)",
    "import sys\nprint(isinstance(sys, object), hasattr(sys, 'argv'))",
    "import subprocess\ntry:\n    subprocess.run(['ls'], check=True)\nexcept subprocess.CalledProcessError as e:\n    print(e.returncode)",
    "import os\nos._exit(0)",
    "x = 1\nx += 1\ny = x if x else 0\nprint(-x, not y, x ** 2, x // 2, [*range(3)], {**{'a': 1}})",
    "from __future__ import annotations\nimport os\ndef f(p: os.PathLike) -> None:\n    print(p)",
    "import datetime as dt\nprint(dt.date.today().replace(day=1))",
    "import string\nprint(string.Template('$x').substitute(x=1))",
    "import subprocess\ntry:\n    pass\nexcept (subprocess.CalledProcessError, OSError) as e:\n    print(isinstance(e, (OSError,)))",
    "import os, shutil\nprint(shutil.which('git'), os.cpu_count(), os.getpid(), os.sep.join(['a', 'b']))",
    "import os\nfiles = sorted(os.listdir('.'), key=os.path.getmtime)\nprint(list(map(os.path.basename, files)))",
    # version probes and documentation: a module's __version__ is data, help(obj) prints its doc
    "import sys\nprint(sys.version)",
    "import platform\nprint(platform.python_version())",
    "import requests\nprint(requests.__version__)",
    "import requests\nv = requests.__version__\nprint(v)",
    "import json\nprint(json.__file__, json.__name__, json.__doc__)",
    "help(str.split)",
    "help(str)",
    "help(len)",
    "import json\nhelp(json)",
    "import os\nhelp(os)",
    "import json, sys\nprint(json.load(open('package.json'))['version'])",
    "import ast\nast.parse(open('src/app/core.py').read())",
]


@pytest.mark.parametrize("source", HARMLESS)
def test_harmless(source: str) -> None:
    program = run(source)
    assert program.doubts == ()
    assert program.contacts == ()
    assert all(e.sense is Sense.READ for e in program.effects), program.effects
    assert all(e.argv is not None and e.argv[0] in ("git", "ls", "make") for e in program.executions)


HELP_DOUBT = "help of a name or of nothing looks it up or starts the interactive help"


@pytest.mark.parametrize(
    "source",
    [
        "help()",  # the interactive help reads what to look up (and import) from its input
        "help('os')",  # a name is imported to be documented
        "x = 'a'\nhelp(x)",
        "import sys\nhelp(sys.argv[1])",  # may be a name
        "help(*['os'])",
        "help(request='os')",
        "help(str, 1)",
        "import sys\nhelp(sys.platform)",  # a module's member may be a string: 'linux' is imported
        "import json\nhelp(json.load)",  # (a function, but not told apart from a string)
        "help(str.split.__text_signature__)",
        "import os\nos.environ['PAGER'] = 'sh -c x'\nhelp(str)",  # pydoc pages through $PAGER on a terminal
    ],
)
def test_help_of_what_may_be_a_name_is_a_doubt(source: str) -> None:
    assert any(HELP_DOUBT in doubt for doubt in run(source).doubts), run(source).doubts


def test_a_private_name_beside_a_plain_dunder_is_still_a_doubt() -> None:
    assert_doubts(
        run("import requests\nprint(requests._internal_utils)"), ["reaches requests._internal_utils"]
    )
    assert_doubts(run("import os\nprint(os.__dict__)"), ["reaches Python internals through .__dict__"])


# -- modules of the working directory, which Python imports first ------------------------------------


def test_a_module_named_as_the_import_in_the_working_directory_is_run(tmp_path: Path) -> None:
    (tmp_path / "requests.py").write_text("import os\nos.system('x')\n")
    program = run("import requests\nprint(requests.__version__)", cwd=str(tmp_path))
    assert effects(program) == [f"exec:{tmp_path}/requests.py"]
    assert_doubts(program, [f"imports requests from {tmp_path}/requests.py, in the working directory"])


@pytest.mark.parametrize("layout", ["requests/__init__.py", "requests/api.py"])
def test_a_package_or_namespace_directory_of_the_name_is_run(tmp_path: Path, layout: str) -> None:
    (tmp_path / layout).parent.mkdir()
    (tmp_path / layout).write_text("")
    program = run("import requests", cwd=str(tmp_path))
    assert effects(program) == [f"exec:{tmp_path}/requests"]


def test_a_standard_library_name_in_the_working_directory_runs_whatever_the_program_imports(
    tmp_path: Path,
) -> None:
    (tmp_path / "re.py").write_text("")  # json imports re; so would a traceback printer, on an error
    for source in ("import json\nprint(json.dumps(1))", "print(1)"):
        program = run(source, cwd=str(tmp_path))
        assert effects(program) == [f"exec:{tmp_path}/re.py"]
        assert_doubts(
            program, ["re.py in the working directory is imported in place of the standard library's re"]
        )


def test_an_installed_package_may_import_any_module_of_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "simplejson.py").write_text("")  # requests tries `import simplejson` first
    (tmp_path / "notes").mkdir()  # no __init__.py and no name the program imports: not a module
    assert_doubts(
        run("import requests", cwd=str(tmp_path)),
        [
            "imports requests, an installed package, which may import a module of the working directory (simplejson.py)"
        ],
    )
    assert run("import json", cwd=str(tmp_path)).doubts == ()  # the standard library imports its own


def test_imports_after_a_change_of_directory_look_there(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "json.py").write_text("")
    program = run("import os\nos.chdir('sub')\nimport json", cwd=str(tmp_path))
    assert effects(program) == [f"exec:{tmp_path}/sub/json.py"]


def test_what_a_module_run_with_dash_m_would_find_first(tmp_path: Path) -> None:
    """``python -m json.tool`` imports json from the working directory first too (``shadowing`` is
    what the shell analysis asks for a module it runs)."""
    assert shadowing(str(tmp_path), ["json.tool"]) == []
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "__init__.py").write_text("")
    [shadow] = shadowing(str(tmp_path), ["json.tool"])
    assert (shadow.module, shadow.path) == ("json.tool", f"{tmp_path}/json")


def test_a_module_an_earlier_command_may_have_written_is_a_doubt() -> None:
    program = analyze("print(1)", SETTING._replace(settled=False))
    assert_doubts(program, ["an earlier command may have written a module where Python looks first"])


def test_harmless_reads_are_reported() -> None:
    assert effects(run("with open('data.txt') as f:\n    print(f.read())")) == ["read:/p/data.txt"]
    assert effects(run("import os\nos.remove('x') if False else None\nprint(os.path.isfile('y'))")) == [
        "delete:/p/x",
        "read:/p/y",
    ]


# -- red-team round 2 (finding 1.6): trees, commands, file: URLs, the standard library's files ---------

TREES: list[tuple[str, list[str]]] = [
    ("import shutil\nshutil.rmtree('build')", ["delete:/p/build:all"]),
    ("import shutil\nshutil.move('a', 'b')", ["delete:/p/a:all", "write:/p/b"]),
    ("import os\nos.rename('a', 'b')\nos.replace('c', 'd')", ["delete:/p/a:all", "write:/p/b", "delete:/p/c:all", "write:/p/d"]),
    ("import shutil\nshutil.copytree('src', '/tmp/x')", ["read:/p/src:all", "write:/tmp/x"]),
    ("import shutil\nshutil.copy('a', 'b')", ["read:/p/a", "write:/p/b"]),
    ("import os\nos.rmdir('d')\nos.remove('f')", ["delete:/p/d", "delete:/p/f"]),
    ("import shutil\nshutil.make_archive('out', 'zip')", ["write:/p/out", "read:/p:all"]),
    ("import tarfile\ntarfile.open('x.tar', 'w').add('src')", ["write:/p/x.tar", "read:/p/src:all"]),
    ("from pathlib import Path\nPath('a').rename('b')", ["delete:/p/a:all", "write:/p/b"]),
    ("from pathlib import Path\nPath('a/f').copy_into('d')", ["read:/p/a/f:all", "write:/p/d/f"]),
    ("from pathlib import Path\nPath('f').move_into('/tmp')", ["delete:/p/f:all", "write:/tmp/f"]),
]  # fmt: skip


@pytest.mark.parametrize(("source", "expected"), TREES, ids=[s for s, _ in TREES])
def test_what_walks_a_whole_tree(source: str, expected: list[str]) -> None:
    program = run(source)
    assert [
        f"{e.sense.value}:{e.path}" + (f":{e.tree}" if e.tree else "") for e in program.effects
    ] == expected
    assert program.doubts == ()


STANDARD_LIBRARY: list[tuple[str, list[str], list[str]]] = [
    # file: URLs read the file they name
    ("import urllib.request as u\nu.urlopen('file:///etc/passwd')", ["read:/etc/passwd"], []),
    ("import urllib.request as u\nu.urlopen(' <URL:file://localhost/a%2Fb/%2essh> ')", ["read:/a/b/.ssh"], []),
    ("import urllib.request as u\nu.urlretrieve('file:x', 'y')", ["write:/p/y", "read:/p/x"], []),
    ("import urllib.request as u\nu.urlopen(u.Request('file:/k'))", ["read:/k"], []),
    ("import urllib.request as u\nu.build_opener().open('file:/k')", ["read:/k"], []),
    ("import urllib.request as u\nu.urlopen('https://example.com')", [], []),
    ("import urllib.request as u, sys\nu.urlopen(sys.argv[1])", [], []),
    ("import urllib.request as u, sys\nu.urlopen('file://' + sys.argv[1])", [], ["file: URL"]),
    ("import pathlib\npathlib.Path.from_uri('file:///k').read_text()", ["read:/k"], []),
    # files the standard library reads or writes by name
    ("import linecache\nlinecache.getline('a.py', 1)\nlinecache.getlines('b')", ["read:/p/a.py", "read:/p/b"], []),
    ("import tokenize, io\ntokenize.open('t')\nio.open_code('c')", ["read:/p/t", "read:/p/c"], []),
    ("import traceback\ntraceback.FrameSummary('/k', 1, 'f')", ["read:/k"], []),
    ("import configparser\nconfigparser.ConfigParser().read(['a', 'b'])", ["read:/p/a", "read:/p/b"], []),
    ("import http.cookiejar as c\nj = c.MozillaCookieJar('j')\nj.load()\nj.save('k')", ["read:/p/j", "write:/p/k"], []),
    ("import http.cookiejar as c\nc.CookieJar()\nc.MozillaCookieJar().save()", [], []),
    ("import http.cookiejar as c\nj = c.MozillaCookieJar('j')\nj.filename = 'k'\nj.save()", [], ["CookieJar.save"]),
    ("import sqlite3\nsqlite3.connect('file:d.db?mode=ro', uri=True)", ["read:/p/d.db"], []),
    ("import sqlite3\nsqlite3.connect('file:d.db?mode=memory', uri=True)", [], []),
    ("import sqlite3\nsqlite3.connect('file:///k?mode=ro')", ["write:/p/file:/k?mode=ro", "read:/k"], []),
    ("import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute(\"ATTACH DATABASE 'o''k.db' AS x\")", ["write:/p/o'k.db"], []),
    ("import sqlite3\nc = sqlite3.connect(':memory:').cursor()\nc.executescript('VACUUM main INTO \"v.db\"')", ["write:/p/v.db"], []),
    ("import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute(\"select 'attach x' -- ATTACH y\")", [], []),
    ("import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute('ATTACH ? AS x', ('f',))", [], ["SQL ATTACH names its file"]),
    ("import sqlite3, sys\nc = sqlite3.connect(':memory:')\nc.execute(sys.argv[1])", [], ["SQL computed at run time"]),
    ("import sqlite3, sys\ndef f(c):\n    c.execute(sys.argv[1])", [], ["SQL computed at run time"]),
    ("import sqlite3\nc = sqlite3.connect(':memory:')\nc.enable_load_extension(True)", [], ["loads native code"]),
    ("import contextlib, sqlite3\nwith contextlib.closing(sqlite3.connect(':memory:')) as c:\n    c.execute(\"ATTACH 'a' AS a\")", ["write:/p/a"], []),
    # what the tables do not model, in a module that touches files, is a doubt
    ("import mimetypes\nmimetypes.MimeTypes().read('x')", [], ["mimetypes.MimeTypes may touch files"]),
    ("import zipfile\nzipfile.Path('a.zip')", [], ["zipfile.Path may touch files"]),
    ("import linecache\nlist(map(linecache.getlines, ['k']))", [], ["linecache.getlines is used as a value"]),
    ("import shutil\nshutil.which('git')\nshutil.copyfileobj(a, b)", [], []),
    ("import zipfile\nraise zipfile.BadZipFile('x')", [], []),
    # commands and code
    ("import imaplib\nimaplib.IMAP4_stream('id')", [], []),
    ("import multiprocessing.util as u\nu.spawnv_passfds('/bin/sh', ['sh', '-c', 'id'], ())", [], []),
    ("import inspect\ninspect.currentframe()", [], ["reaches into the interpreter"]),
    ("try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame", [], ["interpreter frame through .tb_frame"]),
    ("getattr(x, 'f_globals')", [], ["getattr reaches .f_globals"]),
    ("import types\ntypes.FunctionType(c, {})", [], ["builds a function from raw code"]),
    ("import typing\ntyping.get_type_hints(f)", [], ["evaluates annotations"]),
    ("import inspect\ninspect.signature(f, eval_str=True)", [], ["evaluates annotations"]),
    ("import inspect\ninspect.signature(f)", [], []),
    ("import inspect, json\nprint(inspect.getsource(json.dumps))", [], []),
    ("import inspect, types\nm = types.ModuleType('m')\nm.__file__ = '.env'\ninspect.getsource(m)", [], ["inspect.getsource reads the file"]),
    ("import unittest\nunittest.main()", [], ["imports and runs test modules"]),
    # a file named at run time is read without doubt, unless the program reads its input
    ("import sys\nopen(sys.argv[1]).read()", [], []),
    ("open(input()).read()", [], ["cannot tell which file open reads (its name may come from the input)"]),
    ("import sys\nfrom pathlib import Path\nPath(sys.stdin.read()).read_text()", [], ["may come from the input"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "expected", "doubts"), STANDARD_LIBRARY, ids=[s for s, _, _ in STANDARD_LIBRARY]
)
def test_standard_library_files_and_urls(source: str, expected: list[str], doubts: list[str]) -> None:
    program = run(source)
    assert effects(program) == expected
    assert_doubts(program, doubts)


def test_commands_run_by_the_standard_library() -> None:
    assert run("import imaplib\nimaplib.IMAP4_stream('rm -rf ~')").executions == (
        Execution(2, "imaplib.IMAP4_stream", shell="rm -rf ~", cwd="/p"),
    )
    program = run("import multiprocessing.util as u\nu.spawnv_passfds('/bin/sh', ['sh', '-c', 'id'], ())")
    assert program.executions == (
        Execution(2, "multiprocessing.util.spawnv_passfds", ("/bin/sh", "-c", "id"), cwd="/p"),
    )


# -- never an exception ------------------------------------------------------------------------------

PIECES = st.sampled_from(
    [
        "import os\n",
        "os.remove(",
        "open(",
        "'x'",
        "f'{a}'",
        ", 'w')",
        ")",
        "(",
        "[",
        "]",
        "{",
        "}",
        "\n",
        "    ",
        "if x:\n",
        "def f(a, *b, **c):\n",
        "class C:\n",
        "for i in y:\n",
        "lambda: ",
        "with a as b:\n",
        "try:\n",
        "except E as e:\n",
        "match x:\n    case [a, *b]:\n",
        "x = ",
        "a, b = ",
        " + ",
        " / ",
        " % ",
        ".",
        "__dict__",
        "getattr",
        "\\",
        "\x00",
        "\U0001f600",
        "\U000f148f",
        "\ud800",
        '"""',
        "#",
        "@d\n",
        ":=",
        "*",
        "**",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(PIECES, max_size=40).map("".join)))
def test_never_raises(source: str) -> None:
    program = run(source)
    assert isinstance(program, Program)
    for doubt in program.doubts:
        assert doubt.startswith(("line ", "the Python source"))
    for effect in program.effects:
        assert effect.path.startswith("/")
