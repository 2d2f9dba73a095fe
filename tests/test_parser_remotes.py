"""Remote-edge candidates and labels over the span tree (no trained model needed)."""

from __future__ import annotations

import numpy as np
import pytest

from lab.oracle import gold_pairs, graph_to_spans, oracle_remotes
from samsa.parsers.builtin.remotes import candidate_pairs, distance_bucket, distance_buckets
from samsa.parsers.builtin.tree import spans_to_graph
from samsa.ucca.evaluation import evaluate_corpus
from samsa.ucca.xml import list_passage_files, load_passage


def test_the_paper_remote_participant_is_the_one_labeled_pair(ucca_path):
    g = load_passage(ucca_path("john_home_call"))  # John got home and [John] gave Mary a call .
    labeled = [(p.scene_span, p.unit_span, lab) for p, lab in gold_pairs(g) if lab]
    assert labeled == [((4, 8), (0, 1), "A")]
    pairs = candidate_pairs(g)
    # the second scene (4, 8) may point at any unit outside it but punctuation: John, got, home, John got home, and
    assert {p.unit_span for p in pairs if p.scene_span == (4, 8)} == {(0, 1), (1, 2), (2, 3), (0, 3), (3, 4)}
    assert all(p.unit_span != (8, 9) for p in pairs)  # the full stop is never a target


def test_predicted_labels_become_remote_edges_that_score(ucca_path):
    gold = load_passage(ucca_path("john_home_call"))
    tree = spans_to_graph(*graph_to_spans(gold))
    assert evaluate_corpus([(tree, gold)]).counts["labeled", "remote"].matches == 0
    oracle_remotes(gold, tree)
    remote = evaluate_corpus([(tree, gold)]).counts["labeled", "remote"]
    assert (remote.guessed, remote.ref, remote.matches) == (1, 1, 1)


def test_distance_buckets():
    assert distance_bucket((4, 8), (0, 1)) == 3  # left, 3 tokens between (bucket 3-4)
    assert distance_bucket((0, 3), (3, 4)) == 7  # right, adjacent
    assert distance_bucket((0, 1), (40, 41)) == 13  # right, far


def test_buckets_of_many_pairs_at_once_are_the_scalar_ones():
    """The decoder computes buckets with numpy: every bucket, on both sides, as ``distance_bucket`` says."""
    spans = [(a, b) for a in range(0, 30, 3) for b in range(a + 1, a + 25, 4)]
    pairs = [(s, u) for s in spans for u in spans if u[1] <= s[0] or u[0] >= s[1]]
    got = distance_buckets(np.array([s for s, _ in pairs]), np.array([u for _, u in pairs])).tolist()
    assert got == [distance_bucket(s, u) for s, u in pairs]
    assert sorted(set(got)) == list(range(14))


@pytest.mark.parametrize("corpus", ["wiki/dev", "ewt/dev"])
def test_gold_labels_recover_most_remote_edges(data_dir, corpus):
    """The candidate space loses only remotes that do not start at a Scene (about 4% on the training data)."""
    pairs = []
    for f in list_passage_files(data_dir / "ucca" / corpus)[:150]:
        gold = load_passage(f)
        tree = spans_to_graph(*graph_to_spans(gold))
        oracle_remotes(gold, tree)
        pairs.append((tree, gold))
    remote = evaluate_corpus(pairs).counts["labeled", "remote"]
    assert remote.ref > 50 and remote.f1 > 0.85
