"""The standard UCCA evaluation measure, plus the scene-level scores SAMSA depends on. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

from samsa.ucca.queries import main_relations, minimal_centers, participants, scenes, unit_terminals

__all__ = ["CONSTRUCTIONS", "Counts", "UccaScores", "evaluate_corpus", "evaluate_pair", "scene_scores", "yields"]

CONSTRUCTIONS = ("primary", "remote", "implicit")
SKIP_TAGS = frozenset({"LR", "LA", "Terminal"})


@dataclass
class Counts:
    """Guessed, reference and matched unit counts (summable)."""

    guessed: int = 0
    ref: int = 0
    matches: int = 0

    def __iadd__(self, other: Counts) -> Counts:
        self.guessed += other.guessed
        self.ref += other.ref
        self.matches += other.matches
        return self

    @property
    def p(self) -> float:
        return 1.0 if self.guessed == 0 else self.matches / self.guessed

    @property
    def r(self) -> float:
        return 1.0 if self.ref == 0 else self.matches / self.ref

    @property
    def f1(self) -> float:
        p, r = self.p, self.r
        return 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)


@dataclass
class UccaScores:
    """Counts per (labeled|unlabeled, construction); ``pooled`` = primary + remote."""

    counts: dict[tuple[str, str], Counts] = field(
        default_factory=lambda: {(t, c): Counts() for t in ("labeled", "unlabeled") for c in CONSTRUCTIONS}
    )

    def __iadd__(self, other: UccaScores) -> UccaScores:
        for key, c in other.counts.items():
            self.counts[key] += c
        return self

    def pooled(self, eval_type: str = "labeled") -> Counts:
        total = Counts()
        for c in ("primary", "remote"):
            total += self.counts[eval_type, c]
        return total

    def to_dict(self) -> dict[str, dict[str, dict[str, float]]]:
        out: dict[str, dict[str, dict[str, float]]] = {}
        for t in ("labeled", "unlabeled"):
            out[t] = {}
            for c in (*CONSTRUCTIONS, "pooled"):
                k = self.pooled(t) if c == "pooled" else self.counts[t, c]
                out[t][c] = {"p": k.p, "r": k.r, "f1": k.f1, "guessed": k.guessed, "ref": k.ref, "matches": k.matches}
        return out


def _yield(g: nx.DiGraph, node: str) -> frozenset[int]:
    return frozenset(g.nodes[t]["position"] for t in unit_terminals(g, node, punct=False, remotes=False))


def yields(g: nx.DiGraph) -> dict[str, dict[frozenset[int], set[str]]]:
    """construction -> {yield: union of tags} for one passage."""
    out: dict[str, dict[frozenset[int], set[str]]] = {c: {} for c in CONSTRUCTIONS}
    cache: dict[str, frozenset[int]] = {}
    for parent, child, data in g.edges(data=True):
        if g.nodes[parent]["layer"] != "1":
            continue
        cats = data["categories"]
        child_type = g.nodes[child]["type"]
        if SKIP_TAGS.intersection(cats) or g.nodes[child]["layer"] == "0" or child_type == "LKG":
            continue
        if "U" in cats or child_type == "PNCT":
            continue
        implicit = bool(g.nodes[child].get("implicit"))
        remote = bool(data["remote"])
        if implicit and remote:
            continue
        construction = "implicit" if implicit else ("remote" if remote else "primary")
        anchor = parent if implicit else child
        if anchor not in cache:
            cache[anchor] = _yield(g, anchor)
        out[construction].setdefault(cache[anchor], set()).update(cats)
        merged_remote = (data.get("attributes") or {}).get("remote_categories")  # see samsa.ucca.interop
        if merged_remote and not implicit:
            out["remote"].setdefault(cache[anchor], set()).update(merged_remote.split("|"))
    return out


def evaluate_pair(guessed: nx.DiGraph, ref: nx.DiGraph) -> UccaScores:
    """Scores of one predicted passage against its reference (same terminals assumed)."""
    scores = UccaScores()
    yg, yr = yields(guessed), yields(ref)
    for c in CONSTRUCTIONS:
        g, r = yg[c], yr[c]
        common = g.keys() & r.keys()
        scores.counts["unlabeled", c] = Counts(len(g), len(r), len(common))
        scores.counts["labeled", c] = Counts(len(g), len(r), sum(1 for y in common if g[y] & r[y]))
    return scores


def evaluate_corpus(pairs: Iterable[tuple[nx.DiGraph, nx.DiGraph]], *, normalize: bool = False) -> UccaScores:
    """Counts summed over (guessed, reference) pairs (micro average), as the ``ucca`` package aggregates.

    ``normalize=True``: the ``ucca`` evaluator's normalization first (needs the optional ``ucca`` package).
    """
    total = UccaScores()
    for guessed, ref in pairs:
        if normalize:
            from samsa.ucca.interop import normalize_pair

            guessed, ref = normalize_pair(guessed, ref)
        total += evaluate_pair(guessed, ref)
    return total


def _center_positions(g: nx.DiGraph, units: list[str]) -> frozenset[int]:
    out = set()
    for u in units:
        for c in minimal_centers(g, u):
            if g.nodes[c]["layer"] == "0":
                out.add(g.nodes[c]["position"])
            elif not g.nodes[c].get("implicit"):
                out.update(_yield(g, c))
    return frozenset(out)


def scene_scores(pairs: Iterable[tuple[nx.DiGraph, nx.DiGraph]]) -> dict[str, float]:
    """Scene-unit P/R/F1 and, over scenes found in both, main-relation and participant center accuracy."""
    counts = Counts()
    mr_ok = mr_total = part_ok = part_total = 0
    for guessed, ref in pairs:
        gs = {_yield(guessed, s): s for s in scenes(guessed)}
        rs = {_yield(ref, s): s for s in scenes(ref)}
        counts += Counts(len(gs), len(rs), len(gs.keys() & rs.keys()))
        for y in gs.keys() & rs.keys():
            g_scene, r_scene = gs[y], rs[y]
            mr_total += 1
            mr_ok += _center_positions(guessed, main_relations(guessed, g_scene)) == _center_positions(
                ref, main_relations(ref, r_scene)
            )
            g_parts = {_center_positions(guessed, [p]) for p in participants(guessed, g_scene)}
            for p in participants(ref, r_scene):
                part_total += 1
                part_ok += _center_positions(ref, [p]) in g_parts
    return {
        "scene_p": counts.p,
        "scene_r": counts.r,
        "scene_f1": counts.f1,
        "scenes_guessed": counts.guessed,
        "scenes_ref": counts.ref,
        "main_relation_center_accuracy": mr_ok / mr_total if mr_total else 1.0,
        "participant_center_accuracy": part_ok / part_total if part_total else 1.0,
    }
