"""Reference values on TurkCorpus test (359 sentences, 8 references), read from ../shared/data.

Provenance: EASSE's tests (tests/test_sari.py::test_corpus_sari_legacy and test_corpus_sari,
the latter quoting MUSS) and lexical_metrics.md section 1.3 for ACCESS's BLEU.
"""

from __future__ import annotations

import pytest

from samsa.lexical import corpus_bleu, corpus_sari


def lines(path):
    return [x.strip() for x in path.read_text(encoding="utf-8").splitlines()]


LEGACY = {
    "Dress-Ls": 37.266058818588216,
    "Dress": 37.08210095744638,
    "EncDecA": 35.65754396121206,
    "Hybrid": 31.39665078989411,
    "PBMT-R": 38.558843050332037,
    "SBMT-SARI": 39.964857928109127,
}


@pytest.mark.parametrize(("system", "expected"), LEGACY.items())
def test_easse_legacy_sari(data_dir, system, expected):
    base = data_dir / "easse" / "test_sets" / "turkcorpus" / "legacy"
    orig = lines(base / "test.8turkers.tok.norm")
    refs = [lines(base / f"test.8turkers.tok.turk.{i}") for i in range(8)]
    out = lines(data_dir / "easse" / "system_outputs" / "turkcorpus" / "test" / "tok.low" / f"{system}.tok.low")
    assert corpus_sari(orig, out, refs, legacy=True) == pytest.approx(expected, abs=1e-9)


def test_access_default_setting(data_dir):
    base = data_dir / "easse" / "test_sets" / "turkcorpus"
    orig = lines(base / "test.truecase.detok.orig")
    refs = [lines(base / f"test.truecase.detok.simp.{i}") for i in range(8)]
    out = lines(data_dir / "easse" / "system_outputs" / "turkcorpus" / "test" / "ACCESS")
    assert corpus_sari(orig, out, refs) == pytest.approx(41.381013, abs=1e-6)
    assert corpus_bleu(out, refs, lowercase=True) == pytest.approx(76.35911081479618, abs=1e-9)
