"""The ``builtin`` parser: a span-based UCCA parser trained by ``parsers/train.py``, CPU-only.

The weights ship inside the package (``parsers/builtin/weights/ucca-span-v2.pt``,
float16); the file records the training command, data hashes and dev scores.
Needs PyTorch (``pip install torch==2.13.0``, the CPU build) and spaCy with an
English model. Primary units and remote edges are predicted; implicit units
are not (see docs/parser.md).
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

DEFAULT_WEIGHTS = "ucca-span-v2.pt"
FORMATS = ("samsa-ucca-span-v1", "samsa-ucca-span-v2")  # v1: no remote-edge classifier


class BuiltinParser:
    """Parse sentences (strings or token lists) into UCCA graphs.

    Strings are tokenized with spaCy's English tokenizer; token lists are kept
    token for token (``samsa parse --tokenizer none``).
    """

    name = "builtin.v1"

    def __init__(
        self,
        *,
        weights: str | Path | None = None,
        model: str | None = None,
        batch_size: int = 64,
        threads: int = 0,
        scene_bias: float | None = None,
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
        if blob.get("format") not in FORMATS:
            raise PluginUnavailable(f"{path} is not a samsa span-parser weights file")
        self.vocab = Vocab(**blob["vocab"])
        self.net = SpanModel(self.vocab, **blob["config"])
        self.net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in blob["state"].items()})
        self.net.eval()
        self.meta = blob["meta"]
        # off by default (it costs 0.5-0.7 labeled F1); parsers/calibrate.py stores the dev-calibrated value in
        # meta["decode"]["scene_bias"], which makes the parser find about as many Scenes as the annotators
        self.scene_bias = 0.0 if scene_bias is None else scene_bias
        self.calibrated_scene_bias = float(self.meta.get("decode", {}).get("scene_bias", 0.0))
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
                feats = featurize(self.nlp, self.vocab, nonempty)
                graphs = iter(decode_batch(self.net, self.vocab, feats, nonempty, scene_bias=self.scene_bias))
                for k, t in enumerate(chunk):
                    g = next(graphs) if t else new_passage()
                    g.graph["passage_id"] = str(b + k + 1)
                    out.append(g)
        return out

    def signature(self) -> str:
        """Parser, weights file and decoding bias: enough to say which parse a SAMSA number used."""
        bias = f"+scene_bias.{self.scene_bias:g}" if self.scene_bias else ""
        return f"{self.name}+{self.weights.stem}{bias}"


def make(*, weights: str | None = None, model: str | None = None, scene_bias: float | None = None) -> BuiltinParser:
    """Registry factory (``scene_bias``: see ``BuiltinParser.calibrated_scene_bias``; off by default)."""
    return BuiltinParser(weights=weights, model=model, scene_bias=scene_bias)
