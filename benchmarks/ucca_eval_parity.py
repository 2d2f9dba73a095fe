"""`samsa ucca-eval --normalize` on the built-in parser's output against the `ucca` package's own evaluator.

    python benchmarks/ucca_eval_parity.py      # writes benchmarks/results/ucca_eval_parity.json

For Wiki, 20K and EWT test: the `fast` pipeline parses the gold tokens, the real command scores the
parses with the package's normalization on, and the package's ``ucca.evaluation.evaluate(...,
normalize=True)`` scores every passage pair; the counts (guessed, reference, matched units per
construction, labeled and unlabeled) must be equal. Needs the optional ``ucca`` package.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, samsa_executable, write_json

SETS = ("wiki/test", "20k/test", "ewt/test")


def package_counts(guessed: object, gold: object) -> dict[str, list[int]]:
    from ucca.evaluation import evaluate

    from samsa.ucca.interop import to_ucca

    scores = evaluate(to_ucca(guessed), to_ucca(gold), normalize=True, constructions=("primary", "remote", "implicit"))
    return {f"{t}/{c}": [s.num_guessed, s.num_ref, s.num_matches] for t in ("labeled", "unlabeled")
            for c, s in scores[t].results.items()}  # fmt: skip


def one_set(name: str, tmp: Path) -> dict[str, object]:
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage, to_standard_xml

    files = list_passage_files(DATA / "ucca" / name)
    golds = [load_passage(f) for f in files]
    parsed = get_parser("builtin").parse([tokens(g) for g in golds])
    pred = tmp / name.replace("/", "-")
    pred.mkdir()
    for f, g in zip(files, parsed, strict=True):
        (pred / f.name).write_bytes(to_standard_xml(g))
    run = subprocess.run([samsa_executable(), "ucca-eval", str(DATA / "ucca" / name), str(pred), "--normalize", "-f",
                          "json", "-q"], capture_output=True, text=True)  # fmt: skip
    totals: dict[str, list[int]] = {}
    for guessed, gold in zip(parsed, golds, strict=True):
        for key, counts in package_counts(guessed, gold).items():
            totals[key] = [a + b for a, b in zip(totals.get(key, [0, 0, 0]), counts, strict=True)]
    ours = json.loads(run.stdout) if run.returncode == 0 else {}
    mine = {f"{t}/{c}": [ours[t][c][k] for k in ("guessed", "ref", "matches")] for t in ("labeled", "unlabeled")
            for c in ("primary", "remote", "implicit")} if ours else {}  # fmt: skip
    return {"set": name, "passages": len(files), "exit_code": run.returncode, "stderr": run.stderr.strip()[:300],
            "labeled_primary_f1": ours.get("labeled", {}).get("primary", {}).get("f1"),
            "counts_equal": bool(mine) and all(mine[k] == v for k, v in totals.items()),
            "package_counts": totals}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [one_set(name, Path(tmp)) for name in SETS]
    for r in rows:
        print(r["set"], r["passages"], "exit", r["exit_code"], "counts equal:", r["counts_equal"])
    write_json("ucca_eval_parity.json", {"command": "python benchmarks/ucca_eval_parity.py", "sets": rows})


if __name__ == "__main__":
    main()
