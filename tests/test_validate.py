"""The UCCA graph validator: each structural rule refused with file, line and node; valid corner cases accepted."""

from __future__ import annotations

import json
import shutil

import pytest

from samsa.cli import main
from samsa.errors import InputError, InvalidGraphError
from samsa.ucca import graph as G
from samsa.ucca.validate import violations
from samsa.ucca.xml import load_passage

BOOK = "ucca/paper/2_read_book.xml"
EDGE = '<edge toID="{}" type="{}"><attributes/><category tag="{}"/></edge>'


def mutate(tmp_path, fixture_path, old: str, new: str, name: str = "broken.xml"):
    text = fixture_path(BOOK).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def line_of(path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


UNIT_13 = '<node ID="1.3" type="FN"><attributes/>'
UNIT_19 = '<node ID="1.9" type="FN"><attributes/>'
TERMINAL_01 = '<node ID="0.1" type="Word"><attributes text="I" paragraph="1" paragraph_position="1"/>'

CASES = {
    # name: (old, new, node whose line the error names, expected message)
    "self-loop": (UNIT_13, UNIT_13 + EDGE.format("1.3", "A", "A"), UNIT_13, "node 1.3: edge from a node to itself"),
    "edge into the root": (UNIT_13, UNIT_13 + EDGE.format("1.1", "A", "A"), '<node ID="1.1"',
                           "node 1.1: edge from 1.3 back into the root"),
    "terminal with children": (TERMINAL_01, TERMINAL_01 + EDGE.format("1.3", "A", "A"), TERMINAL_01,
                               "node 0.1: terminal with children (1.3)"),
    "orphan unit": ('      <edge toID="1.12" type="U"><attributes/><category tag="U"/></edge>\n', "",
                    '<node ID="1.12"', "node 1.12: orphan unit (no parent)"),
    "two primary parents": (UNIT_13, UNIT_13 + EDGE.format("1.4", "A", "A"), '<node ID="1.4"',
                            "node 1.4: unit with 2 primary parents (1.2, 1.3)"),
    "unit without terminals": (UNIT_19 + EDGE.format("0.5", "Terminal", "Terminal"), UNIT_19, UNIT_19,
                               "node 1.9: unit without terminals"),
    "implicit unit with children": (UNIT_19, '<node ID="1.9" type="FN"><attributes implicit="True"/>', '<node ID="1.9"',
                                    "node 1.9: implicit unit with children"),
    "unknown unit type": ('<node ID="1.9" type="FN">', '<node ID="1.9" type="XX">', '<node ID="1.9"', "type 'XX'"),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_structural_violation_names_file_line_and_node(tmp_path, fixture_path, case):
    old, new, where, message = CASES[case]
    path = mutate(tmp_path, fixture_path, old, new)
    with pytest.raises(InputError) as err:
        load_passage(path)
    assert f"{path}:{line_of(path, where)}: " in str(err.value)
    assert message in str(err.value)


def test_cycle_of_primary_edges(tmp_path, fixture_path):
    """1.5 and 1.6 point at each other (each keeps one parent), cut off from the root."""
    text = fixture_path(BOOK).read_text(encoding="utf-8")
    text = text.replace(EDGE.format("1.5", "A", "A"), "")
    six = '<node ID="1.6" type="FN"><attributes/>'
    text = text.replace(six, six + EDGE.format("1.5", "C", "C"))
    path = tmp_path / "cycle.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidGraphError) as err:
        load_passage(path)
    assert "cycle of primary edges through 2 unit(s)" in str(err.value) and err.value.node == "1.5"
    assert err.value.line == line_of(path, '<node ID="1.5"')


def test_reader_level_violations(tmp_path, fixture_path):
    cases = {
        "duplicate": ('<node ID="1.12" type="PNCT">', '<node ID="1.11" type="PNCT">', "node ID 1.11 is used twice"),
        "renamed layer": ('<layer layerID="1">', '<layer layerID="2">', "unknown layer '2'"),
        "gap in terminal IDs": ('<node ID="0.8"', '<node ID="0.9"', "edge from 1.12 points to unknown node '0.8'"),
    }
    for name, (old, new, message) in cases.items():
        path = mutate(tmp_path, fixture_path, old, new, f"{name.replace(' ', '_')}.xml")
        with pytest.raises(InputError, match=message):
            load_passage(path)
    root_only = tmp_path / "root_only.xml"
    root_only.write_text("<root/>")
    with pytest.raises(InputError, match=r"root_only.xml:1: layer 0 is missing"):
        load_passage(root_only)


def test_every_violation_is_listed():
    g = G.from_tokens(["a", "b"])
    G.add_unit(g, "1.2")
    G.add_unit(g, "1.3")
    G.add_edge(g, "1.1", "1.2", "A")
    G.add_edge(g, "1.2", "0.1", "Terminal")
    G.add_edge(g, "1.3", "1.3", "A")  # self-loop, and 1.3 has no parent but itself
    found = {(v.node, v.message.split(" (")[0]) for v in violations(g)}
    assert ("1.3", "edge from a node to itself") in found
    assert ("1.3", "orphan unit") not in found  # its one parent is itself: a self-loop, reported as such
    # a lone word that hangs from nothing is allowed (the corpora have such terminals), but a root above no
    # word is not a passage
    (only,) = violations(G.from_tokens(["a"]))
    assert (only.node, only.message.split(" (")[0]) == ("1.1", "unit without terminals")


def test_gold_corner_cases_stay_valid(fixture_path):
    """Linkage units (no parent, LR/LA edges), remote edges and implicit units are valid."""
    for name in ("ucca/paper/1_john_home_call.xml", "ucca/traveling_fun.xml", "ucca_site/site_example.xml"):
        assert violations(load_passage(fixture_path(name))) == []


def test_deep_graphs_without_recursion(tmp_path, fixture_path):
    """A 20,000-deep chain (standard format) and 20,000-deep nesting (site format) load and score."""
    n = 20_000
    units = "".join(
        f'<node ID="1.{i}" type="FN"><attributes/>{EDGE.format(f"1.{i + 1}", "A", "A")}</node>' for i in range(1, n)
    )
    units += f'<node ID="1.{n}" type="FN"><attributes/>{EDGE.format("0.1", "Terminal", "Terminal")}</node>'
    std = tmp_path / "std"
    std.mkdir()
    (std / "1.xml").write_text(
        '<root passageID="deep"><attributes/><layer layerID="0"><attributes/><node ID="0.1" type="Word">'
        f'<attributes text="left"/></node></layer><layer layerID="1"><attributes/>{units}</layer></root>'
    )
    inner = '<unit id="w" type="To Be Defined"><word id="t">left</word></unit>'
    for i in range(n):
        inner = f'<unit id="u{i}" type="Participant">{inner}</unit>'
    site = tmp_path / "site"
    site.mkdir()
    (site / "1.xml").write_text(f'<root><units passageID="s"><unit id="0"><unit id="p">{inner}</unit></unit></units>'
                                "</root>")  # fmt: skip
    system = tmp_path / "sys.txt"
    system.write_text("left .\n")
    for d in (std, site):
        assert main(["score", "--ucca", str(d), "--system", str(system), "--quiet", "--json"]) == 0
    cyclic = units.replace(EDGE.format("0.1", "Terminal", "Terminal"), EDGE.format("1.2", "A", "A"))
    cyclic = cyclic.replace(EDGE.format("1.2", "A", "A"), "", 1)  # 1.2 ... 1.n -> 1.2: a 19,999-unit cycle
    (std / "1.xml").write_text(
        '<root passageID="deep"><attributes/><layer layerID="0"><attributes/><node ID="0.1" type="Word">'
        f'<attributes text="left"/></node></layer><layer layerID="1"><attributes/>{cyclic}</layer></root>'
    )
    with pytest.raises(InvalidGraphError, match="cycle of primary edges through 19999 unit"):
        load_passage(std / "1.xml")


def test_lenient_drops_broken_passages_and_says_so(tmp_path, fixture_path, capsys):
    gold = tmp_path / "gold"
    gold.mkdir()
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), gold / "1.xml")
    mutate(gold, fixture_path, UNIT_13, UNIT_13 + EDGE.format("1.1", "A", "A"), "2.xml")
    system = tmp_path / "sys.txt"
    system.write_text("John got home . John gave Mary a call .\nI read the book .\n")
    assert main(["score", "--ucca", str(gold), "--system", str(system), "--tokenizer", "none", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "2.xml:" in err and "back into the root" in err and err.count("\n") == 1
    per_sentence = tmp_path / "rows.jsonl"
    argv = ["score", "--ucca", str(gold), "--system", str(system), "--tokenizer", "none", "--quiet", "--lenient"]
    assert main([*argv, "--json", "--per-sentence", str(per_sentence)]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert (summary["n_lines"], summary["n_dropped"], summary["samsa"]) == (1, 1, 100.0)
    assert "dropped line 2" in captured.err and "--lenient dropped 1 of 2 line(s)" in captured.err
    rows = [json.loads(x) for x in per_sentence.read_text().splitlines()]
    assert rows[1] == {"line": 2, "dropped": True} and rows[0]["samsa"] == 100.0


def test_api_validates_hand_built_graphs():
    from samsa import corpus_samsa

    g = G.from_tokens(["John", "left"])
    G.add_unit(g, "1.2")
    G.add_edge(g, "1.1", "1.2", "H")  # a unit with no words under it
    with pytest.raises(InvalidGraphError, match=r"<source 1>: passage 1: node 1\.1: unit without terminals"):
        corpus_samsa([g], ["John left ."])
