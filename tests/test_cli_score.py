"""``samsa score`` end to end, in-process, including every bad-input path."""

from __future__ import annotations

import json
import shutil

import pytest

from samsa.cli import main

ACCEPTANCE = ["--aligner", "exact", "--compat", "easse", "--tokenizer", "none", "--sentence-separator", "<::::>"]


@pytest.fixture
def gold(tmp_path, fixture_path):
    d = tmp_path / "gold"
    d.mkdir()
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), d / "2.xml")
    shutil.copy(fixture_path("ucca/paper/2_read_book.xml"), d / "10.xml")  # natural order: 2 before 10
    return d


def write(tmp_path, name, data):
    f = tmp_path / name
    f.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return f


def test_acceptance_command_writes_one_json_object_per_line(tmp_path, gold, capsys):
    system = write(
        tmp_path, "sys.txt", "John got home and gave . <::::> Mary called .\nJohn wrote . <::::> I read the book .\n"
    )
    out = tmp_path / "out.jsonl"
    rc = main(
        ["score", "--ucca", str(gold), "--system", str(system), *ACCEPTANCE, "--per-sentence", str(out), "--quiet"]
    )
    assert rc == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["line"], r["samsa"], r["samsa_abl"], r["n_scenes"], r["n_sentences"]) for r in rows] == [
        (1, 62.5, 62.5, 2, 2),
        (2, 87.5, 87.5, 2, 2),
    ]
    table = capsys.readouterr().out
    assert "SAMSA  " in table and "75.00" in table
    assert "SAMSA|compat:easse|parser:xml|aligner:exact.v1|tok:none|lc:no|split:sep|version:" in table


def test_json_output(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", "John got home. John gave Mary a call.\nJohn wrote a book. I read that book.\n")
    assert main(["score", "--ucca", str(gold), "--system", str(system), "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["samsa"], data["samsa_abl"], data["n_lines"], data["n_scenes"]) == (100.0, 100.0, 2, 4)
    assert data["config"]["compat"] == "paper" and data["signature"].startswith("SAMSA|compat:paper|")


def test_empty_output_line_scores_zero_with_a_warning(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", "\nJohn wrote a book. I read that book.\n")
    assert main(["score", "--ucca", str(gold), "--system", str(system), "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "1 empty output line(s) (first: line 1)" in captured.err
    assert json.loads(captured.out)["samsa"] == 50.0


def run_error(capsys, argv):
    rc = main(["score", *argv, "--quiet"])
    assert rc == 1
    return capsys.readouterr().err


def test_line_count_mismatch(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", "one line only\n")
    out = tmp_path / "o.jsonl"
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system), "--per-sentence", str(out)])
    # the missing line's counterpart is the second UCCA file: the error names it, and both counts
    assert "10.xml: UCCA file number 2 has no system line" in err  # natural order: 1.xml, then 10.xml
    assert "sys.txt has 1 lines" in err and "2 UCCA XML files" in err
    assert not out.exists()


def test_line_count_mismatch_names_the_longer_file(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", "a\nb\nc\n")
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system)])
    assert "sys.txt:3: no source for this line" in err
    source = write(tmp_path, "src.txt", "John went home .\nHe called Mary .\nThey talked .\n")
    err = run_error(capsys, ["--source", str(source), "--system", str(write(tmp_path, "one.txt", "x\n"))])
    assert "src.txt:2: no system line for this source line" in err


def test_empty_file(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", b"")
    assert "sys.txt: file is empty" in run_error(capsys, ["--ucca", str(gold), "--system", str(system)])


def test_non_utf8(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", b"fine line\nbad \xff byte\n")
    out = tmp_path / "o.jsonl"
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system), "--per-sentence", str(out)])
    assert "sys.txt:2: invalid UTF-8 byte 0xff" in err
    assert not out.exists()


def test_overlong_line(tmp_path, gold, capsys):
    system = write(tmp_path, "sys.txt", "ok\n" + " ".join(["w"] * 5000) + "\n")
    out = tmp_path / "o.jsonl"
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system), "--per-sentence", str(out)])
    assert "sys.txt:2: line has 5000 tokens, more than the limit of 1000" in err
    assert not out.exists()


def test_malformed_xml_in_gold_dir(tmp_path, gold, capsys):
    (gold / "10.xml").write_bytes(b"<root>\n<layer>\n</root>")
    system = write(tmp_path, "sys.txt", "a\nb\n")
    out = tmp_path / "o.jsonl"
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system), "--per-sentence", str(out)])
    assert "10.xml:3: malformed XML" in err
    assert not out.exists()


def test_entity_expansion_attack_in_gold_dir(tmp_path, gold, capsys):
    (gold / "2.xml").write_bytes(b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa">]>\n<root>&a;</root>')
    system = write(tmp_path, "sys.txt", "a\nb\n")
    err = run_error(capsys, ["--ucca", str(gold), "--system", str(system)])
    assert "2.xml:2: DOCTYPE/entity declarations are not allowed" in err


def test_easse_index_error_names_the_xml_file_and_line(tmp_path, fixture_path, capsys):
    d = tmp_path / "g"
    d.mkdir()
    shutil.copy(fixture_path("ucca/teacher_left.xml"), d / "1.xml")
    system = write(tmp_path, "sys.txt", "The teacher left .\n")
    err = run_error(capsys, ["--ucca", str(d), "--system", str(system), "--compat", "easse"])
    assert "sys.txt:1: passage teacher_left: EASSE's SAMSA raises an index error" in err
    assert "(source: " in err and "1.xml)" in err
    # --lenient drops that line with a warning instead; with nothing left to score, that is an error too
    rows = tmp_path / "rows.jsonl"
    err = run_error(capsys, ["--ucca", str(d), "--system", str(system), "--compat", "easse", "--lenient",
                             "--per-sentence", str(rows)])  # fmt: skip
    assert "warning: dropped line 1: " in err and "every line was dropped" in err
    assert not rows.exists()  # a failed run writes no per-sentence file


def test_help_teaches(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "example" in capsys.readouterr().out


def test_mixed_sources_manual_ucca_replaces_the_parse_of_the_lines_it_names(tmp_path, fixture_path, capsys):
    """--ucca DIR with --source: 2.xml is line 2's manual UCCA; line 1 is parsed. The paper's two bad splits
    score 87.5 on line 2's annotation (as with --ucca alone) and 58.33 on line 1's parse (as with --source
    alone), and the signature says one line of two is manual."""
    manual = tmp_path / "manual"
    manual.mkdir()
    shutil.copy(fixture_path("ucca/paper/2_read_book.xml"), manual / "2.xml")
    rows = tmp_path / "rows.jsonl"
    args = ["score", "--ucca", str(manual), "--source", str(fixture_path("paper_sources.txt")),
            str(fixture_path("paper_outputs.txt")), "--per-sentence", str(rows), "-f", "json", "--quiet"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    scores = [json.loads(line)["samsa"] for line in rows.read_text().splitlines()]
    assert scores == [pytest.approx(58.3333, abs=1e-4), 87.5]
    assert out["samsa"] == pytest.approx((58.3333 + 87.5) / 2, abs=1e-4)
    assert "|parser:builtin.v5+fast+ucca-span-v2-scenes-w4|manual:1/2|aligner:exact.v1|" in out["signature"]
    (manual / "note.xml").write_text("<root/>")
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "note.xml: with --source, a UCCA file is named by the source line it annotates" in err[0]
    (manual / "note.xml").unlink()
    shutil.copy(fixture_path("ucca/paper/2_read_book.xml"), manual / "3.xml")
    assert main(args) == 1
    assert "3.xml: names line 3, but the sources have 2 lines" in capsys.readouterr().err
