"""``samsa correlate``: correlation of metric scores with human judgments (tables + plots)."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from samsa.cli.io import Output, add_command, add_data_option, add_format_options, int_at_least
from samsa.errors import InputError
from samsa.fileio import check_output_path

DESCRIPTION = """\
Correlate metric scores with human judgments at the system or sentence level.

--scores is a CSV with a 'system' column (names as in the human ratings: the
acl2018 .ods names such as Moses, DSS, 'Simple Wikipedia', or HSplit1..4, or the
SAMSA-paper systems), an optional 'sentence' column (1-based) and one column per
metric. `samsa benchmark hsplit -f csv -o scores.csv` writes such a file.

example:
  samsa benchmark hsplit out1.txt out2.txt --first 70 -f csv -o scores.csv
  samsa correlate --scores scores.csv --human acl2018+hsplit --plots plots/
"""

HUMAN = ("acl2018", "hsplit", "acl2018+hsplit", "samsa2018")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "correlate", "metric vs human correlations", DESCRIPTION)
    p.add_argument("-i", "--scores", required=True, metavar="CSV", help="metric scores (see above)")
    p.add_argument("--human", choices=HUMAN, required=True, help="human ratings to correlate with")
    add_data_option(p)
    p.add_argument("--level", choices=("system", "sentence"), default="system")
    p.add_argument("--method", choices=("spearman", "pearson"), default="spearman")
    p.add_argument(
        "--bootstrap", type=int_at_least(0), default=0, metavar="N", help="bootstrap resamples for a 95%% CI"
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--plots", metavar="DIR", help="write one PNG scatter plot per metric and dimension")
    add_format_options(p, choices=("table", "json", "csv"))
    p.set_defaults(run=run)


def _human(kind: str, data: Path):
    import pandas as pd

    from samsa.studies.human import load_acl2018_ratings, load_hsplit_ratings, load_samsa2018_ratings

    frames = []
    if kind in ("acl2018", "acl2018+hsplit"):
        frames.append(load_acl2018_ratings(data / "acl2018" / "Human_evaluation_benchmark_acl2018.ods"))
    if kind in ("hsplit", "acl2018+hsplit"):
        for k in range(1, 5):
            frames.append(load_hsplit_ratings(data / "hsplit" / "HSplit_human_evaluation" / f"HSplit{k}_eval.ods"))
    if kind == "samsa2018":
        frames.append(load_samsa2018_ratings(data / "samsa2018" / "Human_evaluation_benchmark.ods"))
    dims = ("G", "P", "S", "AvgHuman") if kind == "samsa2018" else ("G", "M", "S", "StS")
    return pd.concat(frames, ignore_index=True), dims


def run(args: argparse.Namespace) -> int:
    from samsa.studies.correlation import correlate, scatter_plot, to_csv, to_markdown
    from samsa.studies.human import sentence_scores, system_scores
    from samsa.testsets import data_root

    path = Path(args.scores)
    output = Output.from_args(args)
    output.check([path])
    if args.plots:
        check_output_path(args.plots, [path], directory=True)
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, f"cannot read the scores CSV: {e}") from None
    if not rows or "system" not in rows[0]:
        raise InputError(path, 1, "expected a header with a 'system' column and metric columns")
    keys = ("system", "sentence") if args.level == "sentence" else ("system",)
    metrics = [c for c in rows[0] if c not in ("system", "sentence")]
    human_df, dims = _human(args.human, data_root(args.data).path)
    human = sentence_scores(human_df, dims) if args.level == "sentence" else system_scores(human_df, dims).reset_index()
    hmap = {tuple(str(r[k]) for k in keys): r for r in human.to_dict(orient="records")}
    items = []
    for lineno, r in enumerate(rows, 2):
        key = tuple(str(r.get(k, "")) for k in keys)
        if key in hmap:
            try:
                items.append((key, {m: float(r[m]) for m in metrics}, hmap[key]))
            except ValueError:
                raise InputError(path, lineno, "metric values must be numbers") from None
    if len(items) < 3:
        raise InputError(
            path,
            None,
            f"only {len(items)} rows match human ratings of '{args.human}' "
            "(system names must be those of the ratings); need at least 3",
        )
    xs, ys = {m: [i[1][m] for i in items] for m in metrics}, {d: [i[2][d] for i in items] for d in dims}
    how = {"bootstrap": args.bootstrap, "seed": args.seed}
    table = {m: {d: correlate(xs[m], ys[d], args.method, **how) for d in dims} for m in metrics}
    if args.plots:
        out = Path(args.plots)
        out.mkdir(parents=True, exist_ok=True)
        labels = [" ".join(k) if args.level == "system" else "" for k, _, _ in items]
        for m in metrics:
            for d in dims:
                scatter_plot(
                    xs[m],
                    ys[d],
                    labels,
                    out / f"{m}_vs_{d}.png",
                    xlabel=m,
                    ylabel=f"human {d}",
                    title=f"{m} vs {d}: {table[m][d].cell()}",
                )
    if args.format == "csv":
        text = to_csv(table)
    elif args.format == "json":
        text = json.dumps({m: {d: vars(c) for d, c in row.items()} for m, row in table.items()}, indent=2)
    else:
        text = (
            f"{args.method} correlation, {args.level} level, {len(items)} items, one-sided p in brackets\n\n"
            + to_markdown(table)
        )
    output.emit(text)
    return 0
