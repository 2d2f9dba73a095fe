"""Everything the report shows, computed once into one JSON-friendly dict (the page only renders it). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import networkx as nx

from samsa import __version__
from samsa.engine.uncertainty import LineDoubt, line_interval
from samsa.errors import ConfigError, InputError
from samsa.languages import DEFAULT_LANGUAGE, LANGUAGES, get_language, resolve_function
from samsa.report import metrics as M
from samsa.report import plots
from samsa.report.explain import explain_output, explain_source
from samsa.report.stats import CorpusStat, bootstrap_ci, paired_bootstrap, resample_indices
from samsa.scoring.metric import Samsa
from samsa.scoring.paper import paper_structure
from samsa.scoring.uncertainty import Calibration, corpus_draws, draw_trees, scene_counts, sentence_interval

__all__ = ["LABELS", "build_report", "labels"]


def labels() -> dict[str, tuple[str, bool | None]]:
    """Column key -> (label, higher is better or None when neither), in the table's order: each language's
    readability metrics that the report shows (``samsa.languages``) after SARI and BLEU."""
    readability = {
        r.name: (r.label, r.higher) for lang in LANGUAGES.values() for r in lang.readability if r.report_stat
    }
    return {
        "samsa": ("SAMSA", True),
        "samsa_abl": ("SAMSA-abl", True),
        "sari": ("SARI", True),
        "bleu": ("BLEU", None),
        **readability,
        "ld_sc": ("LD_SC", None),
        "split_proportion": ("split %", None),
        "sentences_per_output": ("sent/output", None),
    }


#: the columns of the languages samsa ships (:func:`labels`)
LABELS = labels()


Lexical = tuple[dict[str, dict[str, float]], dict[str, str], dict[str, dict[str, CorpusStat]]]


def _lexical(
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    refs: Sequence[Sequence[str]] | None,
    splitter: str,
    language: str = DEFAULT_LANGUAGE,
) -> Lexical:
    """Values, signatures and sufficient statistics of the lexical metrics (samsa evaluate's defaults: the
    language's tokenizer, and those of its readability metrics that the report shows).

    The values are the statistics' corpus scores (equal to the metric functions', tested); ``evaluate_lexical``
    runs fully once, for the signatures, and for the split counts of each system.
    """
    from samsa.config import SamsaConfig
    from samsa.lexical.suite import SuiteConfig, evaluate_lexical
    from samsa.normalize import normalize

    lang = get_language(language)
    shown = {r.name: resolve_function(r.report_stat) for r in lang.readability if r.report_stat is not None}
    config = SuiteConfig(tokenizer=lang.bleu_tokenizer, samsa=SamsaConfig(splitter=splitter, language=language))
    scored = [*shown, "ld_sc", *(["sari", "bleu"] if refs else [])]
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
        stats[name] = {key: stat(sys, splitter=splitter) for key, stat in shown.items()}
        stats[name]["ld_sc"] = M.ld_sc_stat(n_src, n_sys[name])
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
    doubt: Sequence[LineDoubt] | None = None,
    calibration: Calibration | None = None,
    results: Sequence[Sequence[Any]] | None = None,
    estimate: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report's data for line-parallel source graphs, source texts, system outputs and (optional) references;
    ``documents``: each line is a document (its graph one passage of its sentences), scored at document level.
    ``doubt``: each line's :class:`~samsa.engine.uncertainty.LineDoubt` under ``calibration`` (parse uncertainty:
    its trees and each system's score on every one, in the order of ``systems``): SAMSA's interval and
    significance then draw one tree per source in each resample, shared by the systems, and the explorer shows
    each line's parse doubt. ``results``: each line's sentence result of each system where the run that parsed
    the sources scored them already (with ``metric``). ``estimate``: a plan's estimate of each system's all-manual
    SAMSA (``samsa.cli.planned.report_estimate``), shown beside the parsed score."""
    _check_inputs(graphs, sources, systems, metric, refs)
    names = list(systems)
    n = len(graphs)
    sentences, per_system = _explain(graphs, sources, systems, metric, (doubt, calibration, results), progress)
    lexical = _lexical(sources, systems, refs, metric.splitter, metric.config.language)
    indices = resample_indices(n, resamples, seed)
    tree_draws = None
    if doubt is not None:  # one tree per source in each resample, the same for every system
        trees = draw_trees([d.menu for d in doubt], resamples, seed)
        tree_draws = {
            s: corpus_draws([d.tree_scores[i] for d in doubt], trees, rows=indices) for i, s in enumerate(names)
        }
    stats, table, draws = _table(names, per_system, lexical, indices, tree_draws)
    columns = [c for c in LABELS if c in table[names[0]]]
    signature = metric.signature(documents=documents)
    signatures = {"samsa": signature, "samsa_abl": signature, **lexical[1]}
    return {
        "title": (info or {}).get("title", "SAMSA report"),
        "info": {
            **(info or {}),
            "n_sentences": n,
            "unit": "documents" if documents else "sentences",
            "resamples": resamples,
            "seed": seed,
            "version": __version__,
            "parse_uncertainty": calibration.signature() if doubt is not None and calibration is not None else None,
        },
        "systems": names,
        "columns": [
            {"key": c, "label": LABELS[c][0], "higher": LABELS[c][1], "signature": signatures.get(c, "")}
            for c in columns
        ],
        "table": table,
        "significance": _significance(names, [c for c in columns if c in stats[names[0]]], stats, draws, indices),
        "plots": _plots(names, per_system, sentences),
        "sentences": sentences,
        **({"estimate": dict(estimate)} if estimate is not None else {}),
    }


def _check_inputs(
    graphs: Sequence[nx.DiGraph],
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    metric: Samsa,
    refs: Sequence[Sequence[str]] | None,
) -> None:
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


def _explain(
    graphs: Sequence[nx.DiGraph],
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    metric: Samsa,
    run: tuple[Sequence[LineDoubt] | None, Calibration | None, Sequence[Sequence[Any]] | None],
    progress: Callable[[int], Any] | None,
) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    """The explorer's entry of every line (its Scenes, and each system's match, centers and parse interval), and
    each system's sentence results (``run``: the parse doubt, its calibration and the results the run scored)."""
    doubt, calibration, results = run
    names = list(systems)
    sentences: list[dict[str, Any]] = []
    per_system: dict[str, list[Any]] = {s: [] for s in names}
    for k, g in enumerate(graphs):
        structure = paper_structure(g)
        entry = {"line": k + 1, **explain_source(g, structure), "systems": []}
        if doubt is not None and calibration is not None:
            entry["doubt"] = parse_doubt(doubt[k], calibration)
        for i, s in enumerate(names):
            done = results[k][i] if results is not None else None
            detail, result = explain_output(g, structure, systems[s][k], metric, done)
            src_chars = len(sources[k])
            detail["cr"] = len(systems[s][k]) / src_chars if src_chars else 0.0
            if doubt is not None and calibration is not None:
                scores = doubt[k].tree_scores[i]
                spread = sentence_interval(scores, doubt[k].menu)  # the trees alone, before the margin
                detail["parse"] = {
                    **line_interval(doubt[k].menu, scores, calibration),
                    "wide": spread.high - spread.low >= WIDE,
                }
            entry["systems"].append(detail)
            per_system[s].append(result)
        sentences.append(entry)
        if progress is not None:
            progress(1)
    return sentences, per_system


def _table(
    names: list[str],
    per_system: Mapping[str, list[Any]],
    lexical: Lexical,
    indices: Any,
    tree_draws: Mapping[str, Any] | None,
) -> tuple[dict[str, dict[str, CorpusStat]], dict[str, dict[str, dict[str, float | None]]], dict[str, dict[str, Any]]]:
    """Each system's statistics, its table row (value and 95% bootstrap interval of every column) and its
    resampled values (``tree_draws``: SAMSA's, one tree per source in each resample)."""
    lex_values, _, lex_stats = lexical
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
        if tree_draws is not None:
            draws[s]["samsa"] = tree_draws[s]
        for key, value in values.items():
            lo, hi = bootstrap_ci(stats[s][key], indices, values=draws[s][key]) if key in stats[s] else (None, None)
            table[s][key] = {"value": value, "lo": lo, "hi": hi}
    return stats, table, draws


def _significance(
    names: list[str],
    columns: list[str],
    stats: Mapping[str, Mapping[str, CorpusStat]],
    draws: Mapping[str, Mapping[str, Any]],
    indices: Any,
) -> dict[str, list[dict[str, Any]]]:
    """Paired bootstrap of every pair of systems on every resampled column."""
    significance: dict[str, list[dict[str, Any]]] = {c: [] for c in columns}
    for a, b in combinations(range(len(names)), 2):
        for c in significance:
            diff, p = paired_bootstrap(
                stats[names[a]][c], stats[names[b]][c], indices, values=(draws[names[a]][c], draws[names[b]][c])
            )
            significance[c].append({"a": a, "b": b, "diff": diff, "p": p})
    return significance


#: a line whose trees' 90% interval (before the calibration's margin) is at least this wide (SAMSA points) is
#: marked in the explorer
WIDE = 25.0


def parse_doubt(line: LineDoubt, calibration: Calibration, readings: int = 3) -> dict[str, Any]:
    """A line's parse doubt for the explorer: its calibrated Scene-count distribution and its most probable
    Scene readings (the Scenes' words of its most probable trees, each with its probability)."""
    menu = line.menu
    order = sorted(range(len(menu.keys)), key=lambda i: (-menu.weights[i], i))[:readings]
    return {
        "scene_counts": {str(c): p for c, p in scene_counts(menu, calibration).items()},
        "readings": [{"p": round(menu.weights[i], 4), "scenes": list(line.tree_scenes[i])} for i in order],
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
