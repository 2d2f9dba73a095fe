"""The one command-line convention for inputs and outputs, shared by every sub-command. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_write_text, decode_lines, read_lines
from samsa.tables import FORMATS

STDIN = "-"
STDIN_NAME = "<stdin>"  # how errors name standard input


def shown(path: str) -> str:
    """A system path as messages name it ('-' is standard input)."""
    return STDIN_NAME if path == STDIN else path


def int_at_least(low: int, high: int | None = None) -> Any:
    """An argparse type: a whole number in ``[low, high]``, refused as a usage error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value

    parse.__name__ = "number"  # argparse names the type in its messages
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number above 0")
    return value


def add_command(
    sub: argparse._SubParsersAction, name: str, summary: str, description: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    """A sub-command's parser: its line in ``samsa --help``, and its description and epilog printed as written."""
    return sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_system_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    p.add_argument(
        "systems",
        nargs="*",
        metavar="SYSTEM",
        help="system output file(s); '-' reads standard input, as does no file when input is piped",
    )
    p.add_argument(
        "-i",
        "--input",
        "--system",
        dest="inputs",
        action="extend",
        nargs="+",
        default=[],
        metavar="FILE",
        help="system output file(s), as the positional SYSTEM ('-' = stdin)",
    )
    p.add_argument(
        "--name",
        "--names",
        dest="names",
        nargs="+",
        default=None,
        metavar="NAME",
        help="one display name per system (default: file names)",
    )
    p.set_defaults(systems_required=required)


def add_data_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="data root holding the corpora (default: $SAMSA_DATA, else 'data' in the config file)",
    )


def add_test_set_option(p: argparse.ArgumentParser) -> None:
    from samsa.testsets import available_test_sets

    p.add_argument(
        "-t",
        "--test-set",
        metavar="NAME",
        default=None,
        help=f"sources and references by name: {', '.join(available_test_sets())} (hsplit, turkcorpus, "
        "asset, ... are short names of the _test sets)",
    )
    add_data_option(p)


def add_format_options(p: argparse.ArgumentParser, choices: tuple[str, ...] = FORMATS, default: str = "table") -> None:
    g = p.add_argument_group("output")
    g.add_argument("-f", "--format", choices=choices, default=default, help="output format (default: %(default)s)")
    g.add_argument("--json", dest="format", action="store_const", const="json", help="same as -f json")
    g.add_argument(
        "-w",
        "--width",
        type=int_at_least(0, 20),
        default=2,
        metavar="N",
        help="decimals in tables (default: %(default)s)",
    )
    g.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write the result to FILE (atomically) instead of standard output",
    )


def named_systems(paths: list[str], names: list[str] | None, *, required: bool = True) -> list[tuple[str, str]]:
    """(name, path) of every system file given (``-`` is standard input, at most once; with no file and input
    piped, standard input), names checked (``--name``: one each, all different)."""
    if not paths and required and stdin_is_piped():
        paths = [STDIN]  # sacrebleu's habit: `samsa evaluate -t NAME < out.txt`
    if not paths and required:
        raise InputError(None, None, "no system output given: pass files (or '-' for standard input) or -i FILE")
    if paths.count(STDIN) > 1:
        raise InputError(None, None, "standard input ('-') can be read once only")
    names = names or [("stdin" if p == STDIN else Path(p).name) for p in paths]
    if len(names) != len(paths):
        raise InputError(None, None, f"--name gives {len(names)} name(s) for {len(paths)} system file(s)")
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InputError(None, None, f"system names must differ (use --name): {', '.join(dup)}")
    return list(zip(names, paths, strict=True))


def file_paths(paths: list[str]) -> list[str]:
    """The files among system paths (standard input is none): what an output must never overwrite."""
    return [p for p in paths if p != STDIN]


def stdin_is_piped() -> bool:
    """True when standard input is a pipe or a regular file (not a terminal, not closed, not /dev/null)."""
    import os
    import stat

    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no stdin, or a test runner's stand-in
        return False
    return stat.S_ISFIFO(mode) or (stat.S_ISREG(mode) and os.fstat(sys.stdin.fileno()).st_size > 0)


def read_text_lines(
    path: str, *, allow_empty_lines: bool = True, max_tokens: int | None = DEFAULT_MAX_TOKENS
) -> list[str]:
    """A file's lines, or standard input's for '-' (same validation, named '<stdin>')."""
    if path == STDIN:
        return decode_lines(
            sys.stdin.buffer.read(), STDIN_NAME, allow_empty_lines=allow_empty_lines, max_tokens=max_tokens
        )
    return read_lines(path, allow_empty_lines=allow_empty_lines, max_tokens=max_tokens)


class Output(NamedTuple):
    """Where and how a result goes (``-f``, ``-w``, ``-o``): standard output, or a file written atomically."""

    format: str = "table"
    width: int = 2
    path: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Output:
        """The options :func:`add_format_options` declared, as the command line gave them."""
        return cls(args.format, args.width, args.output)

    def check(self, inputs: list[Any]) -> None:
        """Before any work: the target can be written and is none of ``inputs``."""
        from samsa.fileio import check_output_path

        if self.path:
            check_output_path(self.path, inputs)

    def emit(self, text: str) -> None:
        """Print the result, or write it to ``-o FILE``."""
        if self.path:
            atomic_write_text(self.path, text + "\n")
        else:
            print(text)


def read_corpus(
    test_set: str | None,
    source: str | None,
    refs: list[str],
    data: str | None,
    *,
    documents: bool = False,
    want_refs: bool = True,
) -> tuple[str, list[str], list[list[str]] | None]:
    """(source path, sources, references per sentence or None) of ``-t NAME``, or of ``--source`` and ``--refs``."""
    if test_set:
        from samsa.engine.evaluate import test_set_corpus
        from samsa.testsets import get_test_set, test_set_files

        if source or refs:
            raise InputError(None, None, "give either -t/--test-set or --source/--refs, not both")
        path = str(test_set_files(get_test_set(test_set).name, data)[0])
        sources, per = test_set_corpus(test_set, data)
        return path, sources, per if want_refs else None
    if not source:
        raise InputError(
            None,
            None,
            "--refs needs --source (or use -t)" if refs else "no sources: give -t/--test-set NAME or --source FILE",
        )
    if documents:
        from samsa.engine.documents import MAX_DOCUMENT_TOKENS

        sources = read_lines(source, allow_empty_lines=False, max_tokens=MAX_DOCUMENT_TOKENS)
    else:
        sources = read_lines(source, allow_empty_lines=False)
    return source, sources, read_refs(refs, source, len(sources)) if refs and want_refs else None


def read_refs(paths: list[str], source: str, n: int, separator: str | None = None) -> list[list[str]]:
    """Reference files -> references per sentence; counts checked against the source, read once."""
    from samsa.engine.evaluate import file_refs
    from samsa.fileio import check_line_counts

    streams = [read_lines(p, max_tokens=None) for p in paths]
    check_line_counts([(source, n), *((p, len(s)) for p, s in zip(paths, streams, strict=True))])
    return file_refs(streams, n, separator, paths)
