"""The JavaScript/TypeScript analysis on its own: inline code (``node -e``, ``bun -e``, ``deno eval``) ->
the files it touches, the commands it runs, the machines it talks to, and its doubts.

The working directory is /p and the home directory /home/me; a variable whose name holds TOKEN, SECRET,
KEY or PASSWORD is a secret. Effects are written "sense:path", executions "argv:a b@cwd" or
"shell:code@cwd", doubts as substrings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy_engine.analysis.interpreters.findings import Program, Setting
from policy_engine.analysis.interpreters.javascript import analyze
from policy_engine.model import Sense

SETTING = Setting(
    "/p", "/home/me", lambda name: any(w in name for w in ("TOKEN", "SECRET", "KEY", "PASSWORD"))
)


def effects(program: Program) -> list[str]:
    return [f"{effect.sense.value}:{effect.path}" for effect in program.effects]


def runs(program: Program) -> list[str]:
    return [
        f"argv:{' '.join(run.argv)}@{run.cwd}" if run.argv is not None else f"shell:{run.shell}@{run.cwd}"
        for run in program.executions
    ]


def assert_doubts(program: Program, expected: list[str]) -> None:
    for doubt in program.doubts:
        assert doubt.startswith("line "), doubt
    for part in expected:
        assert any(part in doubt for doubt in program.doubts), (part, program.doubts)
    if not expected:
        assert program.doubts == (), program.doubts


FS = 'const fs = require("fs");\n'
CP = 'const cp = require("child_process");\n'

# -- file effects: source -> effects, with no doubt ---------------------------------------------------

EFFECTS: list[tuple[str, list[str]]] = [
    # fs, sync forms, every sense
    (FS + 'fs.rmSync("/tmp/a", {recursive: true, force: true})', ["delete:/tmp/a"]),
    (FS + 'fs.writeFileSync("out.txt", "x")', ["write:/p/out.txt"]),
    (FS + 'fs.readFileSync("in.txt", "utf8")', ["read:/p/in.txt"]),
    (FS + 'fs.appendFileSync("../log", "x")', ["write:/log"]),
    (FS + 'fs.mkdirSync("a/b", {recursive: true})', ["write:/p/a/b"]),
    (FS + 'fs.unlinkSync("x"); fs.rmdirSync("d")', ["delete:/p/x", "delete:/p/d"]),
    (FS + 'fs.chmodSync("s.sh", 0o755); fs.chownSync("f", 1, 1)', ["write:/p/s.sh", "write:/p/f"]),
    (FS + 'fs.truncateSync("t"); fs.utimesSync("u", 1, 1)', ["write:/p/t", "write:/p/u"]),
    (FS + 'fs.renameSync("a", "/b")', ["delete:/p/a", "write:/b"]),
    (FS + 'fs.copyFileSync("c", "d")', ["read:/p/c", "write:/p/d"]),
    (FS + 'fs.cpSync("src", "/dst", {recursive: true})', ["read:/p/src", "write:/dst"]),
    (FS + 'fs.symlinkSync("/etc/passwd", "link")', ["write:/p/link"]),
    (FS + 'fs.linkSync("a", "b")', ["write:/p/b"]),
    (
        FS + 'fs.existsSync("e"); fs.statSync("s"); fs.lstatSync("l"); fs.accessSync("a")',
        ["read:/p/e", "read:/p/s", "read:/p/l", "read:/p/a"],
    ),
    (
        FS + 'fs.readdirSync("."); fs.readlinkSync("r"); fs.realpathSync("q")',
        ["read:/p", "read:/p/r", "read:/p/q"],
    ),
    (FS + 'fs.createReadStream("i").pipe(fs.createWriteStream("o"))', ["read:/p/i", "write:/p/o"]),
    (FS + 'fs.mkdtempSync("/tmp/job-")', ["write:/tmp/job-"]),
    (FS + 'fs.watch("w", () => {})', ["read:/p/w"]),
    # open: by its flags
    (
        FS + 'fs.openSync("r1"); fs.openSync("r2", "r"); fs.openSync("w1", "w"); fs.openSync("w2", "r+")',
        ["read:/p/r1", "read:/p/r2", "write:/p/w1", "write:/p/w2"],
    ),
    (FS + 'fs.open("a", "a", (err, fd) => {}); fs.open("b", (err, fd) => {})', ["write:/p/a", "read:/p/b"]),
    # callback forms
    (FS + 'fs.writeFile("cb.txt", "x", err => { if (err) throw err })', ["write:/p/cb.txt"]),
    (FS + 'fs.rm("/tmp/cb", {recursive: true}, () => console.log("gone"))', ["delete:/tmp/cb"]),
    (FS + 'fs.readFile("a", "utf8", (e, d) => fs.writeFile("b", d, () => {}))', ["read:/p/a", "write:/p/b"]),
    # promise forms
    (FS + 'await fs.promises.rm("/tmp/p", {recursive: true})', ["delete:/tmp/p"]),
    ('const fsp = require("fs").promises; await fsp.writeFile("w", "")', ["write:/p/w"]),
    ('const {promises: q} = require("fs"); q.appendFile("w", "")', ["write:/p/w"]),
    ('const fsp = require("fs/promises"); fsp.unlink("u")', ["delete:/p/u"]),
    ('const fsp = require("node:fs/promises"); await fsp.mkdir("m")', ["write:/p/m"]),
    ('const h = await require("fs/promises").open("h", "w")', ["write:/p/h"]),
    # module bindings
    ('const {writeFileSync: w} = require("node:fs"); w("/etc/x", "")', ["write:/etc/x"]),
    ('const {rmSync} = require("fs"); rmSync("r")', ["delete:/p/r"]),
    ('require("fs").rmSync("/direct")', ["delete:/direct"]),
    ('import fs from "fs"; fs.unlinkSync("i")', ["delete:/p/i"]),
    ('import * as fs from "node:fs"; fs.writeFileSync("n", "")', ["write:/p/n"]),
    ('import {rmSync} from "fs"; rmSync("/z")', ["delete:/z"]),
    ('import {rm as remove} from "fs/promises"; await remove("y")', ["delete:/p/y"]),
    ('import {promises as fsp} from "fs"; await fsp.rename("a", "b")', ["delete:/p/a", "write:/p/b"]),
    ('const {default: fs} = await import("fs"); fs.rmSync("/d")', ["delete:/d"]),
    ('const fs = require("fs"); const del = fs.rmSync; del("/aliased")', ["delete:/aliased"]),
    ('const load = require; load("fs").rmSync("/via-alias")', ["delete:/via-alias"]),
    (
        'import {createRequire} from "module"; const req = createRequire(import.meta.url); req("fs").rmSync("/c")',
        ["delete:/c"],
    ),
    ('process.getBuiltinModule("fs").rmSync("/g")', ["delete:/g"]),
    # JSON modules are read
    ('const pkg = require("./package.json"); console.log(pkg.version)', ["read:/p/package.json"]),
    ('import data from "../data.json" with {type: "json"}', ["read:/data.json"]),
    # paths: constants, templates, concatenation, join, path and os
    (
        FS + 'const dir = "/tmp/build"; fs.writeFileSync(`${dir}/out.json`, "{}")',
        ["write:/tmp/build/out.json"],
    ),
    (FS + 'const dir = "/tmp/build"; fs.writeFileSync(dir + "/" + "b.txt", "")', ["write:/tmp/build/b.txt"]),
    (FS + 'fs.rmSync(["/a", "b", "c"].join("/"))', ["delete:/a/b/c"]),
    (FS + 'fs.rmSync("log" + 1)', ["delete:/p/log1"]),
    (FS + 'fs.rmSync("/a\\x2fb\\u002Fc")', ["delete:/a/b/c"]),
    (
        FS
        + 'const path = require("path"), os = require("os"); fs.rmSync(path.join(os.homedir(), ".cache", "x"))',
        ["delete:/home/me/.cache/x"],
    ),
    (
        FS + 'const os = require("os"); fs.writeFileSync(`${os.homedir()}/.bashrc`, "")',
        ["write:/home/me/.bashrc"],
    ),
    (FS + 'fs.writeFileSync(require("path").resolve("a", "../b"), "")', ["write:/p/b"]),
    (FS + 'fs.writeFileSync(require("path").resolve("/x", "y"), "")', ["write:/x/y"]),
    (FS + 'const path = require("path"); fs.rmSync(path.join(__dirname, "gen"))', ["delete:/p/gen"]),
    (FS + 'const path = require("path"); fs.rmSync(path.dirname("/a/b/c.txt"))', ["delete:/a/b"]),
    (
        FS + 'const path = require("node:path"); fs.rmSync(path.posix.join("/a", path.basename("/x/y")))',
        ["delete:/a/y"],
    ),
    (FS + 'fs.rmSync(process.cwd() + "/sub")', ["delete:/p/sub"]),
    (FS + 'fs.rmSync(process.env.HOME + "/.npmrc")', ["delete:/home/me/.npmrc"]),
    (
        FS
        + 'const {join} = require("path"), {tmpdir} = require("os"); fs.writeFileSync(join(tmpdir(), "t"), "")',
        ["write:/tmp/t"],
    ),
    # flow-sensitive constants
    (FS + 'let p = "/tmp/a"; fs.rmSync(p); p = "/etc/x"', ["delete:/tmp/a"]),
    (FS + 'let p = "/tmp/a"; fs.rmSync(p); p = "/tmp/b"; fs.rmSync(p)', ["delete:/tmp/a", "delete:/tmp/b"]),
    (
        FS + 'const p = "/tmp/a"; { const p = "/tmp/inner"; fs.rmSync(p) } fs.rmSync(p)',
        ["delete:/tmp/inner", "delete:/tmp/a"],
    ),
    (FS + 'var v = "/v1"; var v = "/v2"; fs.rmSync(v)', ["delete:/v2"]),
    # the working directory moves with chdir
    (FS + 'process.chdir("/srv"); fs.unlinkSync("x")', ["delete:/srv/x"]),
    (
        FS + 'process.chdir("sub"); fs.unlinkSync("x"); process.chdir(".."); fs.unlinkSync("y")',
        ["delete:/p/sub/x", "delete:/p/y"],
    ),
    (FS + 'const {chdir} = process; chdir("/srv"); fs.rmSync("z")', ["delete:/srv/z"]),
    # reached through the global object
    ('globalThis.require("fs").rmSync("/gt")', ["delete:/gt"]),
    # descriptors and pseudo files are no new file
    (
        FS
        + 'fs.writeFileSync("/dev/null", "x"); fs.writeSync(1, "x"); fs.writeFileSync(2, "y"); fs.readFileSync(0)',
        [],
    ),
    # effects hidden in expressions are found
    (FS + '`${fs.rmSync("/in-template")}`', ["delete:/in-template"]),
    (FS + 'const o = {k: fs.rmSync("/in-object")}', ["delete:/in-object"]),
    (
        FS + 'x ? fs.unlinkSync("/t1") : fs.unlinkSync("/t2"); a && fs.unlinkSync("/t3")',
        ["delete:/t1", "delete:/t2", "delete:/t3"],
    ),
    (FS + 'function clean() { fs.rmSync("/in-function") }', ["delete:/in-function"]),
    (FS + 'class C { run() { fs.rmSync("/in-method") } }', ["delete:/in-method"]),
    (FS + '[1].forEach(() => fs.rmSync("/in-callback"))', ["delete:/in-callback"]),
    (
        FS
        + 'try { fs.rmSync("/in-try") } catch (e) { fs.rmSync("/in-catch") } finally { fs.rmSync("/in-finally") }',
        ["delete:/in-try", "delete:/in-catch", "delete:/in-finally"],
    ),
    (FS + 'if (a) { fs.rmSync("/then") } else { fs.rmSync("/else") }', ["delete:/then", "delete:/else"]),
    (
        FS + 'switch (x) { case 1: fs.rmSync("/case"); break; default: fs.rmSync("/default") }',
        ["delete:/case", "delete:/default"],
    ),
    (FS + 'const target = "/tmp/t"; function clean() { fs.rmSync(target) } clean()', ["delete:/tmp/t"]),
]


@pytest.mark.parametrize(("source", "expected"), EFFECTS)
def test_effects(source: str, expected: list[str]) -> None:
    program = analyze(source, SETTING)
    assert effects(program) == expected
    assert_doubts(program, [])


# -- Bun and Deno (TypeScript mode): source -> effects, with no doubt -------------------------------------

RUNTIME_EFFECTS: list[tuple[str, list[str]]] = [
    ('await Bun.write("out.txt", "x")', ["write:/p/out.txt"]),
    (
        'const f = Bun.file("a.txt"); console.log(await f.text(), await f.json(), await f.exists())',
        ["read:/p/a.txt"] * 3,
    ),
    ('await Bun.file("/tmp/z").delete()', ["delete:/tmp/z"]),
    ('await Bun.write(Bun.file("/etc/q"), "y")', ["write:/etc/q"]),
    ('await Bun.write("copy", Bun.file("orig"))', ["write:/p/copy", "read:/p/orig"]),
    ('const w = Bun.file("log").writer(); w.write("x")', ["write:/p/log"]),
    ('await Bun.write(Bun.stdout, "hi")', []),
    ('import {write, file} from "bun"; await write(file("/b"), "x")', ["write:/b"]),
    (
        'await Deno.readTextFile("a"); await Deno.readFile("b"); Deno.statSync("c")',
        ["read:/p/a", "read:/p/b", "read:/p/c"],
    ),
    (
        'await Deno.writeTextFile("/etc/x", "y"); Deno.writeFileSync("w", new Uint8Array())',
        ["write:/etc/x", "write:/p/w"],
    ),
    ('Deno.removeSync("b"); await Deno.remove("/r", {recursive: true})', ["delete:/p/b", "delete:/r"]),
    (
        'await Deno.rename("c", "d"); await Deno.copyFile("e", "f")',
        ["delete:/p/c", "write:/p/d", "read:/p/e", "write:/p/f"],
    ),
    (
        'await Deno.mkdir("g", {recursive: true}); Deno.chmodSync("h", 0o600); await Deno.create("i")',
        ["write:/p/g", "write:/p/h", "write:/p/i"],
    ),
    ('await Deno.symlink("/etc", "lnk")', ["write:/p/lnk"]),
    ('Deno.chdir("/srv"); await Deno.remove("x")', ["delete:/srv/x"]),
    (
        'await Deno.open("r"); await Deno.open("w", {write: true}); await Deno.open("n", {read: true, write: false})',
        ["read:/p/r", "write:/p/w", "read:/p/n"],
    ),
    ('await Deno.makeTempFile(); await Deno.makeTempDir({dir: "/var/x"})', ["write:/tmp", "write:/var/x"]),
    ('import * as fs from "node:fs"; fs.rmSync("/from-deno")', ["delete:/from-deno"]),
    # TypeScript syntax does not hide a call
    (
        FS + '(fs as any).rmSync("/as"); (<any>fs).unlinkSync("/cast"); fs!.writeFileSync("/bang", "")',
        ["delete:/as", "delete:/cast", "write:/bang"],
    ),
    ('import fs = require("fs"); fs.rmSync("/import-equals")', ["delete:/import-equals"]),
    ('const p: string = "/typed"; require("fs").rmSync(p satisfies string)', ["delete:/typed"]),
    ('function clean<T>(x: T): void { require("fs").rmSync("/generic") }', ["delete:/generic"]),
]


@pytest.mark.parametrize(("source", "expected"), RUNTIME_EFFECTS)
def test_bun_deno_and_typescript_effects(source: str, expected: list[str]) -> None:
    program = analyze(source, SETTING, typescript=True)
    assert effects(program) == expected
    assert_doubts(program, [])


def test_effect_details() -> None:
    program = analyze(FS + "\n\nfs.promises.rm('/x')\nrequire('node:fs').writeFileSync('/y', '')", SETTING)
    assert [(e.path, e.sense, e.line, e.evidence) for e in program.effects] == [
        ("/x", Sense.DELETE, 4, "fs.promises.rm"),
        ("/y", Sense.WRITE, 5, "fs.writeFileSync"),
    ]
    bun = analyze('Bun.write("/w", "")\nDeno.remove("/d")\nBun.file("/f").delete()', SETTING, typescript=True)
    assert [(e.line, e.evidence) for e in bun.effects] == [
        (1, "Bun.write"),
        (2, "Deno.remove"),
        (3, "Bun.file().delete"),
    ]


# -- commands -----------------------------------------------------------------------------------------

EXECUTIONS: list[tuple[str, list[str]]] = [
    (CP + 'cp.execSync("git status")', ["shell:git status@/p"]),
    (CP + 'cp.exec("make", {cwd: "/src"}, (err, out) => console.log(out))', ["shell:make@/src"]),
    (CP + 'cp.exec("ls", done); function done() {}', ["shell:ls@/p"]),
    (CP + 'cp.spawn("git", ["log", "-1"], {cwd: "sub"})', ["argv:git log -1@/p/sub"]),
    (CP + 'cp.spawnSync("sh", ["-c", "rm -rf /"])', ["argv:sh -c rm -rf /@/p"]),
    (CP + 'cp.execFileSync("ls", ["-l"], {shell: true})', ["shell:ls -l@/p"]),
    (CP + 'cp.execFile("node", ["--version"], (e, out) => {})', ["argv:node --version@/p"]),
    (CP + 'cp.spawn("ls")', ["argv:ls@/p"]),
    (CP + 'const args = ["a", "b"]; cp.spawn("echo", args)', ["argv:echo a b@/p"]),
    (CP + 'cp.fork("worker.js", ["x"])', ["argv:node worker.js x@/p"]),
    (CP + 'cp.spawn("env", [], {env: {...process.env, DEBUG: "1"}})', ["argv:env@/p"]),
    (CP + 'process.chdir("/repo"); cp.execSync("git pull")', ["shell:git pull@/repo"]),
    ('const {execSync} = require("child_process"); console.log(execSync("ls").toString())', ["shell:ls@/p"]),
    ('require("child_process").execSync(`npm ${"test"}`)', ["shell:npm test@/p"]),
    ('import {spawnSync} from "node:child_process"; spawnSync("git", ["status"])', ["argv:git status@/p"]),
    ('Bun.spawn(["git", "status"], {cwd: "/repo"})', ["argv:git status@/repo"]),
    ('Bun.spawnSync({cmd: ["ls", "-a"]})', ["argv:ls -a@/p"]),
    ("await Bun.$`ls -la`", ["shell:ls -la@/p"]),
    ('import {$} from "bun"; await $`echo hi`.text()', ["shell:echo hi@/p"]),
    ('await new Deno.Command("git", {args: ["status"], cwd: "/r"}).output()', ["argv:git status@/r"]),
    ('new Deno.Command("ls").outputSync()', ["argv:ls@/p"]),
    ('Deno.run({cmd: ["ls", "-l"]})', ["argv:ls -l@/p"]),
]


@pytest.mark.parametrize(("source", "expected"), EXECUTIONS)
def test_executions(source: str, expected: list[str]) -> None:
    program = analyze(source, SETTING, typescript="Deno" in source or "Bun" in source or "bun" in source)
    assert runs(program) == expected
    assert_doubts(program, [])


def test_execution_evidence() -> None:
    program = analyze(CP + "\ncp.execSync('a')\ncp.spawnSync('b')", SETTING)
    assert [(run.line, run.evidence) for run in program.executions] == [
        (3, "child_process.execSync"),
        (4, "child_process.spawnSync"),
    ]


# -- other machines -----------------------------------------------------------------------------------

CONTACTS: list[tuple[str, list[str]]] = [
    ('const r = await fetch("https://example.com"); console.log(await r.text())', ["fetch"]),
    ('require("https").get("https://x", res => res.pipe(process.stdout))', ["https.get"]),
    ('const http = require("http"); http.request({host: "x"}).end()', ["http.request"]),
    ('require("http").createServer((req, res) => res.end("ok")).listen(3000)', ["http.createServer"]),
    ('const net = require("net"); net.connect(80, "x"); new net.Socket()', ["net.connect", "net.Socket"]),
    (
        'require("tls").connect(443, "x"); require("dgram").createSocket("udp4")',
        ["tls.connect", "dgram.createSocket"],
    ),
    ('require("dns").lookup("example.com", () => {})', ["dns.lookup"]),
    ('new WebSocket("wss://x"); new XMLHttpRequest()', ["WebSocket", "XMLHttpRequest"]),
    ('await Deno.connect({port: 80}); Deno.serve(() => new Response("x"))', ["Deno.connect", "Deno.serve"]),
    (
        'Bun.serve({fetch() { return new Response("x") }}); await Bun.connect({hostname: "x", port: 1})',
        ["Bun.serve", "Bun.connect"],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CONTACTS)
def test_contacts(source: str, expected: list[str]) -> None:
    program = analyze(source, SETTING, typescript=True)
    assert [contact.evidence for contact in program.contacts] == expected
    assert_doubts(program, [])


# -- doubts: source -> doubts (substrings) and effects -----------------------------------------------------

DOUBTS: list[tuple[str, list[str], list[str]]] = [
    # code built from strings
    ('eval("x")', ["line 1: eval runs a string as code"], []),
    ('(0, eval)("x")', ["eval runs a string as code"], []),
    ('const e = globalThis.eval; e("x")', ["eval runs a string as code"], []),
    ('new Function("return 1")()', ["Function builds a function from a string"], []),
    ('Function("a", "return a")', ["Function builds a function from a string"], []),
    ('require("vm").runInThisContext("x")', ["vm.runInThisContext runs code that is not analysed"], []),
    ('import vm from "node:vm"; new vm.Script("x")', ["vm.Script runs code that is not analysed"], []),
    ('setTimeout("alert(1)", 10)', ["setTimeout runs a string as code"], []),
    ('const code = "x()"; setInterval(code, 10)', ["setInterval runs a string as code"], []),
    ("setTimeout`alert(1)`", ["setTimeout is called with a template string"], []),
    ('const f = (() => {}).constructor; f("code")()', ["reaches a constructor through .constructor"], []),
    ('Object.getPrototypeOf(async function () {}).constructor("return 1")', [".constructor"], []),
    # modules whose code is not read, or computed
    (
        'require("lodash").map([], x => x)',
        ["line 1: loads the module lodash, whose code is not analysed"],
        [],
    ),
    ('import x from "./local.js"', ["loads the module ./local.js, whose code is not analysed"], []),
    ('require("./x")', ["loads the module ./x"], []),
    ('import {join} from "jsr:@std/path"', ["loads the module jsr:@std/path"], []),
    ('import chalk from "npm:chalk"', ["loads the module npm:chalk"], []),
    (
        'import {serve} from "https://deno.land/std/http/server.ts"',
        ["loads the module https://deno.land"],
        [],
    ),
    ('import {Database} from "bun:sqlite"', ["loads the module bun:sqlite"], []),
    ('export * from "some-package"', ["loads the module some-package"], []),
    ("const m = await import(name)", ["imports a module computed at run time"], []),
    ('require("child" + suffix)', ["requires a module computed at run time"], []),
    # the process and native code
    ("process.kill(1234)", ["process.kill sends a signal to another process"], []),
    ('process.dlopen(module, "x.node")', ["process.dlopen loads native code"], []),
    ('process.binding("fs")', ["process.binding reaches into node's internals"], []),
    ('module.constructor._load("child_process")', ["module.constructor._load is not analysed"], []),
    ('require("module")._load("x")', ["module._load is not analysed"], []),
    ('require.main.constructor._load("x")', [".constructor"], []),
    (
        'const {Worker} = require("worker_threads"); new Worker("./w.js")',
        ["worker_threads.Worker runs code in a worker"],
        [],
    ),
    (
        'new (require("worker_threads").Worker)("x", {eval: true})',
        ["worker_threads.Worker runs code in a worker"],
        [],
    ),
    (
        'require("v8").setFlagsFromString("--allow-natives-syntax")',
        ["v8.setFlagsFromString changes the engine's flags"],
        [],
    ),
    ('Deno.dlopen("lib.so", {})', ["Deno.dlopen loads native code"], []),
    ("Bun.plugin({setup() {}})", ["Bun.plugin changes how modules are loaded"], []),
    ('Bun.build({entrypoints: ["a.ts"], outdir: "out"})', ["Bun.build is not analysed"], []),
    # computed access to the global object or a module
    ('globalThis[name]("x")', ["reaches a member of globalThis computed at run time"], []),
    (
        'global["ev" + "al"]("x")',
        ["reaches a member of globalThis computed at run time", "eval runs a string as code"],
        [],
    ),
    (FS + 'fs[op]("/x")', ["line 2: reaches a member of fs computed at run time"], []),
    (
        'require("child_process")["ex" + "ec"]("rm -rf ~")',
        ["reaches a member of child_process computed at run time"],
        [],
    ),
    # effectful functions handed around as values
    (FS + '[fs.rmSync][0]("/x")', ["uses fs.rmSync as a value"], []),
    (FS + "files.forEach(fs.unlinkSync)", ["uses fs.unlinkSync as a value"], []),
    (FS + 'const ops = {rm: fs.rmSync}; ops.rm("/x")', ["uses fs.rmSync as a value"], []),
    (FS + 'Reflect.apply(fs.rmSync, null, ["/x"])', ["uses fs.rmSync as a value"], []),
    (FS + 'fs.rmSync.call(null, "/x")', ["fs.rmSync.call is not analysed"], []),
    (FS + 'let rm = fs.rmSync; rm = other; rm("/x")', ["uses fs.rmSync as a value"], []),
    (
        'require("util").promisify(require("child_process").exec)("rm -rf /")',
        ["uses child_process.exec as a value"],
        [],
    ),
    ('helper(require("fs"))', ["uses fs as a value"], []),
    (
        'import("child_process").then(cp => cp.execSync("id"))',
        ["cannot tell what .execSync() is called on"],
        [],
    ),
    # unknown receivers of effect methods
    ('function wipe(m) { m.rmSync("/x") }', ["cannot tell what .rmSync() is called on"], []),
    ("x.writeFileSync(p, data)", ["cannot tell what .writeFileSync() is called on"], []),
    # computed paths for writes and deletes (a computed read is no doubt)
    (
        FS + "fs.rmSync(target)",
        ["line 2: cannot tell which file fs.rmSync deletes (computed at run time)"],
        [],
    ),
    (
        FS + "fs.writeFileSync(process.argv[2], data); fs.readFileSync(process.argv[3])",
        ["cannot tell which file fs.writeFileSync writes"],
        [],
    ),
    (
        FS + 'fs.writeFileSync(new URL(process.argv[1]), "")',
        ["cannot tell which file fs.writeFileSync writes"],
        [],
    ),
    (FS + "fs.rmSync(...paths)", ["cannot tell which file fs.rmSync deletes"], []),
    ("await Bun.file(name).delete()", ["cannot tell which file Bun.file().delete deletes"], []),
    ("await Deno.remove(dir)", ["cannot tell which file Deno.remove deletes"], []),
    # flow: a name rebound in a branch, loop, callback or function is unknown afterwards
    (
        FS + 'let p = "/tmp/a"; if (c) { p = "/etc" } fs.rmSync(p)',
        ["cannot tell which file fs.rmSync deletes"],
        [],
    ),
    (
        FS + 'let p = "/tmp/a"; while (x) { fs.rmSync(p); p = "/etc/x" }',
        ["cannot tell which file fs.rmSync deletes"],
        [],
    ),
    (
        FS + 'for (let i = 0; i < 3; i++) fs.unlinkSync("/tmp/g" + i)',
        ["cannot tell which file fs.unlinkSync deletes"],
        [],
    ),
    (FS + "for (const f of files) fs.unlinkSync(f)", ["cannot tell which file fs.unlinkSync deletes"], []),
    (
        FS + 'let p = "/tmp/a"; setTimeout(() => fs.rmSync(p), 10); p = "/etc"',
        ["cannot tell which file fs.rmSync deletes"],
        [],
    ),
    (
        FS + 'let p = "/tmp/a"; function f() { p = "/etc" } f(); fs.rmSync(p)',
        ["cannot tell which file fs.rmSync deletes"],
        [],
    ),
    (FS + 'let p = "/tmp/a"; p += "/b"; fs.rmSync(p)', ["cannot tell which file fs.rmSync deletes"], []),
    (FS + 'if (c) { var q = "/tmp/q" } fs.rmSync(q)', ["cannot tell which file fs.rmSync deletes"], []),
    (FS + 'const {a} = {a: "/x"}; fs.rmSync(a)', ["cannot tell which file fs.rmSync deletes"], []),
    (FS + 'const p = c ? "/a" : "/b"; fs.rmSync(p)', ["cannot tell which file fs.rmSync deletes"], []),
    # an unknown working directory makes relative paths doubts
    (
        FS + "process.chdir(somewhere); fs.unlinkSync('y'); fs.unlinkSync('/abs')",
        ["cannot tell where `y` is: the working directory is unknown"],
        ["delete:/abs"],
    ),
    (FS + 'if (c) process.chdir("/x"); fs.unlinkSync("y")', ["cannot tell where `y` is"], []),
    (FS + 'go(); fs.rmSync("rel"); function go() { process.chdir("/") }', ["cannot tell where `rel` is"], []),
    # commands computed at run time
    (CP + "cp.exec(cmd)", ["line 2: child_process.exec runs a command computed at run time"], []),
    (CP + "cp.exec(`rm -rf ${dir}`)", ["child_process.exec runs a command computed at run time"], []),
    (
        CP + 'cp.spawn("git", ["log", branch])',
        ["child_process.spawn runs a command computed at run time"],
        [],
    ),
    (CP + 'cp.spawn(program, ["x"])', ["child_process.spawn runs a command computed at run time"], []),
    ("await Bun.$`rm ${x}`", ["Bun.$ runs a command computed at run time"], []),
    ("Bun.spawn(argv)", ["Bun.spawn runs a command computed at run time"], []),
    # the environment
    (
        'console.log(process.env.API_TOKEN, process.env["SECRET_X"])',
        ["reads $API_TOKEN, which looks like a secret", "reads $SECRET_X"],
        [],
    ),
    ("const {AWS_SECRET_ACCESS_KEY, HOME} = process.env", ["reads $AWS_SECRET_ACCESS_KEY"], []),
    ("console.log(process.env)", ["reads every environment variable, secrets included"], []),
    ("JSON.stringify(process.env)", ["reads every environment variable"], []),
    (
        "Object.entries(process.env).forEach(([k, v]) => console.log(k, v))",
        ["reads every environment variable"],
        [],
    ),
    ("const {...all} = process.env", ["reads every environment variable"], []),
    ("process.env", ["reads every environment variable"], []),
    (
        "console.log(process.env[name])",
        ["reads an environment variable whose name is computed at run time"],
        [],
    ),
    (
        'Deno.env.get("GITHUB_TOKEN"); Deno.env.toObject()',
        ["reads $GITHUB_TOKEN", "reads every environment variable"],
        [],
    ),
    ("console.log(Bun.env.NPM_TOKEN)", ["reads $NPM_TOKEN"], []),
    (
        'process.env.PATH = "/tmp/evil:" + process.env.PATH',
        ["sets $PATH, which changes what later commands run"],
        [],
    ),
    ("with (obj) { x() }", ["`with` changes what names refer to"], []),
]


@pytest.mark.parametrize(("source", "expected", "found"), DOUBTS)
def test_doubts(source: str, expected: list[str], found: list[str]) -> None:
    program = analyze(source, SETTING, typescript="Deno" in source or "Bun" in source)
    assert_doubts(program, expected)
    assert effects(program) == found


def test_computed_member_is_still_followed_when_constant() -> None:
    program = analyze('require("child_process")["ex" + "ec"]("rm -rf ~")', SETTING)
    assert runs(program) == ["shell:rm -rf ~@/p"]
    assert_doubts(program, ["computed at run time"])


def test_syntax_error_is_a_doubt_but_effects_elsewhere_count() -> None:
    program = analyze(FS + 'fs.rmSync("/gone")\nlet = = ;\n', SETTING)
    assert effects(program) == ["delete:/gone"]
    assert_doubts(program, ["line 3: the code does not parse as JavaScript"])
    assert_doubts(analyze("let x: = 1", SETTING, typescript=True), ["does not parse as TypeScript"])


def test_unknown_working_directory() -> None:
    program = analyze(FS + 'fs.rmSync("rel"); fs.rmSync("/abs")', SETTING._replace(cwd=None))
    assert effects(program) == ["delete:/abs"]
    assert_doubts(program, ["cannot tell where `rel` is: the working directory is unknown"])


def test_too_many_nodes() -> None:
    program = analyze("x = [" + ", ".join(["1"] * 200) + "]", SETTING._replace(max_nodes=50))
    assert program == Program(
        doubts=("line 1: the JavaScript source has more than 50 syntax nodes; it is not analysed",)
    )


def test_deep_nesting_is_a_doubt() -> None:
    program = analyze("[" * 5000 + "]" * 5000, SETTING._replace(max_nodes=100000))
    assert_doubts(program, ["nests deeper than"])


# -- red-team round 2 (finding 1.6): recursive deletes are trees, file: URLs name files -------------------

URLS_AND_TREES: list[tuple[str, list[str], list[str]]] = [
    (FS + 'fs.rmSync(".", {recursive: true})', ["delete:/p:all"], []),
    (FS + 'fs.promises.rm(process.cwd(), {recursive: true})', ["delete:/p:all"], []),
    (FS + 'fs.rmdirSync(__dirname, {recursive: true})', ["delete:/p:all"], []),
    (FS + 'fs.renameSync("a", "b")', ["delete:/p/a:all", "write:/p/b"], []),
    (FS + 'fs.cpSync("src", "/tmp/x", {recursive: true})', ["read:/p/src:all", "write:/tmp/x"], []),
    (FS + 'fs.unlinkSync("f")', ["delete:/p/f"], []),
    ('Deno.removeSync("d", {recursive: true})', ["delete:/p/d:all"], []),
    (FS + 'fs.readFileSync(new URL("file:///etc/passwd"))', ["read:/etc/passwd"], []),
    (FS + 'fs.readFileSync(new URL("FILE://localhost/a/%2e%73sh\\\\k?x#y"))', ["read:/a/.ssh/k"], []),
    (FS + 'fs.writeFileSync(new URL("file:///etc/x"), "")', ["write:/etc/x"], []),
    (FS + 'fs.readFileSync(new URL("k", "file:///home/me/.ssh/"))', ["read:/home/me/.ssh/k"], []),
    (FS + 'fs.readFileSync(new URL("../k", "file:///a/b/c"))', ["read:/a/k"], []),
    (FS + 'fs.readFileSync(new URL("./.env", import.meta.url))', ["read:/p/.env"], []),
    (FS + 'fs.readFileSync(require("url").pathToFileURL(".env"))', ["read:/p/.env"], []),
    (FS + 'fs.readFileSync(require("url").fileURLToPath("file:///k"))', ["read:/k"], []),
    (FS + 'fs.writeFileSync(require("url").fileURLToPath(new URL("file:///k")), "")', ["write:/k"], []),
    (FS + 'fs.readFileSync(new URL("x", new URL("file:///a/")))', ["read:/a/x"], []),
    (FS + 'fs.readFileSync("file:///etc/passwd")', ["read:/etc/passwd"], []),
    ('Bun.file(new URL("file:///k")).text()', ["read:/k"], []),
    ('await fetch("file:///k")', ["read:/k"], []),
    ('await fetch(new URL("file:///k"))', ["read:/k"], []),
    ('const u = new URL("https://example.com/x"); console.log(u.pathname)', [], []),
    (FS + 'fs.readFileSync(new URL("file://" + process.argv[1]))', [], ["cannot tell which file the URL given to URL names"]),
    ('await fetch("file://" + process.argv[1])', [], ["cannot tell which file the URL given to fetch names"]),
    # a file named at run time is read without doubt, unless the program reads its input
    (FS + "fs.readFileSync(process.argv[2])", [], []),
    (FS + "fs.readFileSync(fs.readFileSync(0, 'utf8').trim())", [], ["its name may come from the input"]),
]  # fmt: skip


@pytest.mark.parametrize(("source", "expected", "doubts"), URLS_AND_TREES)
def test_recursive_deletes_and_file_urls(source: str, expected: list[str], doubts: list[str]) -> None:
    program = analyze(source, SETTING, typescript="Deno" in source or "Bun" in source or "await" in source)
    found = [f"{e.sense.value}:{e.path}" + (f":{e.tree}" if e.tree else "") for e in program.effects]
    assert found == expected
    assert_doubts(program, doubts)


# -- harmless programs: no doubt, nothing but reads ---------------------------------------------------------

HARMLESS = [
    'console.log(1 + 2, "a" + "b", [1, 2, 3].map(x => x * 2))',
    "const data = JSON.parse('{\"a\": 1}'); console.log(JSON.stringify(data, null, 2))",
    'const re = /foo(\\d+)/g; const m = re.exec("foo12"); console.log("a-b".replace(/-/g, "_"), m && m[1])',
    "console.log(Math.max(...[1, 5, 3]), Math.floor(Math.random() * 10), Math.PI)",
    "const d = new Date(); console.log(d.toISOString(), Date.now(), d.getFullYear())",
    'const name = "world"; console.log(`hello ${name} ${1 + 1} ${process.argv.length}`)',
    "const total = [1, 2, 3].filter(n => n > 1).reduce((a, b) => a + b, 0); const arr = []; arr.push(total); console.log(arr)",
    'console.log("a,b,c".split(",").map(s => s.toUpperCase()).join("-"))',
    "const base = {a: 1}; const more = {...base, b: 2}; const {a, ...rest} = more; console.log(a, rest)",
    "class Point { constructor(x, y) { this.x = x; this.y = y } norm() { return Math.hypot(this.x, this.y) } static of(x) { return new Point(x, x) } }\nconsole.log(Point.of(3).norm())",
    "const add = (a, b) => a + b; const twice = f => x => f(f(x)); console.log(twice(x => add(x, 1))(0))",
    'try { JSON.parse("{") } catch (e) { console.error(e.message) } finally { console.log("done") }',
    'const fs = require("fs"); async function main() { const text = await fs.promises.readFile("package.json", "utf8"); console.log(JSON.parse(text).name) } main().catch(console.error)',
    'console.log(require("os").platform(), require("os").cpus().length, require("os").homedir(), require("os").userInfo().username)',
    "console.log(process.argv.slice(2), process.platform, process.version, process.cwd(), process.pid)",
    'console.log(process.env.HOME, process.env.NODE_ENV || "dev", process.env["USER"])',
    'console.log(require("child_process").execSync("git status").toString())',
    "const fs = require('fs'); const files = fs.readdirSync('.').filter(f => f.endsWith('.js')); for (const f of files) { console.log(f, fs.statSync(f).size) }",
    'const path = require("path"); console.log(path.join(__dirname, "x"), path.basename("/a/b.txt"), path.extname("x.js"), path.sep)',
    'const util = require("util"); console.log(util.inspect({a: [1, {b: 2}]}, {depth: null}), util.format("%s", "x"))',
    'const readline = require("readline"); const rl = readline.createInterface({input: process.stdin, output: process.stdout}); rl.on("line", l => console.log(l.trim()))',
    'const crypto = require("crypto"); console.log(crypto.createHash("sha256").update("x").digest("hex"), crypto.randomUUID())',
    'const m = new Map([["a", 1]]); m.set("b", 2); m.delete("a"); const s = new Set([1, 2]); s.delete(1); console.log([...m.keys()], s.size)',
    'console.log(Buffer.from("hello").toString("base64"), Buffer.alloc(4).length)',
    "for (let i = 0; i < 3; i++) { console.log(i) } let j = 0; while (j < 3) { j++ } do { j-- } while (j > 0)",
    'switch (process.argv[2]) { case "a": console.log(1); break; default: console.log(2) }',
    "const obj = {a: 1, b: 2}; for (const [k, v] of Object.entries(obj)) console.log(k, v); for (const k in obj) console.log(k)",
    "function* gen() { yield 1; yield 2 } console.log([...gen()])",
    'const sleep = ms => new Promise(resolve => setTimeout(resolve, ms)); (async () => { await sleep(10); console.log("ok") })()',
    "Promise.all([1, 2].map(async x => x * 2)).then(r => console.log(r)).catch(e => console.error(e))",
    'const x = null; console.log(x?.y ?? "default", typeof x === "undefined", x instanceof Object)',
    'process.stdout.write("no newline\\n"); process.stderr.write("err\\n"); process.exitCode = 0',
    'const {readFileSync} = require("fs"); console.log(readFileSync("/etc/hosts", "utf8").split("\\n").length)',
    'const fs = require("fs"); fs.readFile("a.txt", "utf8", (err, data) => { if (err) throw err; console.log(data.length) })',
    'import fs from "fs"; import path from "node:path"; console.log(fs.existsSync(path.resolve("x")))',
    'const events = require("events"); const e = new events.EventEmitter(); e.on("x", v => console.log(v)); e.emit("x", 1)',
    "label: for (const a of [1, 2]) { for (const b of [3, 4]) { if (b === 4) continue label; console.log(a, b) } }",
    'const s = "Hello"; console.log(s.padStart(10, "*"), s.at(-1), s.includes("ell"), s.slice(1, 3), s.charCodeAt(0))',
    "const nums = Array.from({length: 5}, (_, i) => i); console.log(nums.sort((a, b) => b - a), nums.indexOf(3), nums.flat())",
    "console.log(Object.keys({a: 1}), Object.assign({}, {b: 2}), Object.freeze([1]), structuredClone({c: 3}))",
    'const url = new URL("https://example.com/a?b=1"); console.log(url.searchParams.get("b"), encodeURIComponent("a b"))',
    'console.log(parseInt("42", 10), Number("3.5").toFixed(1), (255).toString(16), BigInt(10) ** 3n)',
    'const zlib = require("zlib"); console.log(zlib.gzipSync("abc").length)',
    'if (require.main === module) { console.log("main") }',
    'const fs = require("fs"); fs.createReadStream("big.log").pipe(process.stdout)',
    'const {promisify} = require("util"); const wait = promisify(setTimeout); wait(10).then(() => console.log("x"))',
    "const {argv, env} = process; console.log(argv.slice(2), env.HOME)",
    'const {spawnSync} = require("child_process"); const r = spawnSync("git", ["rev-parse", "HEAD"], {encoding: "utf8"}); console.log(r.stdout.trim())',
    'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).items.length)',
    'const lines = require("fs").readFileSync("/dev/stdin", "utf8").split("\\n"); lines.forEach((l, i) => console.log(i, l))',
    "const o = {get x() { return 1 }, set x(v) {}, [`k${1}`]: 2, m() { return this.x }}; console.log(o.m(), o.k1)",
    "class A { #secret = 1; static count = 0; get value() { return this.#secret } } class B extends A { constructor() { super(); B.count++ } } console.log(new B().value, new B().constructor.name)",
    "const {a = 1, b: {c} = {c: 2}} = {}; const [first, , third = 3, ...others] = [1, 2]; console.log(a, c, first, third, others)",
    'console.table([{a: 1}]); console.time("t"); console.timeEnd("t"); console.assert(true)',
    "const text = `multi\nline ${[1, 2].map(n => `<${n}>`).join('')}`; console.log(text.length)",
    'process.on("exit", code => console.log("bye", code)); process.nextTick(() => {}); queueMicrotask(() => {})',
    "const counts = {}; for (const w of 'a b a'.split(' ')) counts[w] = (counts[w] || 0) + 1; console.log(counts)",
    "#!/usr/bin/env node\n// a comment\n/* another */ console.log('shebang')",
    'const sorted = [...new Set(["b", "a", "b"])].sort(); console.log(sorted.length > 1 ? sorted : "one")',
    "async function* ticks() { for (let i = 0; i < 2; i++) yield i } (async () => { for await (const t of ticks()) console.log(t) })()",
]

HARMLESS_TYPESCRIPT = [
    "interface P { x: number }\ntype T = string | number;\nenum Color { Red, Green }\nconst p: P = { x: 1 };\nconsole.log(p.x, Color.Red)",
    "function f<T>(a: T): T { return a }\nconsole.log(f<number>(1), f('x' as string))",
    "class C { private n: number = 1; constructor(public y: string, readonly z?: number) {} get v(): number { return this.n } }\nconsole.log(new C('a').v)",
    "const xs: Array<number> = [1, 2]; const total = xs.reduce((a: number, b: number): number => a + b, 0)!; console.log(total satisfies number)",
    "declare const g: any; namespace N { export const k = 1 } abstract class Shape { abstract area(): number }\nconsole.log(N.k)",
    "import type { Foo } from 'some-package'; let x: Foo | undefined; console.log(x ?? 'none')",
    'const text: string = await Deno.readTextFile("config.json"); console.log(JSON.parse(text), Deno.args, Deno.cwd())',
    'const data = await Bun.file("package.json").json(); console.log(data.name, Bun.argv.slice(2), Bun.version)',
    "const res: {ok: boolean} = {ok: true}; function check(r: typeof res): asserts r is {ok: true} {} console.log(<boolean>res.ok)",
    'await Bun.sleep(10); console.log(Bun.env.HOME, Deno.env.get("HOME"))',
]


@pytest.mark.parametrize("source", HARMLESS)
def test_harmless_javascript(source: str) -> None:
    program = analyze(source, SETTING)
    assert_doubts(program, [])
    assert all(effect.sense is Sense.READ for effect in program.effects), program.effects
    assert program.contacts == ()


@pytest.mark.parametrize("source", HARMLESS_TYPESCRIPT + HARMLESS[:20])
def test_harmless_typescript(source: str) -> None:
    program = analyze(source, SETTING, typescript=True)
    assert_doubts(program, [])
    assert all(effect.sense is Sense.READ for effect in program.effects), program.effects


# -- robustness ---------------------------------------------------------------------------------------------

TOKENS = [
    "require",
    "(",
    ")",
    '"fs"',
    "'/x'",
    ".",
    "rmSync",
    "fs",
    "=",
    "const",
    "let",
    "x",
    "=>",
    "{",
    "}",
    "[",
    "]",
    "`",
    "${",
    ",",
    ";",
    "\n",
    "eval",
    "process",
    "env",
    "import",
    "from",
    "as",
    "any",
    "<",
    ">",
    "+",
    "\\",
    "\x00",
    "\U0001f600",
    "\U000f148f",
    "\ud800",
    "for",
    "if",
    "class",
    "function",
]


# -- a JSON file loaded with require or import: data, unless what is found there is code ---------------


def test_a_json_file_loaded_is_read(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"version": "1"}')
    program = analyze("console.log(require('./package.json').version)", SETTING._replace(cwd=str(tmp_path)))
    assert effects(program) == [f"read:{tmp_path}/package.json"]
    assert_doubts(program, [])


@pytest.mark.parametrize(
    ("layout", "doubt"),
    [
        ("link", "is a link to"),  # loaded by its target's extension
        ("directory", "is a directory, a package whose main file would run"),
        ("missing", "does not exist, so package.json.js would be loaded instead"),
    ],
)
def test_a_json_name_that_finds_code_is_a_doubt(tmp_path: Path, layout: str, doubt: str) -> None:
    target = tmp_path / "package.json"
    if layout == "link":
        (tmp_path / "evil.js").write_text("")
        target.symlink_to(tmp_path / "evil.js")
    elif layout == "directory":
        target.mkdir()
        (target / "index.js").write_text("")
    else:
        (tmp_path / "package.json.js").write_text("")
    program = analyze("console.log(require('./package.json'))", SETTING._replace(cwd=str(tmp_path)))
    assert_doubts(program, [doubt])


def test_a_json_file_after_a_change_of_directory_or_an_earlier_write_is_a_doubt() -> None:
    moved = analyze("process.chdir('/x'); require('./package.json')", SETTING)
    assert_doubts(moved, ["is looked for from a directory that cannot be told"])
    written = analyze("require('./package.json')", SETTING._replace(settled=False))
    assert_doubts(written, ["an earlier command may have written"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.text(max_size=300), st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)),
    st.booleans(),
)
def test_never_raises(source: str, typescript: bool) -> None:
    program = analyze(source, SETTING, typescript=typescript)
    assert isinstance(program, Program)
    assert all(doubt.startswith("line ") for doubt in program.doubts)
    assert all(effect.path.startswith("/") for effect in program.effects)
