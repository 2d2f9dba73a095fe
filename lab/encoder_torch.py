"""The MiniLM encoder in PyTorch, for fine-tuning it with the parser (training only; inference: ``encoder.py``).

v4 parsers fine-tune the encoder's transformer layers and keep its embeddings
frozen. The module computes what :class:`~samsa.parsers.builtin.encoder.MiniLM`
computes (post-LayerNorm BERT, exact GELU, each word the mean of its word
pieces at every layer), from the same package weights rounded to float16
(``precision="float16"`` there): a float16 copy of the package is all a
training machine needs, and inference then starts from the same numbers.
The fine-tuned layers are parameters named as in the package
(``layer.0.attention.self.query.weight`` ...); the embeddings are buffers that
are not saved (they come from the package at inference).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = ["TorchMiniLM"]

_LAYER_TENSORS = (
    "attention.self.query.weight",
    "attention.self.query.bias",
    "attention.self.key.weight",
    "attention.self.key.bias",
    "attention.self.value.weight",
    "attention.self.value.bias",
    "attention.output.dense.weight",
    "attention.output.dense.bias",
    "attention.output.LayerNorm.weight",
    "attention.output.LayerNorm.bias",
    "intermediate.dense.weight",
    "intermediate.dense.bias",
    "output.dense.weight",
    "output.dense.bias",
    "output.LayerNorm.weight",
    "output.LayerNorm.bias",
)
_EMBEDDINGS = (
    "word_embeddings.weight",
    "position_embeddings.weight",
    "token_type_embeddings.weight",
    "LayerNorm.weight",
    "LayerNorm.bias",
)


class TorchMiniLM(nn.Module):
    """Embeddings (frozen) + the first ``depth`` transformer layers (trainable) of all-MiniLM-L6-v2.

    ``weights``: the package's tensors without the ``bert.`` prefix (``MiniLM(...).w``, already rounded to
    float16 by ``precision="float16"``); ``heads`` and ``eps`` as in its config; ``marks``: the ids of
    ``[CLS]`` and ``[SEP]`` (:meth:`from_numpy` takes all of these from a ``MiniLM``).
    """

    def __init__(
        self, weights: Mapping[str, np.ndarray], depth: int, heads: int, eps: float, marks: tuple[int, int]
    ) -> None:
        super().__init__()
        self.depth, self.heads, self.eps, self.marks = depth, heads, eps, marks
        for name in _EMBEDDINGS:
            self.register_buffer(
                "emb_" + name.replace(".", "_"), torch.tensor(weights["embeddings." + name]), persistent=False
            )
        self.layer = nn.ModuleList()
        for k in range(depth):
            holder = nn.Module()
            for name in _LAYER_TENSORS:
                holder.register_parameter(
                    name.replace(".", "_"), nn.Parameter(torch.tensor(weights[f"encoder.layer.{k}.{name}"]))
                )
            self.layer.append(holder)
        self.dim = int(weights["embeddings.word_embeddings.weight"].shape[1])

    @classmethod
    def from_numpy(cls, encoder: Any) -> TorchMiniLM:
        """The trainable twin of a :class:`~samsa.parsers.builtin.encoder.MiniLM` (weights, depth, word pieces)."""
        return cls(encoder.w, encoder.layers_n, encoder.heads, encoder.eps, (encoder.tok.cls, encoder.tok.sep))

    def overrides(self) -> dict[str, np.ndarray]:
        """The trainable tensors under the package's names (``MiniLM(overrides=...)`` at inference)."""
        return {
            f"encoder.layer.{k}.{name}": getattr(layer, name.replace(".", "_")).detach().cpu().float().numpy()
            for k, layer in enumerate(self.layer)
            for name in _LAYER_TENSORS
        }

    def load_overrides(self, state: Mapping[str, np.ndarray]) -> None:
        """Set the trainable tensors from ``overrides()``-named arrays (continuing a v4 run)."""
        with torch.no_grad():
            for k, layer in enumerate(self.layer):
                for name in _LAYER_TENSORS:
                    getattr(layer, name.replace(".", "_")).copy_(torch.from_numpy(state[f"encoder.layer.{k}.{name}"]))

    def _norm(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return nn.functional.layer_norm(x, (self.dim,), w, b, self.eps)  # a constant shape: exports to ONNX

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> list[torch.Tensor]:
        """Hidden states [(B, T, D)] * (depth + 1) of padded word-piece ids (B, T) with a 0/1 float mask."""
        width = ids.shape[1]
        x = self.emb_word_embeddings_weight[ids] + self.emb_position_embeddings_weight[:width][None]
        x = self._norm(x + self.emb_token_type_embeddings_weight[0], self.emb_LayerNorm_weight, self.emb_LayerNorm_bias)
        states = [x]
        bsz, hd = ids.shape[0], self.dim // self.heads
        neg = ((1.0 - mask) * torch.finfo(torch.float32).min)[:, None, None, :]
        for layer in self.layer:
            p = {name: getattr(layer, name.replace(".", "_")) for name in _LAYER_TENSORS}

            def heads(t: torch.Tensor) -> torch.Tensor:
                return t.reshape(bsz, width, self.heads, hd).transpose(1, 2)

            q = heads(x @ p["attention.self.query.weight"].T + p["attention.self.query.bias"])
            k = heads(x @ p["attention.self.key.weight"].T + p["attention.self.key.bias"])
            v = heads(x @ p["attention.self.value.weight"].T + p["attention.self.value.bias"])
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + neg, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(bsz, width, self.dim)
            ctx = ctx @ p["attention.output.dense.weight"].T + p["attention.output.dense.bias"]
            x = self._norm(ctx + x, p["attention.output.LayerNorm.weight"], p["attention.output.LayerNorm.bias"])
            h = nn.functional.gelu(x @ p["intermediate.dense.weight"].T + p["intermediate.dense.bias"])
            h = h @ p["output.dense.weight"].T + p["output.dense.bias"]
            x = self._norm(h + x, p["output.LayerNorm.weight"], p["output.LayerNorm.bias"])
            states.append(x)
        return states

    def words(self, pieces: Sequence[tuple[Sequence[int], Sequence[int], int]]) -> list[torch.Tensor]:
        """Per sentence (depth + 1, n, D): each word's mean word-piece state at every layer.

        ``pieces``: per sentence (piece ids, word index of each piece, number of words), one window each (the
        training corpora have no sentence over 510 word pieces; ``MiniLM.windows`` says how to cut one).
        """
        device = self.emb_word_embeddings_weight.device
        width = max(len(ids) for ids, _, _ in pieces) + 2
        ids_t = torch.zeros((len(pieces), width), dtype=torch.long)
        mask = torch.zeros((len(pieces), width))
        for r, (ids, _, _) in enumerate(pieces):
            ids_t[r, : len(ids) + 2] = torch.tensor([self.marks[0], *ids, self.marks[1]])
            mask[r, : len(ids) + 2] = 1.0
        hidden = torch.stack(self.forward(ids_t.to(device), mask.to(device)))  # (L+1, B, T, D)
        out = []
        for r, (ids, owner, n) in enumerate(pieces):
            own = torch.as_tensor(owner, dtype=torch.long, device=device)
            total = hidden.new_zeros((hidden.shape[0], n, self.dim)).index_add_(1, own, hidden[:, r, 1 : len(ids) + 1])
            count = torch.zeros(n, device=device).index_add_(0, own, torch.ones(len(owner), device=device))
            out.append(total / count.clamp(min=1.0)[None, :, None])
        return out
