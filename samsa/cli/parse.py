"""``samsa parse``: sentences -> UCCA standard XML files (one per line) with the built-in parser."""

from __future__ import annotations

import argparse
import shutil

from samsa.cli.common import Runtime, add_language_option, add_runtime_options, parser_name, resolve_language
from samsa.cli.io import add_command
from samsa.engine.pipeline import line_origin
from samsa.engine.worker import Item
from samsa.fileio import (
    DEFAULT_MAX_TOKENS,
    check_output_path,
    check_reusable,
    read_lines,
    replace_directory,
    staging_directory,
)
from samsa.languages import by_language
from samsa.registry import available, get_parser
from samsa.ucca.xml import to_standard_xml

DESCRIPTION = """\
Parse sentences into UCCA (foundational layer, primary edges) and write one standard
UCCA XML file per input line, named by zero-padded line number (000001.xml, ...);
the `ucca` package's convert.from_standard reads them.

example:
  samsa parse --tokenizer none -i sentences.txt -o parsed/
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "parse", "UCCA-parse sentences into XML files", DESCRIPTION)
    p.add_argument("-i", "--input", required=True, metavar="FILE", help="one sentence per line")
    p.add_argument(
        "-o",
        "--output-dir",
        "--output",
        dest="output_dir",
        required=True,
        metavar="DIR",
        help="the directory of XML files to write (replaced as a whole at the end)",
    )
    p.add_argument(
        "--tokenizer",
        choices=("none", "spacy"),
        default="spacy",
        help="'none': the input is tokenized, keep its tokens; 'spacy': the parser's own tokenizer (spaCy's for "
        "English, the German rules for German) (default: %(default)s)",
    )
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser (default: the language's: {by_language(lambda lang: lang.parser)}); builtin:accurate or "
        f"builtin:mpnet for those pipelines "
        f"(available: {', '.join(available('parsers'))})",
    )
    add_language_option(p)
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    lang = resolve_language(args.lang)
    runtime = Runtime.from_args(args)
    return parse(args.input, args.output_dir, parser_name(args.parser, lang), args.tokenizer == "none", runtime)


def parse(source: str, target: str, parser: str, tokenized: bool, runtime: Runtime) -> int:
    """Parse the lines of ``source`` (whitespace tokens when ``tokenized``) into the XML files of ``target``."""
    from samsa.engine.corpus import parse_items

    out = check_output_path(target, [source], directory=True)
    check_reusable(out, "samsa parse")
    lines = read_lines(source, allow_empty_lines=False, max_tokens=DEFAULT_MAX_TOKENS)
    parsing = get_parser(parser)
    sentences = [line.split() for line in lines] if tokenized else lines
    width = max(6, len(str(len(lines))))
    # everything goes to a fresh directory beside the target, which replaces it only at the end: an interrupted
    # run leaves the old directory as it was, and a finished one never keeps files of an earlier, longer run
    staging = staging_directory(out)
    items = (Item("parse", s, origin=line_origin(source, k)) for k, s in enumerate(sentences, 1))
    with runtime.parse_run(len(lines), "parse") as execution:
        stream = parse_items(parsing, items, execution)
        try:
            for k, g in enumerate(stream, 1):
                name = f"{k:0{width}d}"
                g.graph["passage_id"] = name
                (staging / f"{name}.xml").write_bytes(to_standard_xml(g))
            replace_directory(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            stream.close()
    return 0
