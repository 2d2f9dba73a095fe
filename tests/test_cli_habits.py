"""sacrebleu's and EASSE's command-line habits: accepted where they mean the same, refused clearly otherwise."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from samsa import __version__
from samsa.cli import build_parser, main

TURK = "easse/system_outputs/turkcorpus/test"


def samsa(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The ``samsa`` command in a process of its own (standard input a pipe when ``stdin`` is given)."""
    return subprocess.run([sys.executable, "-m", "samsa", *args], input=stdin, capture_output=True, timeout=300,
                          stdin=None if stdin is not None else subprocess.DEVNULL, env=env)  # fmt: skip


def test_version_everywhere():
    for args in (["-V"], ["--version"], ["score", "-V"], ["evaluate", "--version"], ["cache", "-V"]):
        r = samsa(*args)
        assert r.returncode == 0 and r.stdout.decode().strip() == f"samsa {__version__}", args


def test_no_prefix_matching(capsys):
    # '--sari-var' would have been read as --sari-variant; '-tok' must never be '-t ok'
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--source", "x.txt", "--sari-var", "easse", "y.txt"])
    assert e.value.code == 2
    assert "unrecognized arguments: --sari-var" in capsys.readouterr().err
    args = build_parser().parse_args(["evaluate", "-tok", "intl", "-t", "hsplit", "out.txt"])
    assert args.tokenizer == "intl" and args.test_set == "hsplit"


@pytest.mark.parametrize(
    ("argv", "lowercase"), [([], True), (["-lc"], True), (["--no-lc"], False), (["--no-lowercase"], False)]
)
def test_lowercase_spellings(argv, lowercase):
    assert build_parser().parse_args(["evaluate", "-t", "hsplit", "o.txt", *argv]).lowercase is lowercase


@pytest.mark.parametrize(
    ("argv", "metrics", "systems"),
    [
        (["-m", "sari,bleu", "o.txt"], ["sari", "bleu"], ["o.txt"]),
        (["-m", "sari", "bleu", "-i", "o.txt"], ["sari", "bleu"], ["o.txt"]),
        (["-m", "sari", "bleu", "dir/o", "p.txt"], ["sari", "bleu"], ["dir/o", "p.txt"]),
        (["o.txt", "-m", "fkgl", "samsa"], ["fkgl", "samsa"], ["o.txt"]),
    ],
)
def test_metrics_comma_or_space(argv, metrics, systems):
    from samsa.cli.io import named_systems

    args = build_parser().parse_args(["evaluate", "-t", "hsplit", *argv])
    assert args.metrics == metrics
    paths = [*args.systems, *getattr(args, "more_systems", []), *args.inputs]
    assert [p for _, p in named_systems(paths, args.names)] == systems


def test_list_test_sets():
    from samsa.testsets import available_test_sets

    for args in (["--list"], ["test-sets", "--list"]):
        r = samsa(*args)
        assert r.returncode == 0 and r.stdout.decode().split() == available_test_sets()


def test_readme_habit_line_stdin_tok_lc(data_dir):
    """The issue's line: `samsa evaluate -tok 13a -lc -m sari,bleu -t turkcorpus_test < out.txt` equals -i."""
    out = data_dir / TURK / "ACCESS"
    piped = samsa("evaluate", "-tok", "13a", "-lc", "-m", "sari,bleu", "-t", "turkcorpus_test", "-f", "json",
                  stdin=out.read_bytes())  # fmt: skip
    assert piped.returncode == 0, piped.stderr.decode()
    named = samsa("evaluate", "-m", "sari", "bleu", "-t", "turkcorpus_test", "-f", "json", "-i", str(out))
    a, b = json.loads(piped.stdout)["systems"]["stdin"], json.loads(named.stdout)["systems"]["ACCESS"]
    assert a == b
    assert round(a["sari"], 2) == 41.38 and round(a["bleu"], 2) == 76.36  # EASSE's published ACCESS figures


def test_no_input_and_no_pipe_is_one_line():
    r = samsa("evaluate", "-m", "fkgl", "--source", "fixtures/paper_sources.txt")
    assert r.returncode == 1
    assert r.stderr.decode().splitlines() == [
        "samsa: error: no system output given: pass files (or '-' for standard input) or -i FILE"
    ]


def test_confidence_interval_and_paired_bs(data_dir, capsys):
    a, b = str(data_dir / TURK / "ACCESS"), str(data_dir / TURK / "DMASS-DCSS")
    assert main(["evaluate", "-t", "turkcorpus_test", "-m", "bleu,sari,fkgl", a, b, "-ci", "--paired-bs", "-f",
                 "json", "--bootstrap", "200"]) == 0  # fmt: skip
    res = json.loads(capsys.readouterr().out)
    assert main(["evaluate", "-t", "turkcorpus_test", "-m", "bleu,sari,fkgl", a, b, "-f", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    for name in ("ACCESS", "DMASS-DCSS"):
        row = res["systems"][name]
        for m in ("bleu", "sari", "fkgl"):
            assert row[m] == plain["systems"][name][m]  # the interval never changes the score
            assert row[f"{m}_lo"] < row[m] < row[f"{m}_hi"]
            assert row[f"{m}_hi"] - row[f"{m}_lo"] < 5
    assert "bleu_p" not in res["systems"]["ACCESS"]  # the baseline
    assert 0 < res["systems"]["DMASS-DCSS"]["sari_p"] < 0.05  # 1.5 SARI apart on 359 sentences
    assert res["bootstrap"] == {"resamples": 200, "seed": 12345, "level": 0.95, "baseline": "ACCESS"}


def test_confidence_refused_where_no_statistic(capsys, fixture_path):
    assert main(["evaluate", "--source", str(fixture_path("paper_sources.txt")), "-m", "splits", "-ci",
                 str(fixture_path("paper_outputs.txt"))]) == 1  # fmt: skip
    assert "-ci/--paired-bs resample" in capsys.readouterr().err


def test_score_only(fixture_path, capsys):
    src, out = str(fixture_path("paper_sources.txt")), str(fixture_path("paper_outputs.txt"))
    assert main(["evaluate", "--source", src, "--refs", src, "-m", "bleu", "fkgl", "-i", out, "-b"]) == 0
    line = capsys.readouterr().out.strip()
    assert main(["evaluate", "--source", src, "--refs", src, "-m", "bleu,fkgl", out, "-f", "json"]) == 0
    values = json.loads(capsys.readouterr().out)["systems"]["paper_outputs.txt"]
    assert line == f"{values['bleu']:.2f}\t{values['fkgl']:.2f}"


def test_quiet_help_says_it_is_not_easse_quality_estimation():
    r = samsa("evaluate", "--help")
    assert "quality estimation" in " ".join(r.stdout.decode().split())


def test_one_vocabulary(tmp_path, fixture_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("John went home .\tJohn went home .\n", encoding="utf-8")
    out = tmp_path / "al.txt"
    assert main(["align", "-i", str(pairs), "-o", str(out)]) == 0
    assert out.read_text() == "0-0 1-1 2-2\n"  # the exact aligner leaves punctuation unaligned
    assert main(["extract-text", "-i", str(fixture_path("ucca/paper")), "-o", str(tmp_path / "t.txt")]) == 0
    assert (tmp_path / "t.txt").read_text().splitlines()[0].startswith("John got home")
    args = build_parser().parse_args(["parse", "-i", "s.txt", "-o", "dir"])
    assert (args.input, args.output_dir) == ("s.txt", "dir")
    assert build_parser().parse_args(["cache", "info", "-f", "json"]).format == "json"
    assert build_parser().parse_args(["test-sets", "--json"]).format == "json"


def test_dash_is_standard_output_for_every_output_option(tmp_path, fixture_path, monkeypatch):
    """``-o -``, ``--per-sentence -``: standard output, as ``-`` is standard input for the inputs; no file named
    ``-`` appears."""
    monkeypatch.chdir(tmp_path)
    ucca, outputs = str(fixture_path("ucca/paper")), str(fixture_path("paper_outputs.txt"))
    r = samsa("score", "--ucca", ucca, outputs, "--per-sentence", "-", "-f", "json", "-o", "-")
    assert r.returncode == 0
    rows = [line for line in r.stdout.decode().splitlines() if line.startswith('{"line"')]
    assert [json.loads(x)["line"] for x in rows] == [1, 2]
    assert json.loads(r.stdout.decode()[r.stdout.decode().index("{\n") :])["samsa"] == 75.0
    r = samsa("report", "--ucca", ucca, outputs, "-o", "-", "--bootstrap", "10")
    assert r.returncode == 0 and r.stdout.decode().startswith("<!DOCTYPE html>")
    assert r.stderr.decode().startswith("wrote the report to standard output")
    r = samsa("extract-text", "-i", ucca, "-o", "-")
    assert r.returncode == 0 and r.stdout.decode().startswith("John got home")
    assert not (tmp_path / "-").exists()


def test_easse_module_paths():
    import importlib

    for name in ("samsa.easse.utils.resources", "samsa.easse.utils.helpers", "samsa.easse.utils.constants",
                 "samsa.easse.sari", "samsa.easse.bleu", "samsa.easse.fkgl", "samsa.easse.samsa",
                 "samsa.easse.compression"):  # fmt: skip
        importlib.import_module(name)
    from samsa.easse.resources import get_orig_sents
    from samsa.easse.utils.resources import get_orig_sents as ported

    assert ported is get_orig_sents


def test_test_sets_fit_in_100_columns(capsys):
    from samsa.cli import main

    assert main(["test-sets"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 100
    assert "hsplit_test              hsplit" in out  # the short name -t accepts, beside the full one
