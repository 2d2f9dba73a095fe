"""The public UCCA corpora the built-in parser is trained on (torch-free: read also where PyTorch is absent)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from samsa.fileio import data_hash
from samsa.ucca.xml import list_passage_files, load_passage

__all__ = ["CORPORA", "DEV", "TRAIN", "data_hash", "dev_limit", "load", "styles_of"]

#: under the data root: Wiki and EWT, as in docs/parser.md
TRAIN = ("ucca/wiki/train", "ucca/ewt/train")
DEV = ("ucca/wiki/dev", "ucca/ewt/dev")
#: (training folders, dev folders) by language: German-20K as SemEval-2019 split it
CORPORA = {"en": (TRAIN, DEV), "de": (("ucca/de20k/train",), ("ucca/de20k/dev",))}
#: the multilingual tier: English and German together (French-20K, with no licence, is never trained on)
CORPORA["multi"] = (CORPORA["en"][0] + CORPORA["de"][0], CORPORA["en"][1] + CORPORA["de"][1])


def load(dirs: list[Path], limit: int | None) -> tuple[list[Path], list[nx.DiGraph]]:
    """The passages of ``dirs`` in file order (the first ``limit`` only, for smoke runs)."""
    files = [f for d in dirs for f in list_passage_files(d)]
    if limit:
        files = files[:limit]
    return files, [load_passage(f) for f in files]


def dev_limit(limit: int | None) -> int | None:
    """How many dev passages a smoke run with ``limit`` training passages reads (all when ``limit`` is None)."""
    return limit and max(20, limit // 5)


def guideline_style(name: str) -> str:
    """The parser style of a gold set by its name (``ewt/dev``, ``ucca/fr20k/test``): EWT and French-20K follow the
    UCCA v2 guidelines (``ewt``), Wiki, 20K and German-20K v1 (``wiki``).

    >>> [guideline_style(n) for n in ("ewt/dev", "ucca/fr20k/test", "wiki/dev", "de20k/dev")]
    ['ewt', 'ewt', 'wiki', 'wiki']
    """
    return "ewt" if name.removeprefix("ucca/").startswith(("ewt", "fr20k")) else "wiki"


def styles_of(files: list[Path]) -> list[int]:
    """Guideline style per passage file (``features.STYLES``): EWT follows UCCA v2, Wiki (and 20K) v1."""
    from samsa.parsers.builtin.features import STYLES

    return [STYLES.index("ewt") if "ewt" in f.parts else STYLES.index("wiki") for f in files]
