"""The ``tupa`` parser plugin, run against a stand-in that speaks TUPA's command line (tests/tupa_standin)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from samsa.cli import main
from samsa.errors import InputError, InvalidGraphError, PluginUnavailable
from samsa.registry import get_parser
from samsa.ucca.graph import tokens
from samsa.ucca.queries import main_relations, scenes

STANDIN_SCRIPT = Path(__file__).resolve().parent / "tupa_standin" / "python"


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    """An executable "TUPA Python": runs the stand-in under this interpreter (no reliance on PATH)."""
    exe = tmp_path_factory.mktemp("tupa-venv") / "python"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN_SCRIPT}" "$@"\n')
    exe.chmod(0o755)
    return exe


@pytest.fixture
def model(tmp_path):
    d = tmp_path / "models"
    d.mkdir()
    (d / "ucca-sparse").write_bytes(b"weights")
    (d / "ucca-sparse.json").write_text('{"classifier": "sparse"}')
    (d / "ucca-sparse.log").write_text("training log: not part of the model")
    return d / "ucca-sparse"


@pytest.fixture
def tupa_env(monkeypatch, model, standin):
    monkeypatch.setenv("SAMSA_TUPA_PYTHON", str(standin))
    monkeypatch.setenv("SAMSA_TUPA_MODEL", str(model))
    monkeypatch.delenv("TUPA_STANDIN_MODE", raising=False)
    return model


def test_parses_validates_and_signs(tupa_env):
    parser = get_parser("tupa")
    h = hashlib.sha256()
    for name in ("ucca-sparse", "ucca-sparse.json"):  # the log is left out
        h.update(name.encode())
        h.update((tupa_env.parent / name).read_bytes())
    assert parser.signature() == f"tupa.v1+tupa-1.4.2+ucca-sparse-{h.hexdigest()[:12]}"
    graphs = parser.parse(["John went home .", ["Mary", "left"]])
    assert [tokens(g) for g in graphs] == [["John", "went", "home", "."], ["Mary", "left"]]
    assert [g.graph["passage_id"] for g in graphs] == ["1", "2"]
    (scene,) = scenes(graphs[0])
    assert [tokens(graphs[0])[int(t.split(".")[1]) - 1] for t in _terminals(graphs[0], main_relations(graphs[0],
            scene))] == ["went"]  # fmt: skip


def _terminals(g, units):
    from samsa.ucca.queries import unit_terminals

    return [t for u in units for t in unit_terminals(g, u)]


def test_score_and_parse_through_the_cli(tupa_env, tmp_path, capsys):
    src = tmp_path / "src.txt"
    src.write_text("John went home .\nMary left .\n")
    system = tmp_path / "sys.txt"
    system.write_text("John went home .\nMary left .\n")
    assert main(["score", "--source", str(src), "--system", str(system), "--parser", "tupa", "--tokenizer", "none",
                 "--no-cache", "--json", "-q"]) == 0  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert result["samsa"] == 100.0 and "parser:tupa.v1+tupa-1.4.2+ucca-sparse-" in result["signature"]
    out = tmp_path / "parsed"
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "tupa", "--tokenizer", "none",
                 "-q"]) == 0  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == ["000001.xml", "000002.xml"]


@pytest.mark.parametrize(
    ("mode", "error", "message"),
    [
        ("fail", InputError, "TUPA failed (exit 1): RuntimeError: the stand-in was told to fail"),
        ("cycle", InvalidGraphError, "<TUPA parse of sentence 1>:13: passage 1: node 1.2: unit with 2 primary parents"),
        ("garbage", InputError, "<TUPA parse of sentence 1>:1: malformed XML"),
        ("missing", InputError, "TUPA wrote no parse for sentence 1"),
        ("retokenize", InputError, "TUPA changed the tokens of sentence 1"),
    ],
)
def test_a_misbehaving_tupa_gives_one_clear_error(tupa_env, monkeypatch, mode, error, message):
    parser = get_parser("tupa")
    monkeypatch.setenv("TUPA_STANDIN_MODE", mode)
    with pytest.raises(error) as err:
        parser.parse(["John went home ."])
    assert message in str(err.value)


def test_missing_installation(monkeypatch, tmp_path, capsys, standin):
    monkeypatch.delenv("SAMSA_TUPA_PYTHON", raising=False)
    monkeypatch.delenv("SAMSA_TUPA_MODEL", raising=False)
    with pytest.raises(PluginUnavailable, match="set SAMSA_TUPA_PYTHON"):
        get_parser("tupa")
    with pytest.raises(InputError, match="no TUPA model files with this prefix"):
        get_parser("tupa", python=str(standin), model=str(tmp_path / "nothing"))
    src = tmp_path / "src.txt"
    src.write_text("John went home .\n")
    assert main(["score", "--source", str(src), "--system", str(src), "--parser", "tupa", "-q"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_two_edges_between_the_same_units_become_one_multi_category_edge(tupa_env, monkeypatch):
    monkeypatch.setenv("TUPA_STANDIN_MODE", "parallel")
    (g,) = get_parser("tupa").parse(["John went home ."])
    assert g.edges["1.2", "1.3"]["categories"] == ("A", "D")
    assert g.edges["1.1", "1.2"]["categories"] == ("H",) and not g.edges["1.1", "1.2"]["remote"]  # remote dropped
