"""Property-based fuzzing (hypothesis, bounded): mutated UCCA XML and hostile text never give a traceback.

The long run with an independent validator is ``benchmarks/fuzz.py`` (counts in docs/BENCHMARKS.md).
"""

from __future__ import annotations

import math
import re

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from samsa.errors import InputError, SamsaError  # noqa: E402
from samsa.fileio import decode_lines  # noqa: E402
from samsa.scoring.metric import Samsa  # noqa: E402
from samsa.ucca.validate import violations  # noqa: E402
from samsa.ucca.xml import parse_standard_bytes  # noqa: E402

WHERE = re.compile(r"^<fuzz>:\d+: ")
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _source(fixture: str) -> bytes:
    from pathlib import Path

    return (Path(__file__).resolve().parent.parent / "fixtures" / "ucca" / "paper" / fixture).read_bytes()


BOOK = _source("2_read_book.xml")
ATTRIBUTES = (b'toID="', b'ID="', b'type="', b'layerID="', b'remote="', b'tag="')
VALUES = st.sampled_from([b"1.1", b"1.2", b"1.7", b"0.1", b"0.9", b"2.1", b"x", b"", b"FN", b"LKG", b"Word", b"True",
                          b"A", b"P", b"LR", b"0", b"1"])  # fmt: skip


@st.composite
def mutated_xml(draw):
    """Attribute values swapped for others (IDs, references, types, layers, flags), or whole lines dropped."""
    data = BOOK
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            attr = draw(st.sampled_from(ATTRIBUTES))
            starts = [m.end() for m in re.finditer(re.escape(attr), data)]
            if not starts:
                continue
            i = draw(st.sampled_from(starts))
            j = data.index(b'"', i)
            data = data[:i] + draw(VALUES) + data[j:]
        else:
            lines = data.split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            data = b"\n".join(lines[:k] + lines[k + 1 :])
    return data


@SETTINGS
@given(mutated_xml())
def test_mutated_xml_is_valid_or_refused_with_a_line(data):
    try:
        g = parse_standard_bytes(data, "<fuzz>")
    except InputError as e:
        assert WHERE.match(str(e)), str(e)
        return
    assert violations(g) == []
    for compat in ("paper", "easse"):
        try:
            r = Samsa(tokenizer="none", compat=compat).sentence_score(g, "I read the book . John wrote it .")
        except SamsaError:
            continue  # EASSE's documented index error, reported as such
        assert math.isfinite(r.samsa) and 0 <= r.samsa <= 100 and 0 <= r.samsa_abl <= 100


@SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes_as_a_text_file(data):
    try:
        lines = decode_lines(data, "<fuzz>")
    except InputError as e:
        assert str(e).startswith("<fuzz>")
        return
    assert all("\x00" not in line and "\n" not in line for line in lines)


@SETTINGS
@given(st.text(max_size=200))
def test_any_output_line_scores_within_bounds(line):
    g = parse_standard_bytes(BOOK, "<book>")
    for compat in ("paper", "easse"):
        r = Samsa(compat=compat).sentence_score(g, line)
        assert 0 <= r.samsa <= 100 and 0 <= r.samsa_abl <= 100
