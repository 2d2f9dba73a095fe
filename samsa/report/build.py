"""Everything the report shows, computed once into one JSON-friendly dict (the page only renders it).

``build_report`` scores every system against the same source graphs (gold or parsed), adds
the lexical metrics that ``samsa evaluate`` computes with its defaults (SARI and BLEU only
when references are given), bootstrap intervals and paired significance for each metric,
the charts, and the per-sentence explanations of the explorer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import networkx as nx

from samsa import __version__
from samsa.errors import ConfigError, InputError
from samsa.report import metrics as M
from samsa.report import plots
from samsa.report.explain import explain_output, explain_source
from samsa.report.stats import CorpusStat, bootstrap_ci, paired_bootstrap, resample_indices
from samsa.scoring.metric import Samsa
from samsa.scoring.paper import paper_structure
from samsa.scoring.uncertainty import corpus_draws, draw_trees, scene_counts, sentence_interval

__all__ = ["LABELS", "build_report"]

#: column key -> (label, higher is better or None when neither)
LABELS: dict[str, tuple[str, bool | None]] = {
    "samsa": ("SAMSA", True),
    "samsa_abl": ("SAMSA-abl", True),
    "sari": ("SARI", True),
    "bleu": ("BLEU", None),
    "fkgl": ("FKGL", False),
    "wstf": ("WSTF", False),
    "ld_sc": ("LD_SC", None),
    "split_proportion": ("split %", None),
    "sentences_per_output": ("sent/output", None),
}


Lexical = tuple[dict[str, dict[str, float]], dict[str, str], dict[str, dict[str, CorpusStat]]]


def _lexical(
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    refs: Sequence[Sequence[str]] | None,
    splitter: str,
    language: str = "en",
) -> Lexical:
    """Values, signatures and sufficient statistics of the lexical metrics (samsa evaluate's defaults; for
    German text the German tokenizer and the Wiener Sachtextformel in FKGL's place).

    The values are the statistics' corpus scores (equal to the metric functions', tested); ``evaluate_lexical``
    runs fully once, for the signatures, and for the split counts of each system.
    """
    from samsa.config import SamsaConfig
    from samsa.languages import get_language
    from samsa.lexical.suite import SuiteConfig, evaluate_lexical
    from samsa.normalize import normalize

    lang = get_language(language)
    readability = "fkgl" if "fkgl" in lang.readability else "wstf"
    config = SuiteConfig(tokenizer=lang.bleu_tokenizer, samsa=SamsaConfig(splitter=splitter, language=language))
    scored = [readability, "ld_sc", *(["sari", "bleu"] if refs else [])]
    norm = {"lowercase": config.lowercase, "tokenizer": config.tokenizer}
    n_src = [normalize(s, **norm) for s in sources]  # type: ignore[arg-type]
    n_refs = [[normalize(r, **norm) for r in rs] for rs in refs] if refs else None  # type: ignore[arg-type]
    n_sys = {name: [normalize(s, **norm) for s in sys] for name, sys in systems.items()}  # type: ignore[arg-type]
    first = next(iter(systems))
    sigs = evaluate_lexical(sources, systems[first], refs or [[s] for s in sources], [*scored, "splits"], config)[
        "signatures"
    ]
    bleus = dict(zip(systems, M.bleu_stats(list(n_sys.values()), n_refs), strict=True)) if n_refs else {}
    values: dict[str, dict[str, float]] = {}
    stats: dict[str, dict[str, CorpusStat]] = {}
    for name, sys in systems.items():
        read = M.fkgl_stat(sys, splitter=splitter) if readability == "fkgl" else M.wstf_stat(sys, splitter=splitter)
        stats[name] = {readability: read, "ld_sc": M.ld_sc_stat(n_src, n_sys[name])}
        if n_refs:
            stats[name]["sari"] = M.sari_stat(n_src, n_sys[name], n_refs)
            stats[name]["bleu"] = bleus[name]
        splits = evaluate_lexical(sources, sys, [[s] for s in sources], ["splits"], config)["splits"]
        values[name] = {k: stats[name][k].value() for k in scored}
        values[name].update(
            split_proportion=splits["split_proportion"], sentences_per_output=splits["sentences_per_output"]
        )
    sigs["split_proportion"] = sigs["sentences_per_output"] = sigs.pop("splits")
    return values, sigs, stats


def build_report(
    graphs: Sequence[nx.DiGraph],
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    *,
    metric: Samsa,
    refs: Sequence[Sequence[str]] | None = None,
    resamples: int = 1000,
    seed: int = 12345,
    info: Mapping[str, Any] | None = None,
    progress: Callable[[int], Any] | None = None,
    documents: bool = False,
    trees: Sequence[Any] | None = None,
    calibration: Any = None,
) -> dict[str, Any]:
    """The report's data for line-parallel source graphs, source texts, system outputs and (optional) references;
    ``documents``: each line is a document (its graph one passage of its sentences), scored at document level.
    ``trees``: each source's :class:`~samsa.engine.uncertainty.SourceTrees` under ``calibration`` (parse
    uncertainty): SAMSA's interval and significance then draw one tree per source in each resample, shared by
    the systems, and the explorer shows each line's parse doubt."""
    n = len(graphs)
    if not systems:
        raise InputError(None, None, "a report needs at least one system")
    if metric.compat != "paper":
        raise ConfigError("the report explains paper-mode SAMSA; use compat='paper' (the default)")
    for name, outs in systems.items():
        if len(outs) != n:
            raise InputError(name, None, f"has {len(outs)} lines for {n} sources")
    if len(sources) != n or (refs is not None and len(refs) != n):
        raise InputError(None, None, "sources, references and graphs must be line-parallel")
    names = list(systems)
    sentences: list[dict[str, Any]] = []
    per_system: dict[str, list[Any]] = {s: [] for s in names}
    tree_scores: dict[str, list[list[float]]] = {s: [] for s in names}
    for k, g in enumerate(graphs):
        structure = paper_structure(g)
        entry = {"line": k + 1, **explain_source(g, structure), "systems": []}
        if trees is not None:
            entry["doubt"] = parse_doubt(trees[k], calibration)
        for s in names:
            detail, result = explain_output(g, structure, systems[s][k], metric)
            src_chars = len(sources[k])
            detail["cr"] = len(systems[s][k]) / src_chars if src_chars else 0.0
            if trees is not None:
                scores = [result.samsa, *trees[k].scores(metric, systems[s][k], skip=1)]
                tree_scores[s].append(scores)
                iv = sentence_interval(scores, trees[k].menu, margin=calibration.margin)
                spread = sentence_interval(scores, trees[k].menu)  # the trees alone, before the margin
                detail["parse"] = {**iv.as_dict(), "wide": spread.high - spread.low >= WIDE}
            entry["systems"].append(detail)
            per_system[s].append(result)
        sentences.append(entry)
        if progress is not None:
            progress(1)
    lex_values, lex_sigs, lex_stats = _lexical(sources, systems, refs, metric.splitter, metric.config.language)
    indices = resample_indices(n, resamples, seed)
    shared_trees = draw_trees([t.menu for t in trees], resamples, seed) if trees is not None else None
    stats: dict[str, dict[str, CorpusStat]] = {}
    table: dict[str, dict[str, dict[str, float | None]]] = {}
    draws: dict[str, dict[str, Any]] = {}
    for s in names:
        stats[s] = {
            "samsa": M.mean_stat([r.samsa for r in per_system[s]]),
            "samsa_abl": M.mean_stat([r.samsa_abl for r in per_system[s]]),
            **lex_stats[s],
        }
        values = {"samsa": stats[s]["samsa"].value(), "samsa_abl": stats[s]["samsa_abl"].value(), **lex_values[s]}
        table[s] = {}
        draws[s] = {key: stat.resampled(indices) for key, stat in stats[s].items()}  # once per system and metric
        if shared_trees is not None:  # one tree per source in each resample, the same for every system
            draws[s]["samsa"] = corpus_draws(tree_scores[s], shared_trees, rows=indices)
        for key, value in values.items():
            lo, hi = bootstrap_ci(stats[s][key], indices, values=draws[s][key]) if key in stats[s] else (None, None)
            table[s][key] = {"value": value, "lo": lo, "hi": hi}
    columns = [c for c in LABELS if c in table[names[0]]]
    significance: dict[str, list[dict[str, Any]]] = {c: [] for c in columns if c in stats[names[0]]}
    for a, b in combinations(range(len(names)), 2):
        for c in significance:
            diff, p = paired_bootstrap(
                stats[names[a]][c], stats[names[b]][c], indices, values=(draws[names[a]][c], draws[names[b]][c])
            )
            significance[c].append({"a": a, "b": b, "diff": diff, "p": p})
    signature = metric.signature(documents=documents)
    signatures = {"samsa": signature, "samsa_abl": signature, **lex_sigs}
    return {
        "title": (info or {}).get("title", "SAMSA report"),
        "info": {
            **(info or {}),
            "n_sentences": n,
            "unit": "documents" if documents else "sentences",
            "resamples": resamples,
            "seed": seed,
            "version": __version__,
            "parse_uncertainty": calibration.signature() if trees is not None else None,
        },
        "systems": names,
        "columns": [
            {"key": c, "label": LABELS[c][0], "higher": LABELS[c][1], "signature": signatures.get(c, "")}
            for c in columns
        ],
        "table": table,
        "significance": significance,
        "plots": _plots(names, per_system, sentences),
        "sentences": sentences,
    }


#: a line whose trees' 90% interval (before the calibration's margin) is at least this wide (SAMSA points) is
#: marked in the explorer
WIDE = 25.0


def parse_doubt(trees: Any, calibration: Any, readings: int = 3) -> dict[str, Any]:
    """A line's parse doubt for the explorer: its calibrated Scene-count distribution and its most probable
    Scene readings (the Scenes' words of its most probable trees, each with its probability)."""
    menu = trees.menu
    order = sorted(range(len(menu.keys)), key=lambda i: (-menu.weights[i], i))[:readings]
    return {
        "scene_counts": {str(c): p for c, p in scene_counts(menu, calibration).items()},
        "readings": [
            {"p": round(menu.weights[i], 4), "scenes": [" ".join(sc.words) for sc in trees.structures[menu.keys[i]]]}
            for i in order
        ],
    }


def _plots(names: list[str], per_system: Mapping[str, list[Any]], sentences: list[dict[str, Any]]) -> dict[str, str]:
    k = range(len(names))
    return {
        "samsa": plots.histogram(
            {s: [r.samsa for r in per_system[s]] for s in names}, "SAMSA per sentence", "sentence SAMSA"
        ),
        "samsa_abl": plots.histogram(
            {s: [r.samsa_abl for r in per_system[s]] for s in names}, "SAMSA-abl per sentence", "sentence SAMSA-abl"
        ),
        "scenes": plots.bubbles(
            {s: [(r.n_scenes, r.n_sentences) for r in per_system[s]] for s in names},
            "Source scenes vs output sentences",
            "scenes in the source",
            "sentences in the output",
        ),
        "compression": plots.scatter(
            {names[i]: [(e["systems"][i]["cr"], e["systems"][i]["samsa"]) for e in sentences] for i in k},
            "SAMSA vs compression",
            "output / source length (characters)",
            "sentence SAMSA",
        ),
    }
