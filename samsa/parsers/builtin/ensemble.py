"""Several span networks of one vocabulary, read as one (numpy; ``lab/ensemble.py`` writes their file)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from samsa.parsers.builtin.features import Featurized

__all__ = ["EnsembleNet"]


class EnsembleNet:
    """Several networks of one vocabulary read as one: each span's label distribution is the mean of the
    members' (log of the mean probability), a remote pair's logits the mean of theirs. A weights file whose
    ``config`` has ``members`` (one config each) holds each member's tensors under ``m0.``, ``m1.``, ...
    (``lab/ensemble.py`` writes it)."""

    def __init__(self, members: Sequence[Any]) -> None:
        self.members = list(members)
        self.has_remote = all(m.has_remote for m in self.members)
        self.config = {"members": [m.config for m in self.members]}

    @classmethod
    def from_state(
        cls, state: Mapping[str, np.ndarray], configs: Sequence[Mapping[str, Any]], network: Callable[..., Any]
    ) -> EnsembleNet:
        """The ensemble of a file's tensors, member ``k``'s under ``m{k}.``, each built by ``network(state,
        config)`` (``runtime.NumpySpanNet``)."""
        return cls(
            [
                network({n[len(f"m{k}.") :]: v for n, v in state.items() if n.startswith(f"m{k}.")}, c)
                for k, c in enumerate(configs)
            ]
        )

    def encode(self, batch: Sequence[Featurized]) -> tuple[list[np.ndarray], list[int]]:
        """Each member's fenceposts (a list, read back by the other methods) and the sentence lengths."""
        encoded = [m.encode(batch) for m in self.members]
        return [fence for fence, _ in encoded], encoded[0][1]

    def span_log_probs(self, fence: Sequence[np.ndarray], b: int, n: int, rows: slice | None = None) -> np.ndarray:
        """Log of the members' mean label probabilities of the spans i < j of sentence ``b`` (``rows``: only those
        rows of their order)."""
        logs = [m.span_log_probs(f, b, n, rows) for m, f in zip(self.members, fence, strict=True)]
        return np.logaddexp.reduce(logs, axis=0) - np.log(len(logs))

    def remote_logits(
        self, fence: Sequence[np.ndarray], b: int, scenes: np.ndarray, units: np.ndarray, buckets: np.ndarray
    ) -> np.ndarray:
        logits = [m.remote_logits(f, b, scenes, units, buckets) for m, f in zip(self.members, fence, strict=True)]
        return np.mean(logits, axis=0)
