"""policy log report in a real browser: headless Chromium opens the page with no console message at
all (no error, no blocked script or fetch), draws it (a screenshot that is not blank), and builds
a document whose figures are those of `policy log stats` and in which a hostile command is text.

Chromium's console goes to stderr with ``--enable-logging=stderr``: every message, an uncaught
error or a Content-Security-Policy refusal alike, is a ``:CONSOLE`` line there. The page has no
script, so any such line is a failure; the detector is itself tested on pages that do have one."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from helpers import Sandbox
from test_log_report import (
    CALLS,
    SECRET,
    Page,
    assert_inert,
    figures_of,
    stats_of,
    write_session_log,
)

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium here (Debian: apt-get install chromium; CI installs it)"
)

WIDTH, HEIGHT = 1000, 1400


def browse(page: Path, home: Path, *args: str) -> tuple[str, list[str]]:
    """(stdout, console messages) of headless Chromium opening ``page`` with ``args``."""
    assert CHROMIUM is not None
    profile = home / f"profile-{len(list(home.glob('profile-*')))}"
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",  # as root, Chromium refuses to start with its own sandbox
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


def pixels(png: bytes) -> tuple[int, int, set[bytes]]:
    """(width, height, the distinct RGB colours) of an 8-bit RGB or RGBA PNG, decoded here."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, data = 8, b""
    width = height = colour_type = 0
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind, body = png[position + 4 : position + 8], png[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour_type in (2, 6), (depth, colour_type)
        elif kind == b"IDAT":
            data += body
    raw = zlib.decompress(data)
    step = 3 if colour_type == 2 else 4
    stride = width * step
    previous, colours = bytes(stride), set()
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, step)
        colours.update(line[i : i + 3] for i in range(0, stride, step))
        previous = line
    return width, height, colours


def _unfilter(kind: int, line: bytearray, previous: bytes, step: int) -> bytes:
    """One scanline with its PNG filter undone (filters 0-4 of the PNG specification)."""
    if kind == 2:
        return bytes((a + b) & 255 for a, b in zip(line, previous, strict=True))
    for i in range(len(line) if kind else 0):
        left = line[i - step] if i >= step else 0
        up, corner = previous[i], previous[i - step] if i >= step else 0
        if kind == 1:
            line[i] = (line[i] + left) & 255
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 255
        else:
            guess = left + up - corner
            near = min(
                (abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner)
            )
            line[i] = (line[i] + near[2]) & 255
    return bytes(line)


@pytest.fixture
def report(sandbox: Sandbox) -> tuple[Sandbox, dict[str, str], Path]:
    env = write_session_log(sandbox)
    output = sandbox.root / "report.html"
    made = sandbox.run("log", "report", "--output", str(output), env=env)
    assert made.returncode == 0, made.stderr
    return sandbox, env, output


def test_the_page_opens_without_a_console_message_and_shows_the_stats(
    report: tuple[Sandbox, dict[str, str], Path], tmp_path: Path
) -> None:
    sandbox, env, output = report
    dom, console = browse(output, tmp_path, "--dump-dom")
    assert console == []
    page = Page(dom)  # the document as Chromium built it
    assert figures_of(page) == stats_of(sandbox, env)
    assert figures_of(page)["decisions"] == len(CALLS)
    assert_inert(page)
    assert '</code><script>alert("pwned")</script>' in page.all_text  # shown as text
    assert SECRET not in dom


def test_the_screenshot_is_not_blank(report: tuple[Sandbox, dict[str, str], Path], tmp_path: Path) -> None:
    _, _, output = report
    shot = tmp_path / "report.png"
    _, console = browse(
        output, tmp_path, f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars", f"--screenshot={shot}"
    )
    assert console == []
    width, height, colours = pixels(shot.read_bytes())
    assert (width, height) == (WIDTH, HEIGHT)
    # Text, cards and charts: far more than a background and a colour or two.
    assert len(colours) > 50, len(colours)
    # Each action's colour of the chart is drawn (light scheme: headless Chromium's default).
    for colour in ("2e7d32", "e08600", "c62828", "0277bd"):
        assert bytes.fromhex(colour) in colours, colour


def test_a_blank_page_is_seen_blank(tmp_path: Path) -> None:
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    shot = tmp_path / "blank.png"
    browse(blank, tmp_path, "--window-size=200,100", f"--screenshot={shot}")
    assert len(pixels(shot.read_bytes())[2]) == 1


@pytest.mark.parametrize(
    "injected",
    [
        '<script>throw new Error("deliberate")</script>',
        '<img src="https://example.com/beacon.png">',
        "<svg><rect onclick=\"alert(1)\"></rect></svg><script>console.log('ran')</script>",
    ],
)
def test_the_detector_sees_an_error_a_script_or_a_fetch(
    report: tuple[Sandbox, dict[str, str], Path], tmp_path: Path, injected: str
) -> None:
    """What the page would do if a logged command got through unescaped: refused, and seen."""
    _, _, output = report
    broken = tmp_path / "broken.html"
    broken.write_text(output.read_text().replace("<main>", "<main>" + injected, 1))
    _, console = browse(broken, tmp_path, "--dump-dom")
    assert console, "the page's Content-Security-Policy refused it, and said so"
    assert not [line for line in console if '] "ran", source: ' in line], "the injected script never ran"


def test_the_detector_sees_an_uncaught_error(tmp_path: Path) -> None:
    page = tmp_path / "error.html"
    page.write_text('<!DOCTYPE html><p>x</p><script>throw new Error("deliberate")</script>')
    _, console = browse(page, tmp_path, "--dump-dom")
    assert any("Uncaught Error: deliberate" in line for line in console), console
