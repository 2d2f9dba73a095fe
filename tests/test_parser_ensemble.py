"""benchmarks/parser_ensemble.py: its averaged network decodes as the plain parser when the members agree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from samsa.ucca_xml import to_standard_xml

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SENTENCES = [
    ["John", "got", "home", "and", "gave", "Mary", "a", "call", "."],
    ["The", "committee", ",", "which", "met", "on", "Monday", ",", "rejected", "the", "plan", "."],
    ["He", "began", "living", "in", "Paris", "after", "the", "war", "ended", "."],
]


@pytest.fixture(scope="module")
def ensemble():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("parser_ensemble", BENCHMARKS / "parser_ensemble.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_one_member_and_two_equal_members_decode_as_the_fast_pipeline(ensemble):
    from samsa.parsers.builtin import PIPELINES, BuiltinParser

    weights = str(BENCHMARKS.parent / "parsers" / "builtin" / "weights" / PIPELINES["fast"])
    for bias in (0.0, 1.0):
        plain = BuiltinParser(pipeline="fast", scene_bias=bias).parse(SENTENCES)
        expected = [to_standard_xml(g) for g in plain]
        for members in ([weights], [weights, weights]):
            got = ensemble.parse(ensemble.members(members, "wiki", bias), SENTENCES)
            assert [to_standard_xml(g) for g in got] == expected
    # a bias that adds Scenes changes the parse (the check above compares something)
    assert [to_standard_xml(g) for g in BuiltinParser(pipeline="fast", scene_bias=4.0).parse(SENTENCES)] != [
        to_standard_xml(g) for g in BuiltinParser(pipeline="fast").parse(SENTENCES)
    ]
