"""``benchmarks/compare_annotations.py``'s ``fixes_for_pearson``: how many sentences, the largest differences
first, would need their manual SAMSA for the per-sentence Pearson to reach a target (hand-computed cases)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from compare_annotations import fixes_for_pearson


def test_already_there_needs_no_fix():
    assert fixes_for_pearson([0.0, 50.0, 100.0], [0.0, 50.0, 100.0], 0.8) == 0


def test_the_largest_differences_are_fixed_first():
    # reversed scores: fixing the two ends (difference 3 each) gives [1, 3, 2, 4], Pearson exactly 0.8; one
    # more (the first of the middle ones, difference 1) gives [1, 2, 2, 4], Pearson 4.5 / sqrt(5 * 4.75) = 0.92
    assert fixes_for_pearson([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0], 0.8) == 2
    assert fixes_for_pearson([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0], 0.81) == 3
    assert fixes_for_pearson([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0], 0.93) == 4


def test_a_constant_manual_score_never_correlates():
    assert fixes_for_pearson([100.0] * 4, [100.0, 0.0, 100.0, 50.0], 0.8) is None
