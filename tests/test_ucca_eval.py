"""The UCCA evaluation measure: hand-computed counts (always run), and the ``ucca`` package's evaluator
(normalize off and on) where that optional package is installed (CI installs it)."""

from __future__ import annotations

import random

import pytest

from samsa.ucca import graph as G
from samsa.ucca.evaluation import evaluate_corpus, evaluate_pair, scene_scores
from samsa.ucca.xml import list_passage_files, load_passage


@pytest.fixture
def ucca_eval():
    return pytest.importorskip("ucca.evaluation")


def perturb(g, seed):
    """Relabel ~15% of unit edges, drop remote edges with probability 1/2, flatten ~10% of units."""
    rng = random.Random(seed)
    h = g.copy()
    for u, v in list(h.edges):
        d = h.edges[u, v]
        if d["remote"] and rng.random() < 0.5:
            h.remove_edge(u, v)
            continue
        linkage = h.nodes[u]["type"] == "LKG"  # LR/LA edges stay: anything else under a linkage is not UCCA
        if h.nodes[v]["layer"] == "1" and "Terminal" not in d["categories"] and not linkage and rng.random() < 0.15:
            d["categories"] = (rng.choice(["A", "P", "S", "D", "C", "E", "F", "H", "L", "R"]),)
            d["category_attributes"] = [{"tag": d["categories"][0]}]
    units = [n for n in h if h.nodes[n]["layer"] == "1" and h.nodes[n]["type"] == "FN" and n != G.ROOT_ID]
    for n in units:
        parents = [p for p in h.predecessors(n) if not h.edges[p, n]["remote"]]
        if rng.random() < 0.1 and len(parents) == 1 and not h.nodes[n].get("implicit"):
            p = parents[0]
            for c in list(h.successors(n)):
                d = dict(h.edges[n, c])
                if not h.has_edge(p, c) and h.nodes[c]["layer"] == "1":
                    h.add_edge(p, c, **d)
            if all(h.nodes[c]["layer"] == "1" for c in h.successors(n)):
                h.remove_node(n)
    return h


def reference_counts(ucca_eval, guessed, ref, normalize=False):
    from samsa.ucca.interop import to_ucca

    scores = ucca_eval.evaluate(to_ucca(guessed), to_ucca(ref), normalize=normalize, constructions=("primary",
                                "remote", "implicit"))  # fmt: skip
    out = {}
    for t in ("labeled", "unlabeled"):
        for construction, stats in scores[t].results.items():
            out[t, str(construction)] = (stats.num_guessed, stats.num_ref, stats.num_matches)
    return out


def our_counts(guessed, ref):
    s = evaluate_pair(guessed, ref)
    return {k: (c.guessed, c.ref, c.matches) for k, c in s.counts.items()}


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("corpus", ["wiki/test", "20k/test", "ewt/test"])
def test_counts_equal_the_ucca_package(ucca_eval, data_dir, corpus, normalize):
    files = list_passage_files(data_dir / "ucca" / corpus)[: 20 if normalize else 40]
    for k, f in enumerate(files):
        gold = load_passage(f)
        for guessed in (gold, perturb(gold, k)):
            ref = reference_counts(ucca_eval, guessed, gold, normalize)
            ours = {
                k: (c.guessed, c.ref, c.matches)
                for k, c in evaluate_corpus([(guessed, gold)], normalize=normalize).counts.items()
            }
            for key, value in ref.items():
                assert ours[key] == value, (f, key)


def test_gold_against_itself_is_perfect(data_dir):
    pairs = [(load_passage(f), load_passage(f)) for f in list_passage_files(data_dir / "ucca" / "wiki" / "dev")[:30]]
    total = evaluate_corpus(pairs)
    assert total.pooled("labeled").f1 == 1.0 and total.counts["labeled", "primary"].ref > 0
    s = scene_scores(pairs)
    assert s["scene_f1"] == 1.0 and s["main_relation_center_accuracy"] == 1.0


def test_scene_scores_on_a_perturbed_passage(ucca_path):
    gold = load_passage(ucca_path("john_home_call"))
    pred = gold.copy()
    pred.remove_edge("1.4", "1.9")  # the second scene loses its main relation: no longer a scene
    G.add_edge(pred, "1.4", "1.9", "D")
    s = scene_scores([(pred, gold)])
    assert (s["scenes_guessed"], s["scenes_ref"], s["scene_f1"]) == (1, 2, pytest.approx(2 / 3))


def test_ucca_eval_cli(data_dir, tmp_path, capsys):
    import json
    import shutil

    from samsa.cli import main
    from samsa.ucca.xml import write_standard

    gold = tmp_path / "gold"
    pred = tmp_path / "pred"
    gold.mkdir()
    pred.mkdir()
    for k, f in enumerate(list_passage_files(data_dir / "ucca" / "20k" / "test")[:10]):
        shutil.copy(f, gold / f.name)
        write_standard(perturb(load_passage(f), k), pred / f.name)
    assert main(["ucca-eval", str(gold), str(pred), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passages"] == 10 and 0 < out["labeled"]["pooled"]["f1"] < 1
    assert out["unlabeled"]["primary"]["f1"] >= out["labeled"]["primary"]["f1"]
    assert 0 < out["scenes"]["scene_f1"] <= 1


def test_counts_by_hand(fixture_path):
    """ "I read the book that John wrote .": 10 primary units (distinct yields; punctuation, terminal edges not
    counted) and 1 remote (book, A of the relative clause). Relabeling wrote's P as D costs one labeled match."""
    gold = load_passage(fixture_path("ucca/paper/2_read_book.xml"))
    guessed = gold.copy()
    guessed.edges["1.8", "1.11"]["categories"] = ("D",)
    counts = {k: (c.guessed, c.ref, c.matches) for k, c in evaluate_pair(guessed, gold).counts.items()}
    assert counts["labeled", "primary"] == (10, 10, 9)
    assert counts["unlabeled", "primary"] == (10, 10, 10)
    assert counts["labeled", "remote"] == counts["unlabeled", "remote"] == (1, 1, 1)
    assert counts["labeled", "implicit"] == (0, 0, 0)
    total = evaluate_corpus([(guessed, gold), (gold, gold)])  # summed over passages before P/R/F1
    assert total.pooled("labeled").f1 == pytest.approx((9 + 1 + 10 + 1) / 22)
    assert scene_scores([(guessed, gold)])["scene_f1"] == pytest.approx(2 / 3)  # 1 of 2 scenes left


def test_normalize_needs_the_ucca_package(fixture_path, monkeypatch):
    import builtins

    from samsa.errors import PluginUnavailable

    real_import = builtins.__import__

    def no_ucca(name, *args, **kwargs):
        if name == "ucca" or name.startswith("ucca."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ucca)
    g = load_passage(fixture_path("ucca/paper/2_read_book.xml"))
    with pytest.raises(PluginUnavailable, match="pip install --no-deps ucca"):
        evaluate_corpus([(g, g)], normalize=True)


@pytest.mark.parametrize("corpus", ["wiki/test", "20k/test", "ewt/test"])
def test_normalize_on_the_parsers_output_equals_the_ucca_package(ucca_eval, data_dir, corpus, tmp_path, capsys):
    """`ucca-eval --normalize` of the built-in parser's output runs (normalization makes two edges between one
    pair of units, merged into one) and counts as the package's evaluator with normalization on."""
    import json
    import shutil

    from samsa.cli import main
    from samsa.registry import get_parser

    files = list_passage_files(data_dir / "ucca" / corpus)[:40]
    golds = [load_passage(f) for f in files]
    parsed = get_parser("builtin").parse([G.tokens(g) for g in golds])
    gold_dir, pred_dir = tmp_path / "gold", tmp_path / "pred"
    gold_dir.mkdir()
    pred_dir.mkdir()
    from samsa.ucca.xml import to_standard_xml

    for f, g in zip(files, parsed, strict=True):
        shutil.copy(f, gold_dir / f.name)
        (pred_dir / f.name).write_bytes(to_standard_xml(g))
    assert main(["ucca-eval", str(gold_dir), str(pred_dir), "--normalize", "-f", "json", "-q"]) == 0
    ours = json.loads(capsys.readouterr().out)
    total: dict[tuple[str, str], list[int]] = {}
    for guessed, gold in zip(parsed, golds, strict=True):
        for key, counts in reference_counts(ucca_eval, guessed, gold, normalize=True).items():
            total.setdefault(key, [0, 0, 0])
            total[key] = [a + b for a, b in zip(total[key], counts, strict=True)]
    for (kind, construction), (guessed_n, ref_n, matches) in total.items():
        row = ours[kind][construction]
        assert (row["guessed"], row["ref"], row["matches"]) == (guessed_n, ref_n, matches), (kind, construction)
