"""Graph queries on hand-built fixtures (paper definitions)."""

from __future__ import annotations

import pytest

from samsa.ucca import graph as G
from samsa.ucca.queries import (
    centers,
    children,
    is_scene,
    main_relations,
    minimal_centers,
    parallel_scenes,
    participants,
    scenes,
    unit_terminals,
)
from samsa.ucca.xml import load_passage


@pytest.fixture
def load(ucca_path):
    return lambda name: load_passage(ucca_path(name))


def words(g, ids):
    return [g.nodes[t]["text"] for t in ids]


def test_scenes_in_node_order_with_remote_participant(load):
    g = load("john_home_call")
    assert scenes(g) == ["1.2", "1.4"]
    assert parallel_scenes(g, "1.1") == ["1.2", "1.4"]
    assert participants(g, "1.4") == ["1.6", "1.13"]  # remote "John" included, node-ID order
    assert children(g, "1.4", {"A"}, remote=False) == ["1.13"]
    assert main_relations(g, "1.4") == ["1.9"]


def test_terminals_with_and_without_remotes_and_punct(load):
    g = load("john_home_call")
    assert words(g, unit_terminals(g, "1.4")) == ["John", "gave", "Mary", "a", "call"]
    assert words(g, unit_terminals(g, "1.4", remotes=False)) == ["gave", "Mary", "a", "call"]
    assert words(g, unit_terminals(g, "1.1", punct=True))[-1] == "."
    assert "." not in words(g, unit_terminals(g, "1.1"))


def test_minimal_center_of_light_verb_construction(load):
    g = load("john_home_call")
    assert centers(g, "1.9") == ["1.12"]
    assert minimal_centers(g, "1.9") == ["1.12"]  # "gave ... a call" -> "call"


def test_participant_scene_contributes_its_main_relation(load):
    g = load("traveling_fun")
    assert is_scene(g, "1.3")
    assert minimal_centers(g, "1.3") == ["1.5"]  # "Traveling"
    assert minimal_centers(g, "1.6") == ["1.6"]  # implicit unit is its own center
    assert g.nodes["1.6"]["implicit"] is True


def test_all_centers_of_a_coordination(load):
    g = load("man_woman_left")
    assert minimal_centers(g, "1.3") == ["1.10", "1.13"]  # "man", "woman"


def test_multi_category_edge_counts_for_every_category(load):
    g = load("teacher_left")
    assert g.edges["1.3", "1.6"]["categories"] == ("A", "P")
    assert scenes(g) == ["1.2", "1.3"]
    assert main_relations(g, "1.3") == ["1.6"]
    assert participants(g, "1.3") == ["1.6"]
    assert children(g, "1.3", {"P"}, first_only=True) == []


def test_no_scene(load):
    assert scenes(load("lovely_day")) == []


def test_elaborator_scene_with_remote_participant(load):
    g = load("read_book")
    assert scenes(g) == ["1.2", "1.8"]
    assert words(g, unit_terminals(g, "1.8")) == ["book", "that", "John", "wrote"]
    assert minimal_centers(g, "1.5") == ["1.7"]


def test_hand_built_graph_and_node_key():
    g = G.from_tokens(["Dogs", "bark", "."], punct=[False, False, True])
    G.add_unit(g, "1.2")
    G.add_unit(g, "1.3")
    G.add_unit(g, "1.10")
    G.add_edge(g, "1.1", "1.2", "H")
    G.add_edge(g, "1.2", "1.3", "A")
    G.add_edge(g, "1.2", "1.10", "P")
    G.add_edge(g, "1.3", "0.1", "Terminal")
    G.add_edge(g, "1.10", "0.2", "Terminal")
    assert scenes(g) == ["1.2"]
    assert children(g, "1.2") == ["1.3", "1.10"]  # numeric, not lexicographic
    assert G.tokens(g) == ["Dogs", "bark", "."]
    with pytest.raises(ValueError, match="duplicate edge"):
        G.add_edge(g, "1.2", "1.3", "D")
    with pytest.raises(ValueError, match="malformed UCCA node ID"):
        G.node_key("x")
