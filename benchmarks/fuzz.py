"""Mutation fuzzing of the UCCA XML reader, the validator and scoring, through the API and the CLI.

Real UCCA files are mutated (structural edits of the element tree: deleted,
duplicated or moved elements, changed IDs, references, types, layers, remote and
implicit flags; and byte-level damage: truncation, flipped bytes), then loaded and
scored. Every case must end in a score within [0, 100] or in a one-line error
naming the file and line; a graph that loads must be structurally valid by an
*independent* validator written here from the format's rules (plain code over the
XML tree and networkx, sharing nothing with :mod:`samsa.ucca.validate`).

    python benchmarks/fuzz.py --api 22000 --cli 330 --json benchmarks/results/fuzz.json

The whole run is under a 6 GB address-space cap (``--memory-gb``): an input that would make samsa
allocate without bound ends as a MemoryError, counted as a crash. Beside the random mutations, a fixed
hostile set (:func:`hostile_cases`: huge or renamed IDs, unknown and misplaced categories, deep nesting)
goes through both paths. Counts go to the JSON file; docs/BENCHMARKS.md quotes them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import re
import signal
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA

from samsa.cli import main as cli_main
from samsa.errors import InputError, SamsaError
from samsa.scoring.metric import Samsa
from samsa.ucca.xml import list_passage_files, load_passage

WHERE = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+): ")
TYPES = ["FN", "PNCT", "LKG", "Word", "Punctuation", "XX", ""]
TAGS = ["A", "P", "S", "H", "C", "E", "D", "F", "U", "L", "LR", "LA", "Terminal", "", "Z", "p", "Q", "T"]
#: UCCA's edge categories (foundational layer v1 and v2, the terminal edge, legacy UNA/UNC), written out here
#: from the ucca package's layer1.EdgeTags rather than imported from samsa
UCCA_TAGS = {"H", "A", "P", "S", "D", "G", "C", "E", "F", "N", "R", "T", "Q", "L", "U", "LR", "LA", "Terminal", "UNA",
             "UNC"}  # fmt: skip
HUGE = "9" * 40


# -- mutations ---------------------------------------------------------------------------------------------


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three mutations of a standard UCCA XML document; returns the bytes and a description."""
    if rng.random() < 0.1:
        return _byte_damage(data, rng)
    root = ET.fromstring(data)
    done = []
    for _ in range(rng.randint(1, 3)):
        done.append(rng.choice(_OPS)(root, rng))
    return ET.tostring(root), "+".join(done)


def _byte_damage(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if rng.random() < 0.5:
        return data[: rng.randrange(len(data))], "truncate"
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b), "flip"


def _nodes(root: ET.Element) -> list[ET.Element]:
    return list(root.iter("node"))


def _edges(root: ET.Element) -> list[tuple[ET.Element, ET.Element]]:
    return [(n, e) for n in root.iter("node") for e in n.findall("edge")]


def _parent_map(root: ET.Element) -> dict[ET.Element, ET.Element]:
    return {c: p for p in root.iter() for c in p}


def _delete(root: ET.Element, rng: random.Random) -> str:
    parents = _parent_map(root)
    el = rng.choice([e for e in parents if e.tag in ("node", "edge", "layer", "category", "attributes")])
    parents[el].remove(el)
    return f"delete-{el.tag}"


def _duplicate(root: ET.Element, rng: random.Random) -> str:
    parents = _parent_map(root)
    el = rng.choice([e for e in parents if e.tag in ("node", "edge")])
    parents[el].append(ET.fromstring(ET.tostring(el)))
    return f"duplicate-{el.tag}"


def _retarget(root: ET.Element, rng: random.Random) -> str:
    edges = _edges(root)
    ids = [n.get("ID") for n in _nodes(root)] + ["1.1", "9.9", "1.999"]
    if not edges:
        return "retarget-none"
    _, e = rng.choice(edges)
    e.set("toID", rng.choice(ids))
    return "retarget"


def _move_edge(root: ET.Element, rng: random.Random) -> str:
    edges = _edges(root)
    if not edges:
        return "move-none"
    node, e = rng.choice(edges)
    node.remove(e)
    rng.choice(_nodes(root)).append(e)
    return "move-edge"


def _rename(root: ET.Element, rng: random.Random) -> str:
    nodes = _nodes(root)
    ids = [n.get("ID") for n in nodes]
    node = rng.choice(nodes)
    layer = (node.get("ID") or "0.").split(".")[0]
    new = rng.choice([*ids, "1.1", "0.999", "2.1", "x", f"{layer}.{HUGE}", f"{layer}.1e9", f"{layer}.-3",
                      f"{layer}.{rng.randrange(10**6, 10**12)}"])  # fmt: skip
    if rng.random() < 0.5:  # rename the references too, so that only the number is wrong
        for _, e in _edges(root):
            if e.get("toID") == node.get("ID"):
                e.set("toID", new)
    node.set("ID", new)
    return "rename"


def _retype(root: ET.Element, rng: random.Random) -> str:
    if rng.random() < 0.5:
        rng.choice(_nodes(root)).set("type", rng.choice(TYPES))
        return "retype-node"
    edges = _edges(root)
    if edges:
        _, e = rng.choice(edges)
        tag = rng.choice(TAGS)
        e.set("type", tag)
        for c in e.findall("category"):
            c.set("tag", tag)
    return "retag-edge"


def _flags(root: ET.Element, rng: random.Random) -> str:
    if rng.random() < 0.5:
        edges = _edges(root)
        if edges:
            _, e = rng.choice(edges)
            attrs = e.find("attributes")
            if attrs is None:
                attrs = ET.SubElement(e, "attributes")
            attrs.set("remote", rng.choice(["True", "False"]))
        return "remote"
    n = rng.choice(_nodes(root))
    attrs = n.find("attributes")
    if attrs is None:
        attrs = ET.SubElement(n, "attributes")
    attrs.set("implicit", rng.choice(["True", "False"]))
    return "implicit"


def _relayer(root: ET.Element, rng: random.Random) -> str:
    layers = root.findall("layer")
    if layers:
        rng.choice(layers).set("layerID", rng.choice(["0", "1", "2", ""]))
    return "relayer"


_OPS = [_delete, _duplicate, _retarget, _retarget, _move_edge, _rename, _retype, _flags, _relayer]


# -- the independent validator -----------------------------------------------------------------------------


def independent_problems(data: bytes) -> list[str]:
    """Structural problems of a standard UCCA document, from the format's rules (empty list: valid)."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return ["not XML"]
    if root.tag != "root":
        return ["no <root>"]
    layer_ids = [layer.get("layerID") for layer in root.findall("layer")]
    if sorted(layer_ids) != ["0", "1"]:
        return [f"layers {layer_ids}"]
    nodes: dict[str, tuple[str, str, dict[str, str]]] = {}
    problems: list[str] = []
    g = nx.DiGraph()
    edge_list = []
    for layer in root.findall("layer"):
        for n in layer.findall("node"):
            nid, ntype = n.get("ID"), n.get("type")
            attrs = n.find("attributes")
            attrs = dict(attrs.attrib) if attrs is not None else {}
            if not nid or nid in nodes:
                problems.append(f"missing or repeated ID {nid}")
                continue
            nodes[nid] = (layer.get("layerID"), ntype, attrs)
            g.add_node(nid)
            for e in n.findall("edge"):
                ea = e.find("attributes")
                remote = ea is not None and ea.get("remote") == "True"
                cats = [c.get("tag") for c in e.findall("category")] or [e.get("type")]
                edge_list.append((nid, e.get("toID"), remote, cats))
    for nid, (lid, ntype, attrs) in nodes.items():
        if nid.split(".")[0] != lid or not nid.split(".")[-1].isdigit() or nid.count(".") != 1:
            problems.append(f"{nid} in layer {lid}")
        if lid == "0" and (ntype not in ("Word", "Punctuation") or not attrs.get("text")):
            problems.append(f"terminal {nid}")
        numbers = (attrs.get("paragraph", "1"), attrs.get("paragraph_position", "1"))
        if lid == "0" and any(_int(x) is None for x in numbers):
            problems.append(f"terminal {nid} paragraph")
        if lid == "1" and ntype not in ("FN", "PNCT", "LKG"):
            problems.append(f"unit {nid} type")
    if problems:
        return problems
    seen_pairs = set()
    for u, v, remote, cats in edge_list:
        if v not in nodes or not all(cats) or (u, v) in seen_pairs:
            return [f"bad edge {u}->{v}"]
        if not set(cats) <= UCCA_TAGS:
            return [f"unknown category {cats} on {u}->{v}"]
        if (nodes[v][0] == "0") != ("Terminal" in cats or (nodes[v][0] == "0" and set(cats) <= {"U"})):
            return [f"terminal edge {cats} on {u}->{v}"]
        seen_pairs.add((u, v))
        g.add_edge(u, v, remote=remote, cats=cats)
    if "1.1" not in nodes or g.in_degree("1.1") or nodes["1.1"][1] != "FN" or nodes["1.1"][2].get("implicit") == "True":
        return ["root"]
    primary = nx.DiGraph([(u, v) for u, v, d in g.edges(data=True) if not d["remote"]])
    primary.add_nodes_from(g)
    if nx.number_of_selfloops(g) or not nx.is_directed_acyclic_graph(primary):
        return ["cycle"]
    terminal_ids = [n.split(".")[1] for n in nodes if nodes[n][0] == "0"]
    if not terminal_ids or sorted(terminal_ids, key=lambda x: (len(x), x)) != [
        str(k) for k in range(1, len(terminal_ids) + 1)
    ]:
        return ["terminal positions"]
    for n, (lid, ntype, _) in nodes.items():
        preds = list(g.predecessors(n))
        if lid == "0":
            if g.out_degree(n) or len(preds) > 1 or any(g.edges[p, n]["remote"] for p in preds):
                return [f"terminal {n} edges"]
            continue
        if n == "1.1":
            continue
        if ntype == "LKG":
            if (
                preds
                or not g.out_degree(n)
                or any(
                    g.edges[n, c]["remote"] or not set(g.edges[n, c]["cats"]) <= {"LR", "LA"} for c in g.successors(n)
                )
            ):
                return [f"linkage {n}"]
            continue
        parents = [p for p in preds if not g.edges[p, n]["remote"] and nodes[p][1] != "LKG"]
        if len(parents) != 1:
            return [f"unit {n} has {len(parents)} primary parents"]
    for n, (lid, _, attrs) in nodes.items():
        if lid != "1":
            continue
        implicit = attrs.get("implicit") == "True"
        if implicit and g.out_degree(n):
            return [f"implicit {n} with children"]
        if not implicit and not any(nodes[d][0] == "0" for d in nx.descendants(primary, n)):
            return [f"unit {n} without terminals"]
    return []


def _int(text: str) -> int | None:
    """``int(text)`` as Python reads an attribute, or None where it refuses (underscores misplaced, say)."""
    try:
        return int(text)
    except ValueError:
        return None


# -- the hostile set -----------------------------------------------------------------------------------------


def hostile_cases(data: bytes) -> list[tuple[str, bytes]]:
    """Fixed edits of one real passage that target bounds and categories, each named."""
    text = data.decode("utf-8")
    cases = [
        ("huge-terminal-id", text.replace('ID="0.1"', f'ID="0.{HUGE}"').replace('toID="0.1"', f'toID="0.{HUGE}"')),
        ("huge-unit-id", text.replace('ID="1.2"', f'ID="1.{HUGE}"').replace('toID="1.2"', f'toID="1.{HUGE}"')),
        ("huge-layer", text.replace('ID="1.2"', f'ID="{HUGE}.2"')),
        ("4301-digit-id", text.replace('ID="0.1"', f'ID="0.{"7" * 4301}"')),
        ("huge-paragraph", text.replace('paragraph="1"', f'paragraph="{HUGE}"', 1)),
        ("huge-paragraph-position", text.replace('paragraph_position="1"', f'paragraph_position="{HUGE}"', 1)),
        (
            "terminal-edge-labelled-A",
            re.sub(r'(toID="0\.1"[^>]*>(?:\s*<attributes[^>]*/>)?\s*<category tag=")Terminal', r"\1A", text, count=1),
        ),
        ("unknown-category-Z", re.sub(r'<category tag="([A-Z]+)"', '<category tag="Z"', text, count=1)),
        ("lowercase-category", re.sub(r'<category tag="P"', '<category tag="p"', text, count=1)),
        ("empty-category", re.sub(r'<category tag="([A-Z]+)"', '<category tag=""', text, count=1)),
    ]
    return [(name, body.encode("utf-8")) for name, body in cases if body != text]


# -- running ------------------------------------------------------------------------------------------------


class Hang(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise Hang()


@contextlib.contextmanager
def guarded(counts: dict[str, int], examples: list[str]):
    """Count what escapes a case: a hang (20 s alarm) or a traceback (SystemExit included)."""
    signal.alarm(20)
    try:
        yield
    except Hang:
        counts["hangs"] += 1
    except (Exception, SystemExit, MemoryError):
        counts["tracebacks"] += 1
        examples.append(traceback.format_exc(limit=3))
    finally:
        signal.alarm(0)


def api_case(path: Path, text: str, metrics: list[Samsa], counts: dict[str, int], examples: list[str]) -> None:
    data = path.read_bytes()
    with guarded(counts, examples):
        try:
            g = load_passage(path)
        except InputError as e:
            counts["rejected"] += 1
            m = WHERE.match(str(e))
            if not m or m["path"] != str(path):
                counts["rejection_without_file_line"] += 1
                examples.append(f"no file:line: {e}")
            if not independent_problems(data):
                counts["valid_but_rejected"] += 1
                examples.append(f"valid but rejected: {e}")
            return
        counts["accepted"] += 1
        problems = independent_problems(data)
        if problems:
            counts["broken_accepted"] += 1
            counts["unknown_category_accepted"] += problems[0].startswith("unknown category")
            examples.append(f"broken but accepted ({problems[0]}): {path}")
        for metric in metrics:
            try:
                r = metric.sentence_score(g, text)
            except SamsaError:
                counts["scoring_error_reported"] += 1
                continue
            if not (math.isfinite(r.samsa) and 0 <= r.samsa <= 100 and 0 <= r.samsa_abl <= 100):
                counts["score_out_of_range"] += 1


def cli_case(directory: Path, system: Path, counts: dict[str, int], examples: list[str]) -> None:
    err = io.StringIO()
    with guarded(counts, examples):
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = cli_main(["score", "--ucca", str(directory), "--system", str(system), "--quiet"])
        message = err.getvalue()
        if rc == 0:
            counts["cli_scored"] += 1
            return
        counts["cli_rejected"] += 1
        lines = message.strip().splitlines()
        if len(lines) != 1 or not WHERE.match(lines[0].removeprefix("samsa: error: ")):
            counts["cli_message_not_one_line_with_file_line"] += 1
            examples.append(f"cli message: {message!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--api", type=int, default=20000, help="mutated files through the Python API")
    ap.add_argument("--cli", type=int, default=300, help="mutated files through samsa score")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--memory-gb", type=float, default=6.0, help="address-space cap of the run (default: 6)")
    args = ap.parse_args()
    import resource

    cap = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(args.seed)
    data = DATA
    originals = [f for c in ("ewt/dev", "wiki/dev", "20k/test") for f in list_passage_files(data / "ucca" / c)[:100]]
    texts = {f: " ".join(t for t in _tokens(f)) for f in originals}
    metrics = [Samsa(tokenizer="none"), Samsa(tokenizer="none", compat="easse")]
    counts = dict.fromkeys(["hostile_cases", "accepted", "rejected", "broken_accepted", "unknown_category_accepted",
                            "valid_but_rejected",
                            "rejection_without_file_line", "scoring_error_reported", "score_out_of_range", "hangs",
                            "tracebacks", "cli_scored", "cli_rejected", "cli_message_not_one_line_with_file_line"],
                           0)  # fmt: skip
    ops: dict[str, int] = {}
    examples: list[str] = []
    start = time.perf_counter()
    hostile = [(src, name, body) for src in originals[:: max(1, len(originals) // 10)]
               for name, body in hostile_cases(src.read_bytes())]  # fmt: skip
    counts["hostile_cases"] = 2 * len(hostile)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(len(hostile) * 2 + args.api + args.cli):
            if k < 2 * len(hostile):  # each hostile case through the API, then through the CLI
                src, how, mutated = hostile[k // 2]
                how = f"hostile-{how}"
            else:
                src = rng.choice(originals)
                mutated, how = mutate(src.read_bytes(), rng)
            ops[how.split("+")[0]] = ops.get(how.split("+")[0], 0) + 1
            d = Path(tmp) / f"case{k}"
            d.mkdir()
            path = d / f"{src.stem}.xml"
            path.write_bytes(mutated)
            if (k < 2 * len(hostile) and k % 2 == 0) or 2 * len(hostile) <= k < 2 * len(hostile) + args.api:
                api_case(path, texts[src], metrics, counts, examples)
            else:
                system = Path(tmp) / f"sys{k}.txt"
                system.write_text(texts[src] + "\n", encoding="utf-8")
                cli_case(d, system, counts, examples)
            path.unlink()
            d.rmdir()
    result = {
        "command": "python " + " ".join(sys.argv),
        "api_cases": args.api,
        "cli_cases": args.cli,
        "memory_cap_gb": args.memory_gb,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - start, 1),
        "counts": counts,
        "first_mutation_of_each_case": dict(sorted(ops.items())),
        "examples": examples[:20],
    }
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    bad = ("broken_accepted", "unknown_category_accepted", "rejection_without_file_line", "score_out_of_range",
           "hangs", "tracebacks", "cli_message_not_one_line_with_file_line")  # fmt: skip
    return 1 if any(counts[b] for b in bad) else 0


def _tokens(path: Path) -> list[str]:
    from samsa.ucca.graph import tokens

    return tokens(load_passage(path))


if __name__ == "__main__":
    sys.exit(main())
