"""German and French text processing measured against corpora: the German tokenizer on German-20K's gold tokens,
the German sentence splitter on the sentence boundaries of BiSECT's and DEplain-web's references, the French
tokenizer on French-20K's gold tokens.

    python benchmarks/language_text.py

* **Tokens** (German-20K test, 652 sentences, and dev): German-20K ships tokens, not text, so each sentence's
  text is rebuilt from them (a space between tokens, none before closing punctuation and after opening quotes)
  and tokenized again. Reported: token precision, recall and F1 (tokens compared as character spans) and the
  share of sentences tokenized exactly as the annotators did; and the same for the whitespace split of the
  rebuilt text and for the ``wordpunct`` rule English uses (the baselines).
* **Sentence boundaries**: BiSECT German test and validation references mark their sentences with
  ``_SPLIT_``; the markers are removed and the text split again. DEplain-web's rated pairs name the simple
  sentences each reference joins (``simplification_id``, ``a|b`` for two). Reported: boundary precision, recall
  and F1 and the share of references split into exactly their sentences, for ``de.v1`` and for English's
  ``rule.v2``.

* **French tokens** (French-20K dev and test, 239 passages each): each passage's text rebuilt as French is
  written (German's rule, and no space after an elided word's apostrophe, ``l'homme``) and tokenized again; the
  same figures for ``fr``, ``wordpunct`` and the whitespace split, and the share of passages whose tokens joined
  by spaces come back unchanged. With spaCy's ``fr_core_news_md`` installed (the ``fr-spacy`` extra), its
  tokenizer (``fr-spacy``) too. The French rules were written looking at French-20K dev's tokens (test: once).
* **French sentence boundaries**: French-20K's files hold one or more sentences of a passage (file names keep the
  passage) and mark no boundary inside a file. Each passage's files are rebuilt as one text and split again:
  reported are the share of the boundaries between files found (recall) and the number of boundaries placed
  inside files (some right, most wrong: read by hand in docs/BENCHMARKS.md), for ``fr.v1`` and, when installed,
  ``fr-spacy.v1``.

Writes ``benchmarks/results/language_text.json`` (``german``, ``french``).
"""

from __future__ import annotations

import csv
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

from samsa.french import SPACY_MODEL
from samsa.german import SPLIT_MARKER
from samsa.text import split_sentences, tokenize
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

_NO_SPACE_BEFORE = set(".,;:!?)]}“‘«‹…") | {"'s", "...", "''"}
_NO_SPACE_AFTER = set("([{„‚»›")


def rebuild(words: list[str]) -> str:
    """Text from tokens: a space between two tokens unless the second closes or the first opens."""
    out = ""
    for k, w in enumerate(words):
        if k and w not in _NO_SPACE_BEFORE and words[k - 1] not in _NO_SPACE_AFTER:
            out += " "
        out += w
    return out


def spans(text: str, toks: list[str]) -> set[tuple[int, int]]:
    """Character spans of tokens in ``text`` (tokens found left to right; spaces skipped)."""
    found, at = set(), 0
    for t in toks:
        start = text.find(t, at)
        if start < 0:
            continue
        found.add((start, start + len(t)))
        at = start + len(t)
    return found


def prf(tp: int, guessed: int, gold: int) -> dict:
    p = tp / guessed if guessed else 0.0
    r = tp / gold if gold else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4)}


def token_agreement(
    corpus: str, split: str, rules: str, text_of: Callable[[list[str]], str], unit: str, others: tuple[str, ...] = ()
) -> dict:
    """``ucca/CORPUS/SPLIT``: the language's rules (``rules``), ``others``, ``wordpunct`` and whitespace against the
    gold tokens of each item's text rebuilt by ``text_of``; ``unit`` names the items (sentences, passages)."""
    golds = [tokens(load_passage(f)) for f in list_passage_files(DATA / "ucca" / corpus / split)]
    out: dict = {unit: len(golds)}
    named = [(t, lambda s, t=t: tokenize(s, t)) for t in (rules, *others, "wordpunct")]
    for name, fn in (*named, ("whitespace", str.split)):
        tp = guessed = ref = exact = 0
        for words in golds:
            text = text_of(words)
            ours = fn(text)
            a, b = spans(text, ours), spans(text, words)
            tp, guessed, ref = tp + len(a & b), guessed + len(a), ref + len(b)
            exact += ours == words
        out[name] = {**prf(tp, guessed, ref), f"exact_{unit}": round(exact / len(golds), 4)}
    out[f"{rules}_on_gold_tokens"] = round(sum(tokenize(" ".join(w), rules) == w for w in golds) / len(golds), 4)
    return out


def boundaries(sentences: list[str]) -> set[int]:
    """Token offsets (whitespace tokens) where a sentence ends, the last one excluded."""
    ends, at = set(), 0
    for s in sentences[:-1]:
        at += len(s.split())
        ends.add(at)
    return ends


def boundary_agreement(references: list[list[str]]) -> dict:
    """``references``: each a list of its gold sentences (whitespace-tokenized text)."""
    out: dict = {"references": len(references), "with_several_sentences": sum(len(r) > 1 for r in references)}
    for splitter in ("de.v1", "rule.v2"):
        tp = guessed = ref = exact = 0
        for sents in references:
            gold = boundaries(sents)
            ours = boundaries(split_sentences(" ".join(sents), splitter))
            tp, guessed, ref = tp + len(gold & ours), guessed + len(ours), ref + len(gold)
            exact += gold == ours
        out[splitter] = {**prf(tp, guessed, ref), "exact_references": round(exact / len(references), 4)}
    return out


def bisect(name: str) -> list[list[str]]:
    path = DATA / "easse_de" / "test_sets" / "BiSECT" / name
    lines = path.read_text(encoding="utf-8").splitlines()
    return [[" ".join(p.split()) for p in line.split(SPLIT_MARKER) if p.strip()] for line in lines if line.strip()]


def deplain() -> list[list[str]]:
    """DEplain-web's rated references whose simple sentences are known, one sentence per simplification id:
    only those with one id (one sentence), or several ids whose text the splitter's rules could cut (every
    reference is kept; the sentence texts are unknown, so a reference of n ids is n sentences of unknown
    length: compared by count only)."""
    path = DATA / "easse_de" / "human_judgements" / "DEplain-web" / "DEplain-web-manual-public-rated.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [[r["simplification"], str(len(r["simplification_id"].split("|")))] for r in rows]


def deplain_counts(rows: list[list[str]]) -> dict:
    out: dict = {"references": len(rows), "with_several_sentences": sum(int(n) > 1 for _, n in rows)}
    for splitter in ("de.v1", "rule.v2"):
        right = sum(len(split_sentences(text, splitter)) == int(n) for text, n in rows)
        out[splitter] = {"count_equal": round(right / len(rows), 4)}
    return out


def passage_boundaries(split: str, splitters: tuple[str, ...]) -> dict:
    """French-20K ``split``: each passage's files as one text, split again by each of ``splitters``."""
    files = list_passage_files(DATA / "ucca" / "fr20k" / split)
    passages: dict[str, list[str]] = {}
    for f in files:  # 1018000.xml: passage 1018, its file 0
        passages.setdefault(f.name[: -len("000.xml")], []).append(rebuild_fr(tokens(load_passage(f))))
    out: dict = {"passages": len(passages), "files": len(files)}
    for splitter in splitters:
        found = inside = between = 0
        for texts in passages.values():
            gold = boundaries(texts)
            ours = boundaries(split_sentences(" ".join(texts), splitter))
            found, between, inside = found + len(gold & ours), between + len(gold), inside + len(ours - gold)
        out[splitter] = {"between_files_found": round(found / between, 4), "inside_files": inside}
    return out


def rebuild_fr(words: list[str]) -> str:
    """French text from tokens: German-20K's rule, and no space after an elided word (``l'``, ``qu'``)."""
    out = rebuild(words)
    for k, w in enumerate(words[:-1]):
        if w[-1:] in "'’" and len(w) > 1:
            out = out.replace(f"{w} {words[k + 1]}", f"{w}{words[k + 1]}", 1)
    return out


def main() -> None:
    german = {
        "tokens": {split: token_agreement("de20k", split, "de", rebuild, "sentences") for split in ("test", "dev")},
        "boundaries": {
            "bisect_de_test": boundary_agreement(bisect("BiSECT_test.simp")),
            "bisect_de_valid": boundary_agreement(bisect("BiSEC_valid.simp")),
            "deplain_web_rated": deplain_counts(deplain()),
        },
    }
    spacy_fr = importlib.util.find_spec(SPACY_MODEL) is not None
    french = {
        "tokens": {split: token_agreement("fr20k", split, "fr", rebuild_fr, "passages", ("fr-spacy",) * spacy_fr)
                   for split in ("dev", "test")},
        "boundaries": {split: passage_boundaries(split, ("fr.v1", "fr-spacy.v1")[: 1 + spacy_fr])
                       for split in ("dev", "test")},
    }  # fmt: skip
    for language, part in (("german", german), ("french", french)):
        for what, rows in part.items():
            for k, v in rows.items():
                print(language, what, k, v)
    write_json("language_text.json", {"command": "python benchmarks/language_text.py", "german": german,
                                      "french": french})  # fmt: skip


if __name__ == "__main__":
    main()
