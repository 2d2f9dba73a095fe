"""No command answers wrong --name counts, mismatched line counts or missing files with a traceback.

Each case must exit 1 with exactly one line on stderr, ``samsa: error: ...``, naming what is wrong.
"""

from __future__ import annotations

import pytest

from samsa.cli import main


@pytest.fixture
def paths(fixture_path, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("just one line\n", encoding="utf-8")
    return {"ucca": str(fixture_path("ucca/paper")), "out": str(fixture_path("paper_outputs.txt")),
            "src": str(fixture_path("paper_sources.txt")), "short": str(short),
            "missing": str(tmp_path / "missing.txt"), "nodir": str(tmp_path / "nodir"),
            "html": str(tmp_path / "r.html")}  # fmt: skip


CASES = {
    # --name counts
    "score --name": (["score", "--ucca", "{ucca}", "{out}", "--name", "a", "b"], "--name gives 2 name(s) for 1"),
    "evaluate --name": (["evaluate", "--source", "{src}", "-m", "fkgl", "{out}", "{src}", "--name", "a"],
                        "--name gives 1 name(s) for 2"),
    "report --name": (["report", "--ucca", "{ucca}", "{out}", "--name", "a", "b", "-o", "{html}"],
                      "--name gives 2 name(s) for 1"),
    "compare --name": (["compare-annotations", "--ucca", "{ucca}", "{out}", "--name", "a", "b"],
                       "--name gives 2 name(s) for 1"),
    "benchmark --name": (["benchmark", "hsplit", "{out}", "--name", "a", "b", "--no-samsa"],
                         "--name gives 2 name(s) for 1"),
    # line counts
    "score count": (["score", "--ucca", "{ucca}", "{short}"], "UCCA file number 2 has no system line"),
    "score source count": (["score", "--source", "{src}", "{short}"], "paper_sources.txt:2: no system line"),
    "evaluate count": (["evaluate", "--source", "{src}", "-m", "fkgl", "{short}"], "short.txt:2: has 1 lines but"),
    "evaluate refs count": (["evaluate", "--source", "{src}", "--refs", "{short}", "-m", "sari", "{out}"],
                            "short.txt:2: has 1 lines but"),
    "report count": (["report", "--ucca", "{ucca}", "{short}", "-o", "{html}"], "short.txt:2: has 1 lines but"),
    "compare count": (["compare-annotations", "--ucca", "{ucca}", "{short}"], "short.txt:2: has 1 lines but"),
    "benchmark count": (["benchmark", "hsplit", "{short}", "--no-samsa"], "short.txt:2: has 1 lines; the HSplit"),
    "parse --output-dir under a file": (["parse", "--input", "{src}", "--output-dir", "{short}/x"], "short.txt"),
    # missing files
    "score missing": (["score", "--ucca", "{ucca}", "{missing}"], "missing.txt: cannot read file"),
    "score missing ucca": (["score", "--ucca", "{nodir}", "{out}"], "nodir"),
    "evaluate missing": (["evaluate", "--source", "{missing}", "-m", "fkgl", "{out}"], "missing.txt: cannot read"),
    "report missing": (["report", "--source", "{src}", "{missing}", "-o", "{html}"], "missing.txt: cannot read"),
    "compare missing": (["compare-annotations", "--ucca", "{ucca}", "{missing}"], "missing.txt: cannot read"),
    "parse missing": (["parse", "--input", "{missing}", "--output-dir", "{nodir}"], "missing.txt: cannot read"),
    "ucca-eval missing": (["ucca-eval", "{ucca}", "{nodir}"], "nodir"),
    "extract-text missing": (["extract-text", "{nodir}"], "nodir"),
    "align missing": (["align", "{missing}"], "missing.txt"),
    "correlate missing": (["correlate", "--scores", "{missing}", "--human", "hsplit"], "missing.txt"),
    "reproduce missing root": (["reproduce", "hsplit-table1", "--data", "{nodir}"], "data root not found"),
    "benchmark missing": (["benchmark", "hsplit", "{missing}", "--no-samsa"], "missing.txt: cannot read"),
}  # fmt: skip


#: cases whose command reads the HSplit sources from the data root before it meets the error
NEEDS_DATA = {"benchmark count", "benchmark missing"}


@pytest.mark.parametrize("case", CASES)
def test_one_line_no_traceback(case, paths, capsys, request):
    if case in NEEDS_DATA:
        request.getfixturevalue("data_dir")  # skips without the shared data
    argv, message = CASES[case]
    argv = [a.format(**paths) for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("samsa: error: ") and err.count("\n") == 1, err
    assert message in err, err
