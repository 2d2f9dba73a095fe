"""Evaluate the built-in UCCA parser on the Wiki, 20K and EWT test sets (or, ``--sets``, the dev sets).

Usage:
    python benchmarks/parser_eval.py [--pipeline fast accurate mpnet] [--weights FILE] [--threads 1]
        [--sets wiki_dev ewt_dev] [--out NAME.json] [--add]
    python benchmarks/parser_eval.py --pipeline de fast --sets de20k_dev de20k_test --add   # German-20K
    python benchmarks/parser_eval.py --pipeline fr --sets fr20k_dev fr20k_test --add   # French-20K (multilingual)

Gold tokens are given to the parser (as ``samsa parse --tokenizer none`` does).
Reported per set: labeled and unlabeled F1 (primary, remote, pooled average of
primary + remote, as in SemEval 2019) with the project's evaluator, scene-unit
F1, minimal-center accuracies, the share of sentences whose number of Scenes
equals the gold number (what SAMSA's non-splitting penalty and matching read),
parse speed (sentences/s, model loaded, spaCy annotation included, one thread)
and peak memory. Models with a guideline-style input parse EWT and French-20K as ``ewt``
and Wiki/20K/German-20K as ``wiki`` (the guidelines each corpus was annotated with). On 20K the ``ucca``
package's evaluator
(``normalize=False``) is run on the same pairs when it is installed (also on German-20K and French-20K test), and every
count is compared. Each set is also decoded without the pipeline's Scene bias
and implicit Scenes (``lab.scene_bias``; ``unbiased``: F1 and Scenes only, no
timing), to show what they cost in F1 and add in Scenes. French's pipeline on French-20K is also decoded, unbiased,
with its two readings of the multilingual weights undone (``readings``: labeled F1 pooled in the Wiki style with the
words, in the EWT style with the words; ``unbiased`` is the EWT style without them, French's own).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, RESULTS, write_json

from samsa import __version__
from samsa.ucca.evaluation import evaluate_corpus, scene_scores
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

SETS = {"wiki_test": "ucca/wiki/test", "20k_test": "ucca/20k/test", "ewt_test": "ucca/ewt/test",
        "wiki_dev": "ucca/wiki/dev", "ewt_dev": "ucca/ewt/dev",
        "de20k_dev": "ucca/de20k/dev", "de20k_test": "ucca/de20k/test",
        "fr20k_dev": "ucca/fr20k/dev", "fr20k_test": "ucca/fr20k/test"}  # fmt: skip
STYLE = {"wiki_test": "wiki", "20k_test": "wiki", "ewt_test": "ewt", "wiki_dev": "wiki", "ewt_dev": "ewt",
         "de20k_dev": "wiki", "de20k_test": "wiki", "fr20k_dev": "ewt", "fr20k_test": "ewt"}  # fmt: skip
TEST_SETS = ("wiki_test", "20k_test", "ewt_test")


def training_summary(meta: dict) -> dict:
    """What identifies a weights file's training run (its command, data digests, best epoch, seed, torch)."""
    keys = ("command", "best_epoch", "seed", "torch", "train_files", "train_sha256", "dev_sha256")
    return {k: meta[k] for k in keys if k in meta}


def scene_count_share(pairs) -> float:
    """Share of sentences whose predicted number of Scenes equals the gold number."""
    from samsa.ucca.queries import scenes

    return sum(len(scenes(p)) == len(scenes(g)) for p, g in pairs) / len(pairs)


def ucca_package_agrees(pairs) -> bool | None:
    try:
        from ucca.evaluation import evaluate
    except ImportError:
        return None
    from samsa.ucca.interop import to_ucca

    for pred, gold in pairs:
        ref = evaluate(to_ucca(pred), to_ucca(gold), normalize=False, constructions=("primary", "remote"))
        ours = evaluate_corpus([(pred, gold)])
        for t in ("labeled", "unlabeled"):
            for c, stats in ref[t].results.items():
                mine = ours.counts[t, str(c)]
                if (mine.guessed, mine.ref, mine.matches) != (stats.num_guessed, stats.num_ref, stats.num_matches):
                    return False
    return True


def french_readings(weights: str | None, gold: list) -> dict[str, float]:
    """Labeled F1 (pooled, unbiased) of the multilingual weights read as French is not: with the words' embeddings
    and n-grams (the ``multilingual`` pipeline's reading), in each guideline style."""
    from samsa.parsers.builtin import BuiltinParser

    out = {}
    for style in ("wiki", "ewt"):
        parser = BuiltinParser(
            pipeline="multilingual", weights=weights, style=style, scene_bias=0.0, implicit_scenes=()
        )
        pairs = zip(parser.parse([tokens(g) for g in gold]), gold, strict=True)
        out[f"{style}_style_words"] = round(100 * evaluate_corpus(pairs).to_dict()["labeled"]["pooled"]["f1"], 2)
    return out


def evaluate_pipeline(args, pipeline: str | None) -> dict:
    from samsa.parsers.builtin import BuiltinParser

    def build(style: str = "wiki", bias: float | None = None, implicit: tuple[str, ...] | None = None) -> BuiltinParser:
        return BuiltinParser(pipeline=pipeline, weights=args.weights, threads=args.threads, style=style,
                             scene_bias=bias, implicit_scenes=implicit)  # fmt: skip

    parsers = {style: build(style) for style in ("wiki", "ewt")}
    parser = parsers["wiki"]
    parser.parse([["Warm", "up", "."]])
    result: dict[str, object] = {"weights": str(Path(parser.weights).name), "signature": parser.signature(),
                                 "training": training_summary(parser.meta), "scene_bias": parser.scene_bias,
                                 "sets": {}}  # fmt: skip
    for name in args.sets:
        gold = [load_passage(f) for f in list_passage_files(DATA / SETS[name])]
        parser = parsers[STYLE[name]]
        parser.parse([["Warm", "up", "."]])
        start = time.perf_counter()
        pred = parser.parse([tokens(g) for g in gold])
        secs = time.perf_counter() - start
        pairs = list(zip(pred, gold, strict=True))
        s = evaluate_corpus(pairs).to_dict()
        block = {
            "sentences": len(gold),
            "style": parser.style,
            "signature": parser.signature(),  # the style and reading this set was parsed in
            "labeled": {c: round(100 * s["labeled"][c]["f1"], 2) for c in ("primary", "remote", "pooled")},
            "unlabeled": {c: round(100 * s["unlabeled"][c]["f1"], 2) for c in ("primary", "remote", "pooled")},
            "remote": {k: round(100 * s["labeled"]["remote"][k], 2) for k in ("p", "r")},
            "scenes": {k: round(v, 4) for k, v in scene_scores(pairs).items()},
            "scene_count_equal": round(scene_count_share(pairs), 4),
            "sentences_per_s": round(len(gold) / secs, 1),
        }
        if (parser.scene_bias or parser.implicit_scenes) and not args.no_bias:
            unbiased = build(parser.style, 0.0, ())
            plain = list(zip(unbiased.parse([tokens(g) for g in gold]), gold, strict=True))
            p0 = evaluate_corpus(plain).to_dict()["labeled"]
            block["unbiased"] = {
                "labeled": {c: round(100 * p0[c]["f1"], 2) for c in ("primary", "remote", "pooled")},
                "scenes": {k: round(v, 4) for k, v in scene_scores(plain).items()},
                "scene_count_equal": round(scene_count_share(plain), 4),
            }
        if pipeline == "fr" and not args.no_bias:
            block["readings"] = french_readings(args.weights, gold)
        if name in ("20k_test", "de20k_test", "fr20k_test"):
            block["ucca_package_counts_equal"] = ucca_package_agrees(pairs)
        result["sets"][name] = block  # type: ignore[index]
        print(pipeline or args.weights, name, block, flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", nargs="+", default=["fast", "accurate", "mpnet"], help="named pipelines to evaluate")
    ap.add_argument("--weights", default=None, help="a weights file instead (evaluated once, as --pipeline's first)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-bias", action="store_true", help="skip the decoding without the Scene bias")
    ap.add_argument("--sets", nargs="+", choices=sorted(SETS), default=list(TEST_SETS), help="sets to evaluate")
    ap.add_argument("--out", default="parser_eval.json", help="file name under benchmarks/results")
    ap.add_argument("--add", action="store_true", help="merge these sets into the result file's (other sets kept)")
    args = ap.parse_args()
    pipelines = args.pipeline[:1] if args.weights else args.pipeline
    result: dict = {"version": __version__, "pipelines": {}}
    if args.add and (RESULTS / args.out).is_file():
        result = json.loads((RESULTS / args.out).read_text(encoding="utf-8"))
    for pipeline in pipelines:
        new = evaluate_pipeline(args, pipeline)
        old = result["pipelines"].get(pipeline, {}) if args.add else {}
        if old.get("signature") == new["signature"]:  # the same parser: its other sets stay
            new["sets"] = {**old["sets"], **new["sets"]}
        result["pipelines"][pipeline] = new
    peak = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.add:  # this run's peak belongs to the sets it added
        for pipeline in pipelines:
            result["pipelines"][pipeline]["added_run_peak_rss_mb"] = peak
    else:
        result["peak_rss_mb"] = peak
    write_json(args.out, result)
    print("peak RSS MB", peak)


if __name__ == "__main__":
    main()
