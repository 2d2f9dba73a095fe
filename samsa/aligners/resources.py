"""Word lists and the PPDB synonym table used by the Sultan-style aligner.
More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from functools import lru_cache
from os import PathLike
from pathlib import Path

from samsa.errors import ConfigError, InputError

__all__ = ["EXTRA_STOP_LEMMAS", "PUNCTUATIONS", "STOPWORDS_127", "STOPWORDS_179", "load_ppdb", "stopwords"]

STOPWORDS_127: tuple[str, ...] = tuple(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves what which who whom this that these those am is
are was were be been being have has had having do does did doing a an the and but if or because as until
while of at by for with about against between into through during before after above below to from up
down in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don should now""".split()
)

STOPWORDS_179: tuple[str, ...] = STOPWORDS_127 + tuple(
    """you're you've you'll you'd she's it's that'll don't should've d ll m o re ve y ain aren aren't couldn
couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't
mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn
wouldn't""".split()
)

PUNCTUATIONS = frozenset(
    ["(", "-lrb-", ".", ",", "-", "?", "!", ";", "_", ":", "{", "}", "[", "/", "]", "...", '"', "'", ")", "-rrb-"]
)

#: Lemmas treated like stopwords in the last content-word and stopword stages.
EXTRA_STOP_LEMMAS = frozenset(["'s", "'d", "'ll"])


def stopwords(size: int = 179) -> frozenset[str]:
    """NLTK's English stopwords, the 179-word list (default) or the 2014 127-word list."""
    if size == 179:
        return frozenset(STOPWORDS_179)
    if size == 127:
        return frozenset(STOPWORDS_127)
    raise ConfigError(f"stopword list size must be 127 or 179, not {size}")


@lru_cache(maxsize=4)
def _load_ppdb(path: str) -> frozenset[tuple[str, str]]:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(p, None, f"cannot read the PPDB synonym file: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(p, line, "the PPDB synonym file is not UTF-8") from None
    pairs = set()
    for raw in text.split("\n"):
        parts = raw.split()
        if len(parts) == 2:  # the released file has a few lines of control characters: skipped
            pairs.add((parts[0].lower(), parts[1].lower()))
    if not pairs:
        raise InputError(p, None, "no 'word<TAB>word' pair found; is this a PPDB lexical synonym file?")
    return frozenset(pairs)


def load_ppdb(path: str | PathLike[str]) -> frozenset[tuple[str, str]]:
    """Read a PPDB lexical synonym file (``w1<TAB>w2`` per line) into a set of lower-cased pairs.

    Loaded once per path and process. The file used by the Sultan et al. aligner
    is ``ppdb-1.0-xxxl-lexical.extended.synonyms.uniquepairs`` (CC-BY 3.0).
    """
    return _load_ppdb(str(Path(path).resolve()))
