"""``samsa test-sets``: the named test sets, their files, licences, and whether the data root has them."""

from __future__ import annotations

import argparse
import json

from samsa.cli.io import add_command, add_data_option

DESCRIPTION = """\
List the test sets that -t/--test-set accepts, where each one's files are looked
for under the data root, and whether they are there. The data root is --data,
else $SAMSA_DATA, else 'data = DIR' under [samsa] in the config file
($SAMSA_CONFIG, else ~/.config/samsa/config.ini). No data ships with samsa.

example:
  samsa test-sets --data ~/samsa-data
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "test-sets", "list the named test sets and check the data root", DESCRIPTION)
    add_data_option(p)
    p.add_argument("-f", "--format", choices=("table", "json"), default="table", help="(default: %(default)s)")
    p.add_argument("--json", dest="format", action="store_const", const="json", help="same as -f json")
    p.add_argument("--list", action="store_true", help="the names alone, one a line (as sacrebleu --list)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.errors import SamsaError
    from samsa.testsets import available_test_sets

    if args.list:
        print("\n".join(available_test_sets()))
        return 0
    from samsa.testsets import TEST_SETS, data_root

    try:
        root = data_root(args.data)
    except SamsaError as e:
        root, problem = None, str(e)
    rows = []
    for ts in TEST_SETS.values():
        files = [ts.orig, *ts.refs]
        found = None if root is None else all((root.path / f).is_file() for f in files)
        rows.append(
            {
                "name": ts.name,
                "refs": len(ts.refs),
                "language": ts.language,
                "found": {None: "?", True: "yes", False: "no"}[found],
                "source": ts.orig,
                "licence": ts.licence,
                "description": ts.description,
            }
        )
    if args.format == "json":
        print(json.dumps({"data_root": str(root.path) if root else None, "test_sets": rows}, indent=2))
    else:
        print(_table(rows))
        print(f"data root: {root.path} (from {root.setting})" if root else f"data root: none ({problem})")
    return 0


def _table(rows: list[dict[str, object]]) -> str:
    """The test sets in 100 columns: name (and its short name), language, references, whether the data root has
    them, and what they are (description and licence, wrapped)."""
    from tabulate import tabulate

    from samsa.testsets import ALIASES

    short = {name: alias for alias, name in ALIASES.items()}
    table = [
        [
            r["name"],
            short.get(str(r["name"]), ""),
            r["language"],
            r["refs"],
            r["found"],
            f"{r['description']} [{r['licence']}]",
        ]
        for r in rows
    ]
    headers = ["name", "short", "lang", "refs", "found", "what it is [licence]"]
    return str(tabulate(table, headers, maxcolwidths=[None, None, None, None, None, 32], disable_numparse=True))
