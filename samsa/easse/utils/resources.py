"""``easse.utils.resources``: the same functions as :mod:`samsa.easse.resources`."""

from samsa.easse.resources import available_test_sets, get_orig_sents, get_refs_sents, get_system_outputs_dir

__all__ = ["available_test_sets", "get_orig_sents", "get_refs_sents", "get_system_outputs_dir"]
