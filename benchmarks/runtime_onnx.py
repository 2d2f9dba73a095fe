"""ONNX Runtime against the numpy runtime for the parser's BiLSTM: what the other choice would gain and cost.

Usage (needs ``pip install onnx onnxruntime``, neither a samsa dependency):
    python benchmarks/runtime_onnx.py [--rounds 5] [--out runtime_onnx.json]

Why: the light runtime could have been ONNX Runtime or numpy (issue "A light
install and a fast, scalable runtime"); the parser's network is numpy
(``parsers/builtin/runtime.py``). This puts the largest piece of that network,
the 2-layer BiLSTM (both directions), into one ONNX graph (two bidirectional
``LSTM`` nodes with ``sequence_lens``, built here from the shipped ``fast``
weights with ``onnx.helper``) and compares, on the 359 HSplit sources as the
parser batches them (BLAS and ONNX Runtime at one thread, glibc's allocator set as the ``samsa``
executable sets it, ``samsa.cli.startup.tune_allocator``):

- the BiLSTM's CPU time over all batches, numpy vs ONNX Runtime, alternating, best of each round's pass;
- the whole ``BuiltinParser.parse`` (spaCy included, pre-tokenized sources) with either BiLSTM, alternating,
  and whether the decoded graphs are the same;
- the largest difference of the fencepost features the span classifier reads;
- ``import onnxruntime`` in a fresh interpreter (after numpy, which samsa imports anyway), median of 5;
  creating the inference session; the installed size of onnxruntime and the packages it adds.

Writes ``benchmarks/results/<--out>``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import HSPLIT_SOURCES, write_json

#: torch's gate blocks (i, f, g, o) in ONNX's order (i, o, f, c)
TORCH_TO_ONNX = (0, 3, 1, 2)


def onnx_gates(w: np.ndarray) -> np.ndarray:
    blocks = np.split(w, 4, axis=0)
    return np.concatenate([blocks[k] for k in TORCH_TO_ONNX], axis=0)


def bilstm_onnx(state: dict[str, np.ndarray], hidden: int) -> bytes:
    """The network's 2-layer BiLSTM as an ONNX model: input ``x`` (T, B, D) time-major and ``seq`` (B,) lengths,
    output (T, B, 2H), both directions of each position side by side (padding: 0)."""
    from onnx import TensorProto, checker, helper, numpy_helper

    inits, nodes, prev = [], [], "x"
    for k in range(2):
        both = ("", "_reverse")
        w = np.stack([onnx_gates(state[f"lstm.weight_ih_l{k}{d}"]) for d in both])
        r = np.stack([onnx_gates(state[f"lstm.weight_hh_l{k}{d}"]) for d in both])
        b = np.stack([np.concatenate([onnx_gates(state[f"lstm.bias_ih_l{k}{d}"]),
                                      onnx_gates(state[f"lstm.bias_hh_l{k}{d}"])]) for d in both])  # fmt: skip
        for name, arr in ((f"W{k}", w), (f"R{k}", r), (f"B{k}", b)):
            inits.append(numpy_helper.from_array(arr.astype(np.float32), name))
        inits.append(numpy_helper.from_array(np.array([0, 0, 2 * hidden], dtype=np.int64), f"shape{k}"))
        nodes += [
            helper.make_node(
                "LSTM",
                [prev, f"W{k}", f"R{k}", f"B{k}", "seq"],
                [f"Y{k}"],
                direction="bidirectional",
                hidden_size=hidden,
            ),
            helper.make_node("Transpose", [f"Y{k}"], [f"T{k}"], perm=[0, 2, 1, 3]),  # (T, 2, B, H) -> (T, B, 2, H)
            helper.make_node("Reshape", [f"T{k}", f"shape{k}"], [f"L{k}"]),
        ]
        prev = f"L{k}"
    width = state["lstm.weight_ih_l0"].shape[1]
    graph = helper.make_graph(
        nodes,
        "bilstm",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", "B", width]),
            helper.make_tensor_value_info("seq", TensorProto.INT32, ["B"]),
        ],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["T", "B", 2 * hidden])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    checker.check_model(model)
    return model.SerializeToString()


class OnnxBiLSTM:
    """The numpy network with its ``encode`` done by ONNX Runtime (everything else delegated)."""

    def __init__(self, net: Any, session: Any) -> None:
        self.net, self.session = net, session

    def __getattr__(self, name: str) -> Any:
        return getattr(self.net, name)

    def encode(self, batch: Any) -> tuple[np.ndarray, list[int]]:
        x, lengths = self.net._inputs(batch)
        feed = {"x": np.ascontiguousarray(x.transpose(1, 0, 2)), "seq": lengths.astype(np.int32)}
        y = self.session.run(None, feed)[0].transpose(1, 0, 2)
        hid = self.net.hidden
        fence = np.concatenate([y[:, :-1, :hid], y[:, 1:, hid:]], axis=-1)
        return fence, [int(n) - 2 for n in lengths]


def cpu_s(fn: Any) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def import_s() -> float:
    probe = "import numpy, time; t = time.perf_counter(); import onnxruntime; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
            for _ in range(5)]  # fmt: skip
    return statistics.median(runs)


def installed_mb(dist: str) -> float:
    files = metadata.distribution(dist).files or []
    return sum(f.locate().stat().st_size for f in files if f.locate().is_file()) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="runtime_onnx.json", help="result file name under benchmarks/results/")
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    from samsa.cli.startup import tune_allocator

    tune_allocator()
    threadpool_limits(1)
    import onnxruntime as ort

    from samsa.graph import to_json
    from samsa.parsers.builtin import _batches
    from samsa.parsers.builtin.features import featurize
    from samsa.registry import get_parser

    parser = get_parser("builtin")
    parser.load()
    net = parser.net
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    model = bilstm_onnx(net.s, net.hidden)
    start = time.perf_counter()
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    session_s = time.perf_counter() - start
    onnx_net = OnnxBiLSTM(net, session)

    sources = HSPLIT_SOURCES.read_text(encoding="utf-8").splitlines()
    tokens = [parser.tokenize(s) for s in sources]
    order = sorted(range(len(tokens)), key=lambda k: len(tokens[k]))
    feats = [featurize(parser.nlp, parser.vocab, [tokens[k] for k in idx])
             for idx in _batches(order, [len(t) for t in tokens], parser.batch_size)]  # fmt: skip
    diff = 0.0
    for batch in feats:
        (a, lengths), (b, _) = net.encode(batch), onnx_net.encode(batch)
        diff = max([diff] + [float(np.abs(a[i, : n + 1] - b[i, : n + 1]).max()) for i, n in enumerate(lengths)])

    def parse_with(which: Any) -> list[Any]:
        parser.__dict__["net"] = which
        return parser.parse(tokens)

    graphs = {label: [to_json(g) for g in parse_with(n)] for label, n in (("numpy", net), ("onnxruntime", onnx_net))}
    bilstm: dict[str, list[float]] = {"numpy": [], "onnxruntime": []}
    parse: dict[str, list[float]] = {"numpy": [], "onnxruntime": []}
    for r in range(args.rounds):
        pair = [("numpy", net), ("onnxruntime", onnx_net)]
        for label, which in pair if r % 2 == 0 else pair[::-1]:
            bilstm[label].append(min(cpu_s(lambda w=which: [w.encode(b) for b in feats]) for _ in range(2)))
            parse[label].append(cpu_s(lambda w=which: parse_with(w)))
        print(f"round {r + 1}: BiLSTM numpy {bilstm['numpy'][-1]:.3f} s, onnxruntime {bilstm['onnxruntime'][-1]:.3f} s",
              file=sys.stderr)  # fmt: skip
    parser.__dict__["net"] = net

    def summary(runs: dict[str, list[float]]) -> dict[str, Any]:
        med = {k: round(statistics.median(v), 3) for k, v in runs.items()}
        return {"median_cpu_s": med, "cpu_s_per_round": {k: [round(x, 3) for x in v] for k, v in runs.items()},
                "change_percent": round(100 * (med["onnxruntime"] / med["numpy"] - 1), 1)}  # fmt: skip

    added = ["onnxruntime", "protobuf", "flatbuffers"]
    result = {
        "command": " ".join(["python benchmarks/runtime_onnx.py", *sys.argv[1:]]),
        "onnxruntime": ort.__version__,
        "numpy": np.__version__,
        "weights": parser.signature(),
        "sources": len(sources),
        "batches": len(feats),
        "bilstm": summary(bilstm),
        "parse": summary(parse),
        "same_graphs": graphs["numpy"] == graphs["onnxruntime"],
        "max_abs_fence_difference": diff,
        "import_onnxruntime_s": round(import_s(), 3),
        "session_s": round(session_s, 4),
        "onnx_model_mb": round(len(model) / 1e6, 1),
        "installed_mb": {d: round(installed_mb(d), 1) for d in added},
    }
    print(write_json(args.out, result))


if __name__ == "__main__":
    main()
