"""The ``builtin`` parser: a span-based UCCA parser trained by ``parsers/train.py``, CPU-only.

The weights ship inside the package (``parsers/builtin/weights/ucca-span-v2.npz``,
float16); the file records the training command, data hashes and dev scores.
Inference runs on numpy (``runtime.py``) and spaCy with an English model; PyTorch
is needed only to train (the ``train`` extra). Primary units and remote edges
are predicted; implicit units are not (see docs/parser.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import networkx as nx

from samsa.errors import PluginUnavailable
from samsa.graph import new_passage

__all__ = ["DEFAULT_WEIGHTS", "BuiltinParser", "make"]

DEFAULT_WEIGHTS = "ucca-span-v2.npz"
#: spaCy components the parser does not read (not loaded at all)
UNUSED_PIPES = ("ner", "lemmatizer", "attribute_ruler")


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
        threads: int = 1,
        scene_bias: float | None = None,
    ) -> None:
        from parsers.builtin.runtime import load_weights

        path = Path(weights) if weights else Path(str(resources.files("parsers.builtin") / "weights" / DEFAULT_WEIGHTS))
        if not path.is_file():
            raise PluginUnavailable(f"parser weights not found at {path}")
        try:
            self.vocab, self.net, self.meta = load_weights(path)
        except (ValueError, OSError, KeyError) as e:
            raise PluginUnavailable(f"{path}: cannot read parser weights ({e})") from None
        # off by default (it costs 0.5-0.7 labeled F1); parsers/calibrate.py stores the dev-calibrated value in
        # meta["decode"]["scene_bias"], which makes the parser find about as many Scenes as the annotators
        self.scene_bias = 0.0 if scene_bias is None else scene_bias
        self.calibrated_scene_bias = float(self.meta.get("decode", {}).get("scene_bias", 0.0))
        self.weights = path
        self.batch_size = batch_size
        self.threads = threads
        self._model_name = model
        self._digest: str | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for worker processes without the spaCy pipeline (each worker loads its own, once)."""
        state = dict(self.__dict__)
        state.pop("nlp", None)
        return state

    @cached_property
    def nlp(self) -> Any:
        from aligners.annotate import load_spacy

        # not needed by the parser; checked not to change tags, dependencies or vectors (docs/parser.md)
        return load_spacy(self._model_name, exclude=UNUSED_PIPES)

    def tokenize(self, sentence: str) -> list[str]:
        return [t.text for t in self.nlp.tokenizer(sentence) if not t.is_space]

    def parse(self, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph]:
        """One graph per sentence, in order; graph ``k`` gets passage ID ``k`` (1-based)."""
        from parsers.builtin.decode import decode_batch
        from parsers.builtin.features import featurize

        tokens = [self.tokenize(s) if isinstance(s, str) else list(s) for s in sentences]
        # batches of similar length: the BiLSTM then computes little padding
        order = sorted((k for k, t in enumerate(tokens) if t), key=lambda k: len(tokens[k]))
        out: list[nx.DiGraph | None] = [None] * len(tokens)
        unused = [p for p in UNUSED_PIPES if p in self.nlp.pipe_names]  # a pipeline handed in from outside
        with _blas_threads(self.threads), self.nlp.select_pipes(disable=unused):
            for idx in _batches(order, [len(t) for t in tokens], self.batch_size):
                batch = [tokens[k] for k in idx]
                feats = featurize(self.nlp, self.vocab, batch)
                graphs = decode_batch(self.net, self.vocab, feats, batch, batch=self.batch_size,
                                      scene_bias=self.scene_bias)  # fmt: skip
                for k, g in zip(idx, graphs, strict=True):
                    out[k] = g
        done = [new_passage() if g is None else g for g in out]
        for k, g in enumerate(done, 1):
            g.graph["passage_id"] = str(k)
        return done

    def signature(self) -> str:
        """Parser, weights file and decoding bias: enough to say which parse a SAMSA number used."""
        bias = f"+scene_bias.{self.scene_bias:g}" if self.scene_bias else ""
        return f"{self.name}+{self.weights.stem}{bias}"

    def cache_key(self) -> str:
        """The signature plus everything else that changes a parse: weights digest and spaCy model."""
        from aligners.annotate import spacy_model_id
        from parsers.builtin.runtime import weights_digest

        if self._digest is None:
            self._digest = weights_digest(self.weights)
        return f"{self.signature()}|sha256:{self._digest}|spacy:{spacy_model_id(self._model_name)}"


def _batches(order: list[int], lengths: list[int], size: int, budget: int = 2048) -> Iterator[list[int]]:
    """Cut length-sorted indices into batches of at most ``size`` sentences and ``budget`` padded tokens."""
    batch: list[int] = []
    for k in order:
        if batch and (len(batch) == size or (len(batch) + 1) * lengths[k] > budget):
            yield batch
            batch = []
        batch.append(k)
    if batch:
        yield batch


@contextmanager
def _blas_threads(n: int) -> Iterator[None]:
    """Limit numpy's BLAS to ``n`` threads (0: leave it): tiny matrices run slower on spinning threads."""
    if not n:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n, user_api="blas"):
        yield


def make(*, weights: str | None = None, model: str | None = None, scene_bias: float | None = None) -> BuiltinParser:
    """Registry factory (``scene_bias``: see ``BuiltinParser.calibrated_scene_bias``; off by default)."""
    return BuiltinParser(weights=weights, model=model, scene_bias=scene_bias)
