"""``samsa skeleton``: the Scene skeleton (what SAMSA reads) of every UCCA file of a directory."""

from __future__ import annotations

import argparse
import shutil

from samsa.cli.common import add_language_option, resolve_language
from samsa.cli.io import add_command

DESCRIPTION = """\
Write the Scene skeleton of every UCCA XML file in IN_DIR to OUT_DIR, under the same
file name: the part of the graph SAMSA reads (the Scenes, their words, each Scene's
main relation and participants down to their minimal centers), as standard UCCA XML
that samsa and the ucca package read. SAMSA and SAMSA-abl (paper definition) of any
output are the same from the skeleton as from the full graph: the Scenes keep the
file's order, which paper SAMSA reads. --text-order writes them in samsa's order, as
samsa annotate saves (docs/samsa.md, "Scene order"): to compare an annotation made
there with a gold file. Skeletons do not depend on the language:
--lang is accepted so that one command line serves every language.

example:
  samsa skeleton $SAMSA_DATA/ucca/wiki/test wiki_skeletons/
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "skeleton", "the Scene skeleton (what SAMSA reads) of each UCCA file", DESCRIPTION)
    p.add_argument("input", metavar="IN_DIR", help="directory of UCCA XML files (standard or site format)")
    p.add_argument("output", metavar="OUT_DIR", help="directory to write (replaced as a whole at the end)")
    add_language_option(p, test_sets=False)
    p.add_argument("--text-order", action="store_true", help="the Scenes in samsa's order, as samsa annotate saves")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    resolve_language(args.lang)
    return write_skeletons(args.input, args.output, args.quiet, args.text_order)


def write_skeletons(source: str, target: str, quiet: bool, text_order: bool = False) -> int:
    from samsa.engine.pipeline import progress_bar
    from samsa.errors import InputError
    from samsa.fileio import check_output_path, check_reusable, replace_directory, staging_directory
    from samsa.registry import get_parser
    from samsa.ucca.skeleton import skeleton_of
    from samsa.ucca.skeleton_write import skeleton_xml

    xml = get_parser("xml", directory=source)
    out = check_output_path(target, [xml.directory, *xml.files], directory=True)
    check_reusable(out, "samsa skeleton")
    with progress_bar(len(xml.files), "skeleton", quiet) as bar:
        graphs = xml.load(bar.update)
    staging = staging_directory(out)
    try:
        for path, g in zip(xml.files, graphs, strict=True):
            try:
                sk = skeleton_of(g)
                data = skeleton_xml(sk.in_text_order().canonical() if text_order else sk)
            except ValueError as e:
                raise InputError(path, None, str(e)) from None
            (staging / path.name).write_bytes(data)
        replace_directory(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return 0
