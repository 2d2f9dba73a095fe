"""All lexical metrics for every published TurkCorpus test output, in both settings.

Usage:
    python benchmarks/turkcorpus_lexical.py            # prints a Markdown table, writes JSON

Settings (docs/lexical.md):
  default  detokenized truecased outputs and references (test.truecase.detok.*),
           lowercase + 13a, EASSE SARI (deletion F1);
  legacy   tokenized lowercased outputs (tok.low/) against test.8turkers.tok.*,
           EASSE legacy SARI (source untouched), no lowercasing, 13a.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa import __version__
from samsa.fileio import read_lines
from samsa.lexical.suite import SuiteConfig, evaluate_lexical

METRICS = ["sari", "sari_add", "sari_keep", "sari_del", "bleu", "ibleu", "fkbleu", "fkgl", "ld_sc", "ld_sr",
           "compression", "splits"]  # fmt: skip
TEST = DATA / "easse" / "test_sets" / "turkcorpus"
OUTPUTS = DATA / "easse" / "system_outputs" / "turkcorpus" / "test"

SETTINGS = {
    "default": {
        "orig": TEST / "test.truecase.detok.orig",
        "refs": [TEST / f"test.truecase.detok.simp.{i}" for i in range(8)],
        "systems": sorted(p for p in OUTPUTS.iterdir() if p.is_file()),
        "config": SuiteConfig(lowercase=True),
    },
    "legacy": {
        "orig": TEST / "legacy" / "test.8turkers.tok.norm",
        "refs": [TEST / "legacy" / f"test.8turkers.tok.turk.{i}" for i in range(8)],
        "systems": sorted((OUTPUTS / "tok.low").iterdir()),
        "config": SuiteConfig(legacy=True, lowercase=False),
    },
}


def run() -> dict[str, object]:
    results: dict[str, object] = {"version": __version__, "settings": {}}
    for name, s in SETTINGS.items():
        orig = read_lines(s["orig"])
        streams = [read_lines(p) for p in s["refs"]]
        refs = [[st[i] for st in streams] for i in range(len(orig))]
        rows = {}
        start = time.perf_counter()
        for path in s["systems"]:
            out = evaluate_lexical(orig, read_lines(path), refs, METRICS, s["config"])
            rows[path.name.split(".")[0]] = out
        results["settings"][name] = {"seconds": round(time.perf_counter() - start, 2), "systems": rows}  # type: ignore[index]
    return results


def markdown(results: dict[str, object]) -> str:
    lines = []
    for name, block in results["settings"].items():  # type: ignore[union-attr]
        lines.append(f"\n### {name} setting ({len(block['systems'])} systems, {block['seconds']} s)\n")
        lines.append(
            "| system | SARI | add | keep | del | BLEU | iBLEU | FKBLEU | FKGL | LD_SC | LD_SR | comp. % | split % |"
        )
        lines.append("|---|" + "---|" * 12)
        for system, m in block["systems"].items():
            vals = [m[k] for k in ("sari", "sari_add", "sari_keep", "sari_del", "bleu", "ibleu", "fkbleu", "fkgl",
                                   "ld_sc", "ld_sr", "compression")]  # fmt: skip
            lines.append(f"| {system} | " + " | ".join(f"{v:.2f}" for v in vals)
                         + f" | {m['splits']['split_proportion']:.1f} |")  # fmt: skip
        sigs = next(iter(block["systems"].values()))["signatures"]
        lines.append("\nSignatures: " + "; ".join(f"`{v}`" for k, v in sigs.items() if k in ("sari", "bleu", "fkgl")))
    return "\n".join(lines)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.parse_args()
    res = run()
    write_json("turkcorpus_lexical.json", res)
    print(markdown(res))


if __name__ == "__main__":
    main()
