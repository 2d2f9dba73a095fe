"""German: text processing, the language setting, readability, test sets and SAMSA on German UCCA."""

from __future__ import annotations

import json

import pytest

from samsa.cli import main
from samsa.config import SamsaConfig
from samsa.errors import ConfigError
from samsa.german import split_de, syllables_de, tokenize_de
from samsa.languages import LANGUAGES, get_language
from samsa.lexical.readability_de import fre_amstad, german_counts, wstf
from samsa.lexical.suite import SuiteConfig, evaluate_lexical


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Das ist z.B. gut.", ["Das", "ist", "z.B.", "gut", "."]),
        ("Das ist z. B. gut.", ["Das", "ist", "z.", "B.", "gut", "."]),
        ("Am 3. Mai kam er.", ["Am", "3.", "Mai", "kam", "er", "."]),
        ("Er kam am 03.05.2020 an.", ["Er", "kam", "am", "03.05.2020", "an", "."]),
        ("Er kam 1990.", ["Er", "kam", "1990", "."]),
        ("„Wir kommen“, sagte sie.", ["„", "Wir", "kommen", "“", ",", "sagte", "sie", "."]),
        ("»Geh nach Haus!«", ["»", "Geh", "nach", "Haus", "!", "«"]),
        ("Die E-Mail kam per Nord-Süd-Bahn.", ["Die", "E-Mail", "kam", "per", "Nord-Süd-Bahn", "."]),
        ("Ein- und Ausgang", ["Ein-", "und", "Ausgang"]),
        ("Es kostet 1.000,50 Euro (brutto).", ["Es", "kostet", "1.000,50", "Euro", "(", "brutto", ")", "."]),
        ("Hab' ich's?", ["Hab'", "ich's", "?"]),
        ("Er ging . _SPLIT_ Sie kam .", ["Er", "ging", ".", "_SPLIT_", "Sie", "kam", "."]),
        ("Warte...", ["Warte", "..."]),
    ],
)
def test_german_tokenizer(text, expected):
    assert tokenize_de(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Er kam am 3. Mai. Sie ging.", ["Er kam am 3. Mai.", "Sie ging."]),
        ("Dr. Müller kam. Er blieb.", ["Dr. Müller kam.", "Er blieb."]),
        ("„Ich komme.“ Er ging.", ["„Ich komme.“", "Er ging."]),
        ("Er sagte: » Geh ! « Dann ging er .", ["Er sagte: » Geh ! «", "Dann ging er ."]),
        ("( EWG ) Nr . 2079/92 gilt . Das ist neu .", ["( EWG ) Nr . 2079/92 gilt .", "Das ist neu ."]),
        ("bis zum 1 . Juli 2004 . Dann nicht mehr .", ["bis zum 1 . Juli 2004 .", "Dann nicht mehr ."]),
        ("Er ging . _SPLIT_ sie kam", ["Er ging .", "sie kam"]),
        ("Wer? Ich.", ["Wer?", "Ich."]),
    ],
)
def test_german_splitter(text, expected):
    assert split_de(text) == expected


def test_german_syllables_count_vowel_nuclei():
    assert [syllables_de(w) for w in ("Hund", "Katze", "Eier", "Bäume", "Sieben", "Zeitung", "3", ",")] == [
        1,
        2,
        2,
        2,
        2,
        2,
        0,
        0,
    ]


def test_german_readability_by_hand():
    # 2 sentences, 6 words, 7 syllables; 5 one-syllable words, none of 3+, one word over 6 letters (schläft)
    text = ["Der Hund bellt. Die Katze schläft."]
    assert german_counts(text).__dict__ == {
        "sentences": 2,
        "words": 6,
        "syllables": 7,
        "one_syllable": 5,
        "three_syllables": 0,
        "long_words": 1,
    }
    assert fre_amstad(text) == pytest.approx(180 - 3 - 58.5 * 7 / 6)
    assert wstf(text) == pytest.approx(0.1672 * 3 + 0.1297 * 100 / 6 - 0.0327 * 500 / 6 - 0.875)


def test_english_only_metric_on_german_is_refused_in_one_line():
    config = SuiteConfig(tokenizer="de", samsa=SamsaConfig(language="de"))
    with pytest.raises(ConfigError, match="fkgl is for English text only; for German use fre_amstad, wstf"):
        evaluate_lexical(["a"], ["a"], [["a"]], ["fkgl"], config)
    with pytest.raises(ConfigError, match="wstf is for German text only"):
        evaluate_lexical(["a"], ["a"], [["a"]], ["wstf"], SuiteConfig())
    out = evaluate_lexical(["Der Hund bellt."], ["Der Hund bellt."], [["Der Hund bellt."]], ["bleu", "wstf"], config)
    assert out["bleu"] == pytest.approx(100.0)
    assert out["signatures"]["bleu"].startswith("BLEU|refs:1|tok:de|")
    assert out["signatures"]["wstf"].startswith("WSTF|tok:de|split:de.v1|syl:de.v1|")


def test_language_picks_tokenizer_splitter_and_signature():
    de = SamsaConfig(language="de")
    assert (de.tokenizer, de.splitter) == ("de", "de.v1")
    assert de.signature(de.build_aligner()) == (
        "SAMSA|compat:paper|parser:given|aligner:exact.v1|tok:de|lc:no|split:de.v1|lang:de|version:0.1.0"
    )
    en = SamsaConfig()
    assert en.signature(en.build_aligner()) == (
        "SAMSA|compat:paper|parser:given|aligner:exact.v1|tok:wordpunct|lc:no|split:rule.v2|version:0.1.0"
    )
    assert "language" not in en.to_dict(en.build_aligner())


def test_unsupported_language_and_english_only_aligner_are_refused():
    with pytest.raises(ConfigError, match=r"no resources for language 'it'; supported languages: de \(German\), en"):
        SamsaConfig(language="it")
    with pytest.raises(ConfigError, match="the sultan aligner needs English resources"):
        SamsaConfig(language="de", aligner="sultan")
    assert set(LANGUAGES) == {"en", "de", "fr"} and get_language("de").parser == "builtin:de"


def test_german_lemma_aligner():
    pytest.importorskip("simplemma")
    config = SamsaConfig(language="de", aligner="lemma")
    aligner = config.build_aligner()
    assert aligner.signature() == "lemma.v1+de.simplemma"
    # exact first (case-insensitive: "Die" ~ "die"), then lemmas: Häuser ~ Haus, ging ~ gehen
    assert aligner.align(["Die", "Häuser", "ging"], ["die", "Haus", "gehen"]) == [(0, 0), (1, 1), (2, 2)]


def test_german_manual_ucca_by_hand(fixture_path, german_gold, capsys):
    """The README's German example: a perfect split scores 100, 100 and 91.67 (the third sentence's second Scene
    has the remote participant "Stempel", which "Sie trieben ..." does not keep: (1 + 2/3) / 2 for that Scene);
    the unchanged sentences 50 each (two Scenes, one sentence)."""
    outputs = [str(fixture_path("de_outputs.txt")), str(fixture_path("de_sources.txt"))]
    rc = main(["score", "--lang", "de", "--ucca", str(german_gold), *outputs,
               "--name", "split", "identity", "-f", "json", "--quiet"])  # fmt: skip
    assert rc == 0
    split, identity = json.loads(capsys.readouterr().out)
    assert split["samsa"] == pytest.approx((100 + 100 + 100 * (1 + (1 + 2 / 3) / 2) / 2) / 3)
    assert split["samsa"] == pytest.approx(97.2222, abs=1e-4)
    assert identity["samsa"] == 50.0 and identity["samsa_abl"] == 100.0
    assert split["signature"].endswith("|tok:de|lc:no|split:de.v1|lang:de|version:0.1.0")


def test_cli_refuses_a_language_without_an_entry_in_one_line(fixture_path, capsys):
    rc = main(["score", "--lang", "it", "--source", str(fixture_path("de_sources.txt")),
               str(fixture_path("de_outputs.txt"))])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and err == [
        "samsa: error: no resources for language 'it'; supported languages: de (German), en (English), fr (French)"
    ]


def test_cli_bad_german_input_is_one_line(tmp_path, fixture_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("Der Kapitän sah das Schiff.\n\xff\xfe kaputt\n".encode("latin-1"))
    rc = main(["score", "--lang", "de", "--source", str(fixture_path("de_sources.txt")), str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and "bad.txt" in err[0]


def test_german_test_sets_carry_their_language(data_dir, capsys):
    from samsa.testsets import get_orig_sents, get_refs_sents, get_test_set

    names = ("bisect_de_test", "bisect_de_valid", "deplain_web_test", "geolino_test", "geolino_valid",
             "textcomplexityde_test", "abgb_test")  # fmt: skip
    assert all(get_test_set(n).language == "de" for n in names)
    assert get_test_set("hsplit").language == "en"
    assert len(get_orig_sents("bisect_de_test")) == 735
    assert len(get_refs_sents("deplain_web_test")[0]) == 1846  # 1,845 newlines, the last line unterminated
    assert main(["test-sets", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["test_sets"]}
    assert rows["bisect_de_test"]["language"] == "de" and rows["bisect_de_test"]["found"] == "yes"


def test_evaluate_takes_the_language_of_the_test_set(data_dir, tmp_path, capsys):
    from samsa.testsets import get_refs_sents

    system = tmp_path / "ref.txt"
    system.write_text("\n".join(get_refs_sents("textcomplexityde_test")[0]) + "\n", encoding="utf-8")
    rc = main(["evaluate", "-t", "textcomplexityde_test", "-m", "bleu,fre_amstad,wstf", str(system), "-f", "json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    assert result["systems"]["ref.txt"]["bleu"] == pytest.approx(100.0)
    assert result["signatures"]["bleu"].startswith("BLEU|refs:1|tok:de|")
    rc = main(["evaluate", "-t", "textcomplexityde_test", "-m", "fkgl", str(system)])
    assert rc == 1 and "fkgl is for English text only" in capsys.readouterr().err
    assert main(["evaluate", "-t", "textcomplexityde_test", str(system), "-f", "json"]) == 0  # German's defaults
    assert list(json.loads(capsys.readouterr().out)["systems"]["ref.txt"]) == ["sari", "bleu", "fre_amstad", "wstf"]


def test_german_pipeline_parses_raw_text_without_spacy():
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens

    parser = get_parser("builtin:de")
    assert parser.words_only and parser.language == "de"
    assert parser.signature().startswith("builtin.v5+de+ucca-span-de-words")
    text = "Der Kapitän sah am 3. Mai das Schiff, das im Hafen lag."
    (g,) = parser.parse([text])
    assert tokens(g) == tokenize_de(text)
    assert "nlp" not in parser.__dict__  # spaCy was never loaded
    assert parser.cache_key().endswith("|words:de")


def test_german_report_reads_german(tmp_path, fixture_path, german_gold):
    """The report of German outputs: German readability (WSTF, lower is simpler) in FKGL's place, German
    tokens for the lexical metrics, and the German signature."""
    out = tmp_path / "de.html"
    rc = main(["report", "--lang", "de", "--ucca", str(german_gold), str(fixture_path("de_outputs.txt")),
               "--name", "split", "-o", str(out), "--quiet"])  # fmt: skip
    html = out.read_text(encoding="utf-8")
    assert rc == 0 and "WSTF|tok:de|split:de.v1|syl:de.v1|" in html and "FKGL|" not in html
    assert "|tok:de|lc:no|split:de.v1|lang:de|" in html


def test_german_documents(tmp_path, german_gold, capsys):
    """--documents on German: the first two fixture sentences as one document (a folder of their files); the
    output splits each into its two Scenes, so every Scene keeps its main relation and participants: 100; the
    unchanged document has 2 sentences for 4 Scenes: 50."""
    import shutil

    doc = tmp_path / "docs" / "1"
    doc.mkdir(parents=True)
    for name in ("25421003.xml", "25438025.xml"):
        shutil.copy(german_gold / name, doc / name)
    split = tmp_path / "split.txt"
    split.write_text("Ich sprach. Ich konnte nicht mehr schweigen. Der Dampf zischte. Er drang in die Behälter.\n")
    same = tmp_path / "same.txt"
    same.write_text(
        "Ich sprach, weil ich nicht mehr schweigen konnte. Der Dampf zischte, indem er in die Behälter drang.\n"
    )
    rc = main(["score", "--lang", "de", "--documents", "--ucca", str(tmp_path / "docs"), str(split), str(same),
               "-f", "json", "--quiet"])  # fmt: skip
    assert rc == 0
    a, b = json.loads(capsys.readouterr().out)
    assert (a["samsa"], b["samsa"], b["samsa_abl"]) == (100.0, 50.0, 100.0)
    assert a["signature"].endswith("|split:de.v1|doc:yes|lang:de|version:0.1.0")


def test_german_lemmas_without_the_extra_say_which_in_one_line(monkeypatch, tmp_path, capsys):
    import sys

    from samsa.aligners.lemma import _simplemma_lemma

    _simplemma_lemma.cache_clear()
    monkeypatch.setitem(sys.modules, "simplemma", None)  # as if the de extra were not installed
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("Die Häuser\tDas Haus\n", encoding="utf-8")
    assert main(["align", "--lang", "de", "--aligner", "lemma", str(pairs)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['samsa: error: German lemmas need the simplemma package: pip install "samsa-metric[de]"']
    _simplemma_lemma.cache_clear()


def test_german_implicit_scenes_in_the_one_best_parse_and_its_draws():
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.sampling import Perturbation
    from samsa.ucca.graph import to_json
    from samsa.ucca.queries import scenes

    # German-20K marks a Scene without a word for its process ("Mein Werk?"); the span parser sees none
    sents = [tokenize_de(s) for s in ("» Heißes Wasser ! «", "» Und jetzt ? ... «", "Der Kapitän sah das Schiff .")]
    implicit = BuiltinParser(pipeline="de", implicit_scenes=["H"], scene_bias=0)
    plain = BuiltinParser(pipeline="de", implicit_scenes=[], scene_bias=0)
    assert "+implicit.H" in implicit.signature() and "implicit" not in plain.signature()
    best, base = implicit.parse_passages(sents), plain.parse_passages(sents)
    assert [len(scenes(b)) for b in base] == [1, 1, 1]
    assert [len(scenes(b)) for b in best] == [2, 2, 1]
    drawn = implicit.parse_with_draws(sents, Perturbation(4, 0.5, 3.0))
    assert [to_json(d.best) for d in drawn] == [to_json(b) for b in best]
