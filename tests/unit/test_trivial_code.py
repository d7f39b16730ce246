"""Perl, Ruby, PHP and Lua programs: proven harmless only when trivially so (interpreters/trivial.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policy_engine.analysis.interpreters.findings import Setting
from policy_engine.analysis.interpreters.oneliners import DIALECTS, analyze

SETTING = Setting("/p", "/home/me", lambda name: "KEY" in name)

HARMLESS = [
    ("perl", "s/foo/bar/g"),
    ("perl", "print if /TODO/"),
    ("perl", 'print "hello $name\\n"'),
    ("perl", "print $F[0]"),
    ("perl", 'print join(",", map { $_ * 2 } 1..3)'),
    ("perl", "$x = 0x1f; print $x"),
    ("perl", "s/(\\w+)/$1/g"),
    ("perl", "tr/a-z/A-Z/"),
    ("perl", "use strict; use warnings; print length $_"),
    ("ruby", 'puts "hi"'),
    ("ruby", "puts [1, 2, 3].map { |x| x * 2 }.sum"),
    ("ruby", "n = 2\nputs n if n > 1"),
    ("ruby", "puts ARGF.each_line.count"),
    ("php", "echo json_encode([1, 2]), PHP_EOL;"),
    ("php", "$a = [3, 1]; sort($a); print_r($a);"),
    ("lua", 'print(string.format("%d", 6 * 7))'),
    ("lua", "local t = {1, 2}; for i, v in ipairs(t) do print(v) end"),
    ("lua", "local function sq(n) return n * n end print(sq(3))"),
    ("ruby", "def sq(n) n * n end\nputs sq(3)"),
    # the operands' files, read by <>, gets and ARGF (the shell analysis judges the operands)
    ("perl", 'print "$ARGV: $_"'),
    ("perl", "print $F[0]*$F[1]"),
    ("perl", "$n = $x *$y; print $n"),
    ("ruby", "puts gets.upcase"),
    # callbacks written out, or naming a harmless function
    ("php", 'print_r(array_map("strtoupper", ["a"]));'),
    ("php", 'print_r(array_map("\\\\StrToUpper", ["a"]));'),
    ("php", "print_r(array_map(fn($x) => $x * 2, [1, 2]));"),
    ("php", "print_r(array_map(function ($x) { return $x; }, [1]));"),
    ("php", "print_r(array_map(null, [1], [2]));"),
    ("php", "print_r(array_map(strlen(...), ['ab']));"),
    ("php", "print_r(array_filter([1, 0, 2]));"),
    ("php", "print_r(array_filter([1, 0], fn($x) => $x, ARRAY_FILTER_USE_KEY));"),
    # Perl's bracketed delimiters, and Ruby's regular expressions where an operand is due
    ("perl", "s{a}{b}g; print"),
    ("perl", "print if m{a} or m[b] or qr<c>"),
    ("perl", "print $F[0]"),
    ("ruby", "puts $_ if ~/x/"),
    ("ruby", "puts $_ if $_ =~ /a.*b/i"),
    ("ruby", "puts $_.split(/,/)[0]"),
    ("ruby", "x = 4 / 2 / 1; puts x"),  # division, not a regular expression
]

DOUBTFUL = [
    ("perl", 'system("rm -rf /")', "`system`"),
    ("perl", 'unlink "/etc/passwd"', "`unlink`"),
    ("perl", "s/x/`id`/e", "`"),
    ("perl", "s/x/system(1)/e", "e flag"),
    ("perl", 'print "@{[ 1 ]}"', "@{"),
    ("perl", 'print "$h{system(1)}"', "interpolates an expression"),
    ("perl", "print $ENV{OPENAI_API_KEY}", "ENV"),
    ("perl", 'open(my $f, ">", "/etc/x")', "`open`"),
    ("perl", "use POSIX; print 1", "`POSIX`"),
    ("perl", "print qx(id)", "qx"),
    ("perl", "eval $code", "`eval`"),
    ("ruby", 'FileUtils.rm_rf("/")', "`FileUtils`"),
    ("ruby", "puts `id`", "`"),
    ("ruby", 'puts "#{File.read("/etc/shadow")}"', "#{"),
    ("ruby", 'system = 1; system "ls"', "`system`"),
    ("ruby", 'x = 1\nx "ls"', "`x`"),
    ("ruby", "puts ENV.to_h", "ENV"),
    ("ruby", 'Kernel.send(:exec, "sh")', "`Kernel`"),
    ("php", 'system("id");', "`system`"),
    ("php", '$f = "system"; $f("id");', "named at run time"),
    ("php", '("sys" . "tem")("id");', "named at run time"),
    ("perl", '$n = "x"; &$n("id")', "&$"),
    ("php", "echo getenv('AWS_SECRET');", "`getenv`"),
    ("php", "print_r($_ENV);", "_ENV"),
    ("lua", 'os.execute("rm -rf /")', "`os`"),
    ("lua", 'io.open("/etc/x", "w")', "`io`"),
    ("lua", 'load("os.exit()")()', "`load`"),
    ("lua", "print([[x]])", "[["),
    # @ARGV names the files <> opens: "cmd|" runs cmd
    ("perl", 'BEGIN{@ARGV=("rm -rf ~|")} print', "`@ARGV`"),
    ("perl", '@ARGV=("id|"); print <>', "`@ARGV`"),
    ("perl", 'unshift @ARGV, "/home/me/.ssh/id_rsa"; print while <>', "`@ARGV`"),
    ("perl", '$ARGV[0] = "id|"; print <>', "`@ARGV`"),
    ("perl", "$#ARGV = -1", "`@ARGV`"),
    ("perl", 'push @::ARGV, "id|"; print <>', "`ARGV`"),
    ("perl", "print <ARGV>", "`ARGV`"),
    ("perl", 'BEGIN{*{"ARGV"} = ["id|"]} print', "symbol reached by name"),
    ("perl", 'BEGIN{$n = "ARGV"; local *$n = ["id|"]} print', "symbol reached by name"),
    ("perl", 'BEGIN{$^I = ""} print', "`I`"),
    # Ruby's ARGV (also $*), ARGF's $< and the switch variables ($-i edits in place)
    ("ruby", 'ARGV << ".env"; ARGF.each_line { |l| puts l }', "`ARGV`"),
    ("ruby", 'ARGV.push("/home/me/.ssh/id_rsa"); puts gets', "`ARGV`"),
    ("ruby", 'ARGV.replace(["x"]); puts gets', "`ARGV`"),
    ("ruby", '$* << ".env"; puts gets', "$*"),
    ("ruby", "puts $<.read", "$<"),
    ("ruby", '$-i = ""; puts gets', "$-"),
    ("ruby", "ARGF.argv << 'x'", "`argv`"),
    # a string or a variable given as a callback names the function called
    ("php", 'array_map("system", ["rm -rf ~"]);', "`array_map`"),
    ("php", 'array_filter(["id"], "system");', "`array_filter`"),
    ("php", 'array_filter(["id"], "SYSTEM");', "`array_filter`"),
    ("php", '$f = "system"; array_map($f, ["id"]);', "`array_map`"),
    ("php", 'array_map(callback: "system", array: ["id"]);', "`array_map`"),
    ("php", 'array_filter(array: ["id"], callback: "system");', "`array_filter`"),
    ("php", 'array_map(trim(" system "), ["id"]);', "`array_map`"),
    ("php", "array_map(json_decode('\"system\"'), ['id']);", "`array_map`"),
    ("php", "array_map(...$args);", "`array_map`"),
    ("php", 'array_map(null ?? "system", ["id"]);', "`array_map`"),
    ("php", 'array_map(strlen(...) . "", ["id"]);', "`array_map`"),
    # strings and regular expressions are read left to right: a quote in a regex starts no string
    ("perl", "$x = /'/; system(\"id\"); $y = '/'", "`system`"),
    ("ruby", "x = /'/; system(\"id\"); y = '/'", "`system`"),
    # a bracketed part ends at its closing bracket: the flags after it are seen, code after it read
    ("perl", 's{x}{system("id")}e; print {STDOUT} 1', "e flag"),
    ("perl", "s(x)(y)e; print (1)", "e flag"),
    ("perl", "m{x}; system('id'); {", "`system`"),
    ("perl", "s{a{b}}{c}; print", "`s`"),  # a nested bracket is not followed
    ("ruby", 'puts(/#{system("id")}/)', "#{"),
    ("ruby", "puts /x/", "`x`"),  # after a method name, / may be a division
]


@pytest.mark.parametrize(("language", "source"), HARMLESS)
def test_trivially_harmless_programs_raise_no_doubt(language: str, source: str) -> None:
    assert analyze(source, SETTING, language).doubts == ()


@pytest.mark.parametrize(("language", "source", "named"), DOUBTFUL)
def test_anything_else_is_a_doubt_that_names_why(language: str, source: str, named: str) -> None:
    doubts = analyze(source, SETTING, language).doubts
    assert len(doubts) == 1 and doubts[0].startswith("line "), doubts
    assert named in doubts[0]


def test_a_doubt_names_its_line() -> None:
    assert analyze('print "a";\nprint "b";\nsystem("x");', SETTING, "perl").doubts[0].startswith("line 3:")


@given(st.sampled_from(sorted(DIALECTS)), st.text())
def test_arbitrary_text_never_raises(language: str, source: str) -> None:
    analyze(source, SETTING, language)
