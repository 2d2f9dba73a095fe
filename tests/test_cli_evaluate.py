"""``samsa evaluate``: the JSON contract and bad-input errors."""

from __future__ import annotations

import json
import shutil

import pytest

from samsa.cli import main
from samsa.errors import InputError

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
    res = json.loads(capsys.readouterr().out)
    assert set(res) == {"test_set", "systems", "signatures"} and list(res["systems"]) == ["sys.txt"]
    out = res["systems"]["sys.txt"]
    assert set(out) == set(ALL.split(","))
    assert set(res["signatures"]) == set(ALL.split(","))
    assert (
        res["signatures"]["sari"] == "SARI|variant:easse|refs:2|tok:13a|lc:yes|unesc:no|legacy:no|del:f1|version:0.1.0"
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
        values[variant] = out["systems"]["sys.txt"]["sari"]
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
    assert res["systems"]["o.txt"]["samsa"] == 62.5
    assert res["signatures"]["samsa"].startswith("SAMSA|compat:paper|parser:xml")


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


def test_systems_as_rows_from_files_and_stdin(files, capsys, monkeypatch):
    """Positional files, -i and '-' (stdin) are all systems; one table row each, the signatures once."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SRC.encode("utf-8"))))
    argv = ["evaluate", "--source", str(files["src"]), "--refs", str(files["ref0"]), str(files["ref1"]), "-m",
            "sari,bleu", str(files["sys"]), "-i", "-", "--name", "split", "identity"]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["system", "sari", "bleu"]
    assert [x.split()[0] for x in lines[2:4]] == ["split", "identity"]
    assert sum("SARI|variant:easse" in x for x in lines) == 1 and sum("BLEU|" in x for x in lines) == 1
    assert main([*argv, "-f", "json"]) == 1  # stdin was read already: empty now
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SRC.encode("utf-8"))))
    assert main([*argv, "-f", "json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # the identity output: the same numbers as giving the source file itself
    assert main(["evaluate", "--source", str(files["src"]), "--refs", str(files["ref0"]), str(files["ref1"]), "-m",
                 "sari,bleu", str(files["src"]), "-f", "json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["systems"]["src.txt"] == res["systems"]["identity"]


@pytest.mark.parametrize("fmt", ["csv", "latex"])
def test_formats(files, capsys, fmt):
    argv = ["evaluate", "--source", str(files["src"]), "--refs", str(files["ref0"]), "-m", "sari,fkgl",
            str(files["sys"]), str(files["src"]), "-f", fmt, "-w", "4"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        rows = [r.split(",") for r in out.splitlines()]
        assert rows[0] == ["system", "sari", "fkgl"] and [r[0] for r in rows[1:]] == ["sys.txt", "src.txt"]
        float(rows[1][1])  # full precision numbers
    else:
        assert "\\begin{tabular}" in out and "% sari: SARI|" in out
        assert len(out.split("sys.txt")[1].split("&")[1].strip().split(".")[1]) == 4  # -w 4 decimals


def test_test_set_by_name_from_any_directory(data_dir, tmp_path, monkeypatch, capsys):
    """-t hsplit reads the sources and 4 references under the data root, whatever the current directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAMSA_DATA", str(data_dir))
    out = data_dir / "hsplit" / "HSplit" / "HSplit1_full"
    assert main(["evaluate", "-t", "hsplit", "-m", "sari,bleu,fkgl", "-i", str(out), "-f", "json"]) == 0
    res = json.loads(capsys.readouterr().out)
    base = data_dir / "easse" / "test_sets" / "hsplit"
    assert main(["evaluate", "--source", str(base / "hsplit.tok.src"), "--refs",
                 *(str(base / f"hsplit.tok.{k}") for k in range(1, 5)), "-m", "sari,bleu,fkgl", "-i", str(out),
                 "-f", "json"]) == 0  # fmt: skip
    same = json.loads(capsys.readouterr().out)
    assert res["systems"] == same["systems"] and res["test_set"] == "hsplit"
    assert "refs:4" in res["signatures"]["sari"]


def test_missing_data_root_is_one_line_naming_the_setting(files, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SAMSA_DATA", raising=False)
    monkeypatch.setenv("SAMSA_CONFIG", str(tmp_path / "none.ini"))
    assert main(["evaluate", "-t", "hsplit", "-i", str(files["sys"])]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no data root: pass --data DIR, set SAMSA_DATA" in err
    missing = tmp_path / "nowhere"
    assert main(["evaluate", "-t", "hsplit", "-i", str(files["sys"]), "--data", str(missing)]) == 1
    assert f"samsa: error: {missing}: data root not found (from --data)" in capsys.readouterr().err
    (tmp_path / "root").mkdir()
    monkeypatch.setenv("SAMSA_DATA", str(tmp_path / "root"))
    assert main(["evaluate", "-t", "asset_test", "-i", str(files["sys"])]) == 1
    err = capsys.readouterr().err
    assert "easse/test_sets/asset/asset.test.orig: test set asset_test: file not found" in err
    assert f"(data root {tmp_path / 'root'} from $SAMSA_DATA)" in err
    cfg = tmp_path / "config.ini"
    cfg.write_text(f"[samsa]\ndata = {tmp_path / 'root'}\n")
    monkeypatch.delenv("SAMSA_DATA")
    monkeypatch.setenv("SAMSA_CONFIG", str(cfg))
    assert main(["evaluate", "-t", "pwkp", "-i", str(files["sys"])]) == 1
    assert f"from 'data' in {cfg})" in capsys.readouterr().err
    assert main(["evaluate", "-t", "nosuchset", "-i", str(files["sys"])]) == 1
    assert "unknown test set 'nosuchset'; choose from abgb_test, asset_test" in capsys.readouterr().err


def test_name_and_count_errors_are_one_line(files, capsys):
    base = ["evaluate", "--source", str(files["src"]), "-m", "fkgl"]
    for argv, message in (
        ([*base, str(files["sys"]), "--name", "a", "b"], "--name gives 2 name(s) for 1 system file(s)"),
        ([*base, str(files["sys"]), str(files["sys"])], "system names must differ (use --name): sys.txt"),
        ([*base], "no system output given"),
        ([*base, str(files["sys"]), "-i", "-", "-"], "standard input ('-') can be read once only"),
        ([*base, str(files["sys"]) + ".missing"], "sys.txt.missing: cannot read file"),
    ):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_python_evaluate_equals_the_command(data_dir, tmp_path, monkeypatch, capsys):
    """samsa.evaluate with a test set name gives what `samsa evaluate -t` prints, from any directory."""
    from samsa import evaluate

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SAMSA_DATA", str(data_dir))
    out = data_dir / "hsplit" / "HSplit" / "HSplit3_full"
    lines = out.read_text(encoding="utf-8").splitlines()
    res = evaluate({"HSplit3_full": lines}, test_set="hsplit", metrics="sari,bleu,fkgl,splits")
    assert main(["evaluate", "-t", "hsplit", "-m", "sari,bleu,fkgl,splits", str(out), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == res
    with pytest.raises(InputError, match="need references"):
        evaluate(lines, orig_sents=lines, metrics="sari")
    with pytest.raises(InputError, match="has 2 lines for 359 sources"):
        evaluate(lines[:2], test_set="hsplit", metrics="fkgl")
