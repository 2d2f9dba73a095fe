"""The ``lemma`` aligner: the exact aligner, then identical lemmas, still one-to-one.

Where a language's lemmas come from is its entry in ``samsa.languages`` (``lemmas``): spaCy's English model, or
simplemma's dictionary for the language's code (German; the ``de`` extra).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache

from samsa.aligners.annotate import Annotator
from samsa.aligners.base import Alignment
from samsa.aligners.exact import ExactAligner, alignable
from samsa.errors import ConfigError, PluginUnavailable
from samsa.languages import DEFAULT_LANGUAGE

__all__ = ["LemmaAligner", "make", "simplemma_lemmas"]


class LemmaAligner:
    """Pass 1: :class:`~samsa.aligners.exact.ExactAligner`. Pass 2: each still unaligned source
    token, left to right, takes the leftmost unused target token with the same
    lower-cased lemma ("died" ~ "dies", "men" ~ "man"). Tokens are the caller's;
    spaCy only annotates them (cached per sentence)."""

    name = "lemma.v1"

    def __init__(
        self, *, model: str | None = None, annotator: Annotator | None = None, language: str = DEFAULT_LANGUAGE
    ) -> None:
        from samsa.languages import get_language

        self.language = language
        self.source = get_language(language).lemmas
        if self.source == "simplemma":
            simplemma_lemmas(["sein"], language)  # fail now, in one line naming the extra, when it is missing
        elif self.source != "spacy":
            raise ConfigError(f"no lemmas for {get_language(language).name}")
        self.annotator = annotator or (Annotator(model) if self.source == "spacy" else None)
        self._exact = ExactAligner()

    def _lemmas(self, source: Sequence[str], target: Sequence[str]) -> tuple[list[str], list[str]]:
        """Lower-cased lemmas of both token lists, position for position."""
        if self.source == "simplemma":
            return simplemma_lemmas(source, self.language), simplemma_lemmas(target, self.language)
        assert self.annotator is not None
        s, t = self.annotator.annotate_many([source, target])
        return [x.lower() for x in s.lemmas[1:]], [x.lower() for x in t.lemmas[1:]]

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        pairs = self._exact.align(source, target)
        used_s = {i for i, _ in pairs}
        used_t = {j for _, j in pairs}
        s_lemmas, t_lemmas = self._lemmas(source, target)
        free: dict[str, list[int]] = defaultdict(list)
        for j in range(len(target) - 1, -1, -1):
            if j not in used_t and alignable(target[j]):
                free[t_lemmas[j]].append(j)
        for i, tok in enumerate(source):
            if i in used_s or not alignable(tok):
                continue
            slots = free.get(s_lemmas[i])
            if slots:
                pairs.append((i, slots.pop()))
        return sorted(pairs)

    def prepare(self, sentences: Sequence[Sequence[str]]) -> None:
        """Annotate many token lists in one spaCy batch (later alignments hit the cache)."""
        if self.annotator is not None:
            self.annotator.annotate_many(sentences)

    def align_batch(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[Alignment]:
        self.prepare([x for p in pairs for x in p])
        return [self.align(s, t) for s, t in pairs]

    def signature(self) -> str:
        return self.name if self.source == "spacy" else f"{self.name}+{self.language}.{self.source}"


@lru_cache(maxsize=1 << 16)
def _simplemma_lemma(token: str, language: str) -> str:
    try:
        import simplemma
    except ImportError:
        from samsa.languages import get_language

        raise PluginUnavailable(
            f'{get_language(language).name} lemmas need the simplemma package: pip install "samsa-metric[{language}]"'
        ) from None
    return str(simplemma.lemmatize(token, lang=language)).lower()


def simplemma_lemmas(tokens: Sequence[str], language: str) -> list[str]:
    """Lower-cased lemmas of tokens from simplemma's dictionary and rules for ``language`` (an ISO code)."""
    return [_simplemma_lemma(t, language) for t in tokens]


def make(*, model: str | None = None, language: str = DEFAULT_LANGUAGE) -> LemmaAligner:
    """Registry factory (``language``: an ISO code; its lemmas come from where ``samsa.languages`` says)."""
    return LemmaAligner(model=model, language=language)
