"""The shell analysis on its own: a bash line -> atoms, their accesses and doubts.

Each case lists, for every atom in order, its command text, its accesses as "sense:path" and the
doubts it carries (as substrings). The working directory is /p and the home directory /home/me.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from policy_engine.analysis.shell.analysis import Analyzer
from policy_engine.analysis.shell.knowledge import knowledge


@pytest.fixture(scope="module")
def analyzer(tmp_path_factory: pytest.TempPathFactory) -> Analyzer:
    return Analyzer("/home/me", knowledge(str(tmp_path_factory.mktemp("knowledge"))))


def summary(analyzer: Analyzer, line: str, cwd: str = "/p") -> list[tuple[str | None, list[str], list[str]]]:
    return [
        (atom.command, [f"{a.sense.value}:{a.path}" for a in atom.accesses], list(atom.doubts))
        for atom in analyzer.atoms(line, cwd)
    ]


A = tuple[str, list[str], list[str]]

CASES: list[tuple[str, list[A]]] = [
    # Splitting: every simple command is an atom
    ("ls; pwd", [("ls", ["read:/p"], []), ("pwd", [], [])]),
    ("git status && rm -rf /", [("git status", ["read:/p"], []), ("rm -rf /", ["delete:/"], [])]),
    ("false || rm x", [("false", [], []), ("rm x", ["delete:/p/x"], [])]),
    ("echo hi & rm y", [("echo hi", [], []), ("rm y", ["delete:/p/y"], [])]),
    ("ls\nrm z", [("ls", ["read:/p"], []), ("rm z", ["delete:/p/z"], [])]),
    ("cat a | grep b | wc -l", [("cat a", ["read:/p/a"], []), ("grep b", [], []), ("wc -l", [], [])]),
    (
        "(cd /tmp && rm x); rm y",
        [("cd /tmp", [], []), ("rm x", ["delete:/tmp/x"], []), ("rm y", ["delete:/p/y"], [])],
    ),
    ("{ rm a; }", [("rm a", ["delete:/p/a"], [])]),
    (
        "if true; then rm a; else rm b; fi",
        [("true", [], []), ("rm a", ["delete:/p/a"], []), ("rm b", ["delete:/p/b"], [])],
    ),
    # A loop over known words binds its variable to each of them in turn.
    ("for f in x y; do rm $f; done", [("rm x", ["delete:/p/x"], []), ("rm y", ["delete:/p/y"], [])]),
    ("for f in x y; do read f; rm $f; done", [("read f", [], []), ("rm $f", [], ["computed at run time"])]),
    (
        "for f in $(cat list); do rm $f; done",
        [("cat list", ["read:/p/list"], []), ("rm $f", [], ["computed at run time"])],
    ),
    (
        "while read l; do echo $l; done < list",
        [("read l", [], []), ("echo $l", [], []), (":", ["read:/p/list"], [])],
    ),
    ("case $x in a) rm a;; *) ls;; esac", [("rm a", ["delete:/p/a"], []), ("ls", ["read:/p"], [])]),
    ("f() { rm -rf /; }; f", [("rm -rf /", ["delete:/"], []), ("f", ["unknown:/p"], [])]),
    ("! rm e", [("rm e", ["delete:/p/e"], [])]),
    # Substitutions anywhere are atoms
    ('echo "$(rm a)"', [("rm a", ["delete:/p/a"], []), ("echo $(rm a)", [], [])]),
    ("echo `rm b`", [("rm b", ["delete:/p/b"], []), ("echo `rm b`", [], [])]),
    ("echo ${x:-$(rm c)}", [("rm c", ["delete:/p/c"], []), ("echo ${x:-$(rm c)}", [], [])]),
    ("echo $((1+$(rm d)))", [("rm d", ["delete:/p/d"], []), ("echo $((1+$(rm d)))", [], [])]),
    ("x=$(rm e)", [("rm e", ["delete:/p/e"], [])]),
    (
        "diff <(ls a) <(rm f)",
        [("ls a", ["read:/p/a"], []), ("rm f", ["delete:/p/f"], []), ("diff /dev/fd/63 /dev/fd/63", [], [])],
    ),
    ("ls > >(tee /x)", [("tee /x", ["write:/x"], []), ("ls", ["read:/p"], [])]),
    ('echo hi > "$(rm g)"', [("rm g", ["delete:/p/g"], []), ("echo hi", [], ["redirect"])]),
    ("[[ -f x && $(rm h) ]]", [("rm h", ["delete:/p/h"], [])]),
    ("cat <<EOF\n$(rm i)\nEOF", [("rm i", ["delete:/p/i"], []), ("cat", [], [])]),
    ("cat <<'EOF'\n$(rm j)\nEOF", [("cat", [], [])]),  # a quoted heredoc is text
    (
        "trap 'rm -rf /tmp/k' EXIT",
        [("trap rm -rf /tmp/k EXIT", [], []), ("rm -rf /tmp/k", ["delete:/tmp/k"], [])],
    ),
    ("alias ll='rm -rf /'", [("alias ll=rm -rf /", [], []), ("rm -rf /", ["delete:/"], [])]),
    # Words: what bash passes
    ("\\rm x", [("rm x", ["delete:/p/x"], [])]),
    ("'r'm x", [("rm x", ["delete:/p/x"], [])]),
    ('r""m x', [("rm x", ["delete:/p/x"], [])]),
    ("$'\\x72\\x6d' x", [("rm x", ["delete:/p/x"], [])]),
    ("rm \\\n -rf /q", [("rm -rf /q", ["delete:/q"], [])]),
    (
        "rm ~/a ~ $HOME/b ${HOME}/c",
        [
            (
                "rm /home/me/a /home/me /home/me/b /home/me/c",
                ["delete:/home/me/a", "delete:/home/me", "delete:/home/me/b", "delete:/home/me/c"],
                [],
            )
        ],
    ),
    ("rm a{1,2}.txt", [("rm a1.txt a2.txt", ["delete:/p/a1.txt", "delete:/p/a2.txt"], [])]),
    ("rm '{a,b}'", [("rm {a,b}", ["delete:/p/{a,b}"], [])]),
    ("/bin/rm -rf /r", [("rm -rf /r", ["delete:/r"], [])]),
    ("/usr/bin/git status", [("git status", ["read:/p"], [])]),
    ("./git status", [("./git status", ["exec:/p/git", "unknown:/p"], [])]),
    ("/tmp/evil/git status", [("/tmp/evil/git status", ["exec:/tmp/evil/git", "unknown:/p"], [])]),
    ("$x -rf /", [("$x -rf /", ["unknown:/p", "unknown:/"], ["computed at run time"])]),
    (
        "$(echo rm) -rf /",
        [("echo rm", [], []), ("$(echo rm) -rf /", ["unknown:/p", "unknown:/"], ["computed at run time"])],
    ),
    ("rm${IFS}-rf /", [("rm${IFS}-rf /", ["unknown:/p", "unknown:/"], ["computed at run time"])]),
    ("/bin/r? x", [("/bin/r? x", ["unknown:/p"], ["is a pattern"])]),
    # Redirects
    ("echo x > out", [("echo x", ["write:/p/out"], [])]),
    ("echo x >> /var/log/a 2>&1", [("echo x", ["write:/var/log/a"], [])]),
    ("cmd 2> err.txt < in.txt", [("cmd", ["write:/p/err.txt", "read:/p/in.txt", "unknown:/p"], [])]),
    ("ls &> all.log", [("ls", ["write:/p/all.log", "read:/p"], [])]),
    ("ls >| f", [("ls", ["write:/p/f", "read:/p"], [])]),
    ("ls 2>/dev/null >/dev/stdout", [("ls", ["read:/p"], [])]),
    ("echo a >&2", [("echo a", [], [])]),
    ("> truncated", [(":", ["write:/p/truncated"], [])]),
    ("cat <<EOF > /etc/x\nhello\nEOF", [("cat", ["write:/etc/x"], [])]),
    ("exec 3> /tmp/fd", [("exec", ["write:/tmp/fd"], [])]),
    # The working directory follows cd, pushd and popd
    ("cd /etc && cat passwd", [("cd /etc", [], []), ("cat passwd", ["read:/etc/passwd"], [])]),
    (
        "cd ~/.ssh; cat id_rsa",
        [("cd /home/me/.ssh", [], []), ("cat id_rsa", ["read:/home/me/.ssh/id_rsa"], [])],
    ),
    ("cd .. && rm -rf p", [("cd ..", [], []), ("rm -rf p", ["delete:/p"], [])]),
    ("cd /nope || rm x", [("cd /nope", [], []), ("rm x", ["delete:/p/x"], [])]),
    ("cd /a | rm x", [("cd /a", [], []), ("rm x", ["delete:/p/x"], [])]),
    ("cd $D && rm x", [("cd $D", [], []), ("rm x", [], ["working directory is unknown"])]),
    ("cd /a; cd -; rm x", [("cd /a", [], []), ("cd -", [], []), ("rm x", ["delete:/p/x"], [])]),
    ("pushd /a; popd; rm x", [("pushd /a", [], []), ("popd", [], []), ("rm x", ["delete:/p/x"], [])]),
    (
        "if c; then cd /a; fi; rm x",
        [("c", ["unknown:/p"], []), ("cd /a", [], []), ("rm x", [], ["working directory is unknown"])],
    ),
    ("env -C /srv rm x", [("rm x", ["delete:/srv/x"], [])]),
    ("git -C /repo status", [("git -C /repo status", ["read:/repo"], [])]),
    ("tar -xf a.tar -C /out", [("tar -xf a.tar -C /out", ["read:/p/a.tar", "write:/out"], [])]),
    # Wrappers
    ("sudo -u root rm -rf /s", [("sudo -u root rm -rf /s", [], []), ("rm -rf /s", ["delete:/s"], [])]),
    ("nice -n 5 rm a", [("rm a", ["delete:/p/a"], [])]),
    ("timeout 10 rm a", [("rm a", ["delete:/p/a"], [])]),
    ("env -i FOO=1 rm a", [("rm a", ["delete:/p/a"], [])]),
    ("env PATH=/evil ls", [("env PATH=/evil ls", [], ["PATH"]), ("ls", ["read:/p"], [])]),
    ("LD_PRELOAD=x.so ls", [("ls", ["read:/p"], ["LD_PRELOAD"])]),
    ("PAGER=cat git log", [("git log", ["read:/p"], [])]),
    ("env -S 'rm -rf /t'", [("rm -rf /t", ["delete:/t"], [])]),
    ("command -v git", [("command -v git", [], [])]),
    ("command rm a", [("rm a", ["delete:/p/a"], [])]),
    ("time -o t.txt ls", [("ls", ["write:/p/t.txt", "read:/p"], [])]),
    ("xargs rm < list", [("rm", ["read:/p/list"], ["standard input"])]),
    ("watch -n 1 'rm a'", [("rm a", ["delete:/p/a"], [])]),
    ("bash -c 'rm -rf /u'", [("rm -rf /u", ["delete:/u"], [])]),
    ("sh -c \"bash -c 'rm /v'\"", [("rm /v", ["delete:/v"], [])]),
    ("bash script.sh", [("bash script.sh", ["exec:/p/script.sh"], ["runs the script"])]),
    ("bash <<< 'rm /w'", [("bash", [], ["here-string"]), ("rm /w", ["delete:/w"], [])]),
    ("bash <<EOF\nrm /x\nEOF", [("bash", [], ["heredoc"]), ("rm /x", ["delete:/x"], [])]),
    ("curl -s x | sh", [("curl -s x", ["unknown:/p"], []), ("sh", [], ["pipe"])]),
    ("eval 'rm /y'", [("eval rm /y", [], ["eval"]), ("rm /y", ["delete:/y"], [])]),
    ("source ./env.sh", [("source ./env.sh", ["exec:/p/env.sh"], ["source"])]),
    ("find . -name '*.o' -delete", [("find . -name *.o -delete", ["read:/p", "delete:/p"], [])]),
    ("find /d -exec rm {} +", [("find /d -exec rm {} +", ["read:/d"], []), ("rm /d", ["delete:/d"], [])]),
    ("find . -fprint /tmp/list", [("find . -fprint /tmp/list", ["read:/p", "write:/tmp/list"], [])]),
    ("python3 - <<'PY'\nopen('/z','w')\nPY", [("python3 -", ["write:/z"], [])]),
    # Programs on standard input: <<- strips tabs, an unquoted body loses bash's escapes, echo's
    # text is known, a redirected echo prints nothing into the pipe.
    ("python3 - <<-'PY'\n\timport os\n\tos.remove('/z')\n\tPY", [("python3 -", ["delete:/z"], [])]),
    ("python3 <<PY\nopen('/z\\$', 'w')\nPY", [("python3", ["write:/z$"], [])]),
    ("python3 <<PY\nopen('$HOME/z', 'w')\nPY", [("python3", [], ["computed"])]),
    ('echo \'open("/z", "w")\' | python3', [('echo open("/z", "w")', [], []), ("python3", ["write:/z"], [])]),
    ("echo 'x' > f | python3", [("echo x", ["write:/p/f"], []), ("python3", [], ["pipe"])]),
    ("echo 'rm /u' | bash", [("echo rm /u", [], []), ("bash", [], ["pipe"]), ("rm /u", ["delete:/u"], [])]),
    # Options and operands
    ("cp a b", [("cp a b", ["read:/p/a", "write:/p/b"], [])]),
    ("cp -t dir a b", [("cp -t dir a b", ["write:/p/dir", "read:/p/a", "read:/p/b"], [])]),
    ("mv a b", [("mv a b", ["delete:/p/a", "write:/p/b"], [])]),
    (
        "dd if=/dev/sda of=disk.img",
        [("dd if=/dev/sda of=disk.img", ["read:/dev/sda", "write:/p/disk.img"], [])],
    ),
    ("sort -o out in", [("sort -o out in", ["write:/p/out", "read:/p/in"], [])]),
    ("sort --outp=out in", [("sort --outp=out in", ["write:/p/out", "read:/p/in"], [])]),
    ("grep -r pattern src", [("grep -r pattern src", ["read:/p/src"], [])]),
    ("grep -e a -e b file", [("grep -e a -e b file", ["read:/p/file"], [])]),
    ("sed -i.bak s/a/b/ f", [("sed -i.bak s/a/b/ f", ["write:/p/f"], [])]),
    ("sed -n 1p f", [("sed -n 1p f", ["read:/p/f"], [])]),
    ("sed 's/x/y/w out' f", [("sed s/x/y/w out f", ["write:/p/out", "read:/p/f"], [])]),
    ("awk '{print $1}' f", [("awk {print $1} f", ["read:/p/f"], [])]),
    ("awk '{print > \"o\"}' f", [('awk {print > "o"} f', ["read:/p/f"], ["prints into a file"])]),
    (
        "rsync -a --delete src/ /backup/",
        [("rsync -a --delete src/ /backup/", ["read:/p/src", "delete:/backup"], [])],
    ),
    ("rsync -a src/ host:/dst", [("rsync -a src/ host:/dst", ["read:/p/src"], [])]),
    ("git branch -D old", [("git branch -D old", ["unknown:/p"], [])]),
    ("git clean -fdx", [("git clean -fdx", ["delete:/p"], [])]),
    ("git clean -n", [("git clean -n", ["read:/p"], [])]),
    ("git -c core.pager=x log", [("git -c core.pager=x log", ["read:/p"], ["git -c"])]),
    ("rg --pre ./x pat", [("rg --pre ./x pat", ["exec:/p/x", "read:/p"], ["--pre"])]),
    ("ln -s ~/.ssh s", [("ln -s /home/me/.ssh s", ["read:/home/me/.ssh", "write:/p/s"], [])]),
    ("unzip a.zip -d out", [("unzip a.zip -d out", ["read:/p/a.zip", "write:/p/out"], [])]),
    (
        "mycli --config=/etc/conf run",
        [("mycli --config=/etc/conf run", ["unknown:/p", "unknown:/etc/conf"], [])],
    ),
    ("echo $OPENAI_API_KEY", [("echo $OPENAI_API_KEY", [], ["looks like a secret"])]),
    ("ls --help", [("ls --help", ["read:/p"], [])]),
    ("frobnicate --version", [("frobnicate --version", ["unknown:/p"], [])]),  # --help can't vouch for it
    ("bash -c 'rm -rf /h' --version", [("rm -rf /h", ["delete:/h"], [])]),
    ("find . 2>/dev/null -delete", [("find . -delete", ["read:/p", "delete:/p"], [])]),
    ("env 2>/dev/null rm -rf x", [("rm -rf x", ["delete:/p/x"], [])]),
    ("echo a > f b c", [("echo a b c", ["write:/p/f"], [])]),
    # What cannot be analysed is a doubt
    ("rm 'unterminated", [("rm", [], []), ("rm 'unterminated", [], ["does not parse"])]),
    (
        "git log &&& rm -rf /",
        [
            ("git log", ["read:/p"], []),
            ("rm -rf /", ["delete:/"], []),
            ("git log &&& rm -rf /", [], ["does not parse"]),
        ],
    ),
    ("X=1", [("X=1", [], [])]),
    ("export PATH=/tmp/x:$PATH", [("export PATH=/tmp/x:$PATH", [], ["sets PATH"])]),
    # Bash evaluates an array subscript in a name as arithmetic, running its substitutions: the
    # name an indirect expansion reads, and a value that will be used as one, are doubts.
    ("echo ${!x}", [("echo ${!x}", [], []), ("echo ${!x}", [], ["indirect expansion"])]),
    ("y=${!x}", [("y=${!x}", [], ["indirect expansion"])]),
    ("echo ${!arr[@]} ${!BASH*}", [("echo ${!arr[@]} ${!BASH*}", [], [])]),  # keys and names only
    (
        "x='a[$(rm -rf ~)]'; echo ${!x}",
        [("echo ${!x}", [], []), ("x='a[$(rm -rf ~)]'; echo ${!x}", [], ["subscript with a substitution"])],
    ),
    ("declare -n r='a[`id`]'", [("declare -n r='a[`id`]'", [], ["subscript with a substitution"])]),
    ("x='a[1]'", [("x='a[1]'", [], [])]),
    ("[ -v 'a[$(rm -rf ~)]' ]", [("[ -v 'a[$(rm -rf ~)]' ]", [], ["subscript of a[$(rm -rf ~)]"])]),
    ("[[ -R 'a[`id`]' ]]", [("[[ -R 'a[`id`]' ]]", [], ["as arithmetic"])]),
    ("[ -f a -a -v 'q[$(id)]' ]", [("[ -f a -a -v 'q[$(id)]' ]", [], ["as arithmetic"])]),
    ("unset -v x 'b[$(id)]'", [("unset -v x 'b[$(id)]'", [], ["subscript of b[$(id)]"])]),
    ("declare 'a[$(id)]'", [("declare 'a[$(id)]'", [], ["as arithmetic"])]),
    ("local 'a[$(id)]'=1", [("local 'a[$(id)]'=1", [], ["as arithmetic"])]),
    ("[ -v name ]", [("[ -v name ]", [], [])]),
    ("unset x; declare -r X", [("unset x; declare -r X", [], [])]),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_atoms(analyzer: Analyzer, line: str, expected: list[A]) -> None:
    found = summary(analyzer, line)
    assert [(text, accesses) for text, accesses, _ in found] == [(t, a) for t, a, _ in expected], found
    for (_, _, doubts), (_, _, wanted) in zip(found, expected, strict=True):
        assert len(doubts) >= len(wanted), found
        for substring in wanted:
            assert any(substring in d for d in doubts), (substring, doubts)
        if not wanted:
            assert doubts == [], found


def test_a_glob_is_judged_at_its_directory_and_at_what_it_matches(analyzer: Analyzer, tmp_path: Path) -> None:
    (tmp_path / ".env").touch()
    (tmp_path / "a.txt").touch()
    found = summary(analyzer, "cat .en? *.txt", str(tmp_path))
    assert found == [
        (
            "cat .en? *.txt",
            [f"read:{tmp_path}", f"read:{tmp_path}/.env", f"read:{tmp_path}/a.txt"],
            [],
        )
    ]


def test_limits_are_doubts_not_crashes(analyzer: Analyzer) -> None:
    (atom,) = analyzer.atoms("x" * 70_000, "/p")
    assert "longer than 64 KB" in atom.doubts[0]
    deep = "echo " + "$(" * 200 + "x" + ")" * 200
    assert any("nests deeper" in d for a in analyzer.atoms(deep, "/p") for d in a.doubts)
    nested = "rm x"
    for _ in range(6):  # bash -c 'bash -c ...', each level quoting the one inside
        nested = "bash -c '" + nested.replace("'", "'\\''") + "'"
    assert any("nest more than 4 levels" in d for a in analyzer.atoms(nested, "/p") for d in a.doubts)
    many = "; ".join(["ls"] * 3000)
    atoms = analyzer.atoms(many, "/p")
    assert any("too many commands" in d for a in atoms for d in a.doubts)
    assert os.environ.get("HOME") is not None
