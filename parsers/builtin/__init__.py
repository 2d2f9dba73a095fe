"""The ``builtin`` parser: a span-based UCCA parser trained by ``parsers/train.py``, CPU-only.

The weights ship inside the package (``parsers/builtin/weights/ucca-span-v1.pt``,
float16); the file records the training command, data hashes and dev scores.
Needs PyTorch (``pip install torch==2.13.0``, the CPU build) and spaCy with an
English model. Remote edges and implicit units are not predicted (see
docs/parser.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import networkx as nx

from samsa.errors import PluginUnavailable
from samsa.graph import new_passage

__all__ = ["DEFAULT_WEIGHTS", "BuiltinParser", "make"]

DEFAULT_WEIGHTS = "ucca-span-v1.pt"


class BuiltinParser:
    """Parse sentences (strings or token lists) into UCCA graphs.

    Strings are tokenized with spaCy's English tokenizer; token lists are kept
    token for token (``samsa parse --tokenizer none``).
    """

    name = "builtin.v1"

    def __init__(
        self, *, weights: str | Path | None = None, model: str | None = None, batch_size: int = 64, threads: int = 0
    ) -> None:
        try:
            import torch
        except ImportError as e:
            raise PluginUnavailable("the built-in parser needs PyTorch: pip install torch==2.13.0") from e
        from parsers.builtin.model import SpanModel, Vocab

        if threads:
            torch.set_num_threads(threads)
        path = Path(weights) if weights else Path(str(resources.files("parsers.builtin") / "weights" / DEFAULT_WEIGHTS))
        if not path.is_file():
            raise PluginUnavailable(f"parser weights not found at {path}")
        blob = torch.load(path, map_location="cpu", weights_only=True)  # no pickled code from a weights file
        if blob.get("format") != "samsa-ucca-span-v1":
            raise PluginUnavailable(f"{path} is not a samsa span-parser weights file")
        self.vocab = Vocab(**blob["vocab"])
        self.net = SpanModel(self.vocab, **blob["config"])
        self.net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in blob["state"].items()})
        self.net.eval()
        self.meta = blob["meta"]
        self.weights = path
        self.batch_size = batch_size
        self._model_name = model

    @cached_property
    def nlp(self) -> Any:
        from aligners.annotate import load_spacy

        return load_spacy(self._model_name)

    def tokenize(self, sentence: str) -> list[str]:
        return [t.text for t in self.nlp.tokenizer(sentence) if not t.is_space]

    def parse(self, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph]:
        import torch

        from parsers.builtin.model import featurize
        from parsers.builtin.parse import decode_batch

        tokens = [self.tokenize(s) if isinstance(s, str) else list(s) for s in sentences]
        out: list[nx.DiGraph] = []
        # not needed by the parser; checked not to change tags, dependencies or vectors (docs/parser.md)
        unused = [p for p in ("ner", "lemmatizer", "attribute_ruler") if p in self.nlp.pipe_names]
        with torch.no_grad(), self.nlp.select_pipes(disable=unused):
            for b in range(0, len(tokens), self.batch_size):
                chunk = tokens[b : b + self.batch_size]
                nonempty = [t for t in chunk if t]
                graphs = iter(decode_batch(self.net, self.vocab, featurize(self.nlp, self.vocab, nonempty), nonempty))
                for k, t in enumerate(chunk):
                    g = next(graphs) if t else new_passage()
                    g.graph["passage_id"] = str(b + k + 1)
                    out.append(g)
        return out

    def signature(self) -> str:
        return self.name


def make(*, weights: str | None = None, model: str | None = None) -> BuiltinParser:
    """Registry factory."""
    return BuiltinParser(weights=weights, model=model)
