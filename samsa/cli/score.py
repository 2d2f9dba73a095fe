"""``samsa score``: SAMSA and SAMSA-abl of a system output against UCCA-annotated sources."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from samsa.cli.common import add_aligner_options, build_aligner
from samsa.errors import InputError, ScoringError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_write_text, read_lines
from samsa.metric import Samsa
from samsa.registry import available, get_parser
from samsa.scoring import COMPAT_MODES, SentenceResult, corpus_mean
from samsa.text import TOKENIZERS

DESCRIPTION = """\
Score a simplification system's output with SAMSA and SAMSA-abl (0-100).

example (gold UCCA of the sources, one XML file per source line):
  samsa score --ucca gold_xml/ --system output.txt --tokenizer none \\
              --sentence-separator "<::::>" --per-sentence scores.jsonl
"""

EPILOG = """\
Each line of --system is the output for one source sentence; it may hold several
sentences, cut at --sentence-separator or, without it, by a rule-based splitter.
--compat paper follows the paper's definitions; --compat easse reproduces the
EASSE toolkit bit for bit given the same UCCA graphs and aligner (docs/samsa.md).
The corpus score is the mean of the sentence scores.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="SAMSA / SAMSA-abl of a system output",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--ucca", metavar="DIR", help="directory of UCCA XML files, one per source line (natural order)")
    src.add_argument("--source", metavar="FILE", help="raw source sentences, parsed with --parser")
    p.add_argument(
        "--system",
        metavar="FILE",
        nargs="+",
        required=True,
        help="system output(s), one line per source; several systems share one parse of the sources",
    )
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser for --source (default: builtin; available: {', '.join(available('parsers'))})",
    )
    add_aligner_options(p)
    p.add_argument(
        "--compat", choices=sorted(COMPAT_MODES), default="paper", help="definition to follow (default: %(default)s)"
    )
    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default="wordpunct",
        help="tokenizer of the output sentences; 'none' = already tokenized (default: %(default)s)",
    )
    p.add_argument(
        "--sentence-separator", metavar="SEP", default=None, help="string separating sentences in an output line"
    )
    p.add_argument("--per-sentence", metavar="FILE", help="write one JSON object per system line (JSONL)")
    p.add_argument(
        "--format", choices=("table", "json"), default="table", help="corpus result format (default: %(default)s)"
    )
    p.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    p.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        metavar="N",
        help="reject lines longer than N tokens (default: %(default)s)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _progress(total: int, quiet: bool):
    if quiet:
        return lambda it: it
    from tqdm import tqdm

    return lambda it: tqdm(it, total=total, desc="samsa", unit="sent", file=sys.stderr, disable=None, leave=False)


def _read_system(path: str, max_tokens: int) -> list[str]:
    outputs = read_lines(path, allow_empty_lines=True, max_tokens=max_tokens)
    empty = [i for i, line in enumerate(outputs, 1) if not line.strip()]
    if empty:
        print(f"samsa: warning: {path}: {len(empty)} empty output line(s) (first: line {empty[0]}); "
              "they have no sentence and score 0", file=sys.stderr)  # fmt: skip
    return outputs


def _check_count(system: str, n_out: int, where: str, n_src: int, what: str) -> None:
    if n_out != n_src:
        raise InputError(system, min(n_src, n_out) + 1, f"has {n_out} lines but {where} {what} {n_src}"
                         + (" UCCA XML files; file k (natural sort order) annotates line k, so the counts must be "
                            "equal" if what == "holds" else ""))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    systems = {path: _read_system(path, args.max_tokens) for path in args.system}
    if args.per_sentence and len(systems) > 1:
        raise InputError(None, None, "--per-sentence needs a single --system file")
    n = len(next(iter(systems.values())))
    if args.ucca:
        parser = get_parser("xml", directory=args.ucca)
        for path, outputs in systems.items():
            _check_count(path, len(outputs), args.ucca, len(parser.files), "holds")
        graphs = parser.parse(n)
        origins = [str(f) for f in parser.files]
    else:
        sources = read_lines(args.source, allow_empty_lines=False, max_tokens=args.max_tokens)
        for path, outputs in systems.items():
            _check_count(path, len(outputs), args.source, len(sources), "has")
        try:
            parser = get_parser(args.parser or "builtin")
        except TypeError:
            raise InputError(None, None, f"parser {args.parser!r} cannot parse raw text (it needs options, "
                             "e.g. the xml parser needs --ucca DIR)") from None  # fmt: skip
        graphs = parser.parse(sources)  # once per run, whatever the number of systems
        origins = [f"{args.source}:{i}" for i in range(1, len(sources) + 1)]
    metric = Samsa(
        aligner=build_aligner(args),
        compat=args.compat,
        tokenizer=args.tokenizer,
        separator=args.sentence_separator,
        parser=parser,
    )
    summaries = []
    for path, outputs in systems.items():
        metric.prepare(graphs, outputs)
        results: list[SentenceResult] = []
        for i, (g, line) in enumerate(_progress(len(outputs), args.quiet)(zip(graphs, outputs, strict=True)), 1):
            try:
                results.append(metric.sentence_score(g, line))
            except ScoringError as e:
                raise InputError(origins[i - 1], None, f"{e} (system line {i})") from None
        summaries.append({"system": path, **_summary(metric, results)})
        if args.per_sentence:
            rows = [json.dumps({"line": i, **r.to_dict()}, ensure_ascii=False) for i, r in enumerate(results, 1)]
            atomic_write_text(args.per_sentence, "\n".join(rows) + "\n")
    if args.format == "json":
        print(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2, ensure_ascii=False))
    else:
        print("\n\n".join((f"{s['system']}\n" if len(summaries) > 1 else "") + _table(s) for s in summaries))
    return 0


def _summary(metric: Samsa, results: list[SentenceResult]) -> dict[str, Any]:
    return {
        "name": "SAMSA",
        "samsa": corpus_mean([r.samsa for r in results]),
        "samsa_abl": corpus_mean([r.samsa_abl for r in results]),
        "n_lines": len(results),
        "n_scenes": sum(r.n_scenes for r in results),
        "n_output_sentences": sum(r.n_sentences for r in results),
        "signature": metric.signature(),
        "config": metric.config(),
    }


def _table(s: dict[str, Any]) -> str:
    rows = [
        ("SAMSA", f"{s['samsa']:.2f}"),
        ("SAMSA-abl", f"{s['samsa_abl']:.2f}"),
        ("lines", str(s["n_lines"])),
        ("source scenes", str(s["n_scenes"])),
        ("output sentences", str(s["n_output_sentences"])),
    ]
    width = max(len(k) for k, _ in rows)
    body = "\n".join(f"{k:<{width}}  {v:>8}" for k, v in rows)
    return f"{body}\n{s['signature']}"
