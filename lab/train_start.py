"""What a training run starts from besides the corpora: a fine-tuned encoder's features, and the weights of an
earlier network to continue from (its guideline-style input added at zero weights when asked).

PyTorch is needed (the ``[train]`` extra), as for :mod:`lab.train`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from lab.model import SpanModel
from samsa.parsers.builtin.features import Vocab

__all__ = [
    "INPUT_PARAMETERS",
    "add_style_input",
    "add_v2_labels",
    "continue_from",
    "finetuned_features",
    "single_window",
]


def single_window(encoder, words: list[str]) -> tuple[list[int], list[int], int]:
    """A training sentence's word pieces for ``TorchMiniLM.words`` (one window: none comes near 510 pieces)."""
    windows = encoder.windows(words)
    if len(windows) != 1:
        raise SystemExit(f"a training sentence has over 510 word pieces: {' '.join(words)[:80]}...")
    return (*windows[0], len(words))


@torch.no_grad()
def finetuned_features(tuned, pieces, batch: int = 64) -> list[np.ndarray]:
    """Per-word encoder states (float16, as features are at inference) of sentences given as word pieces,
    computed with the fine-tuned layers rounded to float16 as the weights file stores them."""
    import copy

    rounded = copy.deepcopy(tuned).eval()
    for p in rounded.parameters():
        p.copy_(p.half().float())
    order = sorted(range(len(pieces)), key=lambda k: len(pieces[k][0]))
    out: list[np.ndarray | None] = [None] * len(pieces)
    for b in range(0, len(order), batch):
        idx = order[b : b + batch]
        for k, states in zip(idx, rounded.words([pieces[k] for k in idx]), strict=True):
            out[k] = states.cpu().numpy().astype(np.float16)
    return out  # type: ignore[return-value]


def continue_from(
    model: SpanModel, vocab: Vocab, path: Path, add_styles: bool = False, add_labels: bool = False
) -> dict:
    """Load ``path``'s parameters into ``model`` (same vocabulary and sizes, or a clear error); its record.

    ``add_styles``: ``path`` has no style input and ``model`` has one; see :func:`add_style_input`.
    ``add_labels``: ``vocab`` may have span labels that ``path`` harmonized away; see :func:`add_v2_labels`."""
    from samsa.parsers.builtin.runtime import load_state, load_weights, weights_digest

    old_vocab, old_net, meta = load_weights(path)
    tables, wanted = old_vocab.to_dict(), vocab.to_dict()
    grow = add_labels and tables["labels"] != wanted["labels"]
    if grow:
        tables["labels"] = wanted["labels"]
    if tables != wanted:
        raise SystemExit(f"{path}: its vocabulary differs from this run's data; --init needs the same recipe")
    state = load_state(path)
    if grow:
        state = add_v2_labels(state, old_vocab.labels, vocab.labels)
    if add_styles:
        if old_net.styles:
            raise SystemExit(f"{path}: has a style input already; --init-add-styles is for files without one")
        state = add_style_input(state, model.style.embedding_dim)
    tuned = {k: v for k, v in state.items() if k.startswith("encoder.")}
    if tuned and model.encoder is None:
        raise SystemExit(f"{path}: has fine-tuned encoder layers, and this run has no --finetune-encoder")
    # a v3 file (frozen encoder) may start a fine-tuning run: its encoder layers then start as the package's
    try:
        missing, unexpected = model.load_state_dict(
            {k: torch.from_numpy(v) for k, v in state.items() if not k.startswith("encoder.")}, strict=False
        )
        new = {"style.weight"} if add_styles else set()  # the added style embedding starts as initialized
        if unexpected or any(not k.startswith("encoder.") and k not in new for k in missing):
            raise RuntimeError(f"missing {missing}, unexpected {unexpected}")
        if tuned and model.encoder is not None:
            model.encoder.load_overrides(tuned)
    except (RuntimeError, KeyError) as e:
        raise SystemExit(f"{path}: not the same network as this run's options ({e})") from None
    history = meta.get("history", [])
    # a file saved during a run (its best epoch so far) records no best epoch yet: it holds its last epoch
    best = meta.get("best_epoch") or (int(history[-1]["epoch"]) if history else 0)
    record = {
        "file": path.name,
        "sha256": weights_digest(path),
        "command": meta.get("command"),
        "best_epoch": best,
        "history": history,
    }
    added = ["styles"] if add_styles else []
    if grow:
        added.append("labels " + " ".join(sorted(set(vocab.labels) - set(old_vocab.labels))))
    if added:  # what the run grew the file's network by
        record["added"] = "; ".join(added)
    if meta.get("init"):  # the file's own start: the chain of runs back to the first
        record["init"] = meta["init"]
    return record


#: the parameters whose last axis is the network's input per token (the style embedding comes last in it)
INPUT_PARAMETERS = ("boundary", "lstm.weight_ih_l0", "lstm.weight_ih_l0_reverse")


def add_style_input(state: dict[str, np.ndarray], style_dim: int) -> dict[str, np.ndarray]:
    """``state`` (a network without the style input) with ``style_dim`` zero input columns appended.

    Zero columns make the grown network compute exactly what the file's does, whatever the style embedding
    holds; training then moves them (their gradient is the style embedding times the error, not zero). This
    is what lets a trained network learn the guideline style in a few epochs instead of from scratch."""
    grown = dict(state)
    for name in INPUT_PARAMETERS:
        w = state[name]
        grown[name] = np.concatenate([w, np.zeros((*w.shape[:-1], style_dim), dtype=w.dtype)], axis=-1)
    return grown


def add_v2_labels(
    state: dict[str, np.ndarray], old: list[str], new: list[str], handicap: float = 2.0
) -> dict[str, np.ndarray]:
    """``state``'s span classifier re-indexed from labels ``old`` to ``new``, where ``new`` may hold labels with
    UCCA v2's T and Q: such a label starts as the one it was harmonized to (``tree.HARMONIZE``: T as D, Q as E), its
    score ``handicap`` lower, so that the grown network first decides as the file's did and training teaches it
    where v2 differs (tests/test_parser_train.py)."""
    from samsa.parsers.builtin.tree import HARMONIZE, UP

    def harmonized(label: str) -> str:
        parts = []
        for part in label.split("/"):
            bare = part.removesuffix(UP)
            parts.append(HARMONIZE.get(bare, bare) + part[len(bare) :])
        return "/".join(parts)

    index = {label: k for k, label in enumerate(old)}
    rows, lowered = [], []
    for label in new:
        source = label if label in index else harmonized(label)
        if source not in index:
            raise SystemExit(f"label {label!r} is neither in the file nor a v2 form of one of its labels")
        rows.append(index[source])
        lowered.append(0.0 if label in index else handicap)
    grown = dict(state)
    grown["classify.3.weight"] = state["classify.3.weight"][rows]
    grown["classify.3.bias"] = state["classify.3.bias"][rows] - np.array(lowered, dtype=state["classify.3.bias"].dtype)
    return grown
