"""The graph functions every parsed sentence goes through, timed against another checkout's, with equal results.

Usage:
    python benchmarks/function_ab.py --other /path/to/other/checkout [--rounds 15]

A parsing worker validates each parsed graph (``samsa.validate.violations``), derives its
scenes and their words (``samsa.queries.scenes`` / ``unit_terminals`` / ``minimal_centers``)
and splits each system output into sentences (``samsa.text.split_sentences``). This script
loads those modules of ``--other`` under other names beside this checkout's, checks that
both give the same results, and times them in alternating rounds in one process (the VM's
speed drifts by a third between minutes, which separate processes cannot tell from a
change of a few percent). Inputs: the 359 HSplit sources parsed by the built-in parser,
the 20K test passages (gold), the 1,436 HSplit reference lines; for the validator also
6,000 randomly damaged copies of the parsed graphs (added, removed and flipped edges,
changed node types), whose violation lists must be the same. Writes
``benchmarks/results/function_ab.json``.
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, HSPLIT_SOURCES, HSPLIT_SYSTEMS, write_json

MODULES = {"validate": "samsa/validate.py", "queries": "samsa/queries.py", "text": "samsa/text.py"}


def load_other(checkout: Path, name: str, rel: str) -> ModuleType:
    """``checkout``'s module file ``rel`` under the name ``other_<name>`` (its own imports resolve to this
    checkout's package, which is what these modules' helpers are in both)."""
    spec = importlib.util.spec_from_file_location(f"other_{name}", checkout / rel)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {checkout / rel}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def damaged(graphs: list, n: int, seed: int = 0) -> list:
    """``n`` copies of random graphs, each with one to three random changes (most of them invalid)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        g = copy.deepcopy(rng.choice(graphs))
        nodes = list(g)
        for _ in range(rng.randint(1, 3)):
            op, u, v = rng.random(), rng.choice(nodes), rng.choice(nodes)
            if op < 0.4:
                g.add_edge(u, v, categories=("A",), remote=rng.random() < 0.3, attributes={},
                           category_attributes=[{"tag": "A"}])  # fmt: skip
            elif op < 0.7 and g.number_of_edges():
                g.remove_edge(*rng.choice(list(g.edges)))
            elif op < 0.8:
                g.nodes[u]["implicit"] = True
            elif op < 0.9 and g.number_of_edges():
                a, b = rng.choice(list(g.edges))
                g.edges[a, b]["remote"] = not g.edges[a, b]["remote"]
            else:
                g.nodes[u]["type"] = rng.choice(["FN", "PNCT", "LKG", "Word"])
        out.append(g)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other", required=True, type=Path, help="the checkout to compare with")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    from samsa import queries, text, validate
    from samsa.parsers.builtin import BuiltinParser
    from samsa.ucca_xml import load_passage

    other = {name: load_other(args.other.resolve(), name, rel) for name, rel in MODULES.items()}
    sources = HSPLIT_SOURCES.read_text("utf-8").splitlines()
    parsed = BuiltinParser(pipeline="fast").parse(sources)
    gold = [load_passage(p) for p in sorted((DATA / "ucca" / "20k" / "test").glob("*.xml"))]
    graphs = parsed + gold
    lines = [line for path in HSPLIT_SYSTEMS for line in path.read_text("utf-8").splitlines()]

    def messages(module: ModuleType, g) -> list[tuple[str | None, str]]:
        return [(v.node, v.message) for v in module.violations(g)]

    broken = damaged(parsed, 6000)
    units = [(g, u) for g in graphs for u in g if g.nodes[u]["layer"] == "1"]
    q = other["queries"]
    same = {
        "violations": all(messages(validate, g) == messages(other["validate"], g) for g in graphs + broken),
        "scenes": all(queries.scenes(g) == q.scenes(g) for g in graphs),
        "unit_terminals": all(queries.unit_terminals(g, u) == q.unit_terminals(g, u) for g, u in units),
        "minimal_centers": all(queries.minimal_centers(g, u) == q.minimal_centers(g, u) for g, u in units),
        "split_sentences": all(text.split_sentences(x) == other["text"].split_sentences(x) for x in lines),
    }
    cases = {
        "violations": lambda m: [m.violations(g) for g in graphs],
        "scenes": lambda m: [m.scenes(g) for g in graphs],
        "unit_terminals_of_scenes": lambda m: [m.unit_terminals(g, s) for g in graphs for s in m.scenes(g)],
        "split_sentences": lambda m: [m.split_sentences(x) for x in lines],
    }
    owner = {"violations": "validate", "scenes": "queries", "unit_terminals_of_scenes": "queries",
             "split_sentences": "text"}  # fmt: skip
    mine = {"validate": validate, "queries": queries, "text": text}
    gc.freeze()  # the inputs stay alive throughout, as a worker's loaded models do
    timings = {}
    for name, fn in cases.items():
        a, b = [], []
        for _ in range(args.rounds):
            for module, acc in ((other[owner[name]], a), (mine[owner[name]], b)):
                start = time.perf_counter()
                fn(module)
                acc.append(time.perf_counter() - start)
        timings[name] = {
            "other_ms": round(statistics.median(a) * 1e3, 1),
            "this_ms": round(statistics.median(b) * 1e3, 1),
            "median_ratio": round(statistics.median(y / x for x, y in zip(a, b, strict=True)), 3),
        }
        print(f"{name:26s} {timings[name]}", file=sys.stderr)
    inputs = {
        "parsed_hsplit_sources": len(parsed),
        "gold_20k_passages": len(gold),
        "output_lines": len(lines),
        "damaged_graphs": len(broken),
        "damaged_graphs_invalid": sum(bool(validate.violations(g)) for g in broken),
    }
    write_json("function_ab.json", {"command": "python benchmarks/function_ab.py " + " ".join(sys.argv[1:]),
                                    "other": str(args.other), "rounds": args.rounds, "inputs": inputs,
                                    "same_results": same, "timings": timings})  # fmt: skip
    if not all(same.values()):
        raise SystemExit(f"results differ: {same}")


if __name__ == "__main__":
    main()
