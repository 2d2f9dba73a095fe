"""The accurate pipeline's frozen encoder: all-MiniLM-L6-v2 in numpy, checked against Hugging Face transformers.

The expected word-piece ids and hidden-state values below were printed by
``transformers`` 5.23 (``BertTokenizer`` / ``BertModel`` loaded from the same
package folder, ``output_hidden_states=True``); when ``transformers`` is
installed the test also compares every value of a whole sentence live.
"""

from __future__ import annotations

import numpy as np
import pytest

from samsa.errors import PluginUnavailable
from samsa.parsers.builtin.encoder import MiniLM, read_safetensors


@pytest.fixture(scope="module")
def encoder() -> MiniLM:
    try:
        return MiniLM()
    except PluginUnavailable as e:
        pytest.skip(str(e))


@pytest.mark.parametrize(
    ("word", "ids"),
    [
        ("unaffable", [14477, 20961, 3468]),
        ("Café", [7668]),  # lower-cased, accent stripped
        ("don't", [2123, 1005, 1056]),  # punctuation split
        ("U.S.A.", [1057, 1012, 1055, 1012, 1037, 1012]),
        ("2,000", [1016, 1010, 2199]),
        ("Sulem", [21396, 6633]),  # ##-continued piece
    ],
)
def test_wordpiece_matches_bert_tokenizer(encoder: MiniLM, word: str, ids: list[int]) -> None:
    assert encoder.tok.word(word) == ids


def test_forward_matches_transformers_pinned(encoder: MiniLM) -> None:
    ids = np.array([[101, 2198, 2288, 2188, 1998, 2435, 2984, 1037, 2655, 1012, 102]])
    hidden = encoder.forward(ids, np.ones(ids.shape, dtype=np.float32))
    assert hidden.shape == (7, 1, 11, 384)
    expected = {  # layer: (first four values at "john", at ".")
        0: ([-0.27732, 0.41778, -1.13872, -0.82313], [0.15797, 0.70658, -1.09746, 0.10286]),
        3: ([0.49582, 0.91848, -0.16383, 0.00915], [0.61366, 0.40142, -1.19123, -0.52758]),
        6: ([-0.78460, 0.62342, 0.71145, -0.61078], [-0.21779, 0.47616, 0.04612, 0.41198]),
    }
    for layer, (john, stop) in expected.items():
        np.testing.assert_allclose(hidden[layer, 0, 1, :4], john, atol=2e-5)
        np.testing.assert_allclose(hidden[layer, 0, -2, :4], stop, atol=2e-5)


def test_forward_matches_transformers_live(encoder: MiniLM) -> None:
    """Every value of the sentence against Hugging Face transformers, where it is installed (not in CI)."""
    ids = np.array([[101, 2198, 2288, 2188, 1998, 2435, 2984, 1037, 2655, 1012, 102]])
    hidden = encoder.forward(ids, np.ones(ids.shape, dtype=np.float32))
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    model = transformers.BertModel.from_pretrained(str(encoder.dir)).eval()
    with torch.no_grad():
        ref = torch.stack(model(torch.tensor(ids), output_hidden_states=True).hidden_states).numpy()
    np.testing.assert_allclose(hidden, ref, atol=1e-4)


def test_padding_and_word_means(encoder: MiniLM) -> None:
    """A padded batch gives each sentence the states it gets alone; a word's feature is its pieces' mean."""
    alone = encoder.words([["Sulem", "parsed", "it"]])[0]
    both = encoder.words([["Sulem", "parsed", "it"], ["a", "much", "longer", "sentence", "than", "the", "first"]])
    np.testing.assert_allclose(both[0], alone, atol=1e-5)
    ids = np.array([[101, 21396, 6633, 11968, 6924, 2009, 102]])  # [CLS] sul ##em par ##sed it [SEP]
    assert encoder.tok.word("parsed") == [11968, 6924]
    hidden = encoder.forward(ids, np.ones(ids.shape, dtype=np.float32))
    np.testing.assert_allclose(alone[:, 0], hidden[:, 0, 1:3].mean(axis=1), atol=1e-5)
    np.testing.assert_allclose(alone[:, 2], hidden[:, 0, 5], atol=1e-5)


def test_long_sentence_is_windowed(encoder: MiniLM) -> None:
    out = encoder.words([["word"] * 600])[0]
    assert out.shape == (7, 600, 384)
    assert np.isfinite(out).all()


def test_safetensors_reader(tmp_path) -> None:
    import json
    import struct

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1, -2], dtype=np.int64)
    header = {"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]}, "__metadata__": {"x": "y"}}  # fmt: skip
    blob = json.dumps(header).encode()
    (tmp_path / "t.safetensors").write_bytes(struct.pack("<Q", len(blob)) + blob + a.tobytes() + b.tobytes())
    got = read_safetensors(tmp_path / "t.safetensors")
    np.testing.assert_array_equal(got["a"], a)
    np.testing.assert_array_equal(got["b"], b)
    assert set(got) == {"a", "b"}


def test_missing_encoder_names_the_install_command(monkeypatch, tmp_path) -> None:
    from samsa.parsers.builtin.encoder import find_model_dir

    monkeypatch.setenv("SAMSA_ENCODER_DIR", str(tmp_path))
    with pytest.raises(PluginUnavailable, match=r"model\.safetensors"):
        find_model_dir()
