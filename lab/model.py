"""The built-in UCCA parser's network for training (PyTorch; inference runs on ``runtime.py``'s numpy twin).

Input per token (``parsers/builtin/features.py``): a word embedding learned from
the UCCA training data, spaCy's 96-dimensional ``tok2vec`` vector, and
embeddings of spaCy's PTB tag and dependency label; v3 models add a learned
softmax mix of chosen layers of a frozen encoder (``encoder.py``) and an
embedding of the annotation guidelines to follow. A 2-layer BiLSTM produces
fencepost states; a span (i, j) is represented by the differences of forward
and backward states at its boundaries (Stern et al. 2017) and classified by an
MLP into a UCCA label (unary chains as ``A/C``) or "no unit". Training is
independent span classification (cross-entropy); decoding is an exact CKY over
``log p(label) - log p(none)`` (``decode.py``), which returns the best properly
nested set of spans (Kitaev & Klein style, binarization nodes free). A second
MLP labels (Scene span, unit span) pairs of the decoded tree with a
remote-edge category or "none" (``parsers/builtin/remotes.py``); both are
trained jointly. Needs the ``train`` extra (``pip install "samsa-metric[train]"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from samsa.parsers.builtin.features import UNK, VECTOR_DIM, Featurized, Vocab
from samsa.parsers.builtin.remotes import N_BUCKETS
from samsa.parsers.builtin.runtime import NumpySpanNet

__all__ = ["SpanModel", "TorchFeatures", "pair_tensors", "to_torch"]


class TorchFeatures:
    """A :class:`Featurized` sentence as tensors."""

    def __init__(self, f: Featurized) -> None:
        self.words = torch.from_numpy(f.words)
        self.tags = torch.from_numpy(f.tags)
        self.deps = torch.from_numpy(f.deps)
        self.vectors = torch.from_numpy(f.vectors)
        self.encoded = None if f.encoded is None else torch.from_numpy(np.asarray(f.encoded, dtype=np.float32))
        self.style = f.style
        self.subwords = None if f.subwords is None else torch.from_numpy(f.subwords)
        self.pieces: tuple[list[int], list[int], int] | None = None  # v4: (piece ids, word of each piece, words)


def to_torch(feats: Sequence[Featurized]) -> list[TorchFeatures]:
    return [TorchFeatures(f) for f in feats]


class SpanModel(nn.Module):
    def __init__(
        self,
        vocab: Vocab,
        *,
        word_dim: int = 100,
        tag_dim: int = 32,
        hidden: int = 200,
        mlp: int = 250,
        dropout: float = 0.3,
        remote_mlp: int = 200,
        encoder_layers: Sequence[int] = (),
        encoder_dim: int = 0,
        styles: int = 0,
        style_dim: int = 16,
        vectors: bool = True,
        finetune: nn.Module | None = None,
        encoder_name: str = "minilm",
        subword_dim: int = 100,
    ) -> None:
        """``vectors=False``: no spaCy tok2vec input; ``finetune``: an ``encoder_torch.TorchMiniLM`` whose layers
        train with the parser (v4; its states replace the cached encoder features)."""
        super().__init__()
        self.config: dict[str, Any] = {
            "word_dim": word_dim,
            "tag_dim": tag_dim,
            "hidden": hidden,
            "mlp": mlp,
            "dropout": dropout,
            "remote_mlp": remote_mlp,
        }
        self.vectors = vectors
        if not vectors:
            self.config["vectors"] = False
        dim = word_dim + 2 * tag_dim + (VECTOR_DIM if vectors else 0)
        self.encoder = finetune
        if finetune is not None:
            self.config.update(encoder_finetuned=finetune.depth, encoder_precision="float16")
        self.encoder_layers = list(encoder_layers)
        if self.encoder_layers:  # v3: a softmax-weighted mix of the frozen encoder's layers (ELMo's scalar mix)
            self.config.update(encoder_layers=self.encoder_layers, encoder_dim=encoder_dim)
            if encoder_name != "minilm":  # files without the name read MiniLM (builtin.encoder_for)
                self.config["encoder"] = encoder_name
            self.mix = nn.Parameter(torch.zeros(len(self.encoder_layers)))
            self.mix_gamma = nn.Parameter(torch.ones(1))
            dim += encoder_dim
        self.styles = styles
        if styles:  # v3: which annotation guidelines to follow (features.STYLES)
            self.config.update(styles=styles, style_dim=style_dim)
            self.style = nn.Embedding(styles, style_dim)
            dim += style_dim
        self.subword: nn.EmbeddingBag | None = None
        if vocab.subwords:  # words-only vocabulary (subwords.py): the mean of the word's character n-grams
            self.config["subword_dim"] = subword_dim
            self.subword = nn.EmbeddingBag(len(vocab.subwords), subword_dim, mode="mean", padding_idx=0)
            dim += subword_dim
        self.word = nn.Embedding(len(vocab.words), word_dim, padding_idx=0)
        self.tag = nn.Embedding(len(vocab.tags), tag_dim, padding_idx=0)
        self.dep = nn.Embedding(len(vocab.deps), tag_dim, padding_idx=0)
        self.boundary = nn.Parameter(torch.zeros(2, dim))
        self.drop = nn.Dropout(dropout)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, bidirectional=True, batch_first=True, dropout=dropout)
        self.classify = nn.Sequential(
            nn.Linear(2 * hidden, mlp), nn.ReLU(), nn.Dropout(dropout), nn.Linear(mlp, len(vocab.labels))
        )
        self.hidden = hidden
        self.lexical_dropout = 0.0  # training only: the share of tokens whose word and n-gram inputs are hidden
        self.sentence_lexical_dropout = 0.0  # training only: the share of sentences read with no word at all
        self.unk = vocab.word_id[UNK]
        self.remote: nn.Module | None = None
        if len(vocab.remotes) > 1:
            self.bucket = nn.Embedding(N_BUCKETS, 16)
            self.remote = nn.Sequential(
                nn.Linear(4 * hidden + 16, remote_mlp),
                nn.ReLU(),
                nn.Dropout(dropout),
                nn.Linear(remote_mlp, len(vocab.remotes)),
            )

    def encode(self, batch: Sequence[TorchFeatures]) -> tuple[torch.Tensor, list[int]]:
        """Fencepost features (B, n+1, 2*hidden) for a batch of sentences."""
        lengths = [len(f.words) for f in batch]
        width = max(lengths) + 2
        dim = self.boundary.shape[1]
        device = self.boundary.device
        x = torch.zeros(len(batch), width, dim, device=device)
        if self.encoder is not None:
            assert all(f.pieces is not None for f in batch), "a v4 model needs word pieces"
            encoded = self.encoder.words([f.pieces for f in batch])
        else:
            encoded = [None if f.encoded is None else f.encoded.to(device) for f in batch]
        for b, f in enumerate(batch):
            n = len(f.words)
            words, subwords = f.words.to(device), None if f.subwords is None else f.subwords.to(device)
            if self.training and (self.lexical_dropout or self.sentence_lexical_dropout):
                # lean on the encoder: a word unknown, its n-grams unread; a whole sentence so, as French is read
                whole = bool(torch.rand(1).item() < self.sentence_lexical_dropout)
                hidden = torch.rand(n, device=device) < (1.0 if whole else self.lexical_dropout)
                words = words.masked_fill(hidden, self.unk)
                subwords = None if subwords is None else subwords.masked_fill(hidden[:, None], 0)
            parts = [self.word(words), self.tag(f.tags.to(device)), self.dep(f.deps.to(device))]
            if self.vectors:
                parts.append(f.vectors.to(device))
            if self.subword is not None:
                assert subwords is not None, "a words-only model needs subword ids (subwords.featurize_words)"
                parts.append(self.subword(subwords))
            if self.encoder_layers:
                assert encoded[b] is not None, "a v3 model needs encoder features"
                weights = torch.softmax(self.mix, 0)
                parts.append(self.mix_gamma * torch.einsum("l,lnd->nd", weights, encoded[b][self.encoder_layers]))
            if self.styles:
                parts.append(self.style.weight[f.style].expand(n, -1))
            emb = torch.cat(parts, dim=-1)
            x[b, 0] = self.boundary[0]
            x[b, 1 : n + 1] = emb
            x[b, n + 1] = self.boundary[1]
        x = self.drop(x)
        packed = nn.utils.rnn.pack_padded_sequence(x, [n + 2 for n in lengths], batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=width)
        fwd, bwd = out[..., : self.hidden], out[..., self.hidden :]
        # fencepost k (between token k-1 and k), k = 0..n: forward state after token k-1, backward state at token k
        fence = torch.cat([fwd[:, :-1], bwd[:, 1:]], dim=-1)
        return fence, lengths

    def span_logits(self, fence: torch.Tensor, b: int, n: int) -> torch.Tensor:
        """Label logits (n+1, n+1, L) of every span (i, j) of sentence ``b``; only i < j is meaningful."""
        f = fence[b, : n + 1]
        fwd, bwd = f[:, : self.hidden], f[:, self.hidden :]
        if not self.training:  # the first layer is linear in the fenceposts: project n+1 states, not (n+1)^2 spans
            first, last = self.classify[0], self.classify[3]
            pf = fwd @ first.weight[:, : self.hidden].T
            pb = bwd @ first.weight[:, self.hidden :].T
            return last(torch.relu(pf[None, :, :] - pf[:, None, :] + pb[:, None, :] - pb[None, :, :] + first.bias))
        span = torch.cat([fwd[None, :, :] - fwd[:, None, :], bwd[:, None, :] - bwd[None, :, :]], dim=-1)
        return self.classify(self.drop(span))

    def span_vectors(self, fence: torch.Tensor, b: int, spans: torch.Tensor) -> torch.Tensor:
        """Span features (m, 2*hidden) of sentence ``b`` for ``spans`` (m, 2) = (start, end); as in span_logits."""
        f = fence[b]
        fwd, bwd = f[:, : self.hidden], f[:, self.hidden :]
        i, j = spans[:, 0], spans[:, 1]
        return torch.cat([fwd[j] - fwd[i], bwd[i] - bwd[j]], dim=-1)

    def remote_logits(
        self, fence: torch.Tensor, b: int, scenes: torch.Tensor, units: torch.Tensor, buckets: torch.Tensor
    ) -> torch.Tensor:
        """Remote-category logits (m, R) of (scene span, unit span) pairs of sentence ``b``."""
        assert self.remote is not None
        x = torch.cat(
            [self.span_vectors(fence, b, scenes), self.span_vectors(fence, b, units), self.bucket(buckets)], dim=-1
        )
        return self.remote(self.drop(x))

    def numpy_state(self) -> dict[str, np.ndarray]:
        """The parameters as float32 arrays under their state_dict names (for ``save_weights``); a fine-tuned
        encoder's layers as ``encoder.layer.*``, named as in the encoder package (``MiniLM(overrides=...)``)."""
        state = {
            k: v.detach().cpu().float().numpy().copy()
            for k, v in self.state_dict().items()
            if not k.startswith("encoder.")
        }
        if self.encoder is not None:
            state.update(self.encoder.overrides())
        return state

    def to_numpy(self) -> NumpySpanNet:
        """The inference twin with the current parameters (dev evaluation decodes exactly as the shipped parser)."""
        return NumpySpanNet(self.numpy_state(), self.config)


def pair_tensors(pairs: Sequence[Any]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(scene spans, unit spans, buckets) of :class:`~samsa.parsers.builtin.remotes.Pair` objects, for
    ``remote_logits``."""
    return (
        torch.tensor([p.scene_span for p in pairs], dtype=torch.long).reshape(-1, 2),
        torch.tensor([p.unit_span for p in pairs], dtype=torch.long).reshape(-1, 2),
        torch.tensor([p.bucket for p in pairs], dtype=torch.long),
    )
