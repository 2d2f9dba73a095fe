"""``samsa reproduce``: recompute published tables from the releases under a data root (JSON + Markdown)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from samsa.cli.common import Runtime, add_runtime_options
from samsa.cli.io import Output, add_command, add_data_option, add_format_options
from samsa.fileio import check_output_path

TABLES = ("hsplit-bleu-table2", "hsplit-table1", "samsa-human-tables", "samsa-correlations")
DIMS = ("G", "M", "S", "StS")

DESCRIPTION = """\
Recompute a published evaluation table from the shared data.

examples:
  samsa reproduce hsplit-bleu-table2 -f json -o table2.json
  samsa reproduce hsplit-table1
  samsa reproduce samsa-human-tables --data ~/samsa-data
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "reproduce", "recompute a published table", DESCRIPTION)
    p.add_argument("table", choices=TABLES)
    add_data_option(p)
    p.add_argument(
        "--normalization",
        choices=("lowercase", "clean"),
        default="lowercase",
        help="hsplit-bleu-table2 text normalization (default: %(default)s; see docs/REPRODUCTION.md)",
    )
    p.add_argument("--plots", metavar="DIR", help="samsa-correlations: write PNG scatter plots here")
    p.add_argument("--aligner", default="exact", help="samsa-correlations: aligner (default: %(default)s)")
    add_format_options(p, choices=("table", "json"))
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.studies import reproduce as R
    from samsa.testsets import data_root

    data = data_root(args.data).path
    output = Output.from_args(args)
    output.check([data])  # before any work: never an input, always writable
    if args.plots:
        check_output_path(args.plots, [data], directory=True)
    if args.table == "hsplit-bleu-table2":
        result: Any = R.hsplit_bleu_table2(data, normalization=args.normalization)
        md = table2_markdown(result, R.PAPER_TABLE2)
    elif args.table == "hsplit-table1":
        result = R.hsplit_table1(data)
        md = "| corpus | #Sents | SplitSents (%) |\n|---|---|---|\n" + "\n".join(
            f"| {k} | {v['sents']:.2f} | {v['split_percent']:.0f} |" for k, v in result.items()
        )
    elif args.table == "samsa-correlations":
        with Runtime.from_args(args).parse_run(None, "samsa") as execution:
            result = R.samsa_correlations(data, aligner=args.aligner, execution=execution)
        md = samsa_correlations_markdown(result)
        if args.plots:
            _plots(result, Path(args.plots))
    else:
        result = R.samsa_human_tables(data)
        ia = result["inter_annotator_spearman"]
        cols = list(ia["sentence"])
        md = (
            "| level | "
            + " | ".join(cols)
            + " |\n|---|"
            + "---|" * len(cols)
            + "\n"
            + "\n".join(
                f"| {lvl} | " + " | ".join(f"{ia[lvl][c]:.2f}" for c in cols) + " |" for lvl in ("sentence", "system")
            )
        )
        md += "\n\n| system | G | P | S | AvgHuman |\n|---|---|---|---|---|\n" + "\n".join(
            f"| {s} | " + " | ".join(f"{v[d]:.2f}" for d in ("G", "P", "S", "AvgHuman")) + " |"
            for s, v in result["per_system"].items()
        )
    output.emit(json.dumps(result, indent=2) if args.format == "json" else md)
    return 0


def table2_markdown(result: dict[str, Any], paper: dict[str, Any]) -> str:
    out = []
    for group, title in (("without_splits", "Systems/corpora without splits (7)"), ("all", "All systems/corpora (12)")):
        out.append(f"\n**{title}**: ours (paper), one-sided p in brackets after ours\n")
        out.append("| metric | " + " | ".join(DIMS) + " |")
        out.append("|---|" + "---|" * len(DIMS))
        for m, row in result[group].items():
            cells = [
                f"{row[d]:+.2f} [{result['p_one_sided'][group][m][d]:.2g}] ({paper[group][m][d]:+.2f})" for d in DIMS
            ]
            out.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def samsa_correlations_markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['n_systems']} systems (acl2018 + HSplit1-4), first {result['first']} sentences; "
        f"`{result['signature']}`",
        "",
        "| metric | " + " | ".join(f"{d} (Spearman / Pearson)" for d in DIMS) + " |",
        "|---|" + "---|" * len(DIMS),
    ]
    for m, row in result["correlations"].items():
        cells = [
            f"{row[d]['spearman']:+.2f} [{row[d]['spearman_p_one_sided']:.2g}] / {row[d]['pearson']:+.2f}" for d in DIMS
        ]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _plots(result: dict[str, Any], out: Path) -> None:
    from samsa.studies.correlation import scatter_plot

    out.mkdir(parents=True, exist_ok=True)
    systems = list(result["systems"])
    for m in ("SAMSA", "SAMSA-abl"):
        for d in DIMS:
            row = result["correlations"][m][d]
            scatter_plot(
                [result["systems"][s][m] for s in systems],
                [result["human"][s][d] for s in systems],
                [s.split(" (")[0] for s in systems],
                out / f"{m}_vs_{d}.png",
                xlabel=m,
                ylabel=f"human {d}",
                title=f"{m} vs {d}: Spearman {row['spearman']:+.2f}",
            )
