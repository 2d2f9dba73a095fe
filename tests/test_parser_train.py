"""The training script end to end on a handful of sentences: it writes a weights file the numpy runtime loads."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


def test_training_smoke_run_writes_loadable_npz_weights(tmp_path, data_dir):
    from lab.train import main
    from samsa.parsers.builtin import BuiltinParser
    from samsa.ucca.graph import tokens

    out = tmp_path / "tiny.npz"
    argv = ["--data", str(data_dir), "--out", str(out), "--limit", "12", "--epochs", "1", "--threads", "1"]
    assert main([*argv, "--hidden", "24"]) == 0
    parser = BuiltinParser(weights=out)
    layer = parser.net.layers[0]  # recurrent weights: three sigmoid gates and the cell input
    assert parser.net.hidden == 24 and layer.w_hh_sigmoid.shape == (2, 24, 72) and layer.w_hh_cell.shape == (2, 24, 24)
    assert parser.meta["train_files"] == 12 and parser.meta["stopped"] == "--epochs 1 done"
    assert len(parser.meta["history"]) == 1 and 0 <= parser.meta["history"][0]["dev_pooled_f1"] <= 1
    (g,) = parser.parse([["John", "went", "home", "."]])
    assert tokens(g) == ["John", "went", "home", "."] and parser.signature() == "builtin.v5+tiny"


def test_silver_passages_are_trained_on_without_changing_the_vocabulary(tmp_path, data_dir):
    """--silver adds passages to the training data; the vocabulary stays the gold corpora's, so a gold-only
    weights file can start the run (--init) and the result is recorded."""
    from pathlib import Path

    from lab.train import main
    from samsa.parsers.builtin import BuiltinParser

    silver = Path(__file__).resolve().parents[1] / "fixtures" / "ucca"
    gold_only, both = tmp_path / "gold.npz", tmp_path / "silver.npz"
    common = ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--threads", "1"]
    assert main([*common, "--out", str(gold_only)]) == 0
    assert main([*common, "--out", str(both), "--silver", str(silver), "--init", str(gold_only)]) == 0
    plain, tuned = BuiltinParser(weights=gold_only), BuiltinParser(weights=both)
    assert tuned.meta["silver_files"] == 5 and tuned.meta["train_files"] == 12 + 5
    assert plain.meta["silver_files"] == 0 and tuned.meta["train_sha256"] != plain.meta["train_sha256"]
    assert tuned.vocab.to_dict() == plain.vocab.to_dict() and tuned.meta["init"]["file"] == "gold.npz"


def test_training_with_encoder_and_styles_writes_v3_weights(tmp_path, data_dir):
    """The accurate pipeline's recipe on a handful of sentences: encoder features cached, v3 format, parses."""
    from lab.train import main
    from samsa.errors import PluginUnavailable
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.encoder import find_model_dir
    from samsa.ucca.graph import tokens

    try:
        find_model_dir()
    except PluginUnavailable as e:
        pytest.skip(str(e))
    out, cache = tmp_path / "tiny3.npz", tmp_path / "features"
    argv = ["--data", str(data_dir), "--out", str(out), "--limit", "8", "--epochs", "1", "--threads", "1",
            "--encoder", "minilm", "--encoder-layers", "0,2", "--styles", "--feature-cache", str(cache)]  # fmt: skip
    assert main(argv) == 0
    assert len(list(cache.glob("encoder-*.npz"))) == 2  # train and dev features, kept for the next run
    parser = BuiltinParser(weights=out, style="ewt")
    assert parser.net.encoder_layers == [0, 2] and parser.net.styles == 2
    assert parser.encoder.layers_n == 2  # only the layers the model mixes are computed
    (g,) = parser.parse([["John", "went", "home", "."]])
    assert tokens(g) == ["John", "went", "home", "."] and parser.signature() == "builtin.v5+tiny3+style.ewt"
    # a v3 file starts a fine-tuning run (its encoder layers start as the package's): a v4 file
    tuned = tmp_path / "tuned.npz"
    assert main([*argv[:3], str(tuned), *argv[4:], "--finetune-encoder", "--init", str(out)]) == 0
    meta = BuiltinParser(weights=tuned).meta
    assert meta["init"]["file"] == "tiny3.npz" and BuiltinParser(weights=tuned)._config["encoder_finetuned"] == 2


def test_training_with_the_mpnet_encoder_names_it_in_the_weights(tmp_path, data_dir):
    """The MPNet recipe on a handful of sentences: the file says which encoder it reads, and the parser computes
    only the layers it mixes, from the packages."""
    from lab.train import main
    from samsa.errors import PluginUnavailable
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.mpnet import MPNet, find_mpnet
    from samsa.ucca.graph import tokens

    try:
        find_mpnet()
    except PluginUnavailable as e:
        pytest.skip(str(e))
    out = tmp_path / "tiny-mpnet.npz"
    argv = ["--data", str(data_dir), "--out", str(out), "--limit", "8", "--epochs", "1", "--threads", "1",
            "--encoder", "mpnet", "--encoder-layers", "0,1", "--styles", "--no-vectors"]  # fmt: skip
    assert main(argv) == 0
    parser = BuiltinParser(weights=out)
    assert parser._config["encoder"] == "mpnet" and parser._config["encoder_dim"] == 768
    assert isinstance(parser.encoder, MPNet) and parser.encoder.layers_n == 1
    (g,) = parser.parse([["John", "went", "home", "."]])
    assert tokens(g) == ["John", "went", "home", "."]


def test_training_continues_from_a_weights_file(tmp_path, data_dir):
    from lab.train import main
    from samsa.parsers.builtin import BuiltinParser

    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    base = ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--threads", "1"]
    assert main([*base, "--out", str(first)]) == 0
    assert main([*base, "--out", str(second), "--init", str(first)]) == 0
    meta = BuiltinParser(weights=second).meta
    assert meta["init"]["file"] == "a.npz" and meta["init"]["best_epoch"] == 1
    assert [h["epoch"] for h in meta["history"]] == [2]  # numbering goes on from the first run's best epoch
    with pytest.raises(SystemExit, match="not the same network"):
        main([*base, "--out", str(tmp_path / "c.npz"), "--init", str(first), "--styles"])


def test_training_continues_the_numbering_of_a_file_saved_during_a_run(tmp_path, data_dir):
    """A file written during a run (its best epoch so far, before the run has ended) records no best epoch;
    a run continuing from it numbers its epochs after the file's last one, not after its count of epochs."""
    from lab.oracle import update_meta
    from lab.train import main
    from samsa.parsers.builtin import BuiltinParser

    first, second, third = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    base = ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--threads", "1", "--hidden", "16"]
    assert main([*base, "--out", str(first)]) == 0
    assert main([*base, "--out", str(second), "--init", str(first)]) == 0
    update_meta(second, best_epoch=None, stopped=None)  # as the file stands while its run goes on
    assert main([*base, "--out", str(third), "--init", str(second)]) == 0
    meta = BuiltinParser(weights=third).meta
    assert meta["init"]["best_epoch"] == 2 and [h["epoch"] for h in meta["history"]] == [3]


def test_a_style_input_added_to_a_trained_network_starts_it_where_it_was(tmp_path, data_dir):
    """--init-add-styles: a network trained without the guideline-style input continues with one. The added
    input's weights start at zero, so the grown network's span scores are the file's whatever the style
    embedding holds, for either style; the run records what it added, and the result parses with styles."""
    import numpy as np

    from lab.train import main
    from lab.train_start import add_style_input
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.features import featurize
    from samsa.parsers.builtin.runtime import NumpySpanNet, load_state

    plain = tmp_path / "plain.npz"
    base = ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--threads", "1", "--hidden", "16"]
    assert main([*base, "--out", str(plain)]) == 0
    parser = BuiltinParser(weights=plain)
    state = load_state(plain)
    grown = add_style_input(state, 16)
    assert grown["lstm.weight_ih_l0"].shape[1] == state["lstm.weight_ih_l0"].shape[1] + 16
    grown["style.weight"] = np.random.default_rng(0).normal(size=(2, 16)).astype(np.float32)
    styled = NumpySpanNet(grown, {**parser.net.config, "styles": 2, "style_dim": 16})
    words = [["John", "went", "home", "."], ["Mary", "gave", "him", "a", "call", "yesterday", "."]]
    for style in (0, 1):
        feats = featurize(parser.nlp, parser.vocab, words, style=style)
        (want, _), (got, _) = parser.net.encode(feats), styled.encode(feats)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    tuned = tmp_path / "styled.npz"
    assert main([*base, "--out", str(tuned), "--init", str(plain), "--styles", "--init-add-styles"]) == 0
    again = BuiltinParser(weights=tuned, style="ewt")
    assert again.meta["init"]["added"] == "styles" and again.net.styles == 2
    assert again.signature() == "builtin.v5+styled+style.ewt"
    with pytest.raises(SystemExit, match="has a style input already"):
        main([*base, "--out", str(tmp_path / "twice.npz"), "--init", str(tuned), "--styles", "--init-add-styles"])
    with pytest.raises(SystemExit):
        main([*base, "--out", str(tmp_path / "none.npz"), "--init-add-styles"])


def test_v2_labels_start_as_the_labels_they_were_harmonized_to(tmp_path, data_dir):
    """--v2-labels: EWT's T and Q are kept (not read as D and E), and a file trained without them grows their rows
    from D's and E's, scored 2 lower, so that the grown network first decides as the file's did."""
    import numpy as np

    from lab.oracle import graph_to_spans
    from lab.train import main
    from lab.train_start import add_v2_labels
    from samsa.ucca.xml import list_passage_files, load_passage

    state = {"classify.3.weight": np.array([[0.0], [1.0], [2.0]]), "classify.3.bias": np.array([0.0, 5.0, 6.0])}
    grown = add_v2_labels(state, ["<none>", "D", "E^/C"], ["<none>", "D", "E^/C", "Q^/C", "T"])
    assert grown["classify.3.weight"].ravel().tolist() == [0.0, 1.0, 2.0, 2.0, 1.0]
    assert grown["classify.3.bias"].tolist() == [0.0, 5.0, 6.0, 4.0, 3.0]
    with pytest.raises(SystemExit, match="'A'"):
        add_v2_labels(state, ["<none>", "D", "E^/C"], ["<none>", "A"])

    ewt = [load_passage(f) for f in list_passage_files(data_dir / "ucca" / "ewt" / "dev")[:40]]
    kept = [s.label for g in ewt for s in graph_to_spans(g, harmonize=False)[1]]
    read = [s.label for g in ewt for s in graph_to_spans(g)[1]]
    assert "T" in kept and "Q" in kept and not {"T", "Q"} & set(read)
    assert [k.replace("T", "D").replace("Q", "E") for k in kept] == read

    with pytest.raises(SystemExit):  # the style is what tells the network which guidelines to follow
        main(
            ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--v2-labels", "--out", str(tmp_path / "x.npz")]
        )
    assert not (tmp_path / "x.npz").exists()


def test_scene_weights_mark_main_relations_and_the_scenes_that_hold_them(fixture_path):
    """``--scene-weight``: on "John got home and gave Mary a call ." the weighted spans are the first Scene
    (0-3) and its P "got" (1-2), and the second Scene, whose P is discontiguous (H/P over 4-8); nothing else."""
    from lab.oracle import graph_to_spans
    from lab.train import scene_weights
    from samsa.ucca.xml import load_passage

    words, spans = graph_to_spans(load_passage(fixture_path("ucca/paper/1_john_home_call.xml")))
    assert scene_weights(len(words), spans, 1.0) is None
    w = scene_weights(len(words), spans, 3.0)
    assert sorted((int(i), int(j)) for i, j in (w == 3.0).nonzero()) == [(0, 3), (1, 2), (4, 8)]
    assert int((w == 1.0).sum()) == w.numel() - 3


def test_training_with_a_finetuned_encoder_writes_v4_weights_that_parse_as_trained(tmp_path, data_dir, capsys):
    """The v4 recipe on a handful of sentences: the encoder's layers train with the parser, the weights file
    stores them (format v4), inference reads them into the numpy encoder and computes the per-word states
    the training script computed (to float16 rounding), and a v4 file continues only a v4 run."""
    import numpy as np

    from lab.encoder_torch import TorchMiniLM
    from lab.train import finetuned_features, main, single_window
    from samsa.errors import PluginUnavailable
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.encoder import MiniLM, find_model_dir
    from samsa.parsers.builtin.runtime import load_state, read_header
    from samsa.ucca.graph import tokens

    try:
        find_model_dir()
    except PluginUnavailable as e:
        pytest.skip(str(e))
    out, cache = tmp_path / "tiny4.npz", tmp_path / "features"
    base = ["--data", str(data_dir), "--limit", "8", "--epochs", "1", "--threads", "1", "--encoder", "minilm",
            "--encoder-layers", "0,1", "--styles", "--finetune-encoder", "--no-vectors", "--feature-cache", str(cache),
            "--encoder-lr", "1e-3"]  # fmt: skip
    assert main([*base, "--out", str(out)]) == 0
    header = read_header(out)
    assert header["format"] == "samsa-ucca-span-v4" and header["config"]["vectors"] is False
    assert header["config"]["encoder_finetuned"] == 1 and header["config"]["encoder_precision"] == "float16"
    assert len(list(cache.glob("spacy-*.npz"))) == 2 and not list(cache.glob("encoder-*.npz"))
    tuned = load_state(out, "encoder.")
    assert len(tuned) == 16 and all(k.startswith("encoder.layer.0.") for k in tuned)
    parser = BuiltinParser(weights=out, pipeline="accurate")
    package = MiniLM(depth=1).w
    name = "encoder.layer.0.attention.self.query.weight"
    assert np.abs(parser.encoder.w[name] - package[name]).max() > 1e-4  # trained, not the package's
    np.testing.assert_array_equal(parser.encoder.w[name], tuned[name])
    emb = "embeddings.word_embeddings.weight"  # frozen, as float16 rounds it
    np.testing.assert_array_equal(parser.encoder.w[emb], package[emb].astype(np.float16).astype(np.float32))
    sentences = [["John", "went", "home", "."], ["Mary", "gave", "him", "a", "call", "yesterday", "."]]
    torch_encoder = TorchMiniLM.from_numpy(MiniLM(depth=1, precision="float16"))
    torch_encoder.load_overrides(tuned)
    trained = finetuned_features(torch_encoder, [single_window(parser.encoder, s) for s in sentences])
    for ours, theirs in zip(parser.encoder.words(sentences), trained, strict=True):
        np.testing.assert_allclose(ours.astype(np.float16).astype(np.float32), theirs.astype(np.float32), atol=4e-3)
    (g,) = parser.parse([sentences[0]])
    assert tokens(g) == sentences[0] and parser.signature() == "builtin.v5+accurate+tiny4"
    assert main([*base, "--out", str(tmp_path / "more.npz"), "--init", str(out)]) == 0
    plain = [a for a in base if a != "--finetune-encoder"]
    with pytest.raises(SystemExit, match="fine-tuned encoder layers"):
        main([*plain, "--out", str(tmp_path / "c.npz"), "--init", str(out)])
    with pytest.raises(SystemExit):
        main(["--data", str(data_dir), "--out", str(tmp_path / "d.npz"), "--finetune-encoder"])
    assert "--finetune-encoder needs --encoder minilm" in capsys.readouterr().err


def test_cached_spacy_annotations_give_the_features_of_featurize_and_need_no_spacy(tmp_path, monkeypatch):
    """Training reads spaCy's annotations from its cache (``lab/annotations.py``): the same ids and
    vectors as inference's ``featurize``, and on a machine without spaCy the cached file is used."""
    import numpy as np

    import lab.annotations as annotations
    from samsa.aligners.annotate import load_spacy
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.features import featurize

    sentences = [["John", "went", "home", "."], ["Mary", "gave", "him", "a", "call", "yesterday", "."]]
    vocab = BuiltinParser(pipeline="fast").vocab
    ann = annotations.annotate(sentences, tmp_path, vectors=True)
    assert (
        ann.tag_labels[: ann.pipeline_tags] == vocab.tags[2:] and ann.dep_labels[: ann.pipeline_deps] == vocab.deps[2:]
    )
    for ours, theirs in zip(annotations.to_features(vocab, sentences, ann), featurize(load_spacy(), vocab, sentences),
                            strict=True):  # fmt: skip
        for field in ("words", "tags", "deps", "vectors"):
            np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field))
    monkeypatch.setattr(annotations, "_model_id", lambda: None)  # as where spaCy is not installed
    again = annotations.annotate(sentences, tmp_path, vectors=True)
    assert [t.tolist() for t in again.tags] == [t.tolist() for t in ann.tags] and again.model == ann.model
    with pytest.raises(SystemExit, match="no cached annotations"):
        annotations.annotate(sentences[:1], tmp_path, vectors=True)


def test_a_packed_folder_trains_without_spacy_or_the_shared_data(tmp_path, data_dir, monkeypatch):
    """``lab/pack.py`` then ``lab.train`` as on a GPU machine: corpora and encoder unpacked from the
    folder, spaCy's annotations read from its cache with spaCy taken away, a v4 file written."""
    import tarfile

    import lab.annotations as annotations
    from lab.pack import main as pack
    from lab.train import main as train
    from samsa.errors import PluginUnavailable
    from samsa.parsers.builtin.encoder import find_model_dir
    from samsa.parsers.builtin.runtime import read_header

    try:
        find_model_dir()
    except PluginUnavailable as e:
        pytest.skip(str(e))
    packed = tmp_path / "packed"
    assert pack(["--data", str(data_dir), "--out", str(packed), "--limit", "6", "--encoder-depth", "1"]) == 0
    data, enc = tmp_path / "data", tmp_path / "enc"
    for name, where in (("ucca.tar.xz", data), ("encoder.tar.xz", enc)):
        with tarfile.open(packed / name) as tar:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4
                tar.extractall(where, filter="data")
            else:
                tar.extractall(where)  # our own archive
    assert len(list((data / "ucca" / "wiki" / "train").glob("*.xml"))) == 6
    assert sorted(p.name for p in enc.iterdir()) == ["config.json", "model.safetensors", "vocab.txt"]
    monkeypatch.setattr(annotations, "_model_id", lambda: None)  # no spaCy here
    monkeypatch.setenv("SAMSA_ENCODER_DIR", str(enc))
    out = tmp_path / "w.npz"
    argv = ["--data", str(data), "--out", str(out), "--limit", "6", "--epochs", "1", "--threads", "1",
            "--feature-cache", str(packed / "cache"), "--encoder", "minilm", "--encoder-layers", "0,1",
            "--finetune-encoder", "--no-vectors"]  # fmt: skip
    assert train(argv) == 0
    header = read_header(out)
    assert header["format"] == "samsa-ucca-span-v4" and header["meta"]["train_files"] == 6
