"""``samsa report``: the numbers behind the page, the page in a real browser, the paper's example explained."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from samsa.cli import main
from samsa.lexical import corpus_bleu, corpus_fkgl, corpus_sari
from samsa.normalize import normalize
from samsa.report import build_report, render_html
from samsa.report import metrics as M
from samsa.report.stats import paired_bootstrap, resample_indices
from samsa.scoring.metric import Samsa
from samsa.ucca.xml import list_passage_files, load_passage


def lines(p: Path) -> list[str]:
    return p.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def hsplit(data_dir):
    base = data_dir / "easse" / "test_sets" / "hsplit"
    src = lines(base / "hsplit.tok.src")
    refs = [lines(base / f"hsplit.tok.{k}") for k in range(1, 5)]
    a = data_dir / "acl2018" / "All_system_outputs"
    return src, refs, {"Moses": lines(a / "Moses_all"), "DSS": lines(a / "DSS_all")}


def test_sufficient_statistics_give_the_corpus_scores(hsplit):
    """Each interval is computed over statistics whose sum is exactly the metric samsa evaluate prints."""
    src, refs, systems = hsplit
    per = [list(r) for r in zip(*refs, strict=True)]
    norm = [normalize(s, lowercase=True) for s in src]
    nref = [[normalize(r, lowercase=True) for r in rs] for rs in per]
    for sys in systems.values():
        nsys = [normalize(s, lowercase=True) for s in sys]
        assert M.sari_stat(norm, nsys, nref).value() == pytest.approx(corpus_sari(src, sys, refs), abs=1e-9)
        assert M.bleu_stat(nsys, nref).value() == pytest.approx(corpus_bleu(sys, refs, lowercase=True), abs=1e-9)
        assert M.fkgl_stat(sys).value() == pytest.approx(corpus_fkgl(sys), abs=1e-9)


def test_paired_bootstrap_hand_cases():
    a = M.mean_stat([1.0, 2.0, 3.0, 4.0])
    idx = resample_indices(4, 500, seed=3)
    assert paired_bootstrap(a, a, idx) == (0.0, 1.0)  # a system against itself: no difference, p = 1
    b = M.mean_stat([11.0, 12.0, 13.0, 14.0])  # always exactly 10 better: every resample differs by 10
    diff, p = paired_bootstrap(a, b, idx)
    assert diff == 10.0 and p == pytest.approx(1 / 501)  # only the +1 of the estimator
    lo, hi = np.percentile(a.resampled(idx), [2.5, 97.5])
    assert 1.0 <= lo < a.value() < hi <= 4.0


def test_the_papers_example_is_explained(fixture_path):
    """John got home and gave Mary a call. -> two Scenes; the bad split keeps 'got home', loses 'call'."""
    files = list_passage_files(fixture_path("ucca/paper"))
    graphs = [load_passage(f) for f in files]
    sources = lines(fixture_path("paper_sources.txt"))
    outs = lines(fixture_path("paper_outputs.txt"))
    data = build_report(graphs, sources, {"bad": outs, "identity": sources}, metric=Samsa(), resamples=50)
    first = data["sentences"][0]
    assert first["tokens"][:4] == ["John", "got", "home", "and"] and len(first["scenes"]) == 2
    home, call = first["scenes"]
    words = lambda unit: [c["words"] for c in unit["centers"]]  # noqa: E731
    assert words(home["mr"]) == [["got"]] and [words(p) for p in home["parts"]] == [[["John"]], [["home"]]]
    assert words(call["mr"]) == [["call"]] and [words(p) for p in call["parts"]] == [[["John"]], [["Mary"]]]
    bad = first["systems"][0]
    assert bad["sents"] == [["John", "got", "home", "and", "gave", "."], ["Mary", "called", "."]]
    assert [s["sent"] for s in bad["scenes"]] == [0, 1] and [s["score"] for s in bad["scenes"]] == [1.0, 0.25]
    assert bad["samsa"] == 62.5 and bad["n_out"] == 2
    tokens = first["tokens"]
    assert [tokens[i] for i in bad["scenes"][1]["aligned"]] == ["Mary"]  # 'call' and 'John' are not in sentence 2
    assert data["table"]["bad"]["samsa"]["value"] == 75.0 and data["table"]["identity"]["samsa_abl"]["value"] == 100
    assert [c["key"] for c in data["columns"]] == ["samsa", "samsa_abl", "fkgl", "ld_sc", "split_proportion",
                                                   "sentences_per_output"]  # reference-free: no SARI/BLEU  # fmt: skip


def _browse(chromium, path: Path, shot: Path, fragment: str = "", width: int = 1280):
    sync_api, executable = chromium
    events: list[tuple[str, str]] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu",
                                     "--disable-background-networking", "--disable-component-update",
                                     "--disable-sync", "--no-first-run"])  # fmt: skip
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.on("console", lambda m: events.append((m.type, m.text)))
        page.on("pageerror", lambda e: events.append(("pageerror", str(e))))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(path.resolve().as_uri() + fragment)
        page.wait_for_selector("#detail h3")
        page.screenshot(path=str(shot), full_page=True)
        state = {
            "rows": page.locator("#sentences tbody tr").count(),
            "scenes": page.locator("#detail .source .scene").count(),
            "heading": page.locator("#detail h3").inner_text(),
            "chips": page.locator("#detail .system").first.locator(".chip").all_inner_texts(),
            "systems": page.locator("#detail .system h4").all_inner_texts(),
            "arithmetic": page.locator("#detail .system").first.locator(".arith").all_inner_texts(),
            # the page's horizontal overflow: how far its content reaches past the window
            "overflow": page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"),
            "table_overflow": page.evaluate(
                "(() => { const t = document.querySelector('#sentences'); return t.scrollWidth - t.clientWidth; })()"
            ),
        }
        page.fill("#filter", "volterra")
        state["filtered"] = page.locator("#sentences tbody tr").count()
        browser.close()
    return events, requests, state


@pytest.mark.browser
def test_report_on_hsplit_in_a_real_browser(chromium, data_dir, tmp_path, capsys):
    a = data_dir / "acl2018" / "All_system_outputs"
    out = tmp_path / "report.html"
    systems = [a / "Moses_all", a / "DSS_all", a / "SENTSh1_default_model_all", a / "SEMoses_all"]
    assert main(["report", "-t", "hsplit", *map(str, systems), "--name", "Moses", "DSS", "SENTS", "SEMoses",
                 "-o", str(out), "-q", "--bootstrap", "200"]) == 0  # fmt: skip
    assert "359 sentences, 4 system(s)" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    assert out.stat().st_size <= 5_000_000
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)[1])
    assert data["systems"] == ["Moses", "DSS", "SENTS", "SEMoses"] and len(data["sentences"]) == 359
    for key in ("SARI", "BLEU", "SAMSA", "SAMSA-abl", "FKGL"):
        assert f">{key}</th>" in html
    events, requests, state = _browse(chromium, out, tmp_path / "report.png")
    assert events == []  # no console message, no page error
    assert requests == [out.resolve().as_uri()]  # the page itself, nothing else
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert state["rows"] == 359 and state["filtered"] == 1
    assert len(state["systems"]) == 4
    # at 760 px (a laptop window split in two) no part of the page, the last system's column included, is cut off
    # shown on the first sentence with a Scene without participants: its participant half counts 0.5
    line, k = next((e["line"], k) for e in data["sentences"] for k, sc in enumerate(e["scenes"]) if not sc["parts"])
    m = next(e for e in data["sentences"] if e["line"] == line)["systems"][0]["scenes"][k]
    _, _, narrow = _browse(chromium, out, tmp_path / "narrow.png", f"#line={line}", width=760)
    assert narrow["overflow"] == 0 and narrow["table_overflow"] == 0
    mr = "1" if m["mr"] == 1 else "0" if m["mr"] == 0 else "0.50"
    assert f"0.5 \u00d7 {mr} + 0.5 \u00d7 0.5 (no participant) = {m['score']:.2f}" in narrow["arithmetic"]
    assert m["score"] == 0.5 * m["mr"] + 0.25


@pytest.mark.browser
def test_the_papers_example_in_the_browser(chromium, fixture_path, tmp_path, capsys):
    out = tmp_path / "paper.html"
    assert main(["report", "--ucca", str(fixture_path("ucca/paper")), str(fixture_path("paper_outputs.txt")),
                 "--name", "bad-splits", "-o", str(out), "-q"]) == 0  # fmt: skip
    again = tmp_path / "again.html"
    assert main(["report", "--ucca", str(fixture_path("ucca/paper")), str(fixture_path("paper_outputs.txt")),
                 "--name", "bad-splits", "-o", str(again), "-q"]) == 0  # fmt: skip
    assert again.read_bytes() == out.read_bytes()  # same input, same page (fixed bootstrap seed, no timestamps)
    events, requests, state = _browse(chromium, out, tmp_path / "paper.png", "#line=1")
    assert events == [] and requests == [out.resolve().as_uri()]  # a fragment is not part of the request
    assert state["heading"] == "Line 1: 2 scene(s)" and state["scenes"] == 2
    # scene 1 (got home): main relation and both participants survive in sentence 1;
    # scene 2 (gave ... a call): 'call' and the remote 'John' are missing from "Mary called ."
    assert state["chips"] == ["\u2713 main relation: got = 1", "\u2713 participant: John = 1",
                              "\u2713 participant: home = 1", "\u2717 main relation: call = 0",
                              "\u2717 participant: John = 0", "\u2713 participant: Mary = 1"]  # fmt: skip
    assert "SAMSA 62.50" in state["systems"][0] and "non-splitting penalty 2/2" in state["systems"][0]
    # the arithmetic, hand-computed: scene 1 = 0.5 x 1 + 0.5 x mean(1, 1) = 1; scene 2 = 0.5 x 0 + 0.5 x mean(0, 1)
    # = 0.25; SAMSA-abl = 100 x mean(1, 0.25) = 62.5; SAMSA = 2/2 x 62.5
    assert state["arithmetic"] == [
        "SAMSA-abl = 100 \u00d7 mean(1.00, 0.25) = 62.50; SAMSA = penalty 2/2 \u00d7 SAMSA-abl = 62.50.",
        "0.5 \u00d7 1 + 0.5 \u00d7 mean(1, 1) = 1.00",
        "0.5 \u00d7 0 + 0.5 \u00d7 mean(0, 1) = 0.25",
    ]


def test_report_refuses_bad_input(fixture_path, tmp_path, capsys):
    ucca = str(fixture_path("ucca/paper"))
    out = tmp_path / "r.html"
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    for argv, message in (
        (["--ucca", ucca, str(short)], "short.txt:2: has 1 lines but"),
        (["--ucca", ucca, str(fixture_path("paper_outputs.txt")), "--name", "a", "b"], "--name gives 2 name(s)"),
        ([str(short)], "no sources: give -t NAME, --source FILE or --ucca DIR"),
        (
            ["--ucca", ucca, str(fixture_path("paper_outputs.txt")), "-o", str(fixture_path("paper_outputs.txt"))],
            "is an input of this run",
        ),
    ):
        argv = [*argv] if "-o" in argv else [*argv, "-o", str(out)]
        assert main(["report", *argv, "-q"]) == 1
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_the_page_renders_without_script_too(fixture_path):
    files = list_passage_files(fixture_path("ucca/paper"))
    graphs = [load_passage(f) for f in files]
    sources = lines(fixture_path("paper_sources.txt"))
    data = build_report(graphs, sources, {"<b>x</b>": sources}, metric=Samsa(), resamples=20)
    html = render_html(data)
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html  # names are escaped in tables and data
    assert "SAMSA|compat:paper|parser:given" in html  # the signature beside the numbers
