"""The exact aligner's contract: lowercase identity, one-to-one, leftmost free target."""

from samsa.aligners.base import Aligner, align_many
from samsa.aligners.exact import ExactAligner


def test_leftmost_unused_target_and_case():
    a = ExactAligner()
    assert a.align(["The", "cat", "saw", "the", "dog"], ["the", "dog", "saw", "THE", "cat"]) == [
        (0, 0),
        (1, 4),
        (2, 2),
        (3, 3),
        (4, 1),
    ]


def test_one_to_one_and_repeated_source_tokens():
    a = ExactAligner()
    assert a.align(["John", "saw", "John"], ["John", "saw"]) == [(0, 0), (1, 1)]


def test_tokens_without_letters_or_digits_never_align():
    a = ExactAligner()
    assert a.align([".", ",", "--", "42", "x-y"], [".", ",", "--", "42", "x-y"]) == [(3, 3), (4, 4)]


def test_empty_inputs_and_protocol():
    a = ExactAligner()
    assert a.align([], ["a"]) == []
    assert a.align(["a"], []) == []
    assert isinstance(a, Aligner)
    assert a.signature() == "exact.v1"
    assert align_many(a, [(["a"], ["A"]), (["b"], ["c"])]) == [[(0, 0)], []]
