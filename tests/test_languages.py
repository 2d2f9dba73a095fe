"""The language table: a third language is an entry there plus its resources; codes in any case and with a region;
text read in the default language that looks like another gets one line naming the ``--lang`` to use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from samsa.cli import main
from samsa.languages import LANGUAGES, Language, Readability, get_language, language_hint
from samsa.lexical.suite import default_metrics

ROOT = Path(__file__).resolve().parent.parent


def words_per_line(lines, config):
    """The toy language's readability: words per output line (and its signature fields)."""
    return sum(len(x.split()) for x in lines) / len(lines), {"unit": "line", "split": config.splitter}


@pytest.fixture
def toy_language(monkeypatch):
    """A language that is nothing but an entry of the table: English's tokenizer, splitter and parser, the exact
    aligner only, and a readability metric of its own."""
    toy = Language(
        code="xx",
        name="Toy",
        tokenizer="wordpunct",
        splitter="rule.v2",
        parser="builtin",
        lemmas="simplemma",
        aligners=("exact",),
        readability=(Readability("toy_words", "TOY_WORDS", words_per_line, higher=False),),
        function_words=frozenset({"zork", "blip"}),
    )
    monkeypatch.setitem(LANGUAGES, "xx", toy)
    return toy


def test_a_third_language_is_an_entry_of_the_table(toy_language, tmp_path, fixture_path, capsys):
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    assert default_metrics("xx") == ("sari", "bleu", "toy_words")
    argv = ["evaluate", "--lang", "XX", "--source", str(src), str(out), "--refs", str(out), "--no-cache", "-q"]
    assert main([*argv, "-m", "sari,toy_words,samsa", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    values = result["systems"]["paper_outputs.txt"]
    assert values["toy_words"] == pytest.approx((7 + 6) / 2)  # "John got home and gave. Mary called." ...
    assert result["signatures"]["toy_words"].startswith("TOY_WORDS|unit:line|split:rule.v2")
    assert "lang:xx" in result["signatures"]["samsa"]
    # the default metrics are the table's, and another language's readability is refused for it in one line
    assert main([*argv]) == 0 and "toy_words" in capsys.readouterr().out
    assert main([*argv, "-m", "fkgl"]) == 1
    assert "fkgl is for English text only; for Toy use toy_words" in capsys.readouterr().err
    # its aligners are the table's
    assert main(["score", "--lang", "xx", "--source", str(src), str(out), "--aligner", "sultan", "-q"]) == 1
    assert "use --aligner exact" in capsys.readouterr().err


@pytest.mark.parametrize("code", ["de", "DE", "De", "de_DE", "de-AT"])
def test_language_codes_in_any_case_and_with_a_region(code, fixture_path, capsys):
    assert get_language(code).code == "de"
    src, out = fixture_path("de_sources.txt"), fixture_path("de_outputs.txt")
    assert main(["score", "--lang", code, "--source", str(src), str(out), "--no-cache", "-q", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"].endswith("|lang:de|version:0.1.0")


def test_german_text_read_as_english_gets_one_line(fixture_path, capsys):
    src, out = fixture_path("de_sources.txt"), fixture_path("de_outputs.txt")
    assert main(["score", "--source", str(src), str(out), "--no-cache", "-q"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"samsa: warning: {src} looks like German, but is read as English: add --lang de"]
    assert main(["score", "--lang", "de", "--source", str(src), str(out), "--no-cache", "-q"]) == 0
    assert capsys.readouterr().err == ""  # the language given: no hint


def test_english_text_gets_no_hint(fixture_path, capsys):
    for name in ("paper_sources.txt", "paper_outputs.txt", "paper_document.txt"):
        lines = fixture_path(name).read_text(encoding="utf-8").splitlines()
        assert language_hint(lines) is None, name
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    assert main(["score", "--source", str(src), str(out), "--no-cache", "-q"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_no_hint_on_english_corpora_and_one_on_german_ones(data_dir):
    """HSplit's sources and systems and Wiki test's sentences read as English: no hint; German-20K test and the
    German test sets: German."""
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage

    english = [data_dir / "easse" / "test_sets" / "turkcorpus" / "test.truecase.detok.orig"]
    english += sorted((data_dir / "hsplit" / "HSplit").glob("HSplit*_full"))
    for path in english:
        assert language_hint(path.read_text(encoding="utf-8").splitlines()) is None, path
    wiki = [" ".join(tokens(load_passage(f))) for f in list_passage_files(data_dir / "ucca" / "wiki" / "test")]
    assert language_hint(wiki) is None
    for k in range(0, len(wiki), 50):  # and any 50 lines of it
        assert language_hint(wiki[k : k + 50]) is None, k
    german = [" ".join(tokens(load_passage(f))) for f in list_passage_files(data_dir / "ucca" / "de20k" / "test")]
    hint = language_hint(german)
    assert hint is not None and hint.code == "de"
