"""``samsa extract-text``: the sentences of a UCCA directory, tokenized, one per line in file order."""

from __future__ import annotations

import argparse

from samsa.cli.io import Output, add_command

DESCRIPTION = """\
Write the sentences of a directory of UCCA XML files, one line per file in natural
file-name order (the order samsa score --ucca pairs them with system lines), tokens
separated by single spaces: the input to give a simplification system, or to
samsa parse --tokenizer none.

example:
  samsa extract-text $SAMSA_DATA/ucca/20k/test -o 20k.txt
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "extract-text", "the tokenized sentences of a UCCA XML directory", DESCRIPTION)
    p.add_argument(
        "ucca", metavar="DIR", nargs="?", default=None, help="directory of UCCA XML files (standard or site format)"
    )
    p.add_argument("-i", "--ucca", dest="ucca_option", metavar="DIR", default=None, help="same as the positional DIR")
    p.add_argument("-o", "--output", metavar="FILE", default=None, help="write here instead of standard output")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar (not EASSE's -q, quality estimation)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.engine.pipeline import progress_bar
    from samsa.errors import InputError
    from samsa.fileio import check_output_path
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens

    if bool(args.ucca) == bool(args.ucca_option):
        raise InputError(None, None, "name the UCCA directory once: a positional DIR or -i DIR")
    xml = get_parser("xml", directory=args.ucca or args.ucca_option)
    if args.output:
        check_output_path(args.output, [xml.directory, *xml.files])
    with progress_bar(len(xml.files), "load", args.quiet) as bar:
        graphs = xml.load(bar.update)
    Output(path=args.output).emit("\n".join(" ".join(tokens(g)) for g in graphs))
    return 0
