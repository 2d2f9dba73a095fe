"""``samsa report``: one offline HTML page that puts every SAMSA score next to its explanation.

:func:`build_report` computes the data (metrics with bootstrap intervals, paired
significance, charts, per-sentence explanations); :func:`render_html` turns it into a
self-contained page.
"""

from samsa.report.build import build_report
from samsa.report.html import render_html

__all__ = ["build_report", "render_html"]
