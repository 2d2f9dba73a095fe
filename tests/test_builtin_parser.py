"""The built-in parser with the committed weights: API, samsa parse, samsa score --source."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("spacy")

from samsa.cli import main
from samsa.errors import PluginUnavailable
from samsa.parsers.builtin import BuiltinParser
from samsa.ucca.graph import tokens
from samsa.ucca.queries import scenes
from samsa.ucca.xml import list_passage_files, load_passage


@pytest.fixture(scope="module")
def parser():
    return BuiltinParser()


def test_parses_text_and_token_lists(parser):
    g1, g2, empty = parser.parse(["John got home and gave Mary a call.", ["I", "read", "the", "book", "."], []])
    assert tokens(g1) == ["John", "got", "home", "and", "gave", "Mary", "a", "call", "."]
    assert tokens(g2) == ["I", "read", "the", "book", "."]  # given tokens kept
    assert len(scenes(g1)) >= 1 and len(scenes(g2)) == 1
    assert tokens(empty) == []
    assert parser.meta["train_sha256"] and parser.meta["history"]


def test_missing_weights_are_explained(tmp_path):
    with pytest.raises(PluginUnavailable, match="parser weights not found"):
        BuiltinParser(weights=tmp_path / "none.npz")


def test_samsa_parse_writes_xml_the_ucca_package_reads(tmp_path, data_dir):
    convert = pytest.importorskip("ucca.convert")
    gold = [load_passage(f) for f in list_passage_files(data_dir / "ucca" / "20k" / "test")[:12]]
    src = tmp_path / "sentences.txt"
    src.write_text("\n".join(" ".join(tokens(g)) for g in gold) + "\n")
    out = tmp_path / "parsed"
    assert main(["parse", "--tokenizer", "none", "--input", str(src), "--output-dir", str(out), "--quiet"]) == 0
    files = list_passage_files(out)
    assert [f.name for f in files[:2]] == ["000001.xml", "000002.xml"] and len(files) == 12
    for f, g in zip(files, gold, strict=True):
        passage = convert.from_standard(ET.parse(f).getroot())
        assert [t.text for t in passage.layer("0").all] == tokens(g)


def test_score_from_raw_sources(tmp_path, capsys):
    src = tmp_path / "src.txt"
    src.write_text("John got home and gave Mary a call.\nI read the book that John wrote.\n")
    sys1 = tmp_path / "a.txt"
    sys1.write_text("John got home. John gave Mary a call.\nJohn wrote a book. I read that book.\n")
    sys2 = tmp_path / "b.txt"
    sys2.write_text("John got home and gave Mary a call.\nI read the book that John wrote.\n")
    assert main(["score", "--source", str(src), "--system", str(sys1), str(sys2), "--json", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in res] == ["a.txt", "b.txt"]  # names (--name, else file names)
    assert [r["file"] for r in res] == [str(sys1), str(sys2)]
    assert all(0 <= r["samsa"] <= 100 for r in res)
    assert "parser:builtin.v5+fast+ucca-span-v2-scenes-w4|" in res[0]["signature"]


def test_remote_edges_and_scene_count_on_20k(parser, data_dir):
    """The default pipeline predicts remote edges; a Scene bias adds Scenes (on 20K the pipeline finds more Scenes
    than the annotators even without one).

    Thresholds sit a little below the values measured on these 100 sentences
    (docs/BENCHMARKS.md has the full test sets).
    """
    from samsa.ucca.evaluation import evaluate_corpus, scene_scores

    gold = [load_passage(f) for f in list_passage_files(data_dir / "ucca" / "20k" / "test")[:100]]
    pred = parser.parse([tokens(g) for g in gold])
    pairs = list(zip(pred, gold, strict=True))
    counts = evaluate_corpus(pairs).counts
    assert counts["labeled", "remote"].f1 > 0.25  # measured 0.278
    assert counts["labeled", "primary"].f1 > 0.64  # measured 0.665
    found = scene_scores(pairs)
    # the default pipeline decodes without a Scene bias (chosen on the dev sets, docs/validity.md); a positive
    # one finds more Scenes
    assert parser.scene_bias == parser.chosen_scene_bias == 0 and "scene_bias" not in parser.signature()
    biased = BuiltinParser(scene_bias=1)
    assert "+scene_bias.1" in biased.signature()
    more = sum(len(scenes(g)) for g in biased.parse([tokens(g) for g in gold]))
    guessed = found["scenes_guessed"]
    assert guessed < more and 1.1 < guessed / found["scenes_ref"] < 1.4  # measured 410 < 485; 1.29
