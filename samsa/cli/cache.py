"""``samsa cache``: look at or empty the parse cache."""

from __future__ import annotations

import argparse
import json

from samsa.cli.io import add_command

DESCRIPTION = """\
The parse cache keeps every graph a parser produced, keyed by the exact input and
the parser's full signature (weights digest and spaCy model included), so each
source is parsed once, ever. It lives in $SAMSA_CACHE, else in the user cache
directory; --cache PATH names another file.

examples:
  samsa cache info
  samsa cache clear --cache /tmp/parses.sqlite
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "cache", "parse cache: info | clear", DESCRIPTION)
    p.add_argument("action", choices=("info", "clear"))
    p.add_argument("--cache", metavar="PATH", default=None, help="cache file (default: $SAMSA_CACHE or user cache)")
    p.add_argument(
        "-f", "--format", choices=("table", "json"), default="table", help="info's format (default: %(default)s)"
    )
    p.add_argument("--json", dest="format", action="store_const", const="json", help="same as -f json")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.engine.cache import ParseCache

    with ParseCache(args.cache) as cache:
        if args.action == "clear":
            print(f"removed {cache.clear()} parse(s) from {cache.path}")
            return 0
        info = cache.info()
    if args.format == "json":
        print(json.dumps(info, indent=2))
        return 0
    print(f"path     {info['path']}\nentries  {info['entries']}\nsize     {info['bytes'] / 2**20:.1f} MiB")
    drawn = info.get("drawn_trees", {})
    for parser, n in info["parsers"].items():
        trees = f" ({drawn[parser]} with drawn trees)" if drawn.get(parser) else ""
        print(f"  {n:>8}  {parser}{trees}")
    return 0
