"""The report as one self-contained HTML file: styles, script, charts and data inlined.

A Content-Security-Policy of ``default-src 'none'`` forbids every request, so the page works
offline and cannot leak anything; the tables are rendered here (readable without script),
the explorer by ``assets/report.js`` from the embedded JSON.
"""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from typing import Any

__all__ = ["render_html"]

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _asset(name: str) -> str:
    return files("samsa.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _metric_table(data: dict[str, Any]) -> str:
    cols = data["columns"]
    best: dict[str, float] = {}
    for c in cols:
        if c["higher"] is not None:
            vals = [data["table"][s][c["key"]]["value"] for s in data["systems"]]
            best[c["key"]] = max(vals) if c["higher"] else min(vals)
    head = "".join(f'<th title="{escape(c["signature"])}">{escape(c["label"])}</th>' for c in cols)
    body = []
    for s in data["systems"]:
        cells = []
        for c in cols:
            v = data["table"][s][c["key"]]
            cls = ' class="best"' if best.get(c["key"]) == v["value"] and len(data["systems"]) > 1 else ""
            ci = f'<br><span class="ci">[{v["lo"]:.2f}, {v["hi"]:.2f}]</span>' if v["lo"] is not None else ""
            cells.append(f"<td{cls}>{v['value']:.2f}{ci}</td>")
        body.append(f"<tr><td>{escape(s)}</td>{''.join(cells)}</tr>")
    sigs: dict[str, list[str]] = {}
    for c in cols:
        sigs.setdefault(c["signature"], []).append(c["label"])
    sig_lines = "".join(
        f'<div><strong>{escape(", ".join(ls))}</strong>: <span class="sig">{escape(s)}</span></div>'
        for s, ls in sigs.items()
        if s
    )
    return (
        f'<table id="metric-table"><thead><tr><th>system</th>{head}</tr></thead><tbody>{"".join(body)}'
        f'</tbody></table><p class="muted">Bold: best per column where higher or lower is better. Brackets: '
        f"95% bootstrap interval ({data['info']['resamples']} resamples of the sentences, seed "
        f'{data["info"]["seed"]}).{_parse_note(data)}</p><div id="signatures">{sig_lines}</div>'
    )


def _estimate(data: dict[str, Any]) -> str:
    """A plan's estimate of each system's all-manual SAMSA beside its parsed score, and the annotated lines."""
    est = data.get("estimate")
    if not est:
        return ""
    rows = []
    for s in est["systems"]:
        vs = s.get("estimate_vs_first")
        cells = [
            f"{s['parsed']:.2f}",
            f"{s['estimate']['samsa']:.2f} [{s['estimate']['low']:.2f}, {s['estimate']['high']:.2f}]",
            f"{s['estimate_abl']['samsa_abl']:.2f} [{s['estimate_abl']['low']:.2f}, {s['estimate_abl']['high']:.2f}]",
            f"{vs['difference']:+.2f} [{vs['low']:+.2f}, {vs['high']:+.2f}]" if vs else "",
        ]
        rows.append(f"<tr><td>{escape(s['system'])}</td>{''.join(f'<td>{c}</td>' for c in cells)}</tr>")
    lines = ", ".join(map(str, est["annotated"])) or "none"
    return (
        '<h3>Estimate of the all-manual score</h3><table id="estimate-table"><thead><tr><th>system</th>'
        "<th>SAMSA (parsed)</th><th>SAMSA, all manual: estimate [95%]</th><th>SAMSA-abl, all manual</th>"
        f"<th>minus the first system</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f'<p class="muted">From the parse of every line and the manual UCCA of {len(est["annotated"])} lines drawn '
        f"at random by the plan (lines {escape(lines)}): unbiased for the all-manual score, whatever the parser's "
        f'errors (docs/validity.md). <span class="sig">{escape(est["signature"])}</span></p>'
    )


def _parse_note(data: dict[str, Any]) -> str:
    calibration = data["info"].get("parse_uncertainty")
    if not calibration:
        return ""
    return (
        " SAMSA's interval and significance also draw one tree per source in each resample from the parser's "
        f'calibrated distribution (<span class="sig">{escape(calibration)}</span>), the same tree for every '
        "system: they combine sampling and parse uncertainty. The score itself is the one-best parse's."
    )


def _significance(data: dict[str, Any]) -> str:
    names = data["systems"]
    if len(names) < 2:
        return '<p class="muted">One system: nothing to compare.</p>'
    labels = {c["key"]: c["label"] for c in data["columns"]}
    head = "".join(f"<th>{escape(labels[k])}: B - A (p)</th>" for k in data["significance"])
    rows = []
    pairs = data["significance"][next(iter(data["significance"]))]
    for j, pair in enumerate(pairs):
        cells = []
        for k in data["significance"]:
            d = data["significance"][k][j]
            mark = "best" if d["p"] < 0.05 else ""
            cells.append(f'<td class="{mark}">{d["diff"]:+.2f} ({d["p"]:.3f})</td>')
        rows.append(f"<tr><td>A = {escape(names[pair['a']])}, B = {escape(names[pair['b']])}</td>{''.join(cells)}</tr>")
    return (
        f'<table id="significance-table"><thead><tr><th>pair</th>{head}</tr></thead><tbody>{"".join(rows)}'
        '</tbody></table><p class="muted">Paired bootstrap (Koehn 2004), the same resamples for both systems; '
        "p is two-sided, null-centred as sacrebleu's --paired-bs; bold: p &lt; 0.05.</p>"
    )


def _json_script(value: Any) -> str:
    """JSON safe inside <script>: no '</' and no HTML comment openers can end the element early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data: dict[str, Any]) -> str:
    """The whole page for :func:`samsa.report.build.build_report`'s data."""
    info = data["info"]
    facts = [f"{info['n_sentences']} {info.get('unit', 'sentences')}", f"{len(data['systems'])} system(s)"]
    for key in ("test_set", "annotation", "references"):
        if info.get(key):
            facts.append(f"{key.replace('_', ' ')}: {info[key]}")
    facts.append(f"samsa {info['version']}")
    plots = "".join(f'<figure id="plot-{k}">{svg}</figure>' for k, svg in data["plots"].items())
    explorer_data = {"systems": data["systems"], "sentences": data["sentences"], "unit": info.get("unit", "sentences")}
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(data["title"])}</title>
<style>{_asset("report.css")}</style>
</head>
<body>
<header><h1>{escape(data["title"])}</h1><p class="info">{escape(" · ".join(facts))}</p></header>
<section id="metrics"><h2>Metrics</h2>{_metric_table(data)}{_estimate(data)}</section>
<section id="significance"><h2>Paired significance</h2>{_significance(data)}</section>
<section id="plots"><h2>Plots</h2><div class="plots">{plots}</div></section>
<section id="explorer"><h2>Per-sentence explorer</h2>
<p class="muted">Each source Scene (a main relation with its participants) is matched to the output sentence it aligns
best with; it scores by whether the minimal centers of its main relation and participants survive there. Click a
sentence to see why it scored what it did.</p>
<div class="controls">
<label>sort by <select id="sort-system"></select></label>
<label><select id="sort-order"><option value="asc">worst first</option><option value="desc">best first</option>
<option value="line">line order</option></select></label>
<label>filter <input type="search" id="filter" placeholder="words or line number"></label>
<span id="count" class="muted"></span>
</div>
<table id="sentences"><thead><tr><th>line</th><th>scenes</th><th>source</th></tr></thead><tbody></tbody></table>
<div id="detail" class="detail"></div>
</section>
<script type="application/json" id="report-data">{_json_script(explorer_data)}</script>
<script>{_asset("report.js")}</script>
</body>
</html>
"""
