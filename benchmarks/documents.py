"""Document-level SAMSA: the document battery on gold UCCA (``lab.documents``), and SWiPE's 966
English -> Simple English Wikipedia paragraph pairs scored from raw text.

    python benchmarks/documents.py                     # both parts: documents.json
    python benchmarks/documents.py --part battery --parser builtin

Battery: Wiki test and 20K test cut into documents of 3 consecutive sentences of one passage (and, for the
record, whole passages); per output, mean document-level SAMSA on the manual annotation, on each pipeline's
parse of the same tokens, and the alternative definition (output sentences given to source sentences first,
then sentence-level SAMSA averaged); then the checks docs/samsa.md states (the perfect split against the same
sentences at sentence level, reordering, one-sentence documents against sentence-level SAMSA).

SWiPE: ``samsa score --documents --source --jobs 2`` on the 966 pairs of ``swipe_val.json`` and
``swipe_test_id.json`` (a paragraph a line), timed as a whole with its peak memory; the document scores by
whether a pair's annotated edits include a sentence split, a fusion or a reordering.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, samsa_executable, write_json

from lab.documents import OUTPUTS, gold_documents, score_battery
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

SETS = ("wiki/test", "20k/test")
#: run in a child interpreter so that RUSAGE_CHILDREN covers exactly the samsa run and its workers
WRAPPER = """
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""
EDITS = {"split": "syntactic_sentence_splitting", "fusion": "syntactic_sentence_fusion",
         "reorder": "discourse_reordering"}  # fmt: skip


def parse_set(gold_set: str, parsers: list[str]) -> tuple[list, dict, dict]:
    """The set's files, their gold graphs, and each parser's graph of each file (the gold tokens)."""
    from samsa.registry import get_parser

    files = list_passage_files(DATA / "ucca" / gold_set)
    graphs = {f: load_passage(f) for f in files}
    parsed = {p: dict(zip(files, get_parser(p).parse([tokens(graphs[f]) for f in files]), strict=True))
              for p in parsers}  # fmt: skip
    return files, graphs, parsed


def battery(gold_set: str, parsers: list[str], size: int | None, parsed_set: tuple[list, dict, dict]) -> dict:
    files, graphs, parsed = parsed_set
    docs = gold_documents(files, size)
    gold = [[graphs[f] for f in d] for d in docs]
    out: dict = {"gold": gold_set, "sentences_per_document": size or "passage", "documents": len(docs)}
    runs = {p: score_battery(gold, [[parsed[p][f] for f in d] for d in docs]) for p in parsers}
    first = runs[parsers[0]] if parsers else score_battery(gold)
    out["outputs"] = {
        o: {"manual": _mean(first[o]["manual"]), "aligned_average": _mean(first[o]["aligned_average"]),
            **{f"parsed:{p}": _mean(runs[p][o]["parsed"]) for p in parsers}}
        for o in OUTPUTS
    }  # fmt: skip
    out["checks"] = _checks(first, runs, parsers)
    if size == 3:
        out["one_sentence_documents"] = _one_sentence(graphs.values())
    return out


def _checks(first: dict, runs: dict, parsers: list[str]) -> dict:
    m = {o: first[o]["manual"] for o in OUTPUTS}
    checks = {
        "perfect_split_document_minus_sentence_level": _mean(m["scene-split"]) - _mean(
            first["scene-split"]["sentence_level"]),
        "shuffled_equal_share": _share_equal(m["shuffled"], m["scene-split"]),
        "shuffled_mean_abs_difference": _mad(m["shuffled"], m["scene-split"]),
        "reversed_equal_share": _share_equal(m["reversed"], m["unchanged"]),
        "reversed_mean_abs_difference": _mad(m["reversed"], m["unchanged"]),
        "perfect_minus_unchanged": _mean(m["scene-split"]) - _mean(m["unchanged"]),
        "merged_below_perfect": _mean(m["merged"]) < _mean(m["scene-split"]),
        "deleted_below_perfect": _mean(m["deleted"]) < _mean(m["scene-split"]),
    }  # fmt: skip
    for p in parsers:
        r = {o: _mean(runs[p][o]["parsed"]) for o in OUTPUTS}
        checks[f"parsed:{p}"] = {
            "perfect_minus_unchanged": r["scene-split"] - r["unchanged"],
            "merged_below_perfect": r["merged"] < r["scene-split"],
            "deleted_below_perfect": r["deleted"] < r["scene-split"],
            "shuffled_mean_abs_difference": _mad(runs[p]["shuffled"]["parsed"], runs[p]["scene-split"]["parsed"]),
            "reversed_mean_abs_difference": _mad(runs[p]["reversed"]["parsed"], runs[p]["unchanged"]["parsed"]),
        }
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in checks.items()}


def _one_sentence(graphs) -> dict:
    """Every sentence as a one-sentence document: its document-level SAMSA against its sentence-level SAMSA, for
    each output of the sentence battery (``lab.validity``)."""
    from lab.validity import SEPARATOR, synthetic_outputs
    from samsa.scoring.metric import Samsa

    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    graphs = list(graphs)
    equal = total = 0
    for lines in synthetic_outputs(graphs).values():
        for g, line in zip(graphs, lines, strict=True):
            if line is not None:
                total += 1
                equal += metric.score_graph(g, line).samsa == metric.document_score([g], line).samsa
    return {"pairs": total, "equal_share": round(equal / total, 4)}


def swipe(jobs: int) -> dict:
    pairs = [p for name in ("swipe_val.json", "swipe_test_id.json")
             for p in json.loads((DATA / "swipe" / name).read_text(encoding="utf-8"))]  # fmt: skip
    tmp = Path(tempfile.mkdtemp(prefix="samsa-swipe-"))
    src, out, rows = tmp / "src.txt", tmp / "simple.txt", tmp / "rows.jsonl"
    src.write_text("".join(" ".join(p["r_content"].split()) + "\n" for p in pairs), encoding="utf-8")
    out.write_text("".join(" ".join(p["s_content"].split()) + "\n" for p in pairs), encoding="utf-8")
    summary = tmp / "summary.json"
    cmd = [samsa_executable(), "score", "--documents", "--source", str(src), str(out), "--jobs", str(jobs),
           "--no-cache", "--per-sentence", str(rows), "--quiet", "-f", "json", "-o", str(summary)]  # fmt: skip
    res = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(res.stderr)
    seconds, peak = map(float, res.stdout.split())
    scores = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    kinds = [{c for c in EDITS if EDITS[c] in {a["category"] for a in p["annotations"]}} for p in pairs]
    groups = {"all": list(range(len(pairs))), **{c: [k for k, s in enumerate(kinds) if c in s] for c in EDITS},
              "none of these": [k for k, s in enumerate(kinds) if not s]}  # fmt: skip
    corpus = json.loads(summary.read_text(encoding="utf-8"))
    return {
        "pairs": len(pairs),
        "command": " ".join(["samsa", *cmd[1:]]),
        "seconds": round(seconds, 1),
        "peak_rss_mb_of_any_process": round(peak, 1),
        "corpus": {k: corpus[k] for k in ("samsa", "samsa_abl", "n_scenes", "n_output_sentences", "signature")},
        "by_edits": {name: _distribution([scores[k] for k in idx]) for name, idx in groups.items()},
    }


def _distribution(rows: list[dict]) -> dict:
    samsa = sorted(r["samsa"] for r in rows)
    q = statistics.quantiles(samsa, n=4) if len(samsa) > 1 else [samsa[0]] * 3
    ratio = [r["n_sentences"] / r["n_scenes"] for r in rows if r["n_scenes"]]
    return {"n": len(rows), "mean": round(statistics.mean(samsa), 2), "quartiles": [round(x, 2) for x in q],
            "zero_share": round(sum(x == 0 for x in samsa) / len(samsa), 4),
            "output_sentences_per_source_scene": round(statistics.mean(ratio), 3)}  # fmt: skip


def _mean(x) -> float:
    return sum(x) / len(x)


def _mad(a, b) -> float:
    return _mean([abs(x - y) for x, y in zip(a, b, strict=True)])


def _share_equal(a, b) -> float:
    return _mean([x == y for x, y in zip(a, b, strict=True)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("battery", "swipe", "all"), default="all")
    ap.add_argument("--parser", nargs="*", default=["builtin", "builtin:accurate", "builtin:mpnet"])
    ap.add_argument("--jobs", type=int, default=2, help="SWiPE: samsa score --jobs (default: %(default)s)")
    ap.add_argument("--out", default="documents.json", help="result file under benchmarks/results/")
    args = ap.parse_args()
    result: dict = {"command": "python benchmarks/documents.py " + " ".join(sys.argv[1:])}
    if args.part in ("battery", "all"):
        result["battery"] = []
        for s in SETS:
            parsed_set = parse_set(s, args.parser)
            for size in (3, None):
                result["battery"].append(battery(s, args.parser, size, parsed_set))
                print(json.dumps(result["battery"][-1]), flush=True)
    if args.part in ("swipe", "all"):
        result["swipe"] = swipe(args.jobs)
        print(json.dumps(result["swipe"]), flush=True)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
