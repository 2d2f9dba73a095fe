"""``samsa evaluate``: the JSON contract and bad-input errors."""

from __future__ import annotations

import json
import shutil

import pytest

from samsa.cli import main

SRC = "About 95 species are currently accepted .\nThe cat sat on the mat .\n"
SYS = "About 95 species are now accepted .\nThe cat sat . It was on the mat .\n"
REF0 = "About 95 species are currently known .\nThe cat sat on a mat .\n"
REF1 = "About 95 species are now accepted .\nThe cat was on the mat .\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"src": SRC, "sys": SYS, "ref0": REF0, "ref1": REF1}.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text, encoding="utf-8")
    return paths


ALL = "sari,bleu,fkgl,ibleu,fkbleu,ld_sc,ld_sr,splits"


def test_contract_json(files, capsys):
    argv = ["evaluate", "--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref0"]),
            str(files["ref1"]), "--metrics", ALL, "--sari-variant", "easse", "--tokenizer", "13a", "--lowercase",
            "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {*ALL.split(","), "signatures"}
    assert set(out["signatures"]) == set(ALL.split(","))
    assert (
        out["signatures"]["sari"] == "SARI|variant:easse|refs:2|tok:13a|lc:yes|unesc:no|legacy:no|del:f1|version:0.1.0"
    )
    assert out["splits"]["split_outputs"] == 1 and out["splits"]["sentences_per_output"] == 1.5
    assert 0 <= out["sari"] <= 100 and 0 <= out["bleu"] <= 100


def test_variants_change_the_number_and_the_signature(files, capsys):
    values = {}
    for variant in ("xu2016", "easse", "hf"):
        main(["evaluate", "--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref0"]),
              "--metrics", "sari", "--sari-variant", variant, "--json"])  # fmt: skip
        out = json.loads(capsys.readouterr().out)
        assert f"variant:{variant}" in out["signatures"]["sari"]
        values[variant] = out["sari"]
    assert len(set(values.values())) == 3


def test_samsa_beside_lexical_metrics(tmp_path, fixture_path, capsys):
    gold = tmp_path / "gold"
    gold.mkdir()
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), gold / "1.xml")
    src = tmp_path / "s.txt"
    src.write_text("John got home and gave Mary a call .\n")
    out = tmp_path / "o.txt"
    out.write_text("John got home and gave . Mary called .\n")
    assert main(["evaluate", "--source", str(src), "--system", str(out), "--refs", str(src), "--metrics",
                 "samsa,bleu", "--ucca", str(gold), "--json"]) == 0  # fmt: skip
    res = json.loads(capsys.readouterr().out)
    assert res["samsa"] == 62.5 and res["signatures"]["samsa"].startswith("SAMSA|compat:paper|parser:xml")


def err(capsys, argv):
    assert main(["evaluate", *argv]) == 1
    return capsys.readouterr().err


def test_line_count_mismatch_names_file_and_line(files, capsys):
    files["ref1"].write_text(REF1 + "extra line\n")
    e = err(capsys, ["--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref0"]),
                     str(files["ref1"])])  # fmt: skip
    assert "ref1.txt:3: has 3 lines but" in e and "src.txt has 2" in e


def test_system_shorter_than_source(files, capsys):
    files["sys"].write_text("only one\n")
    e = err(capsys, ["--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref0"])])
    assert "sys.txt:2: has 1 lines but" in e


def test_empty_reference_file(files, capsys):
    files["ref0"].write_bytes(b"")
    e = err(capsys, ["--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref0"])])
    assert "ref0.txt: file is empty" in e


def test_non_utf8_reference(files, capsys):
    files["ref1"].write_bytes(b"ok\n\xe9t\xe9\n")
    e = err(capsys, ["--source", str(files["src"]), "--system", str(files["sys"]), "--refs", str(files["ref1"])])
    assert "ref1.txt:2: invalid UTF-8 byte 0xe9" in e


def test_unknown_metric(files, capsys):
    e = err(capsys, ["--source", str(files["src"]), "--system", str(files["sys"]), "--metrics", "sari,rouge"])
    assert "unknown metric(s) rouge" in e
