"""``samsa extract-text`` and ``samsa test-sets``."""

from __future__ import annotations

import json

from samsa.cli import main


def test_extract_text_writes_the_tokens_in_file_order(fixture_path, tmp_path, capsys):
    assert main(["extract-text", str(fixture_path("ucca/paper")), "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "John got home and gave Mary a call .",
        "I read the book that John wrote .",
    ]
    out = tmp_path / "s.txt"
    assert main(["extract-text", str(fixture_path("ucca/paper")), "-o", str(out), "-q"]) == 0
    assert out.read_text().count("\n") == 2 and capsys.readouterr().out == ""
    # identity outputs of the extracted text keep every scene's centers: SAMSA-abl 100
    ucca = str(fixture_path("ucca/paper"))
    assert main(["score", "--ucca", ucca, str(out), "--tokenizer", "none", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["samsa_abl"] == 100.0


def test_test_sets_lists_names_and_presence(data_dir, tmp_path, capsys):
    assert main(["test-sets", "--data", str(data_dir), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    found = {t["name"]: t["found"] for t in res["test_sets"]}
    assert found["hsplit_test"] == "yes" and found["wikisplit_test"] == "yes" and len(found) == 19
    assert main(["test-sets", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "hsplit_test" in out and f"data root: {tmp_path} (from --data)" in out and " no " in out


def test_every_help_example_parses():
    """The examples in each command's --help are valid command lines (argparse accepts them)."""
    import re
    import shlex

    from samsa.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    checked = 0
    for p in sub.choices.values():
        text = (p.description or "") + "\n" + (p.epilog or "")
        for line in re.findall(r"^\s+(?:\S.*\|\s*)?(samsa \S.*?)(?:\s+#.*)?$", text.replace("\\\n", " "), re.M):
            argv = shlex.split(line)[1:]
            assert argv[0] in sub.choices, line
            parser.parse_args(argv)  # SystemExit (a usage error) fails the test
            checked += 1
    assert checked >= 15
