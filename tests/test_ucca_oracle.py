"""Our reader vs ``ucca.convert.from_standard`` on every gold file of ../shared/data/ucca.

Compared per file: every edge (parent, child, categories, remote), the scenes,
and every unit's terminal span. Needs ``pip install --no-deps ucca``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from samsa.ucca.queries import scenes, unit_terminals
from samsa.ucca.xml import load_passage

convert = pytest.importorskip("ucca.convert")


def _compare(path) -> None:
    ref = convert.from_standard(ET.parse(path).getroot())
    ours = load_passage(path)
    ref_edges = sorted(
        (n.ID, e.child.ID, tuple(e.tags), bool(e.attrib.get("remote"))) for n in ref.nodes.values() for e in n
    )
    our_edges = sorted((u, v, d["categories"], d["remote"]) for u, v, d in ours.edges(data=True))
    assert our_edges == ref_edges, path
    l1 = ref.layer("1")
    assert scenes(ours) == [n.ID for n in l1.all if n.tag == "FN" and n.is_scene()], path
    for n in l1.all:
        if n.tag == "FN":
            span = [t.position for t in n.get_terminals(punct=True, remotes=False)]
            assert [ours.nodes[t]["position"] for t in unit_terminals(ours, n.ID, punct=True, remotes=False)] == span


@pytest.mark.slow
@pytest.mark.parametrize(
    "corpus", ["wiki/train", "wiki/dev", "wiki/test", "ewt/train", "ewt/dev", "ewt/test", "20k/test"]
)
def test_reader_agrees_with_ucca_package(data_dir, corpus):
    files = sorted((data_dir / "ucca" / corpus).glob("*.xml"))
    assert files, corpus
    for f in files:
        _compare(f)
