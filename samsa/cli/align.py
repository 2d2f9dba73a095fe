"""``samsa align``: word-align tab-separated sentence pairs, Pharaoh output."""

from __future__ import annotations

import argparse
import sys

from samsa.cli.common import add_aligner_options, build_aligner
from samsa.errors import InputError
from samsa.fileio import decode_lines

DESCRIPTION = """\
Align the words of sentence pairs. Input: one 'source<TAB>target' pair per line, both
whitespace-tokenized. Output: per line, the alignment as space-separated i-j pairs of
0-based token indices (Pharaoh format).

example:
  printf 'Four men died .\\t4 people are dead .\\n' | samsa align --aligner sultan --ppdb ppdb.txt
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("align", help="word alignment of sentence pairs (Pharaoh output)", description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("input", nargs="?", default="-", help="TSV file of pairs (default: standard input)")
    add_aligner_options(p)
    p.set_defaults(run=run)


def read_pairs(data: bytes, path: str) -> list[tuple[list[str], list[str]]]:
    pairs = []
    for lineno, line in enumerate(decode_lines(data, path, max_tokens=None), 1):
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(path, lineno, f"expected 2 tab-separated fields (source, target), found {len(fields)}")
        pairs.append((fields[0].split(), fields[1].split()))
    return pairs


def run(args: argparse.Namespace) -> int:
    if args.input == "-":
        data, path = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(args.input, "rb") as fh:
                data, path = fh.read(), args.input
        except OSError as e:
            raise InputError(args.input, None, f"cannot read file: {e.strerror}") from None
    pairs = read_pairs(data, path)
    aligner = build_aligner(args)
    batch = getattr(aligner, "align_batch", None)
    alignments = batch(pairs) if batch else [aligner.align(s, t) for s, t in pairs]
    out = sys.stdout
    for al in alignments:
        out.write(" ".join(f"{i}-{j}" for i, j in al) + "\n")
    return 0
