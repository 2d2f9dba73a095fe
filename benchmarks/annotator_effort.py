"""What ``samsa annotate`` asks of an annotator, and what the Scene skeleton keeps.

Usage:
    python benchmarks/annotator_effort.py [--plans 20]      # writes benchmarks/results/annotator_effort.json
    python benchmarks/annotator_effort.py --speed           # its "speed" entry (the rest kept)

Speed (``--speed``): a save's latency through the server (HTTP on 127.0.0.1, the median of 100 saves of one
line, alternated between the two servers) with 5 and with 5,000 lines to annotate, each line's file already in
the folder; and the live estimate on an HSplit-sized plan (the 359 TurkCorpus test sources, the four HSplit
references as systems, a 20% plan, each drawn line annotated with its own parse's skeleton), the median of 5
updates once the lines' parse is done.

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
every skeleton file is loaded with the ``ucca`` package when it is installed and checked with its validator
(``ucca.validation.validate``; the gold files too). Scene order: the same battery, on the gold Scenes in the file's
order and in samsa's (what the annotator writes).
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
        valid = {"skeletons": _ucca_valid([out / f.name for f in files]), "gold": _ucca_valid(files)}
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
            "easse_equal": round(e_same / e_all, 4), "ucca_loaded": loaded, "ucca_valid": valid,
            "scene_order": order_effect(gold), "edited": edited_validity(gold)}  # fmt: skip


def edited_validity(gold: list[Any], rounds: int = 3, seed: int = 0) -> dict[str, Any] | None:
    """Skeletons as a person might leave them: each gold skeleton after 1-6 random edits of the page (those the
    page would refuse skipped), ``rounds`` times; how many are written, refused as unwritable (overlapping
    centers), and rejected by ``ucca.validation.validate``."""
    import random
    import xml.etree.ElementTree as ET

    try:
        from ucca.convert import from_standard
        from ucca.validation import validate
    except ImportError:
        return None
    from samsa.annotate.edits import EDITS, Edit, apply
    from samsa.annotate.requests import SaveError, meaningful
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.skeleton_write import skeleton_xml

    rng, names = random.Random(seed), sorted(EDITS)
    counts = {"edited": 0, "unwritable": 0, "rejected": 0}
    for sk in (skeleton_of(g) for g in gold for _ in range(rounds)):
        words = [k for k in range(1, len(sk.tokens) + 1) if not sk.punct[k - 1]]
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(words))
            sel = tuple(words[at : at + rng.randint(1, 3)]) if rng.random() < 0.9 else ()
            k = rng.randrange(max(1, len(sk.scenes)))
            part = rng.randrange(max(1, len(sk.scenes[k].participants))) if sk.scenes else 0
            try:
                sk = meaningful(apply(sk, Edit(rng.choice(names), k, part, sel, rng.randrange(max(1, len(sk.scenes))))))
            except (ValueError, IndexError, SaveError):
                pass
        counts["edited"] += 1
        try:
            data = skeleton_xml(sk.in_text_order().canonical())
        except ValueError:
            counts["unwritable"] += 1
            continue
        try:
            counts["rejected"] += any(True for _ in validate(from_standard(ET.fromstring(data))))
        except RecursionError:
            counts["rejected"] += 1
    return counts


def order_effect(gold: list[Any]) -> dict[str, Any]:
    """Paper SAMSA of the gold Scenes in the file's order against the same Scenes in samsa's order (the order the
    annotator writes): passages whose order differs, battery sentences whose SAMSA or SAMSA-abl changes, by how
    much at most (points)."""
    from lab.validity import battery_scores
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.skeleton_write import skeleton_graph

    skeletons = [skeleton_of(g) for g in gold]
    ordered = [skeleton_graph(sk.in_text_order()) for sk in skeletons]
    rows = [row for s in battery_scores(gold, ordered).values() for row in zip(s["manual"], s["parsed"],
            s["manual_abl"], s["parsed_abl"], strict=True)]  # fmt: skip
    changed = [max(abs(a - b), abs(c - d)) for a, b, c, d in rows if a != b or c != d]
    return {"passages_reordered": sum(sk.text_order() != tuple(range(len(sk.scenes))) for sk in skeletons),
            "sentences": len(rows), "sentences_changed": len(changed),
            "share_changed": round(len(changed) / len(rows), 4),
            "max_change_points": round(max(changed, default=0.0), 1)}  # fmt: skip


def _ucca_valid(paths: list[Path]) -> int | None:
    """How many files ``ucca.validation.validate`` (ucca 1.3.11) finds nothing wrong with."""
    try:
        from ucca.convert import file2passage
        from ucca.validation import validate
    except ImportError:
        return None
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))  # its messages print deep passages recursively
    ok = 0
    for p in paths:
        try:
            ok += not any(True for _ in validate(file2passage(str(p))))
        except RecursionError:
            pass
    return ok


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


def save_latencies(sizes: tuple[int, ...], tmp: Path, rounds: int = 100) -> dict[int, float]:
    """The median seconds of a save of one line through the server, for each number of lines to annotate (each
    line's file already in the folder): one server each, their saves alternated so that the machine's drift hits
    every size alike."""
    import http.client
    import json
    import threading
    import time

    from samsa.annotate.server import AnnotateServer
    from samsa.annotate.workspace import Line, Workspace
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.skeleton_write import skeleton_xml
    from samsa.ucca.xml import load_passage

    sk = skeleton_of(load_passage(Path(__file__).resolve().parents[1] / "fixtures/ucca/paper/1_john_home_call.xml"))
    body = json.dumps({"scenes": sk.to_json()["scenes"]}).encode()
    servers = {}
    for n in sizes:
        out = tmp / f"lines{n}"
        out.mkdir()
        lines = []
        for k in range(1, n + 1):
            lines.append(Line(k, " ".join(sk.tokens), sk._replace(passage_id=str(k)), {}))
            (out / f"{k}.xml").write_bytes(skeleton_xml(sk._replace(passage_id=str(k)), draft=True))
        servers[n] = AnnotateServer(0, Workspace(lines, out))
        threading.Thread(target=servers[n].serve_forever, daemon=True).start()
    walls: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(rounds):
        for n, server in servers.items():
            head = {"Host": f"127.0.0.1:{server.port}", "X-Samsa-Token": server.token,
                    "Content-Type": "application/json", "Content-Length": str(len(body))}  # fmt: skip
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            start = time.perf_counter()
            conn.request("POST", f"/api/line/{n // 2 + 1}", body=body, headers=head)
            answer = conn.getresponse()
            answer.read()
            walls[n].append(time.perf_counter() - start)
            conn.close()
            assert answer.status == 200, answer.status
    for server in servers.values():
        server.shutdown()
    return {n: median(w) for n, w in walls.items()}


def live_estimate_latency(tmp: Path) -> dict[str, Any]:
    """The live estimate's update on an HSplit-sized plan, once the lines' parse is done (median of 5)."""
    import time

    from _data import HSPLIT_SOURCES, HSPLIT_SYSTEMS

    from samsa.cli import main
    from samsa.cli.common import AlignerChoice, Runtime
    from samsa.cli.planned import LiveEstimate
    from samsa.engine.corpus import parse_corpus
    from samsa.engine.plan import read_plan
    from samsa.engine.uncertainty import run_doubt
    from samsa.languages import get_language
    from samsa.registry import get_parser
    from samsa.ucca.xml import to_standard_xml

    plan_path, ann = tmp / "plan.json", tmp / "ann"
    ann.mkdir()
    argv = ["sample", "--source", str(HSPLIT_SOURCES), *map(str, HSPLIT_SYSTEMS), "-o", str(plan_path), "-q"]
    assert main([*argv, "--budget", "0.2", "--no-cache", "--seed", "1"]) == 0
    sources = HSPLIT_SOURCES.read_text(encoding="utf-8").splitlines()
    plan = read_plan(plan_path, str(HSPLIT_SOURCES), sources)
    parser = get_parser("builtin")
    for k, g in zip(plan.drawn, parse_corpus(parser, [sources[k - 1] for k in plan.drawn]), strict=True):
        (ann / f"{k}.xml").write_bytes(to_standard_xml(g))
    config = AlignerChoice().samsa_config(get_language("en"), parser, splitter="rule.v2")
    systems = {p.name: p.read_text(encoding="utf-8").splitlines() for p in HSPLIT_SYSTEMS}
    live = LiveEstimate(plan, str(ann), (str(HSPLIT_SOURCES), sources), systems,
                        (config, run_doubt(parser, wanted=True)), Runtime(use_cache=False, quiet=True))  # fmt: skip
    start = time.perf_counter()
    live.prepare()
    prepared = time.perf_counter() - start
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        live()
        walls.append(time.perf_counter() - start)
    return {"lines": len(sources), "drawn": len(plan.drawn), "prepare_s": round(prepared, 2),
            "update_s": round(median(walls), 3)}  # fmt: skip


def speed() -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="samsa-annotate-speed-"))
    saves = save_latencies((5, 5000), tmp)
    few, many = saves[5], saves[5000]
    return {"command": "python benchmarks/annotator_effort.py --speed",
            "save_s": {"5_lines": round(few, 4), "5000_lines": round(many, 4), "ratio": round(many / few, 2)},
            "live_estimate": live_estimate_latency(tmp)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", type=int, default=20)
    ap.add_argument("--speed", action="store_true", help="time saves and the live estimate instead")
    args = ap.parse_args()
    if args.speed:
        import json

        from _data import RESULTS

        kept = json.loads((RESULTS / "annotator_effort.json").read_text(encoding="utf-8"))
        print(write_json("annotator_effort.json", {**kept, "speed": speed()}))
        return
    result: dict[str, Any] = {"command": "python benchmarks/annotator_effort.py " + " ".join(sys.argv[1:])}
    for name, pipeline in SETS.items():
        counts, kinds = efforts(name, pipeline)
        result[name] = {"pipeline": pipeline, "drawn_20": drawn_effort(name, pipeline, counts, kinds, args.plans),
                        "all_lines": summary(counts, kinds), "sufficiency": sufficiency(name)}  # fmt: skip
        print(name, result[name], file=sys.stderr, flush=True)
    print(write_json("annotator_effort.json", result))


if __name__ == "__main__":
    main()
