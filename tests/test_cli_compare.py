"""``samsa compare-annotations`` (against another annotation or a parser) and ``samsa benchmark``'s input checks."""

from __future__ import annotations

import json
import shutil

import pytest

from samsa.cli import main
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage


@pytest.fixture
def dirs(tmp_path, fixture_path):
    """Gold = the two paper passages; other = the same, with the relative clause's P relabeled D (no scene)."""
    gold, other = tmp_path / "gold", tmp_path / "other"
    shutil.copytree(fixture_path("ucca/paper"), gold)
    shutil.copytree(fixture_path("ucca/paper"), other)
    book = other / "2_read_book.xml"
    old = '<edge toID="1.11" type="P"><attributes/><category tag="P"/></edge>'
    text = book.read_text()
    assert text.count(old) == 1
    book.write_text(text.replace(old, old.replace('"P"', '"D"')))
    return gold, other


def _score(capsys, ucca, system):
    assert main(["score", "--ucca", str(ucca), "--system", str(system), "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def test_compare_with_another_annotation(dirs, fixture_path, capsys):
    gold, other = dirs
    system = fixture_path("paper_outputs.txt")
    assert main(["compare-annotations", "--ucca", str(gold), "--parsed", str(other), "--system", str(system),
                 "--json", "--quiet"]) == 0  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert result["scene_counts"] == {"gold": 4, "parsed": 3}  # 2 + 2 scenes; the relative clause lost its P
    assert result["scenes"]["scene_f1"] == pytest.approx(2 * 3 / (3 + 4))  # 3 of 4 found, all 3 right
    block = result["systems"][system.name]
    # the same numbers as scoring each annotation on its own
    assert block["samsa_gold"] == _score(capsys, gold, system)["samsa"]
    assert block["samsa_parsed"] == _score(capsys, other, system)["samsa"]
    assert block["samsa_gold"] != block["samsa_parsed"]
    assert main(["ucca-eval", str(other), str(gold), "--json"]) == 0
    evaluation = json.loads(capsys.readouterr().out)
    assert result["ucca_labeled_f1"]["primary"] == evaluation["labeled"]["primary"]["f1"] < 1


def test_compare_refuses_what_it_cannot_compare(dirs, fixture_path, tmp_path, capsys):
    gold, other = dirs
    system = str(fixture_path("paper_outputs.txt"))
    assert main(["compare-annotations", "--ucca", str(gold), "--parser", "xml", "--system", system]) == 1
    assert "the xml parser reads annotations, it does not parse: give --parsed DIR" in capsys.readouterr().err
    (other / "2_read_book.xml").unlink()
    assert main(["compare-annotations", "--ucca", str(gold), "--parsed", str(other), "--system", system]) == 1
    assert "holds 1 UCCA XML files but the system output has 2 lines" in capsys.readouterr().err
    shutil.copy(fixture_path("ucca/traveling_fun.xml"), other / "2.xml")
    assert main(["compare-annotations", "--ucca", str(gold), "--parsed", str(other), "--system", system]) == 1
    assert "2.xml: its tokens differ from" in capsys.readouterr().err


def test_compare_with_the_builtin_parser(dirs, fixture_path, tmp_path, capsys):
    """The parser side equals parsing the gold tokens with ``samsa parse`` and scoring those files."""
    gold, _ = dirs
    system = fixture_path("paper_outputs.txt")
    assert main(["compare-annotations", "--ucca", str(gold), "--system", str(system), "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    sentences = tmp_path / "tokens.txt"
    sentences.write_text("".join(" ".join(tokens(load_passage(f))) + "\n" for f in list_passage_files(gold)))
    parsed = tmp_path / "parsed"
    assert main(["parse", "--input", str(sentences), "--output-dir", str(parsed), "--tokenizer", "none", "-q"]) == 0
    block = result["systems"][system.name]
    assert block["samsa_gold"] == _score(capsys, gold, system)["samsa"]
    assert block["samsa_parsed"] == _score(capsys, parsed, system)["samsa"]
    assert result["scene_counts"]["gold"] == 4 and result["sentences"] == 2


def test_benchmark_refuses_mismatched_inputs(data_dir, tmp_path, capsys):
    a = data_dir / "acl2018" / "Evaluation_system_outputs"
    base = ["benchmark", "hsplit", "--data", str(data_dir), "--no-samsa"]
    assert main([*base, "--system", str(a / "Moses"), str(a / "DSS"), "--name", "Moses"]) == 1
    assert "--name gives 1 name(s) for 2 system file(s)" in capsys.readouterr().err
    longer = tmp_path / "longer.txt"
    full = data_dir / "hsplit" / "HSplit" / "HSplit1_full"  # 359 lines, one per source
    longer.write_text(full.read_text(encoding="utf-8") + "one line too many\n", encoding="utf-8")
    assert main([*base, "--system", str(longer)]) == 1
    assert f"{longer}:360: has 360 lines; the HSplit benchmark needs 359" in capsys.readouterr().err
    out = tmp_path / "scores.csv"
    assert main([*base, "--system", str(a / "Moses"), "-f", "csv", "-o", str(a / "Moses")]) == 1
    assert "is an input of this run" in capsys.readouterr().err and not out.exists()


def test_benchmark_signatures_name_the_normalization(data_dir, capsys, tmp_path):
    a = data_dir / "acl2018" / "Evaluation_system_outputs"
    out = tmp_path / "b.json"
    assert main(["benchmark", "hsplit", "--data", str(data_dir), "--no-samsa", "--system", str(a / "Moses"),
                 "--first", "70", "-f", "json", "-o", str(out), "-q"]) == 0  # fmt: skip
    sig = json.loads(out.read_text())["signatures"]["turk8"]["bleu"]
    assert "lc:yes" in sig and "unesc:yes" in sig and "norm:table2" in sig
