"""``easse.sari``: corpus SARI and its operation scores, EASSE's defaults (lowercase, 13a)."""

from __future__ import annotations

from collections.abc import Sequence

from samsa.lexical import SariComponents, sari_components

__all__ = ["corpus_sari", "get_corpus_sari_operation_scores", "sentence_sari"]


def _components(
    orig: Sequence[str],
    sys: Sequence[str],
    refs: Sequence[Sequence[str]],
    lowercase: bool,
    tokenizer: str,
    legacy: bool,
    del_f1: bool,
    paper: bool,
) -> SariComponents:
    return sari_components(
        orig,
        sys,
        refs,
        variant="easse",
        lowercase=lowercase,
        tokenizer=tokenizer,
        legacy=legacy,
        use_f1_for_deletion=del_f1,
        use_paper_version=paper,
    )


def get_corpus_sari_operation_scores(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    refs_sents: Sequence[Sequence[str]],
    lowercase: bool = True,
    tokenizer: str = "13a",
    legacy: bool = False,
    use_f1_for_deletion: bool = True,
    use_paper_version: bool = False,
) -> tuple[float, float, float]:
    """(add, keep, delete) F-scores, 0-100; ``refs_sents[k][i]`` is reference ``k`` of sentence ``i``."""
    c = _components(
        orig_sents, sys_sents, refs_sents, lowercase, tokenizer, legacy, use_f1_for_deletion, use_paper_version
    )
    return c.add, c.keep, c.delete


def corpus_sari(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    refs_sents: Sequence[Sequence[str]],
    lowercase: bool = True,
    tokenizer: str = "13a",
    legacy: bool = False,
    use_f1_for_deletion: bool = True,
    use_paper_version: bool = False,
) -> float:
    """Corpus SARI (0-100) as EASSE computes it (summed n-gram statistics)."""
    return _components(
        orig_sents, sys_sents, refs_sents, lowercase, tokenizer, legacy, use_f1_for_deletion, use_paper_version
    ).sari


def sentence_sari(
    orig_sent: str,
    sys_sent: str,
    ref_sents: Sequence[str],
    lowercase: bool = True,
    tokenizer: str = "13a",
    use_f1_for_deletion: bool = True,
    use_paper_version: bool = False,
) -> float:
    """EASSE's sentence SARI: its corpus SARI on one sentence (not Xu's sentence score; see docs/lexical.md)."""
    return corpus_sari(
        [orig_sent],
        [sys_sent],
        [[r] for r in ref_sents],
        lowercase=lowercase,
        tokenizer=tokenizer,
        use_f1_for_deletion=use_f1_for_deletion,
        use_paper_version=use_paper_version,
    )
