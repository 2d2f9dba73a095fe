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
