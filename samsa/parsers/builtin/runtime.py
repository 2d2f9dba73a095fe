"""The parser network at inference time, in numpy: embeddings, a 2-layer BiLSTM and two MLPs. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from samsa.parsers.builtin.blocks import REMOTE_BLOCK, SPAN_WHOLE, row_blocks
from samsa.parsers.builtin.features import Featurized, Vocab

__all__ = [
    "FORMATS",
    "LstmLayer",
    "NumpySpanNet",
    "SpanRows",
    "batch_span_log_probs",
    "load_net",
    "load_state",
    "load_weights",
    "read_header",
    "span_rows",
    "weights_digest",
]

#: v1: no remote-edge classifier; v2: remote edges; v3: frozen encoder features and a guideline-style input;
#: v4: the encoder's layers fine-tuned with the parser (stored under ``encoder.``)
FORMATS = ("samsa-ucca-span-v1", "samsa-ucca-span-v2", "samsa-ucca-span-v3", "samsa-ucca-span-v4")
META_KEY = "meta.json"


def log_softmax(x: np.ndarray) -> np.ndarray:
    """Numerically stable log-softmax over the last axis (the order of operations of torch's)."""
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dataclass
class SpanRows:
    """The spans i < j of a batch's sentences, one row each: sentence by sentence, each in
    ``np.triu_indices(n + 1, 1)`` order; ``log_probs`` (rows, L) once a network has scored them."""

    sentence: np.ndarray
    start: np.ndarray
    end: np.ndarray
    log_probs: np.ndarray | None = None


class LstmLayer(NamedTuple):
    """One BiLSTM layer's weights, both directions stacked on a leading axis of 2, the three sigmoid gates
    (i, f, o) apart from the cell input (g): each step's gate arithmetic then runs over contiguous arrays
    (numpy's ``exp`` over a strided block of columns ran a quarter slower than over the whole)."""

    w_ih_sigmoid: np.ndarray  # (2, in, 3H)
    w_ih_cell: np.ndarray  # (2, in, H)
    w_hh_sigmoid: np.ndarray  # (2, H, 3H)
    w_hh_cell: np.ndarray  # (2, H, H)
    bias_sigmoid: np.ndarray  # (2, 1, 3H)
    bias_cell: np.ndarray  # (2, 1, H)


def span_rows(lengths: Sequence[int]) -> SpanRows:
    """Every span of sentences of ``lengths`` tokens, as :class:`SpanRows`."""
    parts = [(np.full(n * (n + 1) // 2, b), *np.triu_indices(n + 1, 1)) for b, n in enumerate(lengths)]
    return SpanRows(*(np.concatenate(col) for col in zip(*parts, strict=True)))


def span_row(n: int, i: int, j: int) -> int:
    """Row of the span (i, j) among a sentence's ``np.triu_indices(n + 1, 1)`` rows (:func:`span_rows` order)."""
    return i * n - i * (i - 1) // 2 + (j - i - 1)


def batch_span_log_probs(net: Any, fence: np.ndarray, lengths: Sequence[int]) -> SpanRows:
    """``net.span_log_probs`` of every sentence of a batch as one :class:`SpanRows` (the decoder then picks labels
    and fills its charts for the whole batch at once); ``net``: this module's network or any with that method.

    The MLP itself runs sentence by sentence (over a whole batch's spans its
    temporaries leave the CPU cache), and a long sentence's spans in blocks of
    ``blocks.SPAN_BLOCK`` rows (its memory then grows with its spans' log-probabilities alone) when it has more than
    ``blocks.SPAN_WHOLE``.
    """
    rows = span_rows(lengths)
    out: np.ndarray | None = None
    at = 0
    for b, n in enumerate(lengths):
        m = n * (n + 1) // 2
        for block in [None] if m <= SPAN_WHOLE else row_blocks(m):
            piece = net.span_log_probs(fence, b, n, block)
            if out is None:
                out = np.empty((len(rows.start), piece.shape[1]), dtype=piece.dtype)
            out[at : at + len(piece)] = piece
            at += len(piece)
    rows.log_probs = out
    return rows


class NumpySpanNet:
    """Inference-only twin of ``SpanModel`` over a ``{state_dict name: float32 array}`` mapping."""

    def __init__(self, state: Mapping[str, np.ndarray], config: Mapping[str, Any]) -> None:
        # a fine-tuned encoder's layers (``encoder.*``) are the encoder's business (``MiniLM(overrides=...)``)
        self.s = {
            k: np.ascontiguousarray(v, dtype=np.float32) for k, v in state.items() if not k.startswith("encoder.")
        }
        self.config = dict(config)
        self.hidden = int(config["hidden"])
        self.vectors = bool(config.get("vectors", True))
        self.has_remote = "remote.0.weight" in self.s
        self.encoder_layers = list(config.get("encoder_layers", ()))
        if self.encoder_layers:
            mix = np.exp(self.s["mix"] - self.s["mix"].max())
            self.mix = (mix / mix.sum() * self.s["mix_gamma"][0]).astype(np.float32)
        self.styles = int(config.get("styles", 0))
        self.subword = self.s.get("subword.weight")  # words-only networks (subwords.py): n-gram embeddings
        # both directions of a layer run in one loop: weights stacked on a leading axis of 2
        self.layers = [self._layer(k) for k in range(2)]
        first = self.s["classify.0.weight"]
        self.first_fwd = np.ascontiguousarray(first[:, : self.hidden].T)
        self.first_bwd = np.ascontiguousarray(first[:, self.hidden :].T)

    def _layer(self, k: int) -> LstmLayer:
        """BiLSTM layer ``k``'s weights, both directions stacked, split from torch's gate order (i, f, g, o)
        into the three sigmoid gates (i, f, o) and the cell input g."""
        hid = self.hidden
        parts = (np.r_[0 : 2 * hid, 3 * hid : 4 * hid], np.r_[2 * hid : 3 * hid])

        def stacked(name: str) -> np.ndarray:  # (2, in, 4H) or (2, 1, 4H)
            both = [self.s[f"lstm.{name}_l{k}{d}"] for d in ("", "_reverse")]
            return np.stack([w.T for w in both]) if both[0].ndim == 2 else np.stack(both)[:, None, :]

        w_ih, w_hh, bias = stacked("weight_ih"), stacked("weight_hh"), stacked("bias_ih") + stacked("bias_hh")
        return LstmLayer(*(np.ascontiguousarray(w[..., cols]) for w in (w_ih, w_hh, bias) for cols in parts))

    def _inputs(self, batch: Sequence[Featurized]) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.array([len(f.words) + 2 for f in batch])
        width = int(lengths.max())
        boundary = self.s["boundary"]
        x = np.zeros((len(batch), width, boundary.shape[1]), dtype=np.float32)
        for b, f in enumerate(batch):
            n = len(f.words)
            x[b, 0] = boundary[0]
            parts = [self.s["word.weight"][f.words], self.s["tag.weight"][f.tags], self.s["dep.weight"][f.deps]]
            if self.vectors:
                parts.append(f.vectors)
            if self.subword is not None:
                parts.append(self._subword_means(f))
            if self.encoder_layers:
                if f.encoded is None:
                    raise ValueError("this model reads encoder features: featurize(..., encoder=MiniLM())")
                parts.append(np.tensordot(self.mix, np.asarray(f.encoded[self.encoder_layers], np.float32), axes=1))
            if self.styles:
                parts.append(np.broadcast_to(self.s["style.weight"][f.style], (n, self.s["style.weight"].shape[1])))
            x[b, 1 : n + 1] = np.concatenate(parts, axis=-1)
            x[b, n + 1] = boundary[1]
        return x, lengths

    def _subword_means(self, f: Featurized) -> np.ndarray:
        """The mean of each word's n-gram embeddings (torch's ``EmbeddingBag(mode="mean", padding_idx=0)``)."""
        if f.subwords is None:
            raise ValueError("this model reads subword ids: subwords.featurize_words(...)")
        assert self.subword is not None
        kept = (f.subwords > 0).astype(np.float32)
        sums = np.einsum("nk,nkd->nd", kept, self.subword[f.subwords])
        return sums / np.maximum(kept.sum(axis=1, keepdims=True), 1.0)

    def _bilstm_layer(self, x: np.ndarray, rev: np.ndarray, active: np.ndarray, layer: int) -> np.ndarray:
        """One bidirectional layer over padded ``x`` (B, T, D) -> (B, T, 2H), rows longest first.

        The backward direction reads each sentence reversed within its own
        length (``rev``), so padding never reaches a real position: the same
        result as PyTorch's packed sequences. Both directions run in one loop
        (weights stacked on a leading axis), time-major, with in-place gate
        arithmetic: the loop is the runtime's hot spot. As in a packed
        sequence, step ``t`` computes only the ``active[t]`` rows still inside
        their sentence (a prefix: rows come longest first); padded positions
        stay 0, and nothing real reads them.
        """
        w = self.layers[layer]
        bsz, width, _ = x.shape
        hid = self.hidden
        rows = np.arange(bsz)[:, None]
        both = np.stack([x, x[rows, rev]]).transpose(0, 2, 1, 3)  # (2, T, B, D), time-major
        both = np.ascontiguousarray(both).reshape(2, width * bsz, -1)
        sig_x = (both @ w.w_ih_sigmoid + w.bias_sigmoid).reshape(2, width, bsz, -1)
        cell_x = (both @ w.w_ih_cell + w.bias_cell).reshape(2, width, bsz, -1)
        h = np.zeros((2, bsz, hid), dtype=np.float32)
        c = np.zeros_like(h)
        sig_all = np.empty((2, bsz, 3 * hid), dtype=np.float32)
        cell_all = np.empty_like(h)
        out = np.zeros((2, width, bsz, hid), dtype=np.float32)
        for t in range(width):
            k = active[t]
            sig, cell, hk, ck = sig_all[:, :k], cell_all[:, :k], h[:, :k], c[:, :k]
            np.matmul(hk, w.w_hh_sigmoid, out=sig)
            sig += sig_x[:, t, :k]
            np.matmul(hk, w.w_hh_cell, out=cell)
            cell += cell_x[:, t, :k]
            np.tanh(cell, out=cell)  # g
            np.negative(sig, out=sig)  # i, f, o: the sigmoid in place
            np.exp(sig, out=sig)
            sig += 1.0
            np.reciprocal(sig, out=sig)
            ck *= sig[..., hid : 2 * hid]  # f * c
            cell *= sig[..., :hid]  # i * g
            ck += cell
            np.tanh(ck, out=hk)
            hk *= sig[..., 2 * hid :]  # o * tanh(c)
            out[:, t, :k] = hk
        fwd = out[0].transpose(1, 0, 2)
        bwd = out[1].transpose(1, 0, 2)[rows, rev]
        return np.concatenate([fwd, bwd], axis=-1)

    def encode(self, batch: Sequence[Featurized]) -> tuple[np.ndarray, list[int]]:
        """Fencepost features (B, n+1, 2H) for a batch of sentences, as ``SpanModel.encode``."""
        x, lengths = self._inputs(batch)
        longest_first = np.argsort(-lengths, kind="stable")
        x, sorted_lengths = x[longest_first], lengths[longest_first]
        width = x.shape[1]
        t = np.arange(width)[None, :]
        rev = np.where(t < sorted_lengths[:, None], sorted_lengths[:, None] - 1 - t, t)
        active = (sorted_lengths[None, :] > t.T).sum(axis=1)  # rows still inside their sentence at each step
        for layer in range(2):
            x = self._bilstm_layer(x, rev, active, layer)
        x = x[np.argsort(longest_first)]
        fwd, bwd = x[..., : self.hidden], x[..., self.hidden :]
        fence = np.concatenate([fwd[:, :-1], bwd[:, 1:]], axis=-1)
        return fence, [int(n) - 2 for n in lengths]

    def span_logits(self, fence: np.ndarray, b: int, n: int, rows: slice | None = None) -> np.ndarray:
        """Label logits (m, L) of the spans (i, j), i < j, of sentence ``b``, in ``np.triu_indices(n + 1, 1)`` order
        (``rows``: only those rows of that order).

        The MLP's first layer is linear in the fenceposts, so it is applied to
        the n+1 states: a span's input ``[fwd[j] - fwd[i], bwd[i] - bwd[j]]``
        projects to ``q[j] - q[i]`` with ``q = fwd @ W_fwd - bwd @ W_bwd``, one
        difference per span instead of three (float32 sums in another order than
        torch's; ``benchmarks/runtime_parity.py`` holds them to its tolerance).
        """
        f = fence[b, : n + 1]
        i, j = np.triu_indices(n + 1, 1)
        if rows is not None:
            i, j = i[rows], j[rows]
        q = f[:, : self.hidden] @ self.first_fwd
        q -= f[:, self.hidden :] @ self.first_bwd
        hidden = q[j]
        hidden -= q[i]
        hidden += self.s["classify.0.bias"]
        np.maximum(hidden, 0, out=hidden)
        return hidden @ self.s["classify.3.weight"].T + self.s["classify.3.bias"]

    def span_log_probs(self, fence: np.ndarray, b: int, n: int, rows: slice | None = None) -> np.ndarray:
        """Label log-probabilities (m, L) of the spans i < j (``span_logits``' order, ``rows`` of it): what the
        decoder reads."""
        return log_softmax(self.span_logits(fence, b, n, rows))

    def span_vectors(self, fence: np.ndarray, b: int, spans: np.ndarray) -> np.ndarray:
        f = fence[b]
        fwd, bwd = f[:, : self.hidden], f[:, self.hidden :]
        i, j = spans[:, 0], spans[:, 1]
        return np.concatenate([fwd[j] - fwd[i], bwd[i] - bwd[j]], axis=-1)

    def remote_logits(
        self, fence: np.ndarray, b: int, scenes: np.ndarray, units: np.ndarray, buckets: np.ndarray
    ) -> np.ndarray:
        """Remote-category logits (m, R) of (scene span, unit span) pairs of sentence ``b``, in blocks of
        ``blocks.REMOTE_BLOCK`` pairs."""
        out = [
            self._remote_block(fence, b, scenes[k], units[k], buckets[k]) for k in row_blocks(len(scenes), REMOTE_BLOCK)
        ]
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _remote_block(
        self, fence: np.ndarray, b: int, scenes: np.ndarray, units: np.ndarray, buckets: np.ndarray
    ) -> np.ndarray:
        x = np.concatenate(
            [self.span_vectors(fence, b, scenes), self.span_vectors(fence, b, units), self.s["bucket.weight"][buckets]],
            axis=-1,
        )
        h = np.maximum(x @ self.s["remote.0.weight"].T + self.s["remote.0.bias"], 0)
        return h @ self.s["remote.3.weight"].T + self.s["remote.3.bias"]


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A weights file's header (format, vocabulary, network sizes, training record) without its tensors:
    what a parser needs to know before its first parse (a warm parse cache never needs the tensors).
    Raises ValueError when it is not one."""
    with np.load(path, allow_pickle=False) as z:
        if META_KEY not in z.files:
            raise ValueError(f"{path} has no {META_KEY}: not a samsa span-parser weights file")
        header = json.loads(z[META_KEY].tobytes().decode("utf-8"))
    if header.get("format") not in FORMATS:
        raise ValueError(f"{path} is not a samsa span-parser weights file (format {header.get('format')!r})")
    return header


def load_net(path: str | os.PathLike[str], header: Mapping[str, Any]) -> Any:
    """The network of a weights file whose header is ``header`` (an :class:`EnsembleNet` for several)."""
    members = header["config"].get("members")
    if members:
        from samsa.parsers.builtin.ensemble import EnsembleNet

        return EnsembleNet.from_state(load_state(path), members, NumpySpanNet)
    return NumpySpanNet(load_state(path), header["config"])


def load_state(path: str | os.PathLike[str], prefix: str = "") -> dict[str, np.ndarray]:
    """A weights file's tensors (float32) whose names start with ``prefix`` (``encoder.``: a v4 file's
    fine-tuned encoder layers)."""
    with np.load(path, allow_pickle=False) as z:
        return {k[len("state/") :]: z[k].astype(np.float32) for k in z.files if k.startswith("state/" + prefix)}


def load_weights(path: str | os.PathLike[str]) -> tuple[Vocab, NumpySpanNet, dict[str, Any]]:
    """Read a weights file: (vocabulary, network, training record). Raises ValueError when it is not one."""
    header = read_header(path)
    return Vocab(**header["vocab"]), load_net(path, header), header["meta"]


def weights_digest(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a weights file (part of the parse-cache key: new weights never reuse old parses)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
