"""``samsa parse``: sentences -> UCCA standard XML files (one per line) with the built-in parser."""

from __future__ import annotations

import argparse
from pathlib import Path

from samsa.cli.common import add_runtime_options, dask_target, open_cache
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, read_lines
from samsa.pipeline import Item, Job, make_executor, progress_bar, run_items, worker_count
from samsa.registry import available, get_parser
from samsa.ucca_xml import to_standard_xml

DESCRIPTION = """\
Parse sentences into UCCA (foundational layer, primary edges) and write one standard
UCCA XML file per input line, named by zero-padded line number (000001.xml, ...);
the `ucca` package's convert.from_standard reads them.

example:
  samsa parse --tokenizer none --input sentences.txt --output-dir parsed/
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="UCCA-parse sentences into XML files", description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--input", required=True, metavar="FILE", help="one sentence per line")
    p.add_argument("--output-dir", required=True, metavar="DIR")
    p.add_argument("--tokenizer", choices=("none", "spacy"), default="spacy",
                   help="'none': the input is tokenized, keep its tokens (default: %(default)s)")  # fmt: skip
    p.add_argument("--parser", default="builtin", help=f"parser (available: {', '.join(available('parsers'))})")
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    lines = read_lines(args.input, allow_empty_lines=False, max_tokens=DEFAULT_MAX_TOKENS)
    out = Path(args.output_dir)
    if out.exists() and not out.is_dir():
        raise InputError(out, None, "exists and is not a directory")
    parser = get_parser(args.parser)
    sentences = [line.split() for line in lines] if args.tokenizer == "none" else lines
    width = max(6, len(str(len(lines))))
    out.mkdir(parents=True, exist_ok=True)
    executor = make_executor(Job(parser=parser, score=False), jobs=worker_count(args.jobs), dask=dask_target(args))
    cache = open_cache(args)
    bar = progress_bar(len(lines), "parse", args.quiet)
    try:
        items = (Item("parse", s) for s in sentences)
        stream = run_items(items, executor, cache=cache, parser=parser, return_graphs=True, progress=bar.update)
        for k, (_, res) in enumerate(stream, 1):
            g = res.graph
            name = f"{k:0{width}d}"
            g.graph["passage_id"] = name
            tmp = out / f".{name}.xml.tmp"
            tmp.write_bytes(to_standard_xml(g))
            tmp.replace(out / f"{name}.xml")
    finally:
        bar.close()
        executor.close()
        if cache is not None:
            cache.close()
    return 0
