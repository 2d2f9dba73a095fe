"""Document-level SAMSA: sentences joined into one passage, the definition's arithmetic by hand on the paper's two
sentences, the command line (--documents) and its refusals, and the document battery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.documents import OUTPUTS, aligned_average, gold_documents, passage_of, score_battery
from samsa.cli import main
from samsa.scoring.metric import Samsa
from samsa.ucca.graph import join_passages, terminals, tokens
from samsa.ucca.queries import scenes, unit_terminals
from samsa.ucca.validate import check_passage
from samsa.ucca.xml import list_passage_files, load_passage

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "fixtures" / "ucca" / "paper"
SIGNATURE_END = "|split:rule.v2|doc:yes|version:0.1.0"


@pytest.fixture(scope="module")
def paper():
    return [load_passage(f) for f in list_passage_files(PAPER)]


def words(g, unit):
    return " ".join(g.nodes[t]["text"] for t in unit_terminals(g, unit))


def test_joined_sentences_keep_their_scenes_in_order(paper):
    doc = join_passages(paper, "d1")
    check_passage(doc, "joined")
    assert tokens(doc) == tokens(paper[0]) + tokens(paper[1])
    assert [doc.nodes[t]["position"] for t in terminals(doc)] == list(range(1, 18))
    assert [doc.nodes[t]["paragraph"] for t in terminals(doc)] == [1] * 9 + [2] * 8
    assert [words(doc, s) for s in scenes(doc)] == [words(g, s) for g in paper for s in scenes(g)]
    # remote edges come along: "John" is a remote participant of "gave Mary a call" in the first sentence
    remotes = [(u, v) for u, v, d in doc.edges(data=True) if d["remote"]]
    assert len(remotes) == sum(d["remote"] for g in paper for _, _, d in g.edges(data=True)) > 0
    assert doc.graph["passage_id"] == "d1"


def test_the_definition_by_hand_on_the_papers_two_sentences(paper):
    metric = Samsa()
    # one sentence per Scene, anywhere in the document: every Scene kept whole, 4 sentences for 4 Scenes
    split = "I read the book. John gave Mary a call. John wrote the book. John got home."
    assert metric.document_score(paper, split).samsa == 100.0
    # the unchanged document: 2 sentences for 4 Scenes, each Scene whole: 2 / 4^2 x 4
    assert (
        metric.document_score(paper, "John got home and gave Mary a call. I read the book that John wrote.").samsa
        == 50.0
    )
    # merged into one sentence: 1 / 4^2 x 4
    assert (
        metric.document_score(paper, "John got home and gave Mary a call and I read the book that John wrote.").samsa
        == 25.0
    )
    # the second sentence deleted: its two Scenes find only "John" (a participant of "wrote"): 0 and 0.25,
    # the first two 1 each: 1 / 4^2 x 2.25
    assert metric.document_score(paper, "John got home and gave Mary a call.").samsa == 100 * 2.25 / 16
    # more sentences than the document has Scenes: 0
    assert metric.document_score(paper, [["John"], ["got"], ["home"], ["and"], ["gave"]]).samsa == 0.0


def test_a_one_sentence_document_is_sentence_level_samsa_and_order_does_not_count(paper):
    metric = Samsa()
    for out in ("John got home and gave . Mary called .", "John got home. John gave Mary a call.", "Home."):
        assert metric.document_score([paper[0]], out) == metric.sentence_score(paper[0], out)
    split = [s.split() for s in ("John got home", "John gave Mary a call", "I read the book that John wrote",
                                 "book that John wrote")]  # fmt: skip
    scores = {metric.document_score(paper, [split[k] for k in order]).samsa for order in ((0, 1, 2, 3), (3, 2, 1, 0),
              (2, 0, 3, 1))}  # fmt: skip
    assert scores == {100.0}
    # a Scene that ties between two sentences goes to the earlier one: "I read the book that John wrote" shares
    # 4 words with "I read the book" and with "John wrote the book", and only the first keeps "read"
    a = metric.document_score(paper, "I read the book. John wrote the book. John got home. John gave Mary a call.")
    b = metric.document_score(paper, "John gave Mary a call. John got home. John wrote the book. I read the book.")
    assert (a.samsa, b.samsa) == (100.0, 62.5)


def test_corpus_documents_from_graphs_and_text_and_the_signature(paper):
    metric = Samsa(parser="builtin")
    texts = ["John got home and gave Mary a call.", "I read the book that John wrote."]
    out = "John got home. John gave Mary a call. I read the book. John wrote the book."
    result = metric.corpus_document_score([paper, texts, join_passages(paper)], [out, out, out])
    assert [r.n_scenes for r in result.sentences] == [4, 4, 4]  # the parse finds the annotation's four Scenes
    assert result.sentences[0].samsa == result.sentences[2].samsa == 100.0
    assert result.signature.endswith(SIGNATURE_END) and result.config["documents"] is True
    assert "doc:" not in metric.signature()
    from samsa.errors import InputError

    with pytest.raises(InputError, match="document 1>: a document is a non-empty list"):
        metric.document_score([], out)


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_score_documents_from_ucca_folders_and_passage_files(tmp_path, capsys):
    folders = tmp_path / "docs"
    for k, files in enumerate((list_passage_files(PAPER), list_passage_files(PAPER)[:1]), 1):
        (folders / f"doc{k}").mkdir(parents=True)
        for f in files:
            (folders / f"doc{k}" / f.name).write_bytes(f.read_bytes())
    system = write(tmp_path / "sys.txt", "I read the book. John wrote the book. John got home. John gave Mary a call.\n"
                   "John got home and gave Mary a call.\n")  # fmt: skip
    rows = tmp_path / "rows.jsonl"
    assert (
        main(["score", "--documents", "--ucca", str(folders), system, "--per-sentence", str(rows), "-f", "json"]) == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["samsa"] == (100.0 + 50.0) / 2  # the second document unchanged: 1 sentence for 2 Scenes
    assert summary["signature"].endswith(SIGNATURE_END) and "parser:xml" in summary["signature"]
    lines = [json.loads(x) for x in rows.read_text().splitlines()]
    assert [r["document"] for r in lines] == [1, 2] and [len(r["scenes"]) for r in lines] == [4, 2]
    assert [s["sentence"] for s in lines[0]["scenes"]] == [2, 3, 0, 1]  # each Scene to its sentence, anywhere
    # one passage file per document holding both sentences: the same score
    passages = tmp_path / "passages"
    passages.mkdir()
    from samsa.ucca.xml import write_standard

    write_standard(join_passages([load_passage(f) for f in list_passage_files(PAPER)]), passages / "1.xml")
    first = write(
        tmp_path / "first.txt", "I read the book. John wrote the book. John got home. John gave Mary a call.\n"
    )
    assert main(["score", "--documents", "--ucca", str(passages), first, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["samsa"] == 100.0


def test_score_documents_from_text_with_a_separator(tmp_path, capsys):
    src = write(tmp_path / "src.txt", "John got home and gave Mary a call. <s> I read the book that John wrote.\n")
    out = write(tmp_path / "out.txt", "John got home. <s> John gave Mary a call. <s> I read the book. <s> John wrote "
                "the book.\n")  # fmt: skip
    args = ["score", "--documents", "--source", src, out, "--sentence-separator", "<s>", "--no-cache", "-f", "json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["samsa"], result["n_scenes"], result["n_output_sentences"]) == (100.0, 4, 4)
    assert main(["evaluate", "--documents", "--source", src, "-m", "samsa", out, "--sentence-separator", "<s>",
                 "--no-cache", "-f", "json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["systems"]["out.txt"]["samsa"] == 100.0
    html = tmp_path / "r.html"
    assert main(["report", "--documents", "--source", src, out, "--sentence-separator", "<s>", "--no-cache",
                 "-o", str(html), "--bootstrap", "10"]) == 0  # fmt: skip
    assert "1 documents" in html.read_text(encoding="utf-8") and "doc:yes" in html.read_text(encoding="utf-8")


def test_bad_documents_get_one_line(tmp_path, capsys):
    src = write(tmp_path / "src.txt", "A b.\n<s>\n")
    out = write(tmp_path / "out.txt", "A b.\nC d.\n")
    assert main(["score", "--documents", "--source", src, out, "--sentence-separator", "<s>", "--no-cache"]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"samsa: error: {src}:2: a document with no sentence"
    mixed = tmp_path / "mixed"
    (mixed / "d1").mkdir(parents=True)
    (mixed / "1.xml").write_bytes((PAPER / "2_read_book.xml").read_bytes())
    (mixed / "d1" / "1.xml").write_bytes((PAPER / "2_read_book.xml").read_bytes())
    assert main(["score", "--documents", "--ucca", str(mixed), out]) == 1
    assert "holds both document folders (d1) and XML files (1.xml)" in capsys.readouterr().err
    (mixed / "1.xml").unlink()
    assert main(["score", "--documents", "--ucca", str(mixed), out]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"samsa: error: {out}:2: no source for this line: {out} has 2 lines, {mixed} 1 documents"
    assert main(["score", "--documents", "-t", "hsplit", out]) == 1
    assert "not a test set" in capsys.readouterr().err


def test_gold_documents_and_the_battery_by_hand(paper):
    assert passage_of("1018003.xml") == "1018" and passage_of("x/001325-0002.xml") == "001325"
    files = [Path(n) for n in ("1000.xml", "1001.xml", "1002.xml", "2000.xml", "2001.xml", "2002.xml", "2003.xml")]
    assert [[f.name for f in d] for d in gold_documents(files, 3)] == [["1000.xml", "1001.xml", "1002.xml"],
                                                                      ["2000.xml", "2001.xml", "2002.xml"]]  # fmt: skip
    assert [len(d) for d in gold_documents(files, None)] == [3, 4]
    out = {name: build(paper, 0) for name, build in OUTPUTS.items()}
    assert [" ".join(s) for s in out["merged"]] == [" ".join(tokens(paper[0]) + tokens(paper[1]))]
    assert out["deleted"] == [tokens(paper[0])] and out["reversed"] == [tokens(paper[1]), tokens(paper[0])]
    assert (
        sorted(map(tuple, out["shuffled"])) == sorted(map(tuple, out["scene-split"])) and len(out["scene-split"]) == 4
    )
    scores = score_battery([paper])
    assert {n: s["manual"] for n, s in scores.items()} == {"unchanged": [50.0], "scene-split": [100.0],
        "shuffled": [100.0], "merged": [25.0], "deleted": [100 * 2.25 / 16], "reversed": [50.0]}  # fmt: skip
    # the alternative: the deleted output's sentence goes to the first source sentence (1 of 2 Scenes' sentences:
    # 50), the second source sentence gets nothing (0)
    assert scores["deleted"]["aligned_average"] == [25.0]
    assert aligned_average(Samsa(tokenizer="none"), paper, out["unchanged"]) == 50.0
    assert scores["scene-split"]["sentence_level"] == [100.0]


def test_on_gold_documents_reordering_and_one_sentence_documents(data_dir):
    files = list_passage_files(data_dir / "ucca" / "wiki" / "dev")[:90]
    graphs = {f: load_passage(f) for f in files}
    docs = [[graphs[f] for f in d] for d in gold_documents(files, 3)]
    scores = score_battery(docs)
    equal = [a == b for a, b in zip(scores["shuffled"]["manual"], scores["scene-split"]["manual"], strict=True)]
    assert sum(equal) / len(equal) >= 0.9 and scores["reversed"]["manual"] == scores["unchanged"]["manual"]
    metric = Samsa(tokenizer="none")
    for g in graphs.values():
        out = [tokens(g)[: len(tokens(g)) // 2], tokens(g)[len(tokens(g)) // 2 :]]
        assert metric.document_score([g], out) == metric.score_graph(g, out)
