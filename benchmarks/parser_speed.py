"""Parse speed and peak memory of each built-in pipeline through ``samsa parse``, as a user runs it.

Usage:
    python benchmarks/parser_speed.py [--pipeline fast accurate mpnet] [--jobs 1 2] [--set 20k_test]
    python benchmarks/parser_speed.py --other /path/to/other/checkout --pipeline fast --jobs 2 --repeat 5
    python benchmarks/parser_speed.py --pipeline de --set de20k_test   # German, under "german" in the file
    python benchmarks/parser_speed.py --pipeline fr --set fr20k_test   # French (multilingual), under "french"

For every pipeline and ``--jobs`` value: ``samsa parse --tokenizer none --no-cache`` on the gold
tokens of the test set (spaCy annotation included), and the same command on the set's first line
alone; sentences/s = (N - 1) / (time(N) - time(1)), i.e. start-up (imports, model and encoder
loading, worker start) excluded, as "model loaded once". Peak RSS is the largest of any one process
of the run (parent or worker, ``getrusage(RUSAGE_CHILDREN)`` measured in a wrapper process per run).
Each measurement is the best of ``--repeat`` runs. Writes ``benchmarks/results/parser_speed.json``.

With ``--onnx`` (needs torch, onnx and onnxruntime; ``accurate`` only, as only MiniLM has a torch twin in
``lab/encoder_torch.py``): the encoder exported to ONNX and run by onnxruntime against the numpy forward
passes, in this process, on the set's sentences: the parser's whole ``parse`` (spaCy, encoder, network,
decoding) with each, one thread and two, best of ``--repeat``, whether both give the same parses, and the
largest difference of their hidden states; and the whole ``samsa score`` command with ``accurate`` on the
sentences against themselves, timed, beside it projected with onnxruntime's encoder (``end_to_end``); under
``onnx`` in ``benchmarks/results/parser_speed.json``.

With ``--other CHECKOUT`` the same commands also run on another checkout of samsa (its packages
first on ``PYTHONPATH``, in this interpreter), side by side: each round runs both checkouts'
full and one-line commands, so a slow spell of the shared machine hits both alike; reported per
checkout are the median timings, the sentences/s of each round and their median, and whether both
wrote the same XML files, under ``side_by_side`` in ``benchmarks/results/parser_speed.json`` (the
one-checkout figures there are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, RESULTS, write_json

from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

#: the result file's key of another language's figures, by the set's prefix
LANGUAGE_KEYS = {"de": "german", "fr": "french"}
SETS = {"20k_test": "ucca/20k/test", "wiki_test": "ucca/wiki/test", "ewt_test": "ucca/ewt/test",
        "de20k_test": "ucca/de20k/test", "fr20k_test": "ucca/fr20k/test"}  # fmt: skip
#: run in a child interpreter so that RUSAGE_CHILDREN covers exactly one samsa run and its workers
WRAPPER = """
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
secs = time.perf_counter() - t
print(secs, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""


def run_once(cmd: list[str], checkout: Path | None = None) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one run; ``checkout``: run that checkout's samsa instead of this one's."""
    env = dict(os.environ, PYTHONPATH=str(checkout)) if checkout else None
    out = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], check=True, capture_output=True, text=True,
                         env=env, cwd=tempfile.gettempdir()).stdout  # fmt: skip
    secs, rss = out.split()
    return float(secs), float(rss)


def inputs(tmp: str, lines: list[str], pipeline: str, jobs: int) -> tuple[Path, Path, list[str]]:
    """The whole set and its first line as input files in ``tmp``, and the ``samsa parse`` command to time."""
    full, one = Path(tmp) / "all.txt", Path(tmp) / "one.txt"
    full.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one.write_text(lines[0] + "\n", encoding="utf-8")
    samsa = [sys.executable, "-m", "samsa", "parse", "--parser", f"builtin:{pipeline}", "--tokenizer", "none",
             "--no-cache", "--jobs", str(jobs), "--quiet"]  # fmt: skip
    return full, one, samsa


def measure(pipeline: str, jobs: int, lines: list[str], repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        full, one, samsa = inputs(tmp, lines, pipeline, jobs)
        runs_full = [run_once([*samsa, "--input", str(full), "--output-dir", f"{tmp}/out{k}"]) for k in range(repeat)]
        runs_one = [run_once([*samsa, "--input", str(one), "--output-dir", f"{tmp}/one{k}"]) for k in range(repeat)]
    t_full = min(r[0] for r in runs_full)
    t_one = min(r[0] for r in runs_one)
    return {
        "pipeline": pipeline,
        "jobs": jobs,
        "sentences": len(lines),
        "seconds_all": round(t_full, 2),
        "seconds_one_line": round(t_one, 2),
        "sentences_per_s": round((len(lines) - 1) / (t_full - t_one), 1),
        "peak_rss_mb": round(max(r[1] for r in runs_full), 1),
    }


def measure_ab(pipeline: str, jobs: int, lines: list[str], repeat: int, other: Path) -> dict:
    """Both checkouts side by side, in rounds (see the module docstring)."""
    import filecmp
    import statistics

    checkouts = {"other": other, "this": None}
    times: dict[str, dict[str, list[float]]] = {name: {"full": [], "one": []} for name in checkouts}
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        full, one, samsa = inputs(tmp, lines, pipeline, jobs)
        for k in range(repeat):
            for name, checkout in checkouts.items():
                for kind, path in (("full", full), ("one", one)):
                    out = Path(tmp) / f"{name}_{kind}_{k}"
                    times[name][kind].append(run_once([*samsa, "--input", str(path), "--output-dir", str(out)],
                                                      checkout)[0])  # fmt: skip
            a, b = Path(tmp) / f"other_full_{k}", Path(tmp) / f"this_full_{k}"
            names = sorted(p.name for p in a.iterdir())
            same &= names == sorted(p.name for p in b.iterdir()) and not filecmp.cmpfiles(a, b, names, shallow=False)[1]
    row: dict = {"pipeline": pipeline, "jobs": jobs, "sentences": len(lines), "other_checkout": str(other),
                 "same_xml_files": same}  # fmt: skip
    for name, t in times.items():
        rates = [(len(lines) - 1) / (f - o) for f, o in zip(t["full"], t["one"], strict=True)]
        row[name] = {"seconds_all_median": round(statistics.median(t["full"]), 2),
                     "seconds_one_line_median": round(statistics.median(t["one"]), 2),
                     "sentences_per_s_by_round": [round(r, 1) for r in rates],
                     "sentences_per_s_median": round(statistics.median(rates), 1)}  # fmt: skip
    return row


def export_onnx(encoder: object, path: Path) -> None:
    """The numpy MiniLM ``encoder``'s forward pass (its weights, as loaded) as an ONNX graph: ids, mask ->
    hidden states (L+1, B, T, D)."""
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from lab.encoder_torch import TorchMiniLM

    class Stacked(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = TorchMiniLM.from_numpy(encoder)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return torch.stack(self.inner.forward(ids, mask))

    ids, mask = torch.zeros((2, 7), dtype=torch.long), torch.ones((2, 7))
    axes = {"ids": {0: "batch", 1: "width"}, "mask": {0: "batch", 1: "width"}, "hidden": {1: "batch", 2: "width"}}
    torch.onnx.export(Stacked().eval(), (ids, mask), str(path), input_names=["ids", "mask"], output_names=["hidden"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)  # fmt: skip


def measure_onnx(sentences: list[list[str]], repeat: int) -> dict:
    """``accurate``'s parse with the numpy encoder and with onnxruntime's, side by side (see the module's text)."""
    import numpy as np
    import onnxruntime as ort
    from threadpoolctl import threadpool_limits

    from samsa.registry import get_parser
    from samsa.ucca.xml import to_standard_xml

    parser = get_parser("builtin", pipeline="accurate")
    parser.load()
    encoder = parser.encoder
    numpy_forward = encoder.forward
    row: dict = {"pipeline": "accurate", "sentences": len(sentences), "onnxruntime": ort.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "minilm.onnx"
        export_onnx(encoder, path)
        for threads in (1, 2):
            options = ort.SessionOptions()
            options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
            runner = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

            def ort_forward(ids: np.ndarray, mask: np.ndarray, runner: Any = runner) -> np.ndarray:
                return runner.run(None, {"ids": ids.astype(np.int64), "mask": mask.astype(np.float32)})[0]

            times: dict[str, float] = {}
            parses: dict[str, list[str]] = {}
            with threadpool_limits(threads):
                for name, forward in (("numpy", numpy_forward), ("onnxruntime", ort_forward)):
                    encoder.forward = forward  # this benchmark's own encoder object, nothing else's
                    parser.parse(sentences[:8])  # warm
                    best = float("inf")
                    for _ in range(repeat):
                        start = time.perf_counter()
                        graphs = parser.parse(sentences)
                        best = min(best, time.perf_counter() - start)
                    times[name] = round(best, 2)
                    parses[name] = [to_standard_xml(g) for g in graphs]
            batch = [[encoder.tok.cls, *encoder.windows(words)[0][0], encoder.tok.sep] for words in sentences[:32]]
            width = max(map(len, batch))
            ids = np.array([b + [encoder.pad] * (width - len(b)) for b in batch], dtype=np.int64)
            mask = np.array([[1.0] * len(b) + [0.0] * (width - len(b)) for b in batch], dtype=np.float32)
            keep = mask.astype(bool)[None, :, :, None]  # padded positions are nobody's words
            diff = float(np.abs((numpy_forward(ids, mask) - ort_forward(ids, mask)) * keep).max())
            row[f"threads_{threads}"] = {
                "parse_seconds": times,
                "speed_up": round(times["numpy"] / times["onnxruntime"], 2),
                "same_parses": parses["numpy"] == parses["onnxruntime"],
                "sentences_differing": sum(a != b for a, b in zip(parses["numpy"], parses["onnxruntime"], strict=True)),
                "max_hidden_state_difference": diff,
            }
            print(json.dumps(row), flush=True)
    encoder.forward = numpy_forward
    row["end_to_end"] = end_to_end(sentences, repeat, row["threads_1"]["parse_seconds"])
    return row


def end_to_end(sentences: list[list[str]], repeat: int, parse_seconds: dict[str, float]) -> dict:
    """The whole ``samsa score`` command with ``accurate`` (numpy encoder, one process, no cache) on the sentences
    against themselves, best of ``repeat``, and the same command projected with onnxruntime's encoder: its time
    less the numpy parse, plus onnxruntime's (``parse_seconds``, one thread, as the command's parser runs)."""
    from _data import samsa_executable

    with tempfile.TemporaryDirectory() as tmp:
        text = Path(tmp) / "sents.txt"
        text.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
        score = ["score", "--source", str(text), "--system", str(text), "--tokenizer", "none", "--no-cache"]
        cmd = [samsa_executable(), *score, "--parser", "builtin:accurate", "--quiet"]
        best = min(run_once(cmd)[0] for _ in range(repeat))
    projected = best - parse_seconds["numpy"] + parse_seconds["onnxruntime"]
    return {
        "command_seconds_numpy": round(best, 2),
        "projected_command_seconds_onnxruntime": round(projected, 2),
        "projected_speed_up": round(best / projected, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", nargs="+", default=["fast", "accurate", "mpnet"])
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--set", default="20k_test", choices=sorted(SETS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--other", type=Path, default=None, help="another samsa checkout to time side by side")
    ap.add_argument("--onnx", action="store_true", help="the accurate encoder on onnxruntime against numpy")
    args = ap.parse_args()
    lines = [" ".join(tokens(load_passage(f))) for f in list_passage_files(DATA / SETS[args.set])]
    path = RESULTS / "parser_speed.json"
    previous = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if args.onnx:
        row = measure_onnx([line.split() for line in lines], args.repeat)
        row.update({"set": args.set, "cpus": os.cpu_count(), "command": "python benchmarks/parser_speed.py "
                    + " ".join(sys.argv[1:])})  # fmt: skip
        write_json("parser_speed.json", {**{k: v for k, v in previous.items() if k != "onnx"}, "onnx": row})
        return
    started = time.strftime("%Y-%m-%d %H:%M")
    rows = []
    for pipeline in args.pipeline:
        for jobs in args.jobs:
            if args.other:
                rows.append(measure_ab(pipeline, jobs, lines, args.repeat, args.other.resolve()))
            else:
                rows.append(measure(pipeline, jobs, lines, args.repeat))
            print(json.dumps(rows[-1]), flush=True)
    record = {"set": args.set, "cpus": os.cpu_count(), "started": started, "repeat": args.repeat, "runs": rows,
              "command": "python benchmarks/parser_speed.py " + " ".join(sys.argv[1:])}  # fmt: skip
    if args.other:
        record = {**{k: v for k, v in previous.items() if k != "side_by_side"}, "side_by_side": record}
    elif args.set[:2] in LANGUAGE_KEYS:  # German, French: beside the English figures, under "german", "french"
        key = LANGUAGE_KEYS[args.set[:2]]
        record = {**{k: v for k, v in previous.items() if k != key}, key: record}
    else:
        record.update({k: previous[k] for k in ("side_by_side", "onnx", *LANGUAGE_KEYS.values()) if k in previous})
    write_json("parser_speed.json", record)


if __name__ == "__main__":
    main()
