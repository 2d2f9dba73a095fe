"""``easse.utils.helpers``: the same functions as :mod:`samsa.easse.helpers`."""

from samsa.easse.helpers import collapse_split_sentences, read_lines, read_split_lines

__all__ = ["collapse_split_sentences", "read_lines", "read_split_lines"]
