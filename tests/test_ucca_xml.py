"""UCCA XML reading/writing: both edge styles, site format, round trips, hostile input."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from samsa import InputError
from samsa.ucca.queries import scenes
from samsa.ucca.xml import (
    list_passage_files,
    load_passage,
    natural_key,
    parse_standard_bytes,
    read_standard,
    to_standard_xml,
)
from samsa.ucca.xmlsafe import parse_xml

FIXTURES = ["john_home_call", "read_book", "traveling_fun", "teacher_left", "lovely_day", "man_woman_left"]


def graph_signature(g):
    nodes = sorted(
        (n, d["type"], d.get("text"), d.get("position"), bool(d.get("implicit"))) for n, d in g.nodes(data=True)
    )
    edges = sorted((u, v, d["categories"], d["remote"]) for u, v, d in g.edges(data=True))
    return nodes, edges


def test_old_style_edges_take_their_category_from_type(fixture_path):
    g = load_passage(fixture_path("ucca/paper/1_john_home_call.xml"))
    assert g.graph["passage_id"] == "john_home_call"
    assert g.edges["1.1", "1.2"]["categories"] == ("H",)
    assert g.edges["1.4", "1.6"]["remote"] is True
    assert g.nodes["0.9"] == g.nodes["0.9"] | {"type": "Punctuation", "text": ".", "position": 9}


def test_new_style_multi_category_edges(fixture_path):
    g = load_passage(fixture_path("ucca/teacher_left.xml"))
    assert g.edges["1.3", "1.6"]["categories"] == ("A", "P")


def test_implicit_units(fixture_path):
    g = load_passage(fixture_path("ucca/traveling_fun.xml"))
    assert g.nodes["1.6"]["implicit"] is True and not list(g.successors("1.6"))


@pytest.mark.parametrize("name", FIXTURES)
def test_round_trip(ucca_path, name):
    g = load_passage(ucca_path(name))
    again = parse_standard_bytes(to_standard_xml(g))
    assert graph_signature(again) == graph_signature(g)
    assert to_standard_xml(again) == to_standard_xml(g)


def etree_xml(g):
    """The reference: the same document built as an ElementTree, indented and serialized by the standard library
    (what ``to_standard_xml`` did before it wrote the text directly)."""
    from samsa.ucca import graph as G

    def sub(parent, tag, attrib=None, **extra):
        return ET.SubElement(parent, tag, dict(attrib or {}), **extra)

    root = ET.Element("root", passageID=str(g.graph.get("passage_id", "1")), annotationID="0")
    sub(root, "attributes", g.graph.get("attributes", {}))
    if g.graph.get("extra"):
        sub(root, "extra", g.graph["extra"])
    for lid in ("0", "1"):
        attrs, extra = g.graph.get("layer_attributes", {}).get(lid, ({}, {}))
        layer = sub(root, "layer", layerID=lid)
        sub(layer, "attributes", attrs)
        if extra:
            sub(layer, "extra", extra)
        for nid in sorted((n for n, d in g.nodes(data=True) if d["layer"] == lid), key=G.node_key):
            data = g.nodes[nid]
            node = sub(layer, "node", ID=nid, type=data["type"])
            attrs = dict(data.get("attributes", {}))
            if lid == "0":
                attrs.setdefault("text", data["text"])
                attrs.setdefault("paragraph", str(data.get("paragraph", 1)))
                attrs.setdefault("paragraph_position", str(data.get("paragraph_position", data["position"])))
            elif data.get("implicit"):
                attrs["implicit"] = "True"
            sub(node, "attributes", attrs)
            if data.get("extra"):
                sub(node, "extra", data["extra"])
            for child in sorted(g.succ[nid], key=G.node_key):
                e = g.edges[nid, child]
                edge = sub(node, "edge", toID=child, type=e["categories"][0])
                sub(edge, "attributes", dict(e.get("attributes", {}), **({"remote": "True"} if e["remote"] else {})))
                if not e.get("legacy_type"):
                    for cat in e.get("category_attributes") or [{"tag": t} for t in e["categories"]]:
                        sub(edge, "category", cat)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="utf-8", xml_declaration=False) + b"\n"


def test_writer_equals_elementtree_on_every_fixture(fixture_path):
    files = sorted(fixture_path("ucca").rglob("*.xml")) + sorted(fixture_path("ucca_site").rglob("*.xml"))
    assert len(files) >= 8
    for f in files:
        g = load_passage(f)
        assert to_standard_xml(g) == etree_xml(g), f


def test_writer_escapes_attribute_values_as_elementtree_does(ucca_path):
    g = load_passage(ucca_path("john_home_call"))
    g.graph["passage_id"] = 'a&b<c>"d"'
    g.graph["attributes"] = {"note": "tab\there\nnew line\r & caf\u00e9 \U0001f600 \ud800"}
    g.nodes["0.1"]["text"] = "<&>"
    g.edges["1.1", "1.2"]["attributes"] = {"k": "'quoted' \"double\""}
    out = to_standard_xml(g)
    assert out == etree_xml(g)
    assert b'passageID="a&amp;b&lt;c&gt;&quot;d&quot;"' in out and b"&#09;" in out and b"&#10;" in out
    assert b"&#55296;" in out  # a lone surrogate, as ElementTree writes it (xmlcharrefreplace)


def test_writer_refuses_what_is_not_xml():
    from samsa.ucca.graph import from_tokens

    g = from_tokens(["a", "b"], "1")
    g.nodes["0.1"]["attributes"] = {"bad name": "x"}
    with pytest.raises(ValueError, match="not an XML name"):
        to_standard_xml(g)
    g.nodes["0.1"]["attributes"] = {"count": 3}
    with pytest.raises(TypeError, match="cannot serialize 3"):
        to_standard_xml(g)


@pytest.mark.parametrize("corpus", ["ucca/20k/test", "ucca/wiki/test", "ucca/ewt/test"])
def test_writer_equals_elementtree_on_corpora(data_dir, corpus):
    files = list_passage_files(data_dir / corpus)
    assert len(files) > 100
    for f in files:
        g = load_passage(f)
        assert to_standard_xml(g) == etree_xml(g), f


def test_site_format_matches_the_standard_model(fixture_path):
    g = load_passage(fixture_path("ucca_site/site_example.xml"))
    assert g.graph["passage_id"] == "site_example"
    assert scenes(g) == ["1.3", "1.8"]
    assert g.edges["1.8", "1.4"] == g.edges["1.8", "1.4"] | {"categories": ("A",), "remote": True}
    assert g.nodes["1.6"]["implicit"] is True
    assert g.nodes["1.13"]["type"] == "LKG"
    assert sorted(g.successors("1.13")) == ["1.2", "1.3", "1.8"]  # LR: the linker "After"; LA: the two scenes


def test_site_format_agrees_with_the_ucca_package(fixture_path):
    convert = pytest.importorskip("ucca.convert")
    import xml.etree.ElementTree as ET

    path = fixture_path("ucca_site/site_example.xml")
    ref = convert.from_site(ET.parse(path).getroot())
    ours = load_passage(path)
    ref_edges = sorted(
        (n.ID, e.child.ID, tuple(e.tags), bool(e.attrib.get("remote"))) for n in ref.nodes.values() for e in n
    )
    assert ref_edges == sorted((u, v, d["categories"], d["remote"]) for u, v, d in ours.edges(data=True))


def test_natural_sort(tmp_path):
    for name in ["s10.xml", "s2.xml", "s1.xml", "notes.txt"]:
        (tmp_path / name).write_text("<root/>")
    assert [p.name for p in list_passage_files(tmp_path)] == ["s1.xml", "s2.xml", "s10.xml"]
    assert natural_key("a10") > natural_key("a9")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<root passageID="x">&lol3;</root>
"""

EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE root [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<root passageID="&xxe;"/>
"""


@pytest.mark.parametrize("payload", [BILLION_LAUGHS, EXTERNAL], ids=["billion-laughs", "external-entity"])
def test_hostile_xml_is_refused(tmp_path, payload):
    f = tmp_path / "evil.xml"
    f.write_bytes(payload)
    with pytest.raises(InputError, match=r"evil\.xml:2: DOCTYPE/entity declarations are not allowed"):
        load_passage(f)


def test_malformed_xml_names_file_and_line(tmp_path):
    f = tmp_path / "broken.xml"
    f.write_bytes(b"<root passageID='x'>\n  <layer layerID='0'>\n</root>\n")
    with pytest.raises(InputError, match=r"broken\.xml:3: malformed XML: mismatched tag"):
        load_passage(f)


def test_undefined_entity_is_an_error(tmp_path):
    f = tmp_path / "ent.xml"
    f.write_bytes(b"<root>\n&nope;</root>")
    with pytest.raises(InputError, match=r"ent\.xml:2: malformed XML: undefined entity"):
        load_passage(f)


def test_edge_to_unknown_node_names_the_edge_line():
    data = b"""<root passageID="x">
<layer layerID="1">
<node ID="1.1" type="FN">
<edge toID="1.99" type="H"/>
</node>
</layer>
</root>"""
    with pytest.raises(InputError, match=r"t\.xml:4: edge from 1\.1 points to unknown node '1\.99'"):
        read_standard(parse_xml(data, "t.xml"), "t.xml")


def test_bad_terminal_type():
    data = b'<root><layer layerID="0"><node ID="0.1" type="Wrod"><attributes text="a"/></node></layer></root>'
    with pytest.raises(InputError, match="expected Word or Punctuation"):
        read_standard(parse_xml(data, "t.xml"), "t.xml")


def test_ucca_package_bridge_round_trips(fixture_path):
    pytest.importorskip("ucca.convert")
    from samsa.ucca.interop import from_ucca, to_ucca

    g = load_passage(fixture_path("ucca/paper/2_read_book.xml"))
    p = to_ucca(g)
    assert [n.ID for n in p.layer("1").all if n.tag == "FN" and n.is_scene()] == scenes(g)
    assert graph_signature(from_ucca(p)) == graph_signature(g)
