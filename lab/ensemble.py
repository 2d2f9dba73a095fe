"""Join weights files of one vocabulary into one ensemble file (``samsa.parsers.builtin.ensemble``).

Usage:
    python -m lab.ensemble --out ucca-span-de-words.npz a.npz b.npz

The members must share the vocabulary (the same training data gives the same one) and read the same inputs
(``INPUTS``: encoder and its layers, styles, vectors, language; no fine-tuned encoder).
Member ``k``'s tensors are stored under ``m{k}.``, its network sizes under ``config.members[k]`` and its
training record under ``meta.members[k]``; the parser then averages the members' span label probabilities and
remote logits. A Scene bias chosen afterwards (``lab.scene_bias``) is the ensemble's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lab.oracle import save_weights
from samsa.parsers.builtin.features import Vocab
from samsa.parsers.builtin.runtime import load_state, read_header, weights_digest

__all__ = ["INPUTS", "join", "main"]

#: what a member reads, which the members must share (written once more in the file's top record)
INPUTS = ("encoder", "encoder_layers", "styles", "vectors", "language")


def join(paths: list[Path], out: Path, command: str) -> None:
    """Write the ensemble of ``paths`` to ``out``; raises SystemExit when their vocabularies or inputs differ."""
    headers = [read_header(p) for p in paths]
    first = headers[0]
    for p, h in zip(paths[1:], headers[1:], strict=True):
        if h["vocab"] != first["vocab"] or h["format"] != first["format"]:
            raise SystemExit(f"{p}: another vocabulary or format than {paths[0]}: not one ensemble")
        if h["config"].get("members"):
            raise SystemExit(f"{p} is an ensemble already")
        if any(h["config"].get(k) != first["config"].get(k) for k in INPUTS):
            raise SystemExit(f"{p} reads other inputs than {paths[0]} ({', '.join(INPUTS)}): not one ensemble")
    for p, h in zip(paths, headers, strict=True):
        if "encoder_finetuned" in h["config"]:
            raise SystemExit(f"{p} fine-tuned its encoder: its members would need one encoder each")
    state = {f"m{k}.{name}": v for k, p in enumerate(paths) for name, v in load_state(p).items()}
    # what every member reads, where the parser reads it (encoder, styles, language)
    config = {
        "members": [h["config"] for h in headers],
        **{k: first["config"][k] for k in INPUTS if k in first["config"]},
    }
    meta = {
        "command": command,
        "members": [
            {"file": p.name, "sha256": weights_digest(p), **h["meta"]} for p, h in zip(paths, headers, strict=True)
        ],
    }
    save_weights(out, state=state, vocab=Vocab(**first["vocab"]), config=config, meta=meta, fmt=first["format"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the ensemble weights file to write")
    ap.add_argument("members", nargs="+", help="weights files of one vocabulary")
    args = ap.parse_args(argv)
    join([Path(m) for m in args.members], Path(args.out), "python -m lab.ensemble " + " ".join(sys.argv[1:]))
    print(f"wrote {args.out}: {len(args.members)} members", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
