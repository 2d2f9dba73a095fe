"""Manual vs parser UCCA annotations: how much does SAMSA change when the graphs are parsed? More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from samsa.scoring.metric import Samsa
from samsa.studies.correlation import correlate
from samsa.ucca.evaluation import evaluate_corpus, scene_scores

__all__ = ["compare_annotations"]


def compare_annotations(
    gold: Sequence[nx.DiGraph], parsed: Sequence[nx.DiGraph], systems: Mapping[str, Sequence[str]], metric: Samsa
) -> dict[str, Any]:
    """Compare SAMSA on ``gold`` and ``parsed`` graphs of the same sentences for each system output."""
    ucca = evaluate_corpus(zip(parsed, gold, strict=True)).to_dict()
    counts = list(zip(_scene_counts(gold), _scene_counts(parsed), strict=True))  # (gold, parsed) per sentence
    out: dict[str, Any] = {
        "sentences": len(gold),
        "ucca_labeled_f1": {c: ucca["labeled"][c]["f1"] for c in ("primary", "remote", "pooled")},
        "ucca_unlabeled_f1": {c: ucca["unlabeled"][c]["f1"] for c in ("primary", "remote", "pooled")},
        "scenes": scene_scores(zip(parsed, gold, strict=True)),
        "scene_counts": {"gold": sum(c for c, _ in counts), "parsed": sum(c for _, c in counts)},
        "systems": {},
        "per_sentence": [],
    }
    for name, outputs in systems.items():
        g = metric.corpus_score(list(gold), list(outputs))
        p = metric.corpus_score(list(parsed), list(outputs))
        gs, ps = [r.samsa for r in g.sentences], [r.samsa for r in p.sentences]
        diffs = [b - a for a, b in zip(gs, ps, strict=True)]
        block = {
            "samsa_gold": g.samsa,
            "samsa_parsed": p.samsa,
            "samsa_abl_gold": g.samsa_abl,
            "samsa_abl_parsed": p.samsa_abl,
            "mean_abs_difference": sum(abs(d) for d in diffs) / len(diffs),
            "per_sentence_difference": diffs,
        }
        for method in ("pearson", "spearman"):
            c = correlate(gs, ps, method) if len(gs) >= 3 else None
            block[method] = None if c is None else {"r": c.r, "p_two_sided": c.p_two_sided}
        out["systems"][name] = block
        out["per_sentence"].extend(
            {
                "line": k,
                "system": name,
                "scenes_gold": cg,
                "scenes_parsed": cp,
                "samsa_gold": a.samsa,
                "samsa_parsed": b.samsa,
                "samsa_abl_gold": a.samsa_abl,
                "samsa_abl_parsed": b.samsa_abl,
            }
            for k, (a, b, (cg, cp)) in enumerate(zip(g.sentences, p.sentences, counts, strict=True), 1)
        )
    for key in ("samsa_gold", "samsa_parsed"):
        ranking = sorted(out["systems"], key=lambda s: -out["systems"][s][key])
        out[f"ranking_{key.split('_')[1]}"] = ranking
    return out


def _scene_counts(graphs: Sequence[nx.DiGraph]) -> list[int]:
    from samsa.ucca.queries import scenes

    return [len(scenes(g)) for g in graphs]
