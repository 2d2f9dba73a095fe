"""``samsa annotate``: correct the parse's Scenes of the lines to annotate, in the browser, saved as UCCA XML."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path
from typing import Any

from samsa.cli.common import Runtime, add_language_option, add_runtime_options, parser_name, resolve_language
from samsa.cli.io import add_command, add_system_options, int_at_least, named_systems
from samsa.errors import InputError, OutputError

DESCRIPTION = """\
Annotate the Scenes of source lines in the browser: each line shows its words and its
parse's Scenes (main relation and participants highlighted) and the parse's doubt;
correct them with the mouse or the keys (docs/annotate.md). Every change is saved at
once to DIR/N.xml for line N, a draft until you mark the line done (Enter): a standard
UCCA file holding the Scene skeleton, which `samsa score --source FILE --ucca DIR`
reads (with --plan: the estimate, from done lines only). Reopening resumes; a file
another tool wrote is replaced only when you say so on the page. With --plan and the
systems' files, the page shows each system's estimate once every drawn line is done.

The server listens on 127.0.0.1 only and prints its URL with a token on one line (the
token is kept in DIR: a restart keeps an open tab working); Ctrl-C stops it.

examples:
  samsa annotate --source src.txt --plan plan.json --out annotated/ sys1.txt sys2.txt
  samsa annotate --source src.txt --lines 3,7,9 --out annotated/ --no-browser
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "annotate", "correct the parse's Scenes in the browser, saved as UCCA XML", DESCRIPTION)
    p.add_argument("--source", metavar="FILE", required=True, help="the source sentences, one a line")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--plan", metavar="PLAN.json", help="annotate the lines a plan of samsa sample drew")
    which.add_argument("--lines", metavar="N,M,...", help="annotate these lines (1-based; ranges as 3-7)")
    p.add_argument("--out", metavar="DIR", required=True, help="where line N is saved, as N.xml (made if missing)")
    add_language_option(p, test_sets=False)
    p.add_argument("--parser", default=None, help="parser of the sources (default: the language's)")
    p.add_argument(
        "--port", type=int_at_least(0, 65535), default=8765, help="port (0: a free one; default %(default)s)"
    )
    p.add_argument("--no-browser", action="store_true", help="print the URL, do not open a browser")
    add_system_options(p, required=False)
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.fileio import DEFAULT_MAX_TOKENS, read_lines

    lang = resolve_language(args.lang)
    sources = read_lines(args.source, allow_empty_lines=False, max_tokens=DEFAULT_MAX_TOKENS)
    plan = None
    if args.plan:
        from samsa.engine.plan import read_plan

        plan = read_plan(args.plan, args.source, sources)
        numbers = list(plan.drawn)
        if not numbers:
            raise InputError(args.plan, None, "the plan draws no line to annotate")
    else:
        numbers = line_numbers(args.lines, args.source, len(sources))
    out = Path(args.out)
    check_directory(out)
    server = bind(args.port)
    try:
        runtime = Runtime.from_args(args)
        parsing = parser_name(args.parser, lang)
        lines = parsed_lines(numbers, sources, parsing, runtime, plan)
        make_directory(out)
        from samsa.annotate.workspace import Workspace, remove_stray_files

        remove_stray_files(out)
        server.token = folder_token(out)

        systems = named_systems([*args.systems, *args.inputs], args.names, required=False)
        estimator = _estimator(plan, (args.source, sources), systems, out, (lang, parsing, runtime))
        server.workspace = Workspace(lines, out, plan.drawn if plan else None, estimator)
        if estimator is not None:  # the lines' parse, for the estimate, while the person annotates
            import threading

            threading.Thread(target=_quietly, args=(estimator.prepare,), daemon=True).start()
        return serve(server, out, not args.no_browser)
    finally:
        server.server_close()


def line_numbers(text: str, source: str, n: int) -> list[int]:
    """``--lines``: numbers and ranges (``3,7-9``), each a line of the source, in order, each once."""
    found: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()) or int(lo) < 1 or int(hi or lo) < int(lo):
            raise InputError(None, None, f"--lines takes line numbers from 1 and ranges low-high (3,7-9), not {part!r}")
        for k in range(int(lo), int(hi or lo) + 1):
            if k > n:
                raise InputError(source, None, f"has {n} lines: there is no line {k} to annotate")
            if k not in found:
                found.append(k)
    return found


def check_directory(out: Path) -> None:
    """Refuse, before anything is written, a DIR that cannot hold the annotations."""
    if out.exists() and not out.is_dir():
        raise OutputError(out, "is not a directory")
    where = out if out.exists() else out.parent
    if not where.is_dir():
        raise OutputError(out, "cannot be made: its parent directory does not exist")
    if not os.access(where, os.W_OK | os.X_OK):
        raise OutputError(out, "is not writable" if out.exists() else "cannot be made: its parent is not writable")


def make_directory(out: Path) -> None:
    """The folder of the annotations, made readable by its user alone when it is made here."""
    try:
        out.mkdir(mode=0o700, exist_ok=True)
    except OSError as e:
        raise OutputError(out, f"cannot be made: {e.strerror}") from None


#: the file in the annotations' folder that keeps the page's token, so that a restart keeps an open tab working
TOKEN_FILE = ".samsa-annotate-token"


def folder_token(out: Path) -> str:
    """The folder's token: the one a previous run kept there, else a new one, kept (readable by the user alone)."""
    import re
    import secrets

    path = out / TOKEN_FILE
    if path.is_file() and not path.is_symlink():
        kept = path.read_text(encoding="ascii", errors="replace").strip()
        if re.fullmatch(r"[A-Za-z0-9_-]{24,64}", kept):
            return kept
    token = secrets.token_urlsafe(24)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(token + "\n")
    return token


def bind(port: int) -> Any:
    from samsa.annotate.server import AnnotateServer

    try:
        return AnnotateServer(port, None)  # type: ignore[arg-type]  # the workspace comes once the lines are parsed
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise InputError(None, None, f"port {port} is in use: choose another with --port, or --port 0") from None
        raise InputError(None, None, f"cannot listen on 127.0.0.1:{port}: {e.strerror}") from None


def parsed_lines(numbers: list[int], sources: list[str], parser: str, runtime: Runtime, plan: Any) -> list[Any]:
    """Each line to annotate with its parse's skeleton and Scene-count distribution (when the parser has doubt)."""
    from samsa.annotate.workspace import Line
    from samsa.config import SamsaConfig
    from samsa.engine.corpus import parse_corpus, parse_with_doubt
    from samsa.engine.uncertainty import run_doubt
    from samsa.registry import get_parser
    from samsa.scoring.uncertainty import scene_counts
    from samsa.ucca.skeleton import skeleton_of

    parsing = get_parser(parser)
    calibration = run_doubt(parsing, wanted=True, unless_unavailable=True)
    texts = [sources[k - 1] for k in numbers]
    with runtime.parse_run(len(texts), "parse") as where:
        if calibration is None:
            graphs = parse_corpus(parsing, texts, where)
            counts: list[dict[int, float]] = [{} for _ in texts]
        else:
            config = SamsaConfig(parser=parsing)
            graphs, doubt, _ = parse_with_doubt(config, texts, [], calibration, where)
            counts = [scene_counts(d.menu, calibration) for d in doubt]
    return [
        Line(
            k,
            sources[k - 1],
            skeleton_of(g)._replace(passage_id=str(k)).in_text_order(),
            c,
            None if plan is None else plan.probabilities[k - 1],
        )
        for k, g, c in zip(numbers, graphs, counts, strict=True)
    ]


def _estimator(
    plan: Any, corpus: tuple[str, list[str]], systems: list[tuple[str, str]], out: Path, how: tuple[Any, str, Runtime]
) -> Any:
    """The page's estimate of the systems named (None without a plan or without systems): the plan's estimate,
    computed here with the plan's text settings and the default aligner, as ``samsa score --plan`` computes it
    (``how``: language, parser name, runtime)."""
    if plan is None or not systems:
        return None
    from samsa.cli.common import AlignerChoice
    from samsa.cli.inputs import check_count
    from samsa.cli.io import read_text_lines
    from samsa.cli.planned import LiveEstimate
    from samsa.engine.uncertainty import run_doubt
    from samsa.registry import get_parser

    lang, parser_name_, runtime = how
    outputs = {name: read_text_lines(path, allow_empty_lines=True) for name, path in systems}
    for name, path in systems:
        check_count(path, len(outputs[name]), corpus[0], len(corpus[1]))
    parser = get_parser(parser_name_)
    calibration = run_doubt(parser, wanted=True)
    text = plan.text or {}
    settings = {"tokenizer": text.get("tokenizer"), "separator": text.get("separator")}
    config = AlignerChoice().samsa_config(lang, parser, splitter=text.get("splitter") or lang.splitter, **settings)
    return LiveEstimate(plan, str(out), corpus, outputs, (config, calibration), runtime)


def _quietly(work: Any) -> None:
    """``work`` in a thread of its own: a failure is the page's to show, when it asks for the estimate."""
    from samsa.errors import SamsaError

    try:
        work()
    except SamsaError:
        pass


def serve(server: Any, out: Path, browser: bool) -> int:
    """Print the URL, open the browser, serve until Ctrl-C."""
    print(f"samsa annotate: {server.url}", flush=True)
    if browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    overview = server.workspace.overview()
    print(f"samsa annotate: stopped; {overview['done']} of {overview['total']} lines done in {out}", file=sys.stderr)
    return 0
