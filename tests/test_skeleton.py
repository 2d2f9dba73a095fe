"""The Scene skeleton: what SAMSA reads of a passage, and its writer to standard UCCA XML.

Sufficiency is checked two ways: the structure scoring reads (each Scene's words, its main relation's and its
participants' center words) is the same from the skeleton as from the full graph, and every battery output
scores the same sentence by sentence (paper SAMSA and SAMSA-abl), on every gold passage of the test sets.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from samsa.scoring.paper import paper_structure
from samsa.ucca.graph import node_table
from samsa.ucca.skeleton import Participant, SceneSkeleton, Skeleton, skeleton_of
from samsa.ucca.skeleton_write import skeleton_graph, skeleton_xml
from samsa.ucca.validate import violations
from samsa.ucca.xml import list_passage_files, load_passage, parse_standard_bytes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TEST_SETS = ("ucca/wiki/test", "ucca/20k/test", "ucca/de20k/test")


def read_structure(g):
    """Per Scene: its word positions, its main relation's center positions, its participants' (sorted)."""
    nodes = node_table(g)

    def pos(ts):
        return tuple(sorted(nodes[t]["position"] for t in ts))

    return [
        (pos(s.leaves), pos(s.main_relation.terminals), sorted(pos(p.terminals) for p in s.participants))
        for s in paper_structure(g)
    ]


def round_trip(g):
    data = skeleton_xml(skeleton_of(g))
    return parse_standard_bytes(data, "<skeleton>")  # validates, as every reader does


@pytest.mark.parametrize("path", sorted((FIXTURES / "ucca").rglob("*.xml")), ids=lambda p: p.stem)
def test_fixture_skeletons_read_the_same(path):
    g = load_passage(path)
    assert read_structure(round_trip(g)) == read_structure(g)


def test_skeleton_of_the_paper_example():
    """'John got home and gave Mary a call.': two Scenes; the second's main relation is 'call' (light verb),
    John its remote participant."""
    sk = skeleton_of(load_passage(FIXTURES / "ucca/paper/1_john_home_call.xml"))
    assert [" ".join(sk.tokens[p - 1] for p in s.words) for s in sk.scenes] == [
        "John got home",
        "John gave Mary a call",
    ]
    first, second = sk.scenes
    assert first.main == ((2,),) and {p.centers for p in first.participants} == {((1,),), ((3,),)}
    assert second.main == ((8,),)
    assert Participant(((1,),), remote=True) in second.participants


def test_written_xml_spells_attributes_as_the_ucca_package():
    sk = Skeleton(
        ("he", "left", "and", "cried", "."),
        (False, False, False, False, True),
        (
            SceneSkeleton((1, 2), ((2,),), (Participant(((1,),)),)),
            SceneSkeleton((1, 4), ((4,),), (Participant(((1,),), remote=True), Participant(((),)))),
        ),
    )
    text = skeleton_xml(sk).decode()
    assert 'remote="True"' in text and 'implicit="True"' in text
    g = skeleton_graph(sk)
    assert violations(g) == []
    assert read_structure(g) == [((1, 2), (2,), [(1,)]), ((1, 4), (4,), [(), (1,)])]
    assert Skeleton.from_json(sk.to_json()) == sk


def test_a_unit_both_main_relation_and_participant_is_one_edge_with_two_categories():
    sk = Skeleton(("teacher", "left"), (False, False), (SceneSkeleton((1, 2), ((1,),), (Participant(((1,),)),)),))
    g = skeleton_graph(sk)
    (cats,) = [d["categories"] for _, _, d in g.out_edges("1.2", data=True) if "P" in d["categories"]]
    assert set(cats) == {"P", "A"}
    assert read_structure(g) == [((1, 2), (1,), [(1,)])]


def test_nested_centers_keep_their_words():
    """'the big dog' as a participant's center, 'dog' another's: the smaller unit hangs under the larger."""
    sk = Skeleton(
        ("the", "big", "dog", "barked", "dog", "slept"),
        (False,) * 6,
        (
            SceneSkeleton((1, 2, 3, 4), ((4,),), (Participant(((1, 2, 3),)),)),
            SceneSkeleton((3, 6), ((6,),), (Participant(((3,),), remote=True),)),
        ),
    )
    assert read_structure(skeleton_graph(sk)) == [((1, 2, 3, 4), (4,), [(1, 2, 3)]), ((3, 6), (6,), [(3,)])]


def test_overlapping_centers_are_refused_naming_the_words():
    sk = Skeleton(
        ("a", "b", "c", "went"),
        (False,) * 4,
        (SceneSkeleton((1, 2, 3, 4), ((4,),), (Participant(((1, 2),)), Participant(((2, 3),)))),),
    )
    with pytest.raises(ValueError, match="centers 'a b' and 'b c' overlap"):
        skeleton_graph(sk)


def _battery_equal(gold, skeletons):
    from lab.validity import battery_scores

    scores = battery_scores(gold, skeletons)
    for name, s in scores.items():
        assert s["manual"] == s["parsed"], name
        assert s["manual_abl"] == s["parsed_abl"], name
    return sum(len(s["sentences"]) for s in scores.values())


@pytest.mark.parametrize("where", TEST_SETS)
def test_gold_skeletons_score_as_the_full_gold(data_dir, where):
    """Acceptance: every gold passage of the test sets; every battery output, sentence by sentence."""
    gold = [load_passage(p) for p in list_passage_files(data_dir / where)]
    skeletons = [round_trip(g) for g in gold]
    assert [read_structure(s) for s in skeletons] == [read_structure(g) for g in gold]
    assert _battery_equal(gold, skeletons) > 5 * len(gold)


def test_skeleton_command_writes_every_file_under_its_name(tmp_path):
    out = tmp_path / "skeletons"
    run = subprocess.run(
        [sys.executable, "-m", "samsa", "skeleton", str(FIXTURES / "ucca/paper"), str(out), "-q"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in (FIXTURES / "ucca/paper").glob("*.xml"))
    assert sorted(p.name for p in out.iterdir()) == names
    for name in names:
        assert read_structure(load_passage(out / name)) == read_structure(load_passage(FIXTURES / "ucca/paper" / name))


def test_skeleton_command_refuses_its_input_directory(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "samsa", "skeleton", str(FIXTURES / "ucca/paper"), str(FIXTURES / "ucca/paper")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_skeletons_load_in_the_ucca_package(tmp_path, data_dir):
    """Acceptance: every skeleton of the test sets loads in ucca 1.3.11, its words, remote edges and implicit
    units all there."""
    convert = pytest.importorskip("ucca.convert", reason="the ucca package (GPL, tests only) is not installed")
    for where in TEST_SETS:
        for path in list_passage_files(data_dir / where):
            sk = skeleton_of(load_passage(path))
            target = tmp_path / path.name
            target.write_bytes(skeleton_xml(sk))
            g = skeleton_graph(sk)
            passage = convert.file2passage(str(target))
            units = passage.layer("1").all
            assert [t.text for t in passage.layer("0").all] == list(sk.tokens)
            assert sum(bool(e.attrib.get("remote")) for u in units for e in u) == sum(
                d["remote"] for _, _, d in g.edges(data=True)
            )
            assert sum(bool(u.attrib.get("implicit")) for u in units) == sum(
                bool(d.get("implicit")) for _, d in g.nodes(data=True)
            )


def _ucca_rejects(validate, convert, root) -> bool:
    """Whether ucca 1.3.11's validator finds anything wrong (its messages print deep passages recursively)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        return any(True for _ in validate(convert.from_standard(root)))
    except RecursionError:
        return True
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("where", TEST_SETS)
def test_skeletons_pass_the_ucca_validator_where_gold_does(data_dir, where):
    """Acceptance: ``ucca.validation.validate`` rejects no skeleton whose gold file it accepts (Scenes never under
    function units, no remote function edges)."""
    import xml.etree.ElementTree as ET

    convert = pytest.importorskip("ucca.convert", reason="the ucca package (GPL, tests only) is not installed")
    from ucca.validation import validate

    rejected, gold_rejected = [], []
    for path in list_passage_files(data_dir / where):
        if _ucca_rejects(validate, convert, ET.fromstring(skeleton_xml(skeleton_of(load_passage(path))))):
            rejected.append(path.name)
        if _ucca_rejects(validate, convert, ET.parse(path).getroot()):
            gold_rejected.append(path.name)
    assert [name for name in rejected if name not in gold_rejected] == []
