"""The numpy inference network against the PyTorch training network, and weights files (random weights)."""

from __future__ import annotations

import numpy as np
import pytest

from lab.oracle import save_weights, update_meta
from samsa.parsers.builtin.decode import decode_batch, main_relation_mask
from samsa.parsers.builtin.features import NONE, PAD, UNK, Featurized, Vocab
from samsa.parsers.builtin.runtime import NumpySpanNet, batch_span_log_probs, load_weights


def _vocab() -> Vocab:
    return Vocab(words=[PAD, UNK, "a"], tags=[PAD, UNK, "NN"], deps=[PAD, UNK, "nsubj"],
                 labels=[NONE, "A", "H/P", "P", "S^", "U"], remotes=[NONE, "A"])  # fmt: skip


def _feats(rng: np.random.Generator, n: int) -> Featurized:
    return Featurized(rng.integers(1, 3, n), rng.integers(1, 3, n), rng.integers(1, 3, n),
                      rng.standard_normal((n, 96)).astype(np.float32))  # fmt: skip


def test_scene_bias_applies_to_main_relation_labels_only():
    assert main_relation_mask(_vocab()).tolist() == [False, False, True, True, True, False]


def test_numpy_runtime_equals_the_torch_network():
    """Same weights, same inputs: span log-probabilities and remote logits agree; sentences of different lengths
    in one padded batch (the backward LSTM must not read padding)."""
    torch = pytest.importorskip("torch")
    from lab.model import SpanModel, to_torch

    torch.manual_seed(0)
    model = SpanModel(_vocab(), word_dim=8, tag_dim=4, hidden=6, mlp=5)
    model.eval()
    net = model.to_numpy()
    rng = np.random.default_rng(0)
    batch = [_feats(rng, n) for n in (4, 1, 7)]
    with torch.no_grad():
        tf, lengths = model.encode(to_torch(batch))
        nf, nlengths = net.encode(batch)
        assert lengths == nlengths == [4, 1, 7]
        for b, n in enumerate(lengths):
            ref = torch.log_softmax(model.span_logits(tf, b, n), dim=-1).numpy()[np.triu_indices(n + 1, 1)]
            np.testing.assert_allclose(net.span_log_probs(nf, b, n), ref, atol=1e-5)
            # and the training formula (every span explicitly) gives the same logits
            f = tf[b, : n + 1]
            for i, j in [(0, n), (n - 1, n)]:
                span = torch.cat([f[j, :6] - f[i, :6], f[i, 6:] - f[j, 6:]])
                k = list(zip(*np.triu_indices(n + 1, 1), strict=True)).index((i, j))
                np.testing.assert_allclose(net.span_logits(nf, b, n)[k], model.classify(span).numpy(), atol=1e-5)
        pairs = np.array([[2, 4]]), np.array([[0, 1]]), np.array([3])
        ref = model.remote_logits(tf, 0, *(torch.from_numpy(a) for a in pairs)).numpy()
        np.testing.assert_allclose(net.remote_logits(nf, 0, *pairs), ref, atol=1e-5)


def test_numpy_runtime_equals_the_torch_network_with_encoder_mix_and_style():
    """v3 inputs: a softmax mix of chosen encoder layers (trained to non-uniform weights) and a style embedding."""
    torch = pytest.importorskip("torch")
    from lab.model import SpanModel, to_torch

    torch.manual_seed(1)
    model = SpanModel(_vocab(), word_dim=8, tag_dim=4, hidden=6, mlp=5, encoder_layers=[1, 3], encoder_dim=10,
                      styles=2, style_dim=3)  # fmt: skip
    with torch.no_grad():
        model.mix.copy_(torch.tensor([0.5, -1.0]))
        model.mix_gamma.fill_(1.7)
    model.eval()
    net = model.to_numpy()
    rng = np.random.default_rng(2)
    batch = [_feats(rng, n) for n in (3, 5)]
    for k, f in enumerate(batch):
        f.encoded = rng.standard_normal((4, len(f.words), 10)).astype(np.float16)
        f.style = k
    with torch.no_grad():
        tf, lengths = model.encode(to_torch(batch))
        nf, _ = net.encode(batch)
    for b, n in enumerate(lengths):  # fenceposts 0..n of each sentence (beyond them: padding)
        np.testing.assert_allclose(nf[b, : n + 1], tf[b, : n + 1].numpy(), atol=1e-5)
    # the style changes the encoding (it is an input), the unused encoder layers 0 and 2 do not
    batch[0].style = 1
    assert not np.allclose(net.encode(batch)[0][0], nf[0])
    batch[0].style = 0
    batch[0].encoded[[0, 2]] = 0
    np.testing.assert_allclose(net.encode(batch)[0], nf, atol=1e-6)


def _random_net(rng: np.random.Generator, hidden: int = 6, mlp: int = 5) -> NumpySpanNet:
    """A numpy network with random weights (no torch needed): word 8 + tag 4 + dep 4 + vector 96 inputs."""
    dims = {"word.weight": (3, 8), "tag.weight": (3, 4), "dep.weight": (3, 4), "boundary": (2, 112),
            "classify.0.weight": (mlp, 2 * hidden), "classify.0.bias": (mlp,),
            "classify.3.weight": (len(_vocab().labels), mlp), "classify.3.bias": (len(_vocab().labels),)}  # fmt: skip
    for k, width in enumerate((112, 2 * hidden)):
        for d in ("", "_reverse"):
            dims |= {f"lstm.weight_ih_l{k}{d}": (4 * hidden, width), f"lstm.weight_hh_l{k}{d}": (4 * hidden, hidden),
                     f"lstm.bias_ih_l{k}{d}": (4 * hidden,), f"lstm.bias_hh_l{k}{d}": (4 * hidden,)}  # fmt: skip
    state = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in dims.items()}
    return NumpySpanNet(state, {"hidden": hidden})


def test_batched_span_scores_are_the_per_sentence_ones():
    """The decoder reads a whole batch's spans as rows: each row is the per-sentence score of its span."""
    rng = np.random.default_rng(3)
    net = _random_net(rng)
    batch = [_feats(rng, n) for n in (4, 1, 9, 2)]
    fence, lengths = net.encode(batch)
    rows = batch_span_log_probs(net, fence, lengths)
    at = 0
    for b, n in enumerate(lengths):
        m = n * (n + 1) // 2
        i, j = np.triu_indices(n + 1, 1)
        assert rows.sentence[at : at + m].tolist() == [b] * m
        assert rows.start[at : at + m].tolist() == i.tolist() and rows.end[at : at + m].tolist() == j.tolist()
        np.testing.assert_array_equal(rows.log_probs[at : at + m], net.span_log_probs(fence, b, n))
        at += m
    assert at == len(rows.log_probs)


def test_weights_file_round_trip_and_meta_update(tmp_path):
    rng = np.random.default_rng(1)
    vocab = _vocab()
    torch = pytest.importorskip("torch")
    from lab.model import SpanModel

    torch.manual_seed(1)
    model = SpanModel(vocab, word_dim=8, tag_dim=4, hidden=6, mlp=5)
    path = tmp_path / "w.npz"
    save_weights(path, state=model.numpy_state(), vocab=vocab, config=model.config, meta={"seed": 1})
    update_meta(path, stopped="test")
    loaded_vocab, net, meta = load_weights(path)
    assert loaded_vocab.labels == vocab.labels and meta == {"seed": 1, "stopped": "test"}
    assert oct(path.stat().st_mode & 0o777) != oct(0o600)  # readable beyond the owner, as a normal file
    # float16 storage: the decoded trees of the float16 weights are those of the float32 network on easy input
    feats = [_feats(rng, 5)]
    graphs = [p.to_graph() for p in decode_batch(net, loaded_vocab, feats, [["a"] * 5])]
    assert len(graphs) == 1 and len([n for n, d in graphs[0].nodes(data=True) if d["layer"] == "0"]) == 5


def test_not_a_weights_file_is_refused(tmp_path):
    bad = tmp_path / "w.npz"
    np.savez(bad, x=np.zeros(2))
    with pytest.raises(ValueError, match="not a samsa span-parser weights file"):
        load_weights(bad)


def test_numpy_runtime_equals_the_torch_network_for_a_words_only_vocabulary():
    """German's inputs (no spaCy): word shapes in the tag slot, no vector, and the mean of the word's character
    n-gram embeddings (torch's EmbeddingBag with padding index 0: a word without a known n-gram gets zeros)."""
    torch = pytest.importorskip("torch")
    from lab.model import SpanModel, to_torch
    from samsa.parsers.builtin.subwords import SHAPES, featurize_words, ngram_table

    sentences = [["Der", "Kapitän", "sah", "am", "3.", "Mai", "die", "E-Mail", "."], ["Ja", "!"], ["xyz"]]
    vocab = Vocab(words=[PAD, UNK, "der", "sah"], tags=[PAD, UNK, *SHAPES], deps=[PAD, UNK],
                  labels=[NONE, "A", "H/P", "P", "U"], remotes=[NONE, "A"],
                  subwords=ngram_table(sentences[:2], min_count=1))  # fmt: skip
    torch.manual_seed(3)
    model = SpanModel(vocab, word_dim=8, tag_dim=4, hidden=6, mlp=5, vectors=False, subword_dim=7)
    model.eval()
    net = model.to_numpy()
    batch = featurize_words(vocab, sentences)
    assert batch[0].tags[:3].tolist() == [vocab.tag_id["capital"], vocab.tag_id["capital"], vocab.tag_id["lower"]]
    assert batch[0].tags[4] == vocab.tag_id["ordinal"] and batch[0].tags[7] == vocab.tag_id["hyphen"]
    assert not batch[2].subwords.any()  # "xyz": no n-gram seen, the mean of nothing is 0
    with torch.no_grad():
        tf, lengths = model.encode(to_torch(batch))
        nf, _ = net.encode(batch)
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(nf[b, : n + 1], tf[b, : n + 1].numpy(), atol=1e-5)

    # training with lexical dropout 1 reads every word as the runtime does with lexical=False (French's inputs)
    model.lexical_dropout = 1.0
    model.train()
    model.drop.p = model.lstm.dropout = 0.0  # train mode for the lexical dropout alone
    with torch.no_grad():
        hidden_tf, _ = model.encode(to_torch(batch))
        hidden_nf, _ = net.encode(featurize_words(vocab, sentences, lexical=False))
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(hidden_nf[b, : n + 1], hidden_tf[b, : n + 1].numpy(), atol=1e-5)
    assert not np.allclose(hidden_nf[0, :10], nf[0, :10], atol=1e-3)  # the words did count before
    # a whole sentence hidden (--sentence-lexical-dropout 1) reads the same, whatever the token share
    model.lexical_dropout, model.sentence_lexical_dropout = 0.0, 1.0
    with torch.no_grad():
        whole_tf, _ = model.encode(to_torch(batch))
    for b, n in enumerate(lengths):
        np.testing.assert_allclose(hidden_nf[b, : n + 1], whole_tf[b, : n + 1].numpy(), atol=1e-5)


def test_an_ensemble_file_averages_its_members_probabilities(tmp_path):
    """lab.ensemble joins two files of one vocabulary; the parser reads the log of their mean span probabilities
    and the mean of their remote logits; a file of another vocabulary is refused."""
    torch = pytest.importorskip("torch")
    from lab.ensemble import join
    from lab.model import SpanModel

    paths = []
    for seed in (4, 5):
        torch.manual_seed(seed)
        model = SpanModel(_vocab(), word_dim=8, tag_dim=4, hidden=6, mlp=5)
        paths.append(tmp_path / f"m{seed}.npz")
        save_weights(paths[-1], state=model.numpy_state(), vocab=_vocab(), config=model.config, meta={"seed": seed})
    join(paths, tmp_path / "ens.npz", "test")
    vocab, ens, meta = load_weights(tmp_path / "ens.npz")
    members = [load_weights(p)[1] for p in paths]
    assert vocab.labels == _vocab().labels and [m["seed"] for m in meta["members"]] == [4, 5]
    batch = [_feats(np.random.default_rng(6), n) for n in (3, 5)]
    fences, lengths = ens.encode(batch)
    for b, n in enumerate(lengths):
        each = [m.span_log_probs(m.encode(batch)[0], b, n) for m in members]
        np.testing.assert_allclose(ens.span_log_probs(fences, b, n), np.log((np.exp(each[0]) + np.exp(each[1])) / 2),
                                   atol=1e-6)  # fmt: skip
    pairs = np.array([[0, 3]]), np.array([[1, 2]]), np.array([2])
    mean = np.mean([m.remote_logits(m.encode(batch)[0], 0, *pairs) for m in members], axis=0)
    np.testing.assert_allclose(ens.remote_logits(fences, 0, *pairs), mean, atol=1e-6)
    other = Vocab(**{**_vocab().to_dict(), "words": [PAD, UNK, "b"]})
    save_weights(tmp_path / "other.npz", state=members[0].s, vocab=other, config=members[0].config, meta={})
    with pytest.raises(SystemExit, match="another vocabulary"):
        join([paths[0], tmp_path / "other.npz"], tmp_path / "bad.npz", "test")
