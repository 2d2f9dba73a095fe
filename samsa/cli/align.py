"""``samsa align``: word-align tab-separated sentence pairs, Pharaoh output."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from samsa.cli.common import AlignerChoice, add_aligner_options, add_language_option, resolve_language
from samsa.cli.io import add_command
from samsa.errors import InputError
from samsa.fileio import atomic_write_text, check_output_path, decode_lines

DESCRIPTION = """\
Align the words of sentence pairs. Input: one 'source<TAB>target' pair per line, both
whitespace-tokenized. Output: per line, the alignment as space-separated i-j pairs of
0-based token indices (Pharaoh format).

example:
  printf 'Four men died .\\t4 people are dead .\\n' | samsa align --aligner sultan --ppdb ppdb.txt
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "align", "word alignment of sentence pairs (Pharaoh output)", DESCRIPTION)
    p.add_argument(
        "input_file", nargs="?", metavar="INPUT", default=None, help="TSV file of pairs (default: standard input)"
    )
    p.add_argument("-i", "--input", metavar="FILE", default=None, help="same as the positional INPUT")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write the alignments to FILE (atomically) instead of standard output",
    )
    add_aligner_options(p)
    add_language_option(p)
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
    if args.input and args.input_file:
        raise InputError(None, None, "give the pairs once: a positional INPUT or -i FILE")
    lang = resolve_language(args.lang)
    aligner = AlignerChoice(args.aligner, args.ppdb, args.faithful_bugs, args.spacy_model)
    return align(args.input or args.input_file or "-", args.output, aligner.build(lang))


def align(source: str, target: str | None, aligner: Any) -> int:
    """Align the pairs of ``source`` (``-``: standard input) and write them to ``target`` (None: stdout)."""
    if source == "-":
        data, path = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(source, "rb") as fh:
                data, path = fh.read(), source
        except OSError as e:
            raise InputError(source, None, f"cannot read file: {e.strerror}") from None
    pairs = read_pairs(data, path)
    batch = getattr(aligner, "align_batch", None)
    alignments = batch(pairs) if batch else [aligner.align(s, t) for s, t in pairs]
    text = "\n".join(" ".join(f"{i}-{j}" for i, j in al) for al in alignments)
    if target:
        check_output_path(target, [] if source == "-" else [source])
        atomic_write_text(target, text + "\n" if alignments else "")
    elif alignments:
        sys.stdout.write(text + "\n")
    return 0
