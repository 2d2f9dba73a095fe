"""How ``samsa score`` shows its results: each system's corpus summary, the table (with the parse interval and, given
a plan, the estimate of the all-manual score and each system's difference from the first) and its signature
lines, each ``label: signature`` (docs/workflow.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from samsa.scoring.metric import Samsa
from samsa.scoring.result import CorpusTotals
from samsa.tables import render

__all__ = ["corpus_summary", "evaluate_table", "interval_cell", "score_table"]


def corpus_summary(totals: CorpusTotals, metric: Samsa, documents: bool) -> dict[str, Any]:
    config = metric.settings(documents=documents)
    return totals.result(metric.signature(documents=documents), config).to_dict()


def score_table(summaries: list[dict[str, Any]], fmt: str, width: int) -> str:
    """One row per system, the signature once (every system is scored with the same settings)."""
    unit = "documents" if summaries[0]["config"].get("documents") else "lines"
    rows = [
        {
            "system": s["system"],
            "SAMSA": s["samsa"],
            "SAMSA-abl": s["samsa_abl"],
            unit: s["n_lines"],
            "scenes": s["n_scenes"],
            "sentences": s["n_output_sentences"],
            "dropped": s["n_dropped"],
        }
        for s in summaries
    ]
    columns = ["system", "SAMSA", "SAMSA-abl", unit, "scenes", "sentences"]
    if "parse_interval" in summaries[0]:
        for r, s in zip(rows, summaries, strict=True):
            iv = s["parse_interval"]
            r["parse 95%"] = f"{iv['low']:.2f}-{iv['high']:.2f}"
        columns.insert(2, "parse 95%")
    if "estimate" in summaries[0]:
        _estimate_columns(rows, columns, summaries)
    if any(s["n_dropped"] for s in summaries):
        columns.append("dropped")
    signatures = {"samsa": summaries[0]["signature"]}
    if "parse_interval" in summaries[0]:
        signatures["parse 95%"] = summaries[0]["parse_interval"]["signature"]
    if "estimate" in summaries[0]:
        signatures["estimate"] = summaries[0]["estimate"]["signature"]
    return render(rows, columns, fmt, width=width, signatures=signatures)


def interval_cell(e: dict[str, Any], key: str = "samsa") -> str:
    """An estimate as a table shows it: the value and its 95% interval (``to`` between bounds that can be negative).

    >>> interval_cell({"difference": -27.08, "low": -41.74, "high": -12.43}, "difference")
    '-27.08 (-41.74 to -12.43)'
    """
    sep = " to " if e["low"] < 0 else "-"
    return f"{e[key]:.2f} ({e['low']:.2f}{sep}{e['high']:.2f})"


def _estimate_columns(rows: list[dict[str, Any]], columns: list[str], summaries: list[dict[str, Any]]) -> None:
    """The estimate of the all-manual SAMSA beside the parsed score, of SAMSA-abl beside its, and from the second
    system on the paired difference from the first."""
    for r, s in zip(rows, summaries, strict=True):
        r["manual est. 95%"] = interval_cell(s["estimate"])
        r["abl est. 95%"] = interval_cell(s["estimate_abl"], "samsa_abl")
        vs = s.get("estimate_vs_first")
        r["vs first, est. 95%"] = interval_cell(vs, "difference") if vs else ""
    at = columns.index("SAMSA") + 1 + ("parse 95%" in columns)
    columns.insert(at, "manual est. 95%")
    columns.insert(columns.index("SAMSA-abl") + 1, "abl est. 95%")
    if len(summaries) > 1:
        columns.insert(columns.index("abl est. 95%") + 1, "vs first, est. 95%")


def evaluate_table(result: dict[str, Any], score_only: Sequence[str] | None, output: Any) -> str:
    """``samsa evaluate``'s result: JSON, a table with its signature lines, or (``score_only``: the metrics to
    print) the bare numbers, a line per system, tab-separated."""
    import json

    from samsa.tables import flatten

    if score_only is not None:
        lines = [
            "\t".join(_plain(v, output.width) for k, v in flatten(values).items() if k.split(".")[0] in score_only)
            for values in result["systems"].values()
        ]
        return "\n".join(lines)
    if output.format == "json":
        return json.dumps(result, indent=2, ensure_ascii=False)
    rows = [{"system": name, **flatten(values)} for name, values in result["systems"].items()]
    columns = ["system", *dict.fromkeys(k for r in rows for k in r if k != "system")]
    return render(rows, columns, output.format, width=output.width, signatures=result["signatures"])


def _plain(value: Any, width: int) -> str:
    return f"{value:.{width}f}" if isinstance(value, float) else str(value)
