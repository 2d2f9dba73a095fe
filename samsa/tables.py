"""Result tables for people and machines: one row per system, the signatures said once.

``render(rows, columns, fmt)`` is the only place that formats tabular results, so that
``-f table|csv|latex`` means the same in every command. Tables go through ``tabulate``;
CSV keeps full precision (it feeds other programs, e.g. ``samsa correlate``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FORMATS", "flatten", "render", "render_signatures"]

FORMATS = ("table", "json", "csv", "latex")


def flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"splits": {"split_outputs": 3}}`` -> ``{"splits.split_outputs": 3}`` (one column per number)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, Mapping):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _cell(value: Any, width: int) -> Any:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.{width}f}"
    return value


def render(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    fmt: str,
    *,
    width: int = 2,
    signatures: Mapping[str, str] | None = None,
) -> str:
    """Rows (one per system) as a text table, CSV or LaTeX; signatures below a table, once each."""
    if fmt == "json":
        return json.dumps(
            {"rows": [dict(r) for r in rows], "signatures": dict(signatures or {})}, indent=2, ensure_ascii=False
        )
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
        return buf.getvalue().rstrip("\n")
    from tabulate import tabulate

    body = [[_cell(r.get(c), width) for c in columns] for r in rows]
    tablefmt = {"table": "simple", "latex": "latex_booktabs"}[fmt]
    text = tabulate(
        body,
        headers=list(columns),
        tablefmt=tablefmt,
        disable_numparse=True,
        colalign=["left"] + ["right"] * (len(columns) - 1),
    )
    sigs = render_signatures(signatures or {})
    if not sigs:
        return text
    if fmt == "latex":
        return text + "\n" + "\n".join(f"% {s}" for s in sigs.splitlines())
    return text + "\n" + sigs


def render_signatures(signatures: Mapping[str, str]) -> str:
    """One line per distinct signature, always ``labels: signature`` (the columns it signs, then the signature:
    the same shape whatever the columns; docs/workflow.md); when several columns share one, it is printed once.

    >>> print(render_signatures({"samsa": "SAMSA|a", "samsa_abl": "SAMSA|a", "parse 95%": "parse|b"}))
    samsa, samsa_abl: SAMSA|a
    parse 95%: parse|b
    """
    by_sig: dict[str, list[str]] = {}
    for metric, sig in signatures.items():
        by_sig.setdefault(sig, []).append(metric)
    return "\n".join(f"{', '.join(ms)}: {sig}" for sig, ms in by_sig.items())
