"""``samsa annotate`` in a real browser: Debian's chromium, driven by Playwright (no browser download).

The edits are driven from :func:`lab.annotator_effort.script` (the actions the effort benchmark counts), with
the page's own clicks and the keys of ``samsa/annotate/assets/keys.json``; the server applies them with
``samsa/annotate/edits.py``. Run only these: ``pytest -m browser``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab.annotator_effort import script
from samsa.annotate.edits import PARTICIPANT_EDITS, Edit
from samsa.ucca.skeleton import Skeleton, skeleton_of
from samsa.ucca.xml import load_passage

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
KEY_TABLE = ROOT / "samsa" / "annotate" / "assets" / "keys.json"
SOURCES = [
    "John got home and gave Mary a call.",
    "I read the book that John wrote.",
    "Traveling is fun.",
    "The old man and the young woman left.",
    'He wrote <script>alert("x")</script> & <img src=x onerror=alert(1)> here.',
]
GOLD = {1: "ucca/paper/1_john_home_call.xml", 2: "ucca/paper/2_read_book.xml", 3: "ucca/traveling_fun.xml",
        4: "ucca/man_woman_left.xml"}  # fmt: skip
KEYS = {
    k["action"]: k["presses"][0] for k in json.loads(KEY_TABLE.read_text(encoding="utf-8"))
}  # each edit's first key, as the page binds it


class Annotator:
    """A running ``samsa annotate``: its URL, its folder, its process."""

    def __init__(self, source: Path, out: Path, lines: str, port: int = 0) -> None:
        self.out = out
        command = [sys.executable, "-m", "samsa", "annotate", "--source", str(source), "--lines", lines,
                   "--out", str(out), "--no-browser", "--port", str(port), "-q"]  # fmt: skip
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline() if self.proc.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", first)
        if not found:
            raise AssertionError(f"no URL printed: {first!r} {self.proc.stderr.read() if self.proc.stderr else ''}")
        self.url, self.port, self.token = found.group(0), int(found.group(1)), found.group(2)

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("annotate") / "src.txt"
    path.write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser(chromium) -> Iterator:
    sync_api, executable = chromium
    with sync_api.sync_playwright() as pw:
        flags = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip
        b = pw.chromium.launch(executable_path=executable, args=flags)
        yield b
        b.close()


@pytest.fixture(scope="module")
def annotator(source, tmp_path_factory) -> Iterator[Annotator]:
    out = tmp_path_factory.mktemp("annotated") / "out"
    out.mkdir()
    (out / "2.xml").write_bytes((FIXTURES / GOLD[2]).read_bytes())  # another tool's annotation of line 2
    a = Annotator(source, out, "1-5")
    yield a
    code, err = a.stop()
    assert code == 0 and "stopped" in err


def _page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.dialogs = []
    page.errors = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    return page


def _open(page, line: int) -> None:
    page.fill("#jump", str(line))
    page.press("#jump", "Enter")
    page.wait_for_function(f"() => document.querySelector('#meta').textContent.startsWith('line {line} ')")


def _settled(page) -> None:
    page.wait_for_function("() => (document.body.dataset.pending || '0') === '0'")


def _select(page, words) -> None:
    page.keyboard.press("Escape")
    for w in words:
        page.click(f".tok[data-pos='{w}']")


def _do(page, e: Edit, current: Skeleton) -> None:
    """One edit as a user makes it: the Scene (and participant) clicked, the words clicked, the key pressed."""
    if e.name != "new_scene":
        page.click(f".scene[data-scene='{e.scene}'] h2")
    if e.name in PARTICIPANT_EDITS:
        page.click(f".scene[data-scene='{e.scene}'] .participant[data-participant='{e.participant}']")
    words = e.selection
    if e.target is not None:  # a Scene is named by a word of its main relation
        words = (current.scenes[e.target].main[0][0],)
    _select(page, words)
    page.keyboard.press(KEYS[e.name])
    _settled(page)  # the server's answer shown before the next click


def _gold(line: int) -> Skeleton:
    return skeleton_of(load_passage(FIXTURES / GOLD[line]))


def test_fixture_lines_annotated_from_their_parse_to_their_gold(annotator, browser, tmp_path):
    """Lines 1 and 3: the parse's Scenes corrected by clicks and keys, the file the gold's skeleton in samsa's
    Scene order; as many edits as the effort benchmark counts. The script's Scene numbers are the edited
    skeleton's; the page shows its Scenes in samsa's order, so each is clicked where the page shows it."""
    from samsa.annotate.edits import apply
    from samsa.ucca.skeleton_write import skeleton_xml

    page = _page(browser, annotator.url)
    for line in (1, 3):
        _open(page, line)
        parse = Skeleton.from_json({"tokens": _tokens(page), "punct": _punct(page), "scenes": _parse_scenes(page)})
        edits = script(parse, _gold(line))
        assert edits, f"line {line}'s parse is already right: the test would check nothing"
        current = parse.canonical()
        for e in edits:
            shown = current.text_order()
            at = e._replace(scene=shown.index(e.scene) if e.scene in shown else e.scene)
            _do(page, at._replace(target=None if e.target is None else shown.index(e.target)), current.in_text_order())
            current = apply(current, e)
        page.keyboard.press("Enter")  # done
        _settled(page)
        assert page.inner_text("#edits") == f"edits on this line: {len(edits)}"
        gold = _gold(line)._replace(passage_id=str(line)).in_text_order().canonical()
        assert (annotator.out / f"{line}.xml").read_bytes() == skeleton_xml(gold)
    assert not page.errors and not page.dialogs


def _line_json(page) -> dict:
    return page.evaluate(
        "async () => (await fetch('/api/line/' + document.querySelector('#meta').textContent.split(' ')[1], "
        "{headers: {'X-Samsa-Token': new URLSearchParams(location.search).get('token')}})).json()"
    )


def _tokens(page) -> list[str]:
    return _line_json(page)["tokens"]


def _punct(page) -> list[bool]:
    return _line_json(page)["punct"]


def _parse_scenes(page) -> list[dict]:
    return _line_json(page)["parse"]["scenes"]


def _saved(annotator: Annotator, line: int) -> Skeleton:
    return skeleton_of(load_passage(annotator.out / f"{line}.xml"))


def test_undo_and_redo_with_keys_and_buttons(annotator, browser):
    page = _page(browser, annotator.url)
    _open(page, 4)
    parse = Skeleton.from_json({"tokens": _tokens(page), "punct": _punct(page), "scenes": _parse_scenes(page)})
    page.click(".scene[data-scene='2'] h2")
    page.keyboard.press("X")  # delete the third Scene ("young woman")
    _settled(page)
    assert len(_saved(annotator, 4).scenes) == len(parse.scenes) - 1
    page.keyboard.press("z")
    _settled(page)
    assert _saved(annotator, 4).scenes == parse.canonical().scenes
    page.click("#redo")
    _settled(page)
    assert len(_saved(annotator, 4).scenes) == len(parse.scenes) - 1
    page.click("#undo")
    _settled(page)
    # keyboard only: the cursor to 'old' (the second word), space selects it, m makes it Scene 1's main relation
    page.click(".scene[data-scene='0'] h2")
    page.keyboard.press("Escape")
    page.focus("#tokens .tok[data-pos='1']")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    page.keyboard.press("m")
    _settled(page)
    assert _saved(annotator, 4).scenes[0].main == ((2,),)


def test_another_tools_file_is_kept_until_the_user_says(annotator, browser):
    before = (annotator.out / "2.xml").read_bytes()
    page = _page(browser, annotator.url)
    _open(page, 2)
    assert "another tool" in page.inner_text("#banner")
    page.keyboard.press("Enter")  # save as it is: refused, the file stays
    _settled(page)
    assert (annotator.out / "2.xml").read_bytes() == before
    assert page.inner_text("#savestate") == "not saved"
    page.click("#allow-replace")
    _settled(page)
    assert (annotator.out / "2.xml").read_bytes() != before
    assert _saved(annotator, 2).scenes == _gold(2).scenes  # the foreign file's Scenes were what it showed


def test_text_is_shown_as_text(annotator, browser):
    page = _page(browser, annotator.url)
    _open(page, 5)
    shown = page.inner_text("#tokens").split("\n")
    assert 'alert("x")</script' in shown and "<" in shown and "onerror" in shown
    assert page.locator("#tokens script, #tokens img, #scenes script, #scenes img").count() == 0
    page.click(".tok[data-pos='1']")
    page.keyboard.press("n")
    _settled(page)
    assert not page.dialogs and not page.errors


def test_screenshot_for_the_docs(annotator, browser, tmp_path):
    page = _page(browser, annotator.url)
    _open(page, 1)
    page.click(".scene[data-scene='1'] h2")
    page.click(".scene[data-scene='1'] .participant[data-participant='0']")
    shot = tmp_path / "annotate.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get(
        "SAMSA_UPDATE_SCREENSHOT"
    ):  # docs/annotate.md's picture: SAMSA_UPDATE_SCREENSHOT=1 pytest -m browser
        shutil.copy(shot, ROOT / "docs" / "images" / "annotate.png")


def test_resume_after_a_restart(source, browser, tmp_path):
    out = tmp_path / "resume"
    first = Annotator(source, out, "1-3")
    page = _page(browser, first.url)
    assert page.inner_text("#meta").startswith("line 1 ")
    page.click(".scene[data-scene='1'] h2")
    _select(page, [8])
    page.keyboard.press("m")
    page.keyboard.press("Enter")  # done
    _settled(page)
    page.close()
    code, err = first.stop()
    assert code == 0 and "1 of 3 lines done" in err
    again = Annotator(source, out, "1-3")
    try:
        page = _page(browser, again.url)
        assert page.inner_text("#meta").startswith("line 2 ")  # the first line not yet annotated
        _open(page, 1)
        assert "main relation: call" in page.inner_text(".scene[data-scene='1']")  # the saved Scenes, not the parse's
    finally:
        again.stop()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_draft_is_not_counted_until_marked_done(source, browser, tmp_path):
    a = Annotator(source, tmp_path / "drafts", "1-2")
    try:
        page = _page(browser, a.url)
        page.click(".scene[data-scene='0'] h2")
        _select(page, [1])
        page.keyboard.press("m")
        _settled(page)
        assert page.inner_text("#done") == "0 of 2 done" and "draft" in page.inner_text("#savestate")
        page.keyboard.press("Enter")
        _settled(page)
        assert page.inner_text("#done") == "1 of 2 done" and "done" in page.inner_text("#savestate")
    finally:
        a.stop()


def test_a_restart_on_the_same_port_keeps_the_open_tab_working(source, browser, tmp_path):
    """The token lives in the folder: a restart within 2 s on the same port, and the tab's next edit is saved."""
    import time

    out, port = tmp_path / "restart", _free_port()
    first = Annotator(source, out, "1-2", port)
    page = _page(browser, first.url)
    page.click(".scene[data-scene='0'] h2")
    _select(page, [1])
    page.keyboard.press("m")
    _settled(page)
    assert first.stop()[0] == 0
    stopped = time.monotonic()
    again = Annotator(source, out, "1-2", port)
    try:
        assert time.monotonic() - stopped < 2 and again.url == first.url
        before = (out / "1.xml").read_bytes()
        page.keyboard.press("Enter")
        _settled(page)
        assert (out / "1.xml").read_bytes() != before and "done" in page.inner_text("#savestate")
        assert not page.errors
    finally:
        again.stop()


def test_a_stale_save_is_refused_then_reloaded(source, browser, tmp_path):
    """Two tabs on one line: the second tab's save is refused (the file changed); it reloads and saves."""
    a = Annotator(source, tmp_path / "tabs", "1")
    try:
        one, two = _page(browser, a.url), _page(browser, a.url)
        for page, word in ((one, 1), (two, 3)):
            page.click(".scene[data-scene='0'] h2")
            _select(page, [word])
            page.keyboard.press("m")
            _settled(page)
        assert "changed since this page opened it" in two.inner_text("#banner")
        assert _saved(a, 1).scenes[0].main == ((1,),)  # the first tab's, kept
        two.click("#reload")
        two.wait_for_function("() => document.querySelector('#banner').hidden")
        two.keyboard.press("Enter")
        _settled(two)
        assert "done" in two.inner_text("#savestate") and _saved(a, 1).scenes[0].main == ((1,),)
    finally:
        a.stop()


def _clear_scenes(page) -> None:
    """Every Scene of the open line deleted, one by one, and the selection cleared."""
    while page.locator(".scene").count():
        page.click(".scene[data-scene='0'] h2")
        page.keyboard.press("X")
        _settled(page)
    page.keyboard.press("Escape")


def test_each_meaningless_structure_is_refused_on_the_page(source, browser, tmp_path):
    a = Annotator(source, tmp_path / "refused", "1")
    try:
        page = _page(browser, a.url)
        _clear_scenes(page)
        page.keyboard.press("n")  # nothing selected: an implicit Scene without words, which cannot be saved yet
        _settled(page)
        assert "has no words" in page.inner_text("#banner")
        _select(page, [1])
        page.keyboard.press("a")
        _settled(page)
        _select(page, [1])
        page.keyboard.press("a")  # the same participant again
        _settled(page)
        assert "twice" in page.inner_text("#banner")
        _select(page, [2])
        page.keyboard.press("n")  # Scene "got", after the implicit one (whose first word, "John", comes first)
        _settled(page)
        for k, word in ((0, 2), (1, 1)):  # each Scene made the other's participant: the second link closes a circle
            page.click(f".scene[data-scene='{k}'] h2")
            _select(page, [word])
            page.keyboard.press("s")
            _settled(page)
        assert "in a circle" in page.inner_text("#banner")
        assert len(_saved(a, 1).scenes) == 2 and not page.errors
    finally:
        a.stop()


def test_a_scene_with_an_implicit_main_relation_is_linked(source, browser, tmp_path):
    """ "John got home": an implicit Scene whose participant is "home", made the participant of "got"."""
    a = Annotator(source, tmp_path / "implicit", "1")
    try:
        page = _page(browser, a.url)
        _clear_scenes(page)
        page.keyboard.press("n")
        _settled(page)  # the new Scene is there (and active) before its participant is added to it
        _select(page, [3])
        page.keyboard.press("a")  # the implicit Scene's participant: "home"
        _select(page, [2])
        page.keyboard.press("n")  # "got": placed before the implicit Scene (its first word comes first)
        _settled(page)
        page.click(".scene[data-scene='0'] h2")
        _select(page, [3])  # a word of the implicit Scene, which has no main relation to select
        page.keyboard.press("s")
        page.keyboard.press("Enter")
        _settled(page)
        saved = _saved(a, 1)
        got = next(s for s in saved.scenes if s.main == ((2,),))
        implicit = saved.scenes.index(next(s for s in saved.scenes if s.main in ((), ((),))))
        assert any(p.scene == implicit for p in got.participants) and not page.errors
    finally:
        a.stop()


def test_a_long_sentence_keeps_its_scenes_in_view(browser, tmp_path):
    """A 100-word sentence at 1280x900: the words and the first Scene's card are on screen without scrolling."""
    words = " and ".join(f"the {w} saw a dog" for w in ("man", "woman", "child", "cat") * 5)
    src = tmp_path / "long.txt"
    src.write_text(words + " .\n", encoding="utf-8")
    assert len(words.split()) >= 100
    a = Annotator(src, tmp_path / "long", "1")
    try:
        page = _page(browser, a.url)
        card = page.locator(".scene").first.bounding_box()
        tokens = page.locator("#tokens").bounding_box()
        assert card is not None and tokens is not None
        assert 0 <= card["y"] and card["y"] + min(card["height"], 100) <= 900 and tokens["y"] < 900
        assert page.evaluate("window.scrollY") == 0
    finally:
        a.stop()
