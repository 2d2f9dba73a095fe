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
