"""With an extra's packages missing, every sub-command either works or says in one line which extra it needs.

Each command runs in a process of its own where the optional packages cannot be imported (an import hook
refuses them, as if they were not installed), through the same entry point as the ``samsa`` executable.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from samsa.cli import COMMANDS, EXTRAS

RUNNER = """
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Missing())
sys.argv = ["samsa", *sys.argv[2:]]
from samsa.cli import console
console()
"""

SRC, OUT, UCCA = "fixtures/paper_sources.txt", "fixtures/paper_outputs.txt", "fixtures/ucca/paper"

#: one main path per sub-command: (argv, the extra it needs, None, or "" for a command refused in one line after it
#: has imported what it runs with: annotate's server would otherwise run until stopped)
CASES = {
    "score": (["score", "--ucca", UCCA, OUT], None),
    "sample": (["sample", "--source", SRC, OUT, "--budget", "1", "-o", "{tmp}/plan.json"], None),
    "annotate": (["annotate", "--source", SRC, "--lines", "1", "--out", "{tmp}/file/dir", "--no-browser"], ""),
    "skeleton": (["skeleton", UCCA, "{tmp}/skeletons"], None),
    "score --dask": (["score", "--ucca", UCCA, OUT, "--dask", "local", "-j", "1"], "dask"),
    "evaluate": (["evaluate", "--source", SRC, "--refs", SRC, "-m", "sari,bleu,fkgl", OUT], None),
    "report": (["report", "--ucca", UCCA, OUT, "-o", "{tmp}/r.html", "--bootstrap", "10"], None),
    "align": (["align", "-i", "{tmp}/pairs.tsv"], None),
    "parse": (["parse", "-i", SRC, "-o", "{tmp}/parsed", "--no-cache"], None),
    "extract-text": (["extract-text", UCCA], None),
    "ucca-eval": (["ucca-eval", UCCA, UCCA], None),
    "compare-annotations": (["compare-annotations", "--ucca", UCCA, OUT, "--parsed", UCCA], None),
    "test-sets": (["test-sets"], None),
    "reproduce": (["reproduce", "samsa-human-tables"], "human"),
    "benchmark": (["benchmark", "hsplit", "--no-samsa", "--first", "3"], None),
    "correlate": (["correlate", "--scores", "{tmp}/scores.csv", "--human", "hsplit"], "human"),
    "cache": (["cache", "info", "--cache", "{tmp}/c.sqlite"], None),
}


def test_every_command_has_a_case():
    names = {argv[0] for argv, _ in CASES.values()}
    assert names == {c.replace("_", "-").replace("extract", "extract-text").replace("testsets", "test-sets")
                     .replace("compare", "compare-annotations") for c in COMMANDS}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_extras_missing(case, tmp_path, data_dir):
    argv, extra = CASES[case]
    (tmp_path / "pairs.tsv").write_text("a b\ta b\n", encoding="utf-8")
    (tmp_path / "file").write_text("a file, not a directory\n", encoding="utf-8")
    (tmp_path / "scores.csv").write_text("system,samsa\nHSplit1,1.0\nHSplit2,2.0\n", encoding="utf-8")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    blocked = ",".join(sorted(EXTRAS))
    r = subprocess.run([sys.executable, "-c", RUNNER, blocked, *argv], capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)  # fmt: skip
    assert "Traceback" not in r.stderr
    if extra is None:
        assert r.returncode == 0, r.stderr
    elif extra == "":
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "pip install" not in r.stderr, r.stderr
    else:
        lines = [x for x in r.stderr.splitlines() if not x.startswith("samsa: warning")]
        assert r.returncode == 1 and len(lines) == 1, r.stderr
        assert lines[0].startswith("samsa: error: ") and f"pip install 'samsa-metric[{extra}]'" in lines[0]
