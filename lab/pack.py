"""Pack what ``lab.train`` needs into one folder for a training machine without spaCy or the shared data.

Usage:
    python -m lab.pack --data ../shared/data --out devstage [--vectors] [--encoder-depth 4]

Writes ``ucca.tar.xz`` (the training and dev corpora), ``cache/`` (spaCy's
annotations of them, ``lab/annotations.py``) and, with ``--encoder-depth``,
``encoder.tar.xz``: all-MiniLM-L6-v2's (``--encoder mpnet``: all-mpnet-base-v2's) config, vocabulary and a float16
``model.safetensors`` holding the embeddings and the first layers, the rows of
word pieces the corpora never use set to zero. A v4 run (``--finetune-encoder``)
reads the package's weights rounded to float16 anyway, so it trains on that copy
exactly as it would on the package. On the training machine:

    tar -xJf ucca.tar.xz -C data && tar -xJf encoder.tar.xz -C enc
    SAMSA_ENCODER_DIR=enc python -m lab.train --data data --feature-cache cache --no-vectors ...

(``SAMSA_MPNET_DIR=enc`` for MPNet, whose packed weights are exactly those it reads from the packages.)

(``--no-vectors`` unless packed with ``--vectors``: spaCy's tok2vec vectors are large.)
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from lab.annotations import annotate
from lab.corpora import DEV, TRAIN, dev_limit, load
from lab.oracle import graph_to_spans


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The safetensors format: an 8-byte little-endian header length, a JSON table, the raw data."""
    names = {np.float16: "F16", np.float32: "F32"}
    header, offset, blobs = {}, 0, []
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": names[arr.dtype.type],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        blobs.append(data)
    table = json.dumps(header).encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(table)))
        fh.write(table)
        for blob in blobs:
            fh.write(blob)


def pack_encoder(out: Path, sentences: list[list[str]], depth: int, name: str = "minilm") -> None:
    """``encoder.tar.xz``: the encoder's config, vocabulary and float16 weights (embeddings and the first ``depth``
    layers; the rows of word pieces the corpora never use set to zero)."""
    if name == "mpnet":
        from samsa.parsers.builtin.mpnet import MPNet, read_mpnet

        enc: Any = MPNet(depth=depth)
        cfg, vocab = read_mpnet(enc.source)
        files = {"config.json": json.dumps(cfg).encode(), "vocab.txt": "\n".join(vocab).encode("utf-8")}
        shared: tuple[str, ...] = ("embeddings.", "encoder.relative_attention_bias.")
    else:
        from samsa.parsers.builtin.encoder import MiniLM, find_model_dir

        source = find_model_dir()
        enc = MiniLM(depth=depth)
        files = {n: (source / n).read_bytes() for n in ("config.json", "vocab.txt")}
        shared = ("embeddings.",)
    used = sorted(
        {p for words in sentences for ids, _ in enc.windows(words) for p in ids}
        | {enc.tok.cls, enc.tok.sep, enc.tok.unk, enc.pad}
    )
    keep = {k: v for k, v in enc.w.items() if k.startswith(shared)}
    keep.update({k: v for k, v in enc.w.items() for n in range(depth) if k.startswith(f"encoder.layer.{n}.")})
    rows = np.zeros_like(keep["embeddings.word_embeddings.weight"])
    rows[used] = keep["embeddings.word_embeddings.weight"][used]
    keep["embeddings.word_embeddings.weight"] = rows
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_safetensors(
            d / "model.safetensors", {k: v.astype(np.float16) for k, v in sorted(keep.items()) if v.dtype.kind == "f"}
        )
        for fname, blob in files.items():
            (d / fname).write_bytes(blob)
        with tarfile.open(out / "encoder.tar.xz", "w:xz") as tar:
            for fname in ("model.safetensors", "config.json", "vocab.txt"):
                tar.add(d / fname, arcname=fname)
    print(f"encoder: {len(used)} of {len(rows)} word pieces, {depth} layers", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--out", required=True)
    ap.add_argument("--vectors", action="store_true", help="also cache spaCy's tok2vec vectors (large)")
    ap.add_argument("--encoder-depth", type=int, default=0, help="pack the encoder's first N layers (0: none)")
    ap.add_argument("--encoder", choices=("minilm", "mpnet"), default="minilm", help="which encoder to pack")
    ap.add_argument("--limit", type=int, default=None, help="only what lab.train --limit N reads (smoke tests)")
    args = ap.parse_args(argv)
    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tokens, files = {}, []
    for name, dirs, limit in (("train", TRAIN, args.limit), ("dev", DEV, dev_limit(args.limit))):
        paths, graphs = load([data / d for d in dirs], limit)
        files.extend(paths)
        tokens[name] = [graph_to_spans(g)[0] for g in graphs]
        annotate(tokens[name], out / "cache", vectors=args.vectors)
    with tarfile.open(out / "ucca.tar.xz", "w:xz") as tar:
        for d in (*TRAIN, *DEV):  # every folder, even one a smoke run reads nothing from
            tar.add(data / d, arcname=d, recursive=False)
        for f in files:  # under the data root's layout (ucca/wiki/train/...), as lab.train reads it
            tar.add(f, arcname=str(f.relative_to(data)))
    if args.encoder_depth:
        pack_encoder(out, tokens["train"] + tokens["dev"], args.encoder_depth, args.encoder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
