"""The parser network's fast inference path and decoding options (random weights, no training needed)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from parsers.builtin.model import NONE, PAD, UNK, Featurized, SpanModel, Vocab  # noqa: E402
from parsers.builtin.parse import main_relation_mask  # noqa: E402


def _vocab() -> Vocab:
    return Vocab(words=[PAD, UNK, "a"], tags=[PAD, UNK, "NN"], deps=[PAD, UNK, "nsubj"],
                 labels=[NONE, "A", "H/P", "P", "S^", "U"], remotes=[NONE, "A"])  # fmt: skip


def test_inference_span_scores_equal_the_training_formula():
    torch.manual_seed(0)
    model = SpanModel(_vocab(), word_dim=8, tag_dim=4, hidden=6, mlp=5)
    n = 4
    feats = Featurized(torch.tensor([2, 1, 2, 2]), torch.tensor([2] * n), torch.tensor([2] * n), torch.randn(n, 96))
    model.eval()
    with torch.no_grad():
        fence, _ = model.encode([feats])
        fast = model.span_logits(fence, 0, n)
        f = fence[0, : n + 1]
        fwd, bwd = f[:, :6], f[:, 6:]
        for i in range(n):
            for j in range(i + 1, n + 1):
                span = torch.cat([fwd[j] - fwd[i], bwd[i] - bwd[j]])
                assert torch.allclose(fast[i, j], model.classify(span), atol=1e-5)
        # the remote head sees the same span features
        pairs = torch.tensor([[2, 4]]), torch.tensor([[0, 1]]), torch.tensor([3])
        assert model.remote_logits(fence, 0, *pairs).shape == (1, 2)


def test_scene_bias_applies_to_main_relation_labels_only():
    assert main_relation_mask(_vocab()).tolist() == [False, False, True, True, True, False]
