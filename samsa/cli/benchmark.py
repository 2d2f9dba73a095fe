"""``samsa benchmark hsplit``: a system output on the HSplit/TurkCorpus benchmark."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from samsa.cli.common import add_runtime_options, dask_target, open_cache
from samsa.cli.reproduce import default_data_dir
from samsa.errors import InputError
from samsa.fileio import atomic_write_text, check_output_path, read_lines

DESCRIPTION = """\
Score system outputs on the 359 TurkCorpus sources against the 8 TurkCorpus
references, the Simple Wikipedia reference and the 4 HSplit references; the HSplit
corpora are scored as systems too (each without its own reference).

example:
  samsa benchmark hsplit --system out.txt --name mysystem --first 70 --csv scores.csv
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("benchmark", help="standard benchmarks (hsplit)", description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("benchmark", choices=("hsplit",))
    p.add_argument("--system", metavar="FILE", nargs="*", default=[], help="system output file(s)")
    p.add_argument("--name", nargs="*", default=None, help="display names (default: file names)")
    p.add_argument("--first", type=int, default=None, help="only the first N sentences (70 = human-rated subset)")
    p.add_argument("--data", default=default_data_dir(), help="shared data root (default: %(default)s)")
    p.add_argument("--no-samsa", dest="samsa", action="store_false", help="skip SAMSA (no parsing)")
    p.add_argument("--aligner", default="exact", help="aligner for SAMSA (default: %(default)s)")
    p.add_argument("--json", metavar="OUT", help="write the full result as JSON")
    p.add_argument("--csv", metavar="OUT", help="write system-level scores as CSV (input of samsa correlate)")
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.hsplit import benchmark_hsplit

    for target in (args.json, args.csv):
        if target:
            check_output_path(target, args.system)
    names = args.name or [Path(f).name for f in args.system]
    if len(names) != len(args.system):
        raise InputError(None, None, f"--name gives {len(names)} name(s) for {len(args.system)} --system file(s)")
    if len(set(names)) != len(names):
        raise InputError(None, None, f"system names must differ: {', '.join(names)}")
    systems = {n: read_lines(f, max_tokens=None) for n, f in zip(names, args.system, strict=True)}
    allowed = {359} if args.first is None else {359, args.first}  # the full output, or just the first N lines
    for f, lines in zip(args.system, systems.values(), strict=True):
        if len(lines) not in allowed:
            raise InputError(f, min(len(lines), 359) + 1, f"has {len(lines)} lines; the HSplit benchmark needs "
                             f"{' or '.join(map(str, sorted(allowed)))} (one per TurkCorpus test source)")  # fmt: skip
    from samsa.pipeline import progress_bar, worker_count

    cache = open_cache(args) if args.samsa else None
    bar = progress_bar(None, "samsa", args.quiet)
    try:
        result = benchmark_hsplit(args.data, systems, first=args.first, samsa=args.samsa, aligner=args.aligner,
                                  jobs=worker_count(args.jobs), dask=dask_target(args), cache=cache,
                                  progress=bar.update)  # fmt: skip
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    rows = []
    header = None
    for system, by_ref in result["systems"].items():
        refs = {ref: ms for ref, ms in by_ref.items() if ref != "samsa"}
        flat = {f"{ref}.{m}": v for ref, ms in refs.items() for m, v in ms.items() if not isinstance(v, dict)}
        flat.update({f"{ref}.split_percent": ms["splits"]["split_proportion"] for ref, ms in refs.items()})
        flat.update(by_ref.get("samsa", {}))
        header = header or list(flat)
        rows.append((system, flat))
    if args.json:
        atomic_write_text(args.json, json.dumps(result, indent=2) + "\n")
    if args.csv:
        atomic_write_text(args.csv, "system," + ",".join(header or []) + "\n" + "".join(
            f"{s}," + ",".join(f"{r[h]}" for h in header or []) + "\n" for s, r in rows))  # fmt: skip
    cols = ["turk8.sari", "turk8.bleu", "simplewiki.bleu", "hsplit4.bleu", "turk8.fkgl", "turk8.ld_sc",
            "turk8.split_percent"] + (["samsa", "samsa_abl"] if args.samsa else [])  # fmt: skip
    print("| system | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols))
    for system, flat in rows:
        print(f"| {system} | " + " | ".join(f"{flat[c]:.2f}" for c in cols) + " |")
    sig = result["signatures"].get("samsa")
    print(f"\n{result['sentences']} sentences" + (f"; SAMSA: {sig}" if sig else ""))
    return 0
