"""``easse.utils.resources``: test sets by name, read from the data root (no data ships with samsa)."""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from samsa.testsets import available_test_sets, data_root, get_orig_sents, get_refs_sents, get_test_set

__all__ = ["available_test_sets", "get_orig_sents", "get_refs_sents", "get_system_outputs_dir"]


def get_system_outputs_dir(test_set: str, data: str | PathLike[str] | None = None) -> Path:
    """Where the published system outputs of a test set lie: ``easse/system_outputs/<corpus>/<split>``."""
    corpus, split = get_test_set(test_set).name.split("_")[:2]
    return data_root(data).path / "easse" / "system_outputs" / corpus / split
