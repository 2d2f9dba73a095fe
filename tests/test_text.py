"""Output sentence splitting and tokenization."""

import pytest

from samsa.text import split_output, split_sentences, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("John got home . He called Mary .", ["John got home .", "He called Mary ."]),
        ("john got home . he called mary .", ["john got home .", "he called mary ."]),  # tokenized, lowercased
        ("Dr. Smith left. He was tired.", ["Dr. Smith left.", "He was tired."]),
        ("The U.S. Army left. It rained!", ["The U.S. Army left.", "It rained!"]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("J. R. R. Tolkien wrote it.", ["J. R. R. Tolkien wrote it."]),
        ("It cost 3.5 dollars. 42 people paid.", ["It cost 3.5 dollars.", "42 people paid."]),
        ("no final mark", ["no final mark"]),
        ("", []),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_split_output_with_separator_drops_empty_pieces():
    assert split_output("a b . <::::> c d . <::::> ", separator="<::::>", tokenizer="none") == [
        ["a", "b", "."],
        ["c", "d", "."],
    ]
    assert split_output("   ", tokenizer="none") == []


def test_tokenizers():
    assert tokenize("Don't stop, John!", "wordpunct") == ["Don", "'", "t", "stop", ",", "John", "!"]
    assert tokenize("Don't stop , John !", "none") == ["Don't", "stop", ",", "John", "!"]
    with pytest.raises(ValueError, match="unknown tokenizer 'x'"):
        tokenize("a", "x")


def test_splitter_v2_keeps_closing_quotes_with_their_sentence():
    from samsa.text import split_sentences

    line = "he was a famous sportsman . '' he died in 1900 . ) and"
    assert split_sentences(line) == ["he was a famous sportsman . ''", "he died in 1900 . )", "and"]
    assert split_sentences(line, "rule.v1") == ["he was a famous sportsman .", "'' he died in 1900 .", ") and"]
    # like Punkt's realignment: only one token of closers moves back
    assert split_sentences('it ended . " ) then') == ['it ended . "', ") then"]


def test_fkgl_sentence_counts_match_easse_on_turkcorpus(data_dir):
    """Hybrid (tokenized, lowercased) FKGL as published with EASSE (Alva-Manchego et al. 2020): 5.1218;
    the older splitter (one-token sentences of closing quotes) gives 5.1081."""
    from samsa.lexical import corpus_fkgl

    path = data_dir / "easse" / "system_outputs" / "turkcorpus" / "test" / "tok.low" / "Hybrid.tok.low"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert round(corpus_fkgl(lines), 4) == 5.1218
    assert round(corpus_fkgl(lines, splitter="rule.v1"), 4) == 5.1081


def _boundaries_token_by_token(toks, closers):
    """The splitter's boundary rule applied to every token in turn (how it was written before it learned to
    skip tokens that cannot end a sentence): the reference the faster scan must equal."""
    from samsa.text import _CLOSERS, _is_boundary

    ends, i = [], 0
    while i < len(toks):
        if _is_boundary(toks[i], toks[i + 1] if i + 1 < len(toks) else None):
            if closers and i + 1 < len(toks) and _CLOSERS.fullmatch(toks[i + 1]):
                i += 1
            ends.append(i)
        i += 1
    return ends


@pytest.mark.parametrize("closers", [False, True])
def test_boundary_scan_equals_the_token_by_token_rule(closers):
    import random

    from samsa.text import _boundaries

    # marks, closers right after marks, abbreviations, initials, openers and capitals: every branch of the rule
    vocab = [".", "!", "?", "''", '"', ")", "]", "'", "”", "».", "Dr.", "U.S.", "J.", "end.", "end.''", "(",
             "“Hi", "He", "he", "42", "x", "Stop!", ".)", "?'"]  # fmt: skip
    rng = random.Random(7)
    for _ in range(3000):
        toks = [rng.choice(vocab) for _ in range(rng.randint(0, 12))]
        assert _boundaries(toks, closers) == _boundaries_token_by_token(toks, closers), toks
