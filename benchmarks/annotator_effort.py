"""What ``samsa annotate`` asks of an annotator, and what the Scene skeleton keeps.

Usage:
    python benchmarks/annotator_effort.py [--plans 20]      # writes benchmarks/results/annotator_effort.json

Effort: on Wiki test, 20K test (the ``fast`` pipeline) and German-20K test (``de``), every line's one-best parse
(the gold tokens) is read as a skeleton, as the page pre-fills it, and :func:`lab.annotator_effort.script` counts
the page's actions (one undo step each) that turn it into the gold skeleton; applying them is checked to give the
gold skeleton (but for the Scenes' order). Reported for the lines that ``--plans`` plans of ``samsa sample``
draw at a budget of 20% (the shipped design: probabilities from the parse's doubt; a seed each; the drawn lines
pooled): the median, the 90th percentile and the share of lines that need no action (a line that needs none is
still confirmed with one key, Enter), each action's mean count; and the same over all lines.

Sufficiency: ``samsa skeleton`` is run on each gold set; every output of the validity battery (``lab.validity``)
is scored on the skeletons and on the full gold, sentence by sentence, in paper mode (the default: the share of
equal sentences must be 1) and in EASSE mode (``--compat easse`` reads more of the graph; docs/samsa.md), and
every skeleton file is loaded with the ``ucca`` package when it is installed.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, samsa_executable, write_json
from estimate import design, shipped

from lab.estimate import set_table

SETS = {"wiki/test": "fast", "20k/test": "fast", "de20k/test": "de"}


def efforts(name: str, pipeline: str) -> tuple[list[int], list[collections.Counter]]:
    """Each line's number of actions from its parse's skeleton to its gold skeleton, and the actions by name."""
    from lab.annotator_effort import same_reading, script
    from samsa.annotate.edits import apply
    from samsa.parsers.builtin import BuiltinParser
    from samsa.ucca.graph import tokens
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.xml import list_passage_files, load_passage

    gold = [load_passage(f) for f in list_passage_files(DATA / "ucca" / name)]
    parser = BuiltinParser(pipeline=pipeline, style="wiki")
    parsed = parser.parse([tokens(g) for g in gold])
    counts, kinds = [], []
    for g, p in zip(gold, parsed, strict=True):
        want, have = skeleton_of(g), skeleton_of(p)
        edits = script(have, want)
        done = have.canonical()
        for e in edits:
            done = apply(done, e)
        assert same_reading(done, want), f"{name}: the actions do not give the gold skeleton of {g.graph['passage_id']}"
        counts.append(len(edits))
        kinds.append(collections.Counter(e.name for e in edits))
    return counts, kinds


def summary(values: list[int], kinds: list[collections.Counter]) -> dict[str, Any]:
    ordered = sorted(values)
    total: collections.Counter = collections.Counter()
    for k in kinds:
        total.update(k)
    n = max(len(values), 1)
    return {"lines": len(values), "median": median(ordered) if ordered else None,
            "p90": float(np.percentile(ordered, 90)) if ordered else None,
            "share_zero": round(sum(v == 0 for v in values) / n, 4), "mean": round(sum(values) / n, 3),
            "actions": {k: round(v / n, 3) for k, v in total.most_common()}}  # fmt: skip


def drawn_effort(name: str, pipeline: str, counts: list[int], kinds: list[collections.Counter], plans: int) -> dict:
    """The effort of the lines 20% plans draw (pooled over ``plans`` seeds), as ``samsa sample`` draws them."""
    from samsa.scoring.estimate import draw_lines

    model = shipped(pipeline)
    table = set_table(str(DATA), name, pipeline)
    pi = design(table, model["coef"], 0.2, 1.0 if model.get("design") == "uniform" else model["uniform_share"])
    values, picked, medians = [], [], []
    for seed in range(plans):
        lines = np.flatnonzero(draw_lines(pi, seed))
        values += [counts[k] for k in lines]
        picked += [kinds[k] for k in lines]
        medians.append(median([counts[k] for k in lines]))
    return {**summary(values, picked), "plans": plans, "mean_lines_per_plan": round(len(values) / plans, 1),
            "plan_medians": {"min": min(medians), "median": median(medians), "max": max(medians)}}  # fmt: skip


def sufficiency(name: str) -> dict[str, Any]:
    """``samsa skeleton`` of the gold set against the full gold: battery scores, paper and EASSE mode; ucca loads."""
    from lab.validity import SEPARATOR, battery_scores, synthetic_outputs
    from samsa.scoring.metric import Samsa
    from samsa.ucca.xml import list_passage_files, load_passage

    source = DATA / "ucca" / name
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "skeletons"
        subprocess.run([samsa_executable(), "skeleton", str(source), str(out), "-q"], check=True)
        files = list_passage_files(source)
        gold = [load_passage(f) for f in files]
        skel = [load_passage(out / f.name) for f in files]
        loaded = _ucca_loads([out / f.name for f in files])
    paper = battery_scores(gold, skel)
    pairs = sum(len(s["manual"]) for s in paper.values())
    rows = [zip(s["manual"], s["parsed"], s["manual_abl"], s["parsed_abl"], strict=True) for s in paper.values()]
    same = sum(a == b and c == d for row in rows for a, b, c, d in row)
    easse = Samsa(tokenizer="none", separator=SEPARATOR, compat="easse")
    e_same = e_all = 0
    for outputs in synthetic_outputs(gold).values():
        for g, s, o in zip(gold, skel, outputs, strict=True):
            if o is None:
                continue
            e_all += 1
            e_same += _easse(easse, g, o) == _easse(easse, s, o)
    return {"passages": len(gold), "battery_sentences": pairs, "paper_equal": round(same / pairs, 6),
            "easse_equal": round(e_same / e_all, 4), "ucca_loaded": loaded}  # fmt: skip


def _easse(metric: Any, g: Any, output: str) -> tuple:
    try:
        r = metric.score_graph(g, output)
    except Exception as e:
        return ("error", type(e).__name__)
    return (r.samsa, r.samsa_abl)


def _ucca_loads(paths: list[Path]) -> int | None:
    try:
        from ucca.convert import file2passage
    except ImportError:
        return None
    return sum(file2passage(str(p)) is not None for p in paths)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", type=int, default=20)
    args = ap.parse_args()
    result: dict[str, Any] = {"command": "python benchmarks/annotator_effort.py " + " ".join(sys.argv[1:])}
    for name, pipeline in SETS.items():
        counts, kinds = efforts(name, pipeline)
        result[name] = {"pipeline": pipeline, "drawn_20": drawn_effort(name, pipeline, counts, kinds, args.plans),
                        "all_lines": summary(counts, kinds), "sufficiency": sufficiency(name)}  # fmt: skip
        print(name, result[name], file=sys.stderr, flush=True)
    print(write_json("annotator_effort.json", result))


if __name__ == "__main__":
    main()
