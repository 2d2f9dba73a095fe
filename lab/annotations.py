"""spaCy's annotations of the training corpora, computed once and cached (training only).

The parser reads spaCy's tag and dependency label of every token and, unless a
model was trained without them, its ``tok2vec`` vector (``features.py``).
Training computes them here once per corpus and keeps them in the feature-cache
folder, so that later runs, and a machine without spaCy (a GPU machine the
corpora and the cache were copied to, ``lab/pack.py``), read them back.
Inference never uses this module: it annotates with ``features.featurize``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from samsa.parsers.builtin.features import UNK, Featurized, Vocab, doc_vectors

__all__ = ["Annotations", "annotate", "to_features"]

#: changes whenever what is cached changes
_VERSION = "spacy-annotations-1"


@dataclass
class Annotations:
    """Per sentence: tag and dependency ids into ``tag_labels`` / ``dep_labels`` and (optionally) tok2vec."""

    tags: list[np.ndarray]
    deps: list[np.ndarray]
    vectors: list[np.ndarray] | None
    tag_labels: list[str]  # the pipeline's tagger labels, then any other tag seen
    dep_labels: list[str]  # the parser's labels and "ROOT", then any other label seen
    model: str  # spacy_model_id of the pipeline that made them
    pipeline_tags: int  # how many of tag_labels are the tagger's (the vocabulary's tag table)
    pipeline_deps: int  # how many of dep_labels are the parser's + "ROOT"


def _key(sentences: Sequence[Sequence[str]], vectors: bool) -> str:
    return hashlib.sha256(json.dumps([_VERSION, [list(s) for s in sentences], vectors]).encode()).hexdigest()[:24]


def annotate(sentences: Sequence[Sequence[str]], cache_dir: Path | None, *, vectors: bool = True) -> Annotations:
    """spaCy's annotations of token lists (kept as given), from ``cache_dir`` when computed before.

    A cached file is used when spaCy cannot be imported (a training machine
    without it) or when it was made by the pipeline spaCy would load now.
    """
    path = cache_dir / f"spacy-{_key(sentences, vectors)}.npz" if cache_dir else None
    current = _model_id()
    if path and path.is_file():
        cached = _read(path, len(sentences), vectors)
        if current is None or cached.model == current:
            return cached
    if current is None:
        raise SystemExit(f"spaCy is not installed and no cached annotations were found ({path}); see lab/pack.py")
    ann = _compute(sentences, vectors)
    if path:
        _write(path, ann)
    return ann


def _model_id() -> str | None:
    try:
        import spacy  # noqa: F401
    except ImportError:
        return None
    from samsa.aligners.annotate import spacy_model_id

    return spacy_model_id()


def _compute(sentences: Sequence[Sequence[str]], vectors: bool) -> Annotations:
    from spacy.tokens import Doc

    from samsa.aligners.annotate import load_spacy, spacy_model_id

    nlp = load_spacy()
    tag_labels = list(nlp.get_pipe("tagger").labels)
    dep_labels = [*nlp.get_pipe("parser").labels, "ROOT"]
    tables = (list(tag_labels), list(dep_labels))  # as the vocabulary lists them (the parser's include "ROOT")
    tag_id, dep_id = ({t: k for k, t in enumerate(table)} for table in tables)
    tags, deps, vecs = [], [], []
    for k, doc in enumerate(nlp.pipe((Doc(nlp.vocab, words=list(s)) for s in sentences), batch_size=256)):
        for t in doc:
            for label, ids, table in ((t.tag_, tag_id, tables[0]), (t.dep_, dep_id, tables[1])):
                if label not in ids:
                    ids[label] = len(table)
                    table.append(label)
        tags.append(np.array([tag_id[t.tag_] for t in doc], dtype=np.int16))
        deps.append(np.array([dep_id[t.dep_] for t in doc], dtype=np.int16))
        if vectors:
            vecs.append(doc_vectors(doc))
        if (k + 1) % 2000 == 0:
            print(f"spaCy annotations {k + 1}/{len(sentences)}", file=sys.stderr, flush=True)
    return Annotations(
        tags, deps, vecs if vectors else None, tables[0], tables[1], spacy_model_id(), len(tag_labels), len(dep_labels)
    )


def _write(path: Path, ann: Annotations) -> None:
    arrays = {
        "tags": np.concatenate(ann.tags),
        "deps": np.concatenate(ann.deps),
        "lengths": np.array([len(t) for t in ann.tags], dtype=np.int64),
    }
    if ann.vectors is not None:
        arrays["vectors"] = np.concatenate(ann.vectors)
    header = {
        "tag_labels": ann.tag_labels,
        "dep_labels": ann.dep_labels,
        "model": ann.model,
        "pipeline_tags": ann.pipeline_tags,
        "pipeline_deps": ann.pipeline_deps,
    }
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle
    tmp.replace(path)


def _read(path: Path, n: int, vectors: bool) -> Annotations:
    with np.load(path, allow_pickle=False) as z:
        header = json.loads(z["header"].tobytes().decode("utf-8"))
        cuts = np.cumsum(z["lengths"])[:-1]
        if len(z["lengths"]) != n:
            raise SystemExit(f"{path}: cached annotations of {len(z['lengths'])} sentences, expected {n}")
        tags, deps = np.split(z["tags"], cuts), np.split(z["deps"], cuts)
        vecs = np.split(z["vectors"], cuts) if vectors else None
    return Annotations(
        tags,
        deps,
        vecs,
        header["tag_labels"],
        header["dep_labels"],
        header["model"],
        header["pipeline_tags"],
        header["pipeline_deps"],
    )


def to_features(vocab: Vocab, sentences: Sequence[Sequence[str]], ann: Annotations) -> list[Featurized]:
    """What ``features.featurize`` gives for the same sentences (vectors (n, 0) when not annotated)."""
    unk = vocab.word_id[UNK]
    tag_map = np.array([vocab.tag_id.get(t, 1) for t in ann.tag_labels], dtype=np.int64)
    dep_map = np.array([vocab.dep_id.get(t, 1) for t in ann.dep_labels], dtype=np.int64)
    out = []
    for k, words in enumerate(sentences):
        vec = ann.vectors[k] if ann.vectors is not None else np.zeros((len(words), 0), dtype=np.float32)
        out.append(
            Featurized(
                np.array([vocab.word_id.get(w.lower(), unk) for w in words], dtype=np.int64),
                tag_map[ann.tags[k]],
                dep_map[ann.deps[k]],
                vec,
            )
        )
    return out
