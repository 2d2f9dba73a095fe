"""Reference values on TurkCorpus test (359 sentences, 8 references), read from ../shared/data.

Provenance: EASSE's tests/test_sari.py::test_corpus_sari (quoting MUSS) and lexical_metrics.md
section 1.3 for ACCESS's BLEU. EASSE's legacy-setting values are asserted in
tests/test_easse_ported.py (through samsa.easse.sari, the same sari_components).
"""

from __future__ import annotations

import pytest

from samsa.lexical import corpus_bleu, corpus_sari


def lines(path):
    return [x.strip() for x in path.read_text(encoding="utf-8").splitlines()]


def test_access_default_setting(data_dir):
    base = data_dir / "easse" / "test_sets" / "turkcorpus"
    orig = lines(base / "test.truecase.detok.orig")
    refs = [lines(base / f"test.truecase.detok.simp.{i}") for i in range(8)]
    out = lines(data_dir / "easse" / "system_outputs" / "turkcorpus" / "test" / "ACCESS")
    assert corpus_sari(orig, out, refs) == pytest.approx(41.381013, abs=1e-6)
    assert corpus_bleu(out, refs, lowercase=True) == pytest.approx(76.35911081479618, abs=1e-9)
