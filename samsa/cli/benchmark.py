"""``samsa benchmark hsplit``: a system output on the HSplit/TurkCorpus benchmark."""

from __future__ import annotations

import argparse
import json

from samsa.cli.common import Runtime, add_runtime_options
from samsa.cli.io import (
    Output,
    add_command,
    add_data_option,
    add_format_options,
    add_system_options,
    int_at_least,
    named_systems,
)
from samsa.config import DEFAULT_ALIGNER
from samsa.errors import InputError
from samsa.tables import render

DESCRIPTION = """\
Score system outputs on the 359 TurkCorpus sources against the 8 TurkCorpus
references, the Simple Wikipedia reference and the 4 HSplit references; the HSplit
corpora are scored as systems too (each without its own reference).

examples:
  samsa benchmark hsplit out.txt --name mysystem --first 70
  samsa benchmark hsplit out1.txt out2.txt --first 70 -f csv -o scores.csv   # the input of samsa correlate
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "benchmark", "standard benchmarks (hsplit)", DESCRIPTION)
    p.add_argument("benchmark", choices=("hsplit",))
    add_system_options(p, required=False)
    p.add_argument(
        "--first", type=int_at_least(1), default=None, help="only the first N sentences (70 = human-rated subset)"
    )
    add_data_option(p)
    p.add_argument("--no-samsa", dest="samsa", action="store_false", help="skip SAMSA (no parsing)")
    p.add_argument("--aligner", default=DEFAULT_ALIGNER, help="aligner for SAMSA (default: %(default)s)")
    add_format_options(p)
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.cli.io import file_paths, read_text_lines, shown
    from samsa.studies.hsplit import benchmark_hsplit
    from samsa.testsets import data_root

    paths = [*args.systems, *args.inputs]
    named = named_systems(paths, args.names, required=args.systems_required)
    output = Output.from_args(args)
    output.check(file_paths(paths))
    data = data_root(args.data).path
    systems = {n: read_text_lines(f, max_tokens=None) for n, f in named}
    allowed = {359} if args.first is None else {359, args.first}  # the full output, or just the first N lines
    for f, lines in zip((shown(f) for _, f in named), systems.values(), strict=True):
        if len(lines) not in allowed:
            raise InputError(
                f,
                min(len(lines), 359) + 1,
                f"has {len(lines)} lines; the HSplit benchmark needs "
                f"{' or '.join(map(str, sorted(allowed)))} (one per TurkCorpus test source)",
            )
    with Runtime.from_args(args).parse_run(None, "samsa", cached=args.samsa) as execution:
        result = benchmark_hsplit(
            data, systems, first=args.first, samsa=args.samsa, aligner=args.aligner, execution=execution
        )
    rows = []
    header = None
    for system, by_ref in result["systems"].items():
        refs = {ref: ms for ref, ms in by_ref.items() if ref != "samsa"}
        flat = {f"{ref}.{m}": v for ref, ms in refs.items() for m, v in ms.items() if not isinstance(v, dict)}
        flat.update({f"{ref}.split_percent": ms["splits"]["split_proportion"] for ref, ms in refs.items()})
        flat.update(by_ref.get("samsa", {}))
        header = header or list(flat)
        rows.append((system, flat))
    if args.format == "json":
        output.emit(json.dumps(result, indent=2))
        return 0
    if args.format == "csv":  # every system-level number: the input of samsa correlate
        output.emit(render([{"system": s, **r} for s, r in rows], ["system", *(header or [])], "csv"))
        return 0
    cols = "turk8.sari turk8.bleu simplewiki.bleu hsplit4.bleu turk8.fkgl turk8.ld_sc turk8.split_percent".split()
    cols += ["samsa", "samsa_abl"] if args.samsa else []
    table = render(
        [{"system": s, **{c: r[c] for c in cols}} for s, r in rows], ["system", *cols], args.format, width=args.width
    )
    sig = result["signatures"].get("samsa")
    footer = f"{result['sentences']} sentences" + (f"; SAMSA: {sig}" if sig else "")
    output.emit(f"{table}\n{'% ' if args.format == 'latex' else ''}{footer}")
    return 0
