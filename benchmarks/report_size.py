"""`samsa report` on HSplit: page size and time for 1, 2 and 4 real systems (acl2018 outputs).

    python benchmarks/report_size.py            # writes benchmarks/results/report_size.json
    python benchmarks/report_size.py --figures docs/figures    # also the screenshots of docs/report.md

Each run is the real command (a subprocess, warm parse cache after the first run, one process);
the budget is 5 MB for 359 sentences x 4 systems. ``--figures`` photographs the 2-system page
(Moses, DSS) in Debian's chromium through Playwright: the metric table and the explorer on line 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

SYSTEMS = ["Moses_all", "DSS_all", "SENTSh1_default_model_all", "SEMoses_all"]


def screenshots(page_path: Path, figures: Path) -> None:
    """``report_metrics.png`` (metric table) and ``report_explorer.png`` (the explorer on line 1) of a page."""
    import shutil

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("--figures needs Debian's chromium (apt-get install chromium)")
    figures.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.goto(page_path.resolve().as_uri() + "#line=1")
        page.wait_for_selector("#detail h3")
        page.locator("#metrics").screenshot(path=str(figures / "report_metrics.png"))
        page.locator("#detail").screenshot(path=str(figures / "report_explorer.png"))
        browser.close()
    print(f"wrote {figures / 'report_metrics.png'} and {figures / 'report_explorer.png'}")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--figures", metavar="DIR", type=Path, help="also write the docs' screenshots here")
    args = ap.parse_args()
    a = DATA / "acl2018" / "All_system_outputs"
    samsa = Path(sys.executable).parent / "samsa"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SAMSA_DATA": str(DATA), "SAMSA_CACHE": str(Path(tmp) / "cache.sqlite")}
        for k in (1, 2, 4, 4):  # the first run parses (cold cache); the last 4 runs warm
            out = Path(tmp) / f"r{k}.html"
            start = time.perf_counter()
            subprocess.run([str(samsa), "report", "-t", "hsplit", *(str(a / s) for s in SYSTEMS[:k]), "-o", str(out),
                            "-q"], check=True, env=env, capture_output=True)  # fmt: skip
            seconds = round(time.perf_counter() - start, 2)
            rows.append({"systems": k, "sentences": 359, "bytes": out.stat().st_size, "seconds": seconds,
                         "cache": "cold" if not rows else "warm"})  # fmt: skip
            print(rows[-1])
            if k == 2 and args.figures:
                screenshots(out, args.figures)
    write_json("report_size.json", {"command": "python benchmarks/report_size.py", "runs": rows,
                                    "budget_bytes_4_systems": 5_000_000})  # fmt: skip


if __name__ == "__main__":
    main()
