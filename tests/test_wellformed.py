"""Two of builtin.v5's decoding steps: one main relation per Scene, one center per main relation
(parsers/builtin/wellformed.py), on hand-made trees."""

from __future__ import annotations

import numpy as np
import pytest

from samsa.parsers.builtin.runtime import span_row
from samsa.parsers.builtin.tree import Span, spans_to_graph
from samsa.parsers.builtin.wellformed import center_targets, one_center, one_main_relation, repair_targets
from samsa.ucca.queries import main_relations, scenes, unit_terminals

LABELS = ("<none>", "A", "C", "D", "H", "P", "S", "A/P", "P^")
WORDS = ["I", "want", "it", "received", "well"]
# [A I] [P want] [A it] [P received] [D well]: the root holds two main relations
FLAT = [Span(0, 1, "A"), Span(1, 2, "P"), Span(2, 3, "A"), Span(3, 4, "P"), Span(4, 5, "D")]


def several_main_relations(words: list[str], spans: list[Span]) -> list[list[str]]:
    """The words of each main relation of every Scene that has more than one, in the graph of ``spans``."""
    g = spans_to_graph(words, spans)
    found = [main_relations(g, s) for s in scenes(g)]
    return [[" ".join(g.nodes[t]["text"] for t in unit_terminals(g, m)) for m in ms] for ms in found if len(ms) > 1]


def table(labels: tuple[str, ...] = LABELS, **spans: dict[str, float]):
    """log_probs(i, j) over ``labels``: "no unit" at 0 and every label at -10, except what ``spans`` (key
    ``s<i>_<j>``) says."""

    def log_probs(i: int, j: int) -> np.ndarray:
        row = np.full(len(labels), -10.0)
        row[0] = 0.0
        for label, value in spans.get(f"s{i}_{j}", {}).items():
            row[labels.index(label)] = value
        return row

    return log_probs


def test_span_row_is_the_triu_order():
    for n in range(1, 7):
        rows = np.triu_indices(n + 1, 1)
        assert [span_row(n, i, j) for i, j in zip(*rows, strict=True)] == list(range(n * (n + 1) // 2))


def test_repair_targets():
    relabel, group = repair_targets(LABELS)
    assert [LABELS[k] for k in relabel] == ["A", "C", "D", "H", "A/P"]  # not P/S outermost, not discontiguous
    assert [LABELS[k] for k in group] == ["A", "C", "D", "H"]  # no P/S anywhere


def test_the_cheaper_repair_groups_the_second_scene():
    """Grouping "it received well" as A costs 1 nat, relabeling either main relation 10: the group wins,
    and the sentence has two Scenes with one main relation each."""
    probs = table(s1_2={"P": 0.0}, s3_4={"P": 0.0}, s2_5={"A": -1.0})
    out = one_main_relation(FLAT, 5, probs, LABELS)
    assert out == [*FLAT, Span(2, 5, "A")]
    g = spans_to_graph(WORDS, out)
    assert sorted(len(main_relations(g, s)) for s in scenes(g)) == [1, 1]
    assert several_main_relations(WORDS, FLAT) == [["want", "received"]]
    assert several_main_relations(WORDS, out) == []


def test_the_cheaper_repair_relabels_a_main_relation():
    """Relabeling "received" C costs 0.5 nat, less than the group (1) or the other relabelings (10)."""
    probs = table(s1_2={"P": 0.0}, s3_4={"P": 0.0, "C": -0.5}, s2_5={"A": -1.0})
    out = one_main_relation(FLAT, 5, probs, LABELS)
    assert out == [*FLAT[:3], Span(3, 4, "C"), FLAT[4]]
    g = spans_to_graph(WORDS, out)
    assert len(scenes(g)) == 1


def test_a_main_relation_may_become_a_scene_of_its_own():
    """A/P (a participant holding a main relation) keeps two Scenes without a new unit."""
    probs = table(s1_2={"P": 0.0}, s3_4={"P": -1.0, "A/P": -1.2})
    out = one_main_relation(FLAT, 5, probs, LABELS)
    assert out == [*FLAT[:3], Span(3, 4, "A/P"), FLAT[4]]
    assert len(scenes(spans_to_graph(WORDS, out))) == 2


def test_every_unit_ends_with_one_main_relation():
    words = ["a", "p", "a", "p", "a", "p"]
    spans = [Span(0, 6, "H")] + [Span(k, k + 1, "A" if k % 2 == 0 else "P") for k in range(6)]
    mains = {f"s{k}_{k + 1}": {"P": 0.0} for k in (1, 3, 5)}
    out = one_main_relation(spans, 6, table(**mains, s2_4={"A": -1.0}, s4_6={"H": -2.0}), LABELS)
    assert out == [*spans, Span(2, 4, "A"), Span(4, 6, "H")]
    assert several_main_relations(words, out) == []
    assert len(scenes(spans_to_graph(words, out))) == 3


@pytest.mark.parametrize(
    "spans",
    [
        FLAT[:2] + FLAT[4:],  # one main relation
        [Span(0, 5, "H"), *FLAT[:3], Span(3, 4, "P^"), FLAT[4]],  # a discontiguous child: left alone
    ],
)
def test_trees_left_as_they_are(spans):
    assert one_main_relation(spans, 5, table(), LABELS) == spans


CENTER_LABELS = ("<none>", "A", "C", "D", "F", "N", "P", "H", "E/S", "A/P", "D^")
TEAM = ["The", "team", "managed", "to", "win", "it"]


def test_center_targets_exclude_centers_connectors_scenes_and_gaps():
    assert [CENTER_LABELS[k] for k in center_targets(CENTER_LABELS)] == ["A", "D", "F", "H"]


def test_the_center_the_network_is_surest_of_stays():
    """[P [C managed] [C to win]]: "to win" is a center by a margin of 2.9 over its best other label, "managed"
    by 0.2 over D, so "managed" becomes D and the main relation's minimal center is "win" alone."""
    spans = [Span(0, 6, "H"), Span(0, 2, "A"), Span(2, 5, "P"), Span(2, 3, "C"), Span(3, 5, "C"), Span(5, 6, "A")]
    scores = table(CENTER_LABELS, s2_3={"C": -0.7, "D": -0.9, "F": -4.0, "E/S": -0.1}, s3_5={"C": -0.1, "D": -3.0})
    fixed = one_center(spans, 6, scores, CENTER_LABELS)
    assert fixed == [*spans[:3], Span(2, 3, "D"), *spans[4:]]
    # the other way round when the network is surer of "managed"
    scores = table(CENTER_LABELS, s2_3={"C": -0.1, "D": -3.0}, s3_5={"C": -0.7, "F": -0.8})
    assert one_center(spans, 6, scores, CENTER_LABELS)[4] == Span(3, 5, "F")


@pytest.mark.parametrize(
    "spans",
    [
        # coordinated centers ("won and kept" with a connector N) stay
        [Span(0, 6, "H"), Span(2, 5, "P"), Span(2, 3, "C"), Span(3, 4, "N"), Span(4, 5, "C")],
        # two centers of a participant, not of a main relation
        [Span(0, 6, "H"), Span(0, 2, "A"), Span(0, 1, "C"), Span(1, 2, "C"), Span(2, 5, "P")],
        # one center
        [Span(0, 6, "H"), Span(2, 5, "P"), Span(2, 3, "D"), Span(3, 5, "C")],
    ],
)
def test_units_with_one_center_or_coordination_are_left_alone(spans):
    assert one_center(spans, 6, table(CENTER_LABELS), CENTER_LABELS) == spans
