"""``samsa sample`` and ``samsa score --plan``: the plan, the estimate end to end, and every refusal in one line with
nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from samsa.cli import main

GOLD = ("1_john_home_call.xml", "2_read_book.xml")


@pytest.fixture
def corpus(tmp_path, fixture_path):
    """The paper's two sources and outputs, and a folder of their manual annotations named by line."""
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    ann = tmp_path / "ann"
    ann.mkdir()
    for k, name in enumerate(GOLD, 1):
        shutil.copy(fixture_path("ucca/paper") / name, ann / f"{k}.xml")
    return src, out, ann


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_a_plan_of_every_line_gives_the_manual_score_exactly(corpus, tmp_path, capsys):
    src, out, ann = corpus
    plan = tmp_path / "plan.json"
    assert main(["sample", "--source", str(src), str(out), "--budget", "2", "-o", str(plan), "-q"]) == 0
    capsys.readouterr()
    doc = json.loads(plan.read_text())
    assert doc["drawn"] == [1, 2] and doc["probabilities"] == [1.0, 1.0] and doc["lines"] == 2
    assert doc["design"] == "uniform" and doc["seed"] == 0 and doc["parser"].startswith("builtin.v5+fast")
    argv = ["score", "--plan", str(plan), "--source", str(src), "--ucca", str(ann), str(out), str(src), "-q", "--json"]
    assert main(argv) == 0
    first, second = json.loads(capsys.readouterr().out)
    # every line annotated with probability 1: the estimate is the manual mean, with no doubt left
    assert (first["estimate"]["samsa"], first["estimate"]["low"], first["estimate"]["high"]) == (75.0, 75.0, 75.0)
    assert first["samsa"] == 75.0  # the headline reads the annotations too (mixed sources)
    assert second["estimate_vs_first"]["difference"] == pytest.approx(second["estimate"]["samsa"] - 75.0)
    assert first["estimate"]["signature"].startswith(
        "estimate|method:tuned+floor.0.25+t+small.75|design:uniform|budget:2|"
    )
    assert "drawn:2|annotated:2|seed:0" in first["estimate"]["signature"]


def test_the_table_shows_the_estimate_and_every_signature_labelled(corpus, tmp_path, capsys):
    src, out, ann = corpus
    plan = tmp_path / "plan.json"
    assert main(["sample", "--source", str(src), str(out), str(src), "--budget", "2", "-o", str(plan), "-q"]) == 0
    capsys.readouterr()
    argv = ["score", "--plan", str(plan), "--source", str(src), "--ucca", str(ann), str(out), str(src), "-q"]
    assert main(argv) == 0
    table = capsys.readouterr().out.splitlines()
    assert "manual est. 95%" in table[0] and "vs first, est. 95%" in table[0]
    assert "75.00 (75.00-75.00)" in table[2]
    assert [line.split(": ")[0] for line in table[4:]] == ["samsa", "estimate"]


def test_sampling_is_reproducible_and_spends_the_budget(tmp_path, fixture_path, capsys):
    src = fixture_path("paper_sources.txt")
    lines = tmp_path / "src.txt"
    lines.write_text(src.read_text() * 20)  # 40 lines
    plans = []
    for seed in (5, 5, 6):
        plan = tmp_path / f"p{seed}.json"
        assert main(["sample", "--source", str(lines), str(lines), "--budget", "0.25", "--seed", str(seed),
                     "-o", str(plan), "-q", "--json"]) == 0  # fmt: skip
        summary = json.loads(capsys.readouterr().out)
        doc = json.loads(plan.read_text())
        assert summary["drawn"] == doc["drawn"] == sorted(doc["drawn"])
        assert sum(doc["probabilities"]) == pytest.approx(10.0) and all(0 < p <= 1 for p in doc["probabilities"])
        plans.append(doc["drawn"])
    assert plans[0] == plans[1]


def test_target_width_picks_the_budget(tmp_path, fixture_path, capsys):
    src = fixture_path("paper_sources.txt")
    lines = tmp_path / "src.txt"
    lines.write_text(src.read_text() * 20)
    plan = tmp_path / "plan.json"
    argv = ["sample", "--source", str(lines), str(lines), "--target-width", "6", "-o", str(plan), "-q", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert max(summary["predicted_half_width"].values()) <= 6.0
    assert json.loads(plan.read_text())["budget"] == "width:6"


@pytest.mark.parametrize("budget", ["3", "0", "1.5x"])
def test_a_budget_beyond_the_lines_is_refused(corpus, tmp_path, capsys, budget):
    src, out, _ = corpus
    plan = tmp_path / "plan.json"
    assert main(["sample", "--source", str(src), str(out), "--budget", budget, "-o", str(plan), "-q"]) == 1
    assert _one_line(capsys).startswith("samsa: error: ") and not plan.exists()


@pytest.fixture
def planned(corpus, tmp_path, capsys):
    """A plan drawing both lines of the paper's sources."""
    src, out, ann = corpus
    plan = tmp_path / "plan.json"
    assert main(["sample", "--source", str(src), str(out), "--budget", "2", "-o", str(plan), "-q"]) == 0
    capsys.readouterr()
    return src, out, ann, plan


def _score(src, out, ann, plan, target):
    return main(["score", "--plan", str(plan), "--source", str(src), "--ucca", str(ann), str(out), "-q", "--json",
                 "-o", str(target)])  # fmt: skip


def test_a_plan_for_other_sources_is_refused(planned, tmp_path, capsys):
    src, out, ann, plan = planned
    other = tmp_path / "other.txt"
    other.write_text(src.read_text().replace("Mary", "Anna"))
    target = tmp_path / "r.json"
    assert _score(other, out, ann, plan, target) == 1
    assert "a plan for other sources" in _one_line(capsys) and not target.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [("drawn", [1]), ("seed", 5), ("estimator", {"floor": 0.0}), ("design", "doubt"), ("parser", "builtin.v5+x")],
)
def test_a_hand_edit_of_the_plan_is_refused_naming_the_field(planned, tmp_path, capsys, field, value):
    src, out, ann, plan = planned
    doc = json.loads(plan.read_text())
    doc[field] = {**doc[field], **value} if isinstance(value, dict) else value
    plan.write_text(json.dumps(doc))
    target = tmp_path / "r.json"
    assert _score(src, out, ann, plan, target) == 1
    assert f"the plan's '{field}' was changed after samsa sample wrote it" in _one_line(capsys)
    assert not target.exists()


def test_a_plan_is_computed_with_its_own_settings_not_todays(planned, tmp_path, capsys):
    """A plan drawn under other estimator settings (here a floor of 0.9, written through the plan's own API, as an
    older samsa would have written it) is computed with them: its signature and its interval say so."""
    from samsa.engine.plan import read_plan

    src, out, ann, plan = planned
    (ann / "2.xml").unlink()  # one line annotated: the floor matters
    sources = src.read_text(encoding="utf-8").splitlines()
    drawn_one = read_plan(plan, str(src), sources)._replace(drawn=(1,), probabilities=(0.5, 0.5))
    results = {}
    for floor in (0.25, 0.9):
        old = tmp_path / f"plan{floor}.json"
        settings = {**drawn_one.estimator, "floor": floor, "small": 0.0}  # as written before the small-sample rule
        old.write_text(drawn_one._replace(estimator=settings).to_json())
        target = tmp_path / f"r{floor}.json"
        assert _score(src, out, ann, old, target) == 0, capsys.readouterr().err
        results[floor] = json.loads(target.read_text())["estimate"]
    assert "floor.0.9+" in results[0.9]["signature"] and "floor.0.25+" in results[0.25]["signature"]
    assert results[0.9]["high"] - results[0.9]["low"] > results[0.25]["high"] - results[0.25]["low"]


def test_a_plan_of_another_parser_is_refused(planned, tmp_path, capsys):
    from samsa.engine.plan import read_plan

    src, out, ann, plan = planned
    sources = src.read_text(encoding="utf-8").splitlines()
    plan.write_text(read_plan(plan, str(src), sources)._replace(parser="builtin.v5+mpnet+x").to_json())
    target = tmp_path / "r.json"
    assert _score(src, out, ann, plan, target) == 1
    assert "the plan was drawn with another parser (builtin.v5+mpnet+x)" in _one_line(capsys)


def test_a_drawn_line_still_a_draft_is_refused_naming_it(planned, tmp_path, capsys):
    """A line the annotator saved but nobody marked done does not count as annotated."""
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.skeleton_write import skeleton_xml
    from samsa.ucca.xml import load_passage

    src, out, ann, plan = planned
    (ann / "2.xml").write_bytes(skeleton_xml(skeleton_of(load_passage(ann / "2.xml")), draft=True))
    target = tmp_path / "r.json"
    assert _score(src, out, ann, plan, target) == 1
    assert "1 drawn line(s) still drafts (mark them done): 2" in _one_line(capsys) and not target.exists()


def test_a_drawn_line_without_its_annotation_is_refused(planned, tmp_path, capsys):
    src, out, ann, plan = planned
    (ann / "2.xml").unlink()
    target = tmp_path / "r.json"
    assert _score(src, out, ann, plan, target) == 1
    line = _one_line(capsys)
    assert "1 line(s) the plan drew have no annotation here" in line and line.endswith(": 2")
    assert not target.exists()


@pytest.mark.parametrize("probabilities", [None, [1.0], [0.0, 1.0], [1.0, 1.5], ["x", 1.0]])
def test_bad_probabilities_are_refused(planned, tmp_path, capsys, probabilities):
    src, out, ann, plan = planned
    doc = json.loads(plan.read_text())
    if probabilities is None:
        del doc["probabilities"]
    else:
        doc["probabilities"] = probabilities
    plan.write_text(json.dumps(doc))
    target = tmp_path / "r.json"
    assert _score(src, out, ann, plan, target) == 1
    line = _one_line(capsys)
    assert "probabilit" in line and not target.exists()


@pytest.mark.parametrize("plan_used", [True, False])
def test_a_misnumbered_annotation_is_refused(planned, tmp_path, capsys, plan_used):
    """Line 2's annotation saved as 1.xml (and line 1's as 2.xml): refused naming the file, the line and the word."""
    src, out, ann, plan = planned
    (ann / "1.xml").rename(ann / "tmp.xml")
    (ann / "2.xml").rename(ann / "1.xml")
    (ann / "tmp.xml").rename(ann / "2.xml")
    target = tmp_path / "r.json"
    if plan_used:
        code = _score(src, out, ann, plan, target)
    else:
        code = main(["score", "--source", str(src), "--ucca", str(ann), str(out), "-q", "-o", str(target)])
    assert code == 1 and not target.exists()
    line = _one_line(capsys)
    assert line == (f"samsa: error: {ann / '1.xml'}: does not annotate line 1 of {src}: it reads 'I' where the line "
                    "reads 'John' (a file is named by the line it annotates: is this line 1's?)")  # fmt: skip


def test_an_annotation_the_plan_did_not_draw_is_said_and_left_out(corpus, tmp_path, capsys):
    src, out, ann = corpus
    lines = tmp_path / "src.txt"
    lines.write_text(src.read_text() * 3)  # 6 lines; the fixture's annotations fit lines 1-2, 3-4, 5-6
    outs = tmp_path / "out.txt"
    outs.write_text(out.read_text() * 3)
    plan = tmp_path / "plan.json"
    assert main(["sample", "--source", str(lines), str(outs), "--budget", "2", "--seed", "1", "-o", str(plan),
                 "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    drawn = json.loads(plan.read_text())["drawn"]
    full = tmp_path / "full"
    full.mkdir()
    for k in range(1, 7):
        shutil.copy(ann / f"{2 - k % 2}.xml", full / f"{k}.xml")
    assert main(["score", "--plan", str(plan), "--source", str(lines), "--ucca", str(full), str(outs), "-q",
                 "--json"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["estimate"]["lines_used"] == len(drawn)
    assert "annotation(s) of lines the plan did not draw" in captured.err
    assert result["samsa"] == 75.0 and "manual:6/6" in result["signature"]


def test_evaluate_and_report_carry_the_estimate(planned, tmp_path, capsys):
    src, out, ann, plan = planned
    argv = ["evaluate", "--plan", str(plan), "--source", str(src), "--ucca", str(ann), "--refs", str(out),
            "-m", "samsa,sari", str(out), str(src), "-q", "--json"]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    first, second = result["systems"].values()
    assert (first["samsa"], first["samsa_est"], first["samsa_est_lo"], first["samsa_est_hi"]) == (75.0,) * 4
    assert second["samsa_est_vs_first"] == pytest.approx(second["samsa_est"] - 75.0)
    assert result["signatures"]["samsa_est"].startswith("estimate|method:tuned")
    page = tmp_path / "r.html"
    assert main(["report", "--plan", str(plan), "--source", str(src), "--ucca", str(ann), str(out), "-o", str(page),
                 "-q"]) == 0  # fmt: skip
    html = page.read_text()
    assert '<table id="estimate-table">' in html and "75.00 [75.00, 75.00]" in html and "lines 1, 2" in html


SMALL_THINGS = {
    "seed below 0": (["sample", "{src}", "--source", "{src}", "--seed", "-1", "-o", "{tmp}/p.json"], "--seed"),
    "negative width": (["sample", "{src}", "--source", "{src}", "--target-width", "-2", "-o", "{tmp}/p.json"],
                       "not a number above 0"),
    "a budget of 1.5": (["sample", "{src}", "--source", "{src}", "--budget", "1.5", "-o", "{tmp}/p.json"],
                        "--budget takes a share between 0 and 1"),
    "a budget of 1.0": (["sample", "{src}", "--source", "{src}", "--budget", "1.0", "-o", "{tmp}/p.json"],
                        "not 1.0"),
    "a budget of 0": (["sample", "{src}", "--source", "{src}", "--budget", "0", "-o", "{tmp}/p.json"], "not 0"),
    "no line drawn": (["sample", "{src}", "--source", "{src}", "--budget", "0.01", "-o", "{tmp}/p.json"],
                      "the draw picked no line"),
    "easse with a plan": (["score", "{src}", "--source", "{src}", "--compat", "easse", "--plan", "{tmp}/p.json",
                           "--ucca", "{tmp}"], "--plan estimates paper-mode SAMSA, not --compat easse"),
    "documents with a plan": (["score", "{src}", "--source", "{src}", "--documents", "--plan", "{tmp}/p.json",
                               "--ucca", "{tmp}"], "it does not go with --documents"),
    "a reversed range": (["annotate", "--source", "{src}", "--lines", "2-1", "--out", "{tmp}/out", "--no-browser"],
                         "ranges low-high"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(SMALL_THINGS))
def test_each_small_mistake_gets_one_line(case, tmp_path):
    """#69's list of small things: each bad input is refused in one line, with no traceback and nothing written."""
    import subprocess
    import sys

    argv, said = SMALL_THINGS[case]
    src = Path(__file__).resolve().parents[1] / "fixtures" / "paper_sources.txt"
    argv = [a.replace("{src}", str(src)).replace("{tmp}", str(tmp_path)) for a in argv]
    run = subprocess.run([sys.executable, "-m", "samsa", *argv, "-q"], capture_output=True, text=True, timeout=300)
    lines = run.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("samsa")]  # argparse's usage lines aside
    assert run.returncode != 0 and "Traceback" not in run.stderr and len(errors) == 1, run.stderr
    assert said in lines[-1] and not (tmp_path / "p.json").exists() and not (tmp_path / "out").exists()


def test_the_lang_help_names_no_test_set_where_there_is_none():
    import argparse

    from samsa.cli.annotate import add_parser as annotate_parser
    from samsa.cli.skeleton import add_parser as skeleton_parser

    for add in (annotate_parser, skeleton_parser):
        sub = argparse.ArgumentParser().add_subparsers()
        add(sub)
        text = next(iter(sub.choices.values())).format_help()
        assert "--lang" in text and "-t names" not in text
