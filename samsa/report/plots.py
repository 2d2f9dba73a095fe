"""Small, dependency-free SVG charts for the report (inlined: the page makes no request).

Each function returns an ``<svg>`` string; systems keep one colour across every chart.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape

__all__ = ["PALETTE", "bubbles", "histogram", "scatter"]

PALETTE = ("#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#5c5c5c")
W, H, L, R, T, B = 520, 300, 50, 15, 30, 45


def _frame(
    title: str,
    xlabel: str,
    ylabel: str,
    xticks: Sequence[tuple[float, str]],
    yticks: Sequence[tuple[float, str]],
    body: str,
    legend: Sequence[str],
) -> str:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="{escape(title)}">',
        f'<text x="{W / 2}" y="18" text-anchor="middle" class="title">{escape(title)}</text>',
        f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" class="axis"/>',
        f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" class="axis"/>',
    ]
    for x, label in xticks:
        parts.append(f'<text x="{x:.1f}" y="{H - B + 14}" text-anchor="middle" class="tick">{escape(label)}</text>')
    for y, label in yticks:
        parts.append(f'<text x="{L - 4}" y="{y + 3:.1f}" text-anchor="end" class="tick">{escape(label)}</text>')
        parts.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" class="grid"/>')
    parts.append(f'<text x="{(L + W - R) / 2}" y="{H - 8}" text-anchor="middle" class="label">{escape(xlabel)}</text>')
    parts.append(
        f'<text x="12" y="{(T + H - B) / 2}" text-anchor="middle" class="label" '
        f'transform="rotate(-90 12 {(T + H - B) / 2})">{escape(ylabel)}</text>'
    )
    parts.append(body)
    for k, name in enumerate(legend):
        x = L + 10 + (k % 4) * 115
        y = T + 4 + (k // 4) * 14
        parts.append(
            f'<rect x="{x}" y="{y - 8}" width="9" height="9" fill="{PALETTE[k % len(PALETTE)]}"/>'
            f'<text x="{x + 13}" y="{y}" class="legend">{escape(name[:16])}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _sx(v: float, lo: float, hi: float) -> float:
    return L + (W - L - R) * ((v - lo) / (hi - lo) if hi > lo else 0.5)


def _sy(v: float, lo: float, hi: float) -> float:
    return H - B - (H - T - B - 20) * ((v - lo) / (hi - lo) if hi > lo else 0.5)


def _yticks(hi: float, lo: float = 0.0, n: int = 4) -> list[tuple[float, str]]:
    step = (hi - lo) / n if hi > lo else 1
    return [
        (_sy(lo + k * step, lo, hi), f"{lo + k * step:g}" if step >= 1 else f"{lo + k * step:.2f}")
        for k in range(n + 1)
    ]


def histogram(series: Mapping[str, Sequence[float]], title: str, xlabel: str, bins: int = 10) -> str:
    """Share of sentences per score bin (0-100), one bar per system inside each bin."""
    names = list(series)
    shares = []
    for values in series.values():
        counts = Counter(min(int(v // (100 / bins)), bins - 1) for v in values)
        shares.append([100 * counts[b] / max(len(values), 1) for b in range(bins)])
    top = max(max(s) for s in shares) or 1
    top = float(math.ceil(top / 20) * 20)
    width = (W - L - R) / bins
    bar = width * 0.8 / max(len(names), 1)
    body = []
    for k, share in enumerate(shares):
        for b, v in enumerate(share):
            x = L + b * width + width * 0.1 + k * bar
            y = _sy(v, 0, top)
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{H - B - y:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}"><title>{escape(names[k])}: {v:.1f}% in '
                f"[{b * 100 / bins:g}, {(b + 1) * 100 / bins:g})</title></rect>"
            )
    xticks = [(L + b * width, f"{b * 100 / bins:g}") for b in range(0, bins + 1, 2)]
    return _frame(title, xlabel, "% of sentences", xticks, _yticks(top), "".join(body), names)


def scatter(
    series: Mapping[str, Sequence[tuple[float, float]]],
    title: str,
    xlabel: str,
    ylabel: str,
    *,
    ylim: tuple[float, float] = (0, 100),
) -> str:
    """Points per system (score vs compression ratio)."""
    names = list(series)
    xs = [x for pts in series.values() for x, _ in pts] or [0.0, 1.0]
    lo, hi = 0.0, max(1.0, max(xs) * 1.05)
    body = []
    for k, pts in enumerate(series.values()):
        c = PALETTE[k % len(PALETTE)]
        for x, y in pts:
            body.append(
                f'<circle cx="{_sx(x, lo, hi):.1f}" cy="{_sy(y, *ylim):.1f}" r="2.2" fill="{c}" fill-opacity="0.55"/>'
            )
    step = 0.5 if hi <= 3 else 1.0
    xticks = [(_sx(v * step, lo, hi), f"{v * step:g}") for v in range(int(hi / step) + 1)]
    return _frame(title, xlabel, ylabel, xticks, _yticks(ylim[1], ylim[0]), "".join(body), names)


def bubbles(series: Mapping[str, Sequence[tuple[int, int]]], title: str, xlabel: str, ylabel: str) -> str:
    """Counts of (x, y) integer pairs as bubbles, one offset column per system (scenes vs output sentences)."""
    names = list(series)
    pts = [p for ps in series.values() for p in ps] or [(0, 0)]
    xhi, yhi = max(x for x, _ in pts) + 1, max(y for _, y in pts) + 1
    counts = [Counter(ps) for ps in series.values()]
    biggest = max((max(c.values()) for c in counts if c), default=1)
    cell = (W - L - R) / (xhi + 1)
    body = []
    for k, c in enumerate(counts):
        off = (k - (len(names) - 1) / 2) * min(8.0, cell / max(len(names), 1))
        for (x, y), n in sorted(c.items()):
            r = 2 + 9 * (n / biggest) ** 0.5
            body.append(
                f'<circle cx="{_sx(x, 0, xhi) + off:.1f}" cy="{_sy(y, 0, yhi):.1f}" r="{r:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}" fill-opacity="0.5"><title>{escape(names[k])}: {n} '
                f"sentence(s) with {x} scene(s) and {y} output sentence(s)</title></circle>"
            )
    diag = (
        f'<line x1="{_sx(0, 0, xhi):.1f}" y1="{_sy(0, 0, yhi):.1f}" x2="{_sx(min(xhi, yhi), 0, xhi):.1f}" '
        f'y2="{_sy(min(xhi, yhi), 0, yhi):.1f}" class="diag"/>'
    )
    xticks = [(_sx(v, 0, xhi), str(v)) for v in range(0, xhi + 1, math.ceil(xhi / 10))]
    yticks = [(_sy(v, 0, yhi), str(v)) for v in range(0, yhi + 1, math.ceil(yhi / 8))]
    return _frame(title, xlabel, ylabel, xticks, yticks, diag + "".join(body), names)
