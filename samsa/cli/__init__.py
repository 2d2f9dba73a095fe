"""The ``samsa`` command line: one sub-command per job, each a thin layer over the library. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from samsa import __version__
from samsa.errors import SamsaError

__all__ = ["COMMANDS", "EXTRAS", "build_parser", "commands", "console", "main", "missing_extra", "out_of_memory"]

#: the sub-commands, in ``--help``'s order: each a module of this package with ``add_parser(subparsers)``
COMMANDS = (
    "score",
    "sample",
    "annotate",
    "evaluate",
    "report",
    "align",
    "parse",
    "skeleton",
    "extract",
    "ucca_eval",
    "compare",
    "testsets",
    "reproduce",
    "benchmark",
    "correlate",
    "cache",
)


def commands() -> list[ModuleType]:
    """The sub-command modules, imported here rather than with this package: the ``samsa`` executable sets up
    its start-up (:func:`console`) before they import the graph model and numpy."""
    return [importlib.import_module(f"samsa.cli.{name}") for name in COMMANDS]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="samsa",
        description="Structural evaluation of text simplification with SAMSA (Sulem et al., NAACL 2018).",
        epilog="Run 'samsa COMMAND --help' for a command's options and examples.",
        allow_abbrev=False,
    )
    parser.add_argument("-V", "--version", action="version", version=f"samsa {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--list", action=ListTestSets, help="list the named test sets (as sacrebleu --list) and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in commands():
        cmd.add_parser(sub)
    for p in sub.choices.values():
        # an abbreviated option is never guessed: sacrebleu's '-tok' must not be read as '-t ok'
        p.allow_abbrev = False
        if not any("--version" in a.option_strings for a in p._actions):
            p.add_argument("-V", "--version", action="version", version=f"samsa {__version__}")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    return parser


class ListTestSets(argparse.Action):
    """``--list``: print the test-set names, one a line, and exit (sacrebleu's habit)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        from samsa.testsets import available_test_sets

        print("\n".join(available_test_sets()))
        parser.exit(0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used in-process by the tests)."""
    args = build_parser().parse_args(argv)
    try:
        with _interrupts_recorded():
            code = int(args.run(args))
            sys.stdout.flush()  # a reader that went away is found here, not in the interpreter's shutdown
            return code
    except BrokenPipeError:
        # the reader of stdout went away (``samsa ... | head``): end quietly, as a shell tool ended by SIGPIPE
        # would. SIGPIPE itself stays ignored, as Python sets it: its default action would also kill this process
        # for a write to a pipe of a worker that had just been ended (SIGTERM, Ctrl-C)
        _stdout_discarded()
        return 141
    except ModuleNotFoundError as e:
        extra = missing_extra(e)
        if args.debug or extra is None:
            raise
        print(
            f"samsa: error: {args.command} needs the optional package '{e.name}' (the [{extra}] extra): "
            f"pip install 'samsa-metric[{extra}]'",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt as e:
        if args.debug:
            raise
        what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        print(f"samsa: {what}; no output was written or replaced", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130
    except MemoryError as e:
        if args.debug:
            raise
        print(f"samsa: error: {out_of_memory(e)}", file=sys.stderr)
        return 1
    except (SamsaError, OSError) as e:
        if args.debug:
            raise
        print(f"samsa: error: {e}", file=sys.stderr)
        return 1


def out_of_memory(error: MemoryError) -> str:
    """The one line a MemoryError becomes: what ran out, and what to lower.

    >>> out_of_memory(MemoryError("Unable to allocate 11.6 GiB"))[:60]
    'out of memory (Unable to allocate 11.6 GiB); no output was w'
    """
    detail = f" ({error})" if str(error) else ""
    return (
        f"out of memory{detail}; no output was written: lower --jobs (each worker holds its own models and "
        "sentences), cut the longest lines, or run where more memory is free"
    )


def _stdout_discarded() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of what is still buffered for a reader
    that went away does not print an "Exception ignored" report."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout already closed, or not a real file (captured by a test)
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a batch scheduler), raised like Ctrl-C so that the same clean-up runs: temporary
    files removed, the worker pool ended; the exit code is 143 (128 + SIGTERM)."""


#: top-level import name of an optional dependency -> the extra that installs it
EXTRAS = {
    "pandas": "human",
    "odf": "human",
    "scipy": "human",
    "matplotlib": "human",
    "dask": "dask",
    "distributed": "dask",
    "torch": "train",
    "playwright": "test",
}


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The extra that would install the module ``error`` could not find, or None when it is no optional one."""
    top = (error.name or "").split(".")[0]
    return EXTRAS.get(top)


@contextmanager
def _interrupts_recorded() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt as usual and is also recorded (:data:`samsa.fileio.INTERRUPTED`), so that
    no output is committed after one that Python dropped: one that lands in a finalizer is only reported
    ("Exception ignored in ..."), and the run would otherwise finish and replace its outputs. Such a report of a
    KeyboardInterrupt is not printed (the run ends with the one-line message). Only in the main thread, where
    Python delivers signals; handlers as they were afterwards."""
    import threading

    from samsa.fileio import INTERRUPTED

    INTERRUPTED.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(signum: int, frame: Any) -> None:
        INTERRUPTED.set()
        raise KeyboardInterrupt

    def on_sigterm(signum: int, frame: Any) -> None:
        INTERRUPTED.set()
        raise Terminated

    def unraisable(info: Any) -> None:
        if info.exc_type is not None and issubclass(info.exc_type, KeyboardInterrupt):
            INTERRUPTED.set()
            return
        hook(info)

    hook = sys.unraisablehook
    previous = signal.signal(signal.SIGINT, on_sigint)
    previous_term = signal.signal(signal.SIGTERM, on_sigterm)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)
        sys.unraisablehook = hook
        INTERRUPTED.clear()  # the run is over: the library's own writes afterwards are not this run's outputs


def console() -> None:
    """The ``samsa`` executable and ``python -m samsa``: :func:`main` in a process of its own, where spaCy's
    command line and networkx's algorithms are imported only if used and spaCy's network library does not import
    PyTorch (:mod:`samsa.startup`; docs/BENCHMARKS.md has what each saves), whose allocator keeps large freed
    blocks for reuse (glibc only), and whose shutdown does not collect the heap again (below)."""
    from samsa.startup import apply_startup

    apply_startup()
    try:
        code = main()
    finally:
        # The process ends here. Its objects go to the collector's permanent generation, so the interpreter's
        # shutdown does not walk them again in its final collections: with spaCy loaded that walk took 0.27 s
        # (docs/BENCHMARKS.md). Every output is written and closed by now; modules are still torn down.
        gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
