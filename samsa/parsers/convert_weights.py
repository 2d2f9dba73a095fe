"""Convert a weights file of the PyTorch era (``.pt``, written by ``samsa.parsers.train`` up to v2) to ``.npz``.

Usage:
    python -m samsa.parsers.convert_weights samsa/parsers/builtin/weights/ucca-span-v2.pt \
        samsa/parsers/builtin/weights/ucca-span-v2.npz

The tensors are copied as they are (they were already float16) and the training
record is kept, with a note of the conversion; ``samsa.parsers.train`` now writes
``.npz`` itself. Needs PyTorch (the ``train`` extra) to read the old file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from samsa.parsers.builtin.features import Vocab
from samsa.parsers.builtin.runtime import FORMATS, save_weights


def convert(src: Path, dst: Path) -> None:
    import torch

    blob = torch.load(src, map_location="cpu", weights_only=True)  # no pickled code from a weights file
    if blob.get("format") not in FORMATS:
        raise SystemExit(f"{src} is not a samsa span-parser weights file")
    state = {k: v.numpy() for k, v in blob["state"].items()}
    meta = dict(blob["meta"], converted_from=src.name)
    save_weights(dst, state=state, vocab=Vocab(**blob["vocab"]), config=blob["config"], meta=meta, fmt=blob["format"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    args = ap.parse_args(argv)
    convert(args.src, args.dst)
    print(f"wrote {args.dst}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
