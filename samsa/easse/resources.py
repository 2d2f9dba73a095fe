"""``easse.utils.resources``: test sets by name, read from the data root (no data ships with samsa)."""

from samsa.testsets import available_test_sets, get_orig_sents, get_refs_sents

__all__ = ["available_test_sets", "get_orig_sents", "get_refs_sents"]
