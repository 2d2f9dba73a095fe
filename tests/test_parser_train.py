"""The training script end to end on a handful of sentences: it writes a weights file the numpy runtime loads."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


def test_training_smoke_run_writes_loadable_npz_weights(tmp_path, data_dir):
    from parsers.builtin import BuiltinParser
    from parsers.train import main
    from samsa.graph import tokens

    out = tmp_path / "tiny.npz"
    assert main(["--data", str(data_dir), "--out", str(out), "--limit", "12", "--epochs", "1", "--threads", "1"]) == 0
    parser = BuiltinParser(weights=out)
    assert parser.meta["train_files"] == 12 and parser.meta["stopped"] == "--epochs 1 done"
    assert len(parser.meta["history"]) == 1 and 0 <= parser.meta["history"][0]["dev_pooled_f1"] <= 1
    (g,) = parser.parse([["John", "went", "home", "."]])
    assert tokens(g) == ["John", "went", "home", "."] and parser.signature() == "builtin.v1+tiny"


def test_training_with_encoder_and_styles_writes_v3_weights(tmp_path, data_dir):
    """The accurate pipeline's recipe on a handful of sentences: encoder features cached, v3 format, parses."""
    from parsers.builtin import BuiltinParser
    from parsers.builtin.encoder import find_model_dir
    from parsers.train import main
    from samsa.errors import PluginUnavailable
    from samsa.graph import tokens

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
    assert tokens(g) == ["John", "went", "home", "."] and parser.signature() == "builtin.v1+tiny3+style.ewt"


def test_training_continues_from_a_weights_file(tmp_path, data_dir):
    from parsers.builtin import BuiltinParser
    from parsers.train import main

    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    base = ["--data", str(data_dir), "--limit", "12", "--epochs", "1", "--threads", "1"]
    assert main([*base, "--out", str(first)]) == 0
    assert main([*base, "--out", str(second), "--init", str(first)]) == 0
    meta = BuiltinParser(weights=second).meta
    assert meta["init"]["file"] == "a.npz" and meta["init"]["best_epoch"] == 1
    assert [h["epoch"] for h in meta["history"]] == [2]  # numbering goes on from the first run's best epoch
    with pytest.raises(SystemExit, match="not the same network"):
        main([*base, "--out", str(tmp_path / "c.npz"), "--init", str(first), "--styles"])


def test_scene_weights_mark_main_relations_and_the_scenes_that_hold_them(fixture_path):
    """``--scene-weight``: on "John got home and gave Mary a call ." the weighted spans are the first Scene
    (0-3) and its P "got" (1-2), and the second Scene, whose P is discontiguous (H/P over 4-8); nothing else."""
    from parsers.builtin.tree import graph_to_spans
    from parsers.train import scene_weights
    from samsa.ucca_xml import load_passage

    words, spans = graph_to_spans(load_passage(fixture_path("ucca/paper/1_john_home_call.xml")))
    assert scene_weights(len(words), spans, 1.0) is None
    w = scene_weights(len(words), spans, 3.0)
    assert sorted((int(i), int(j)) for i, j in (w == 3.0).nonzero()) == [(0, 3), (1, 2), (4, 8)]
    assert int((w == 1.0).sum()) == w.numel() - 3
