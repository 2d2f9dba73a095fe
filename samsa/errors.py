"""One small exception tree, so callers can catch exactly what they mean.

Everything the library raises on purpose derives from :class:`SamsaError`; the
CLI catches it and prints the message without a traceback.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

__all__ = [
    "ConfigError",
    "InputError",
    "InvalidGraphError",
    "OutputError",
    "PluginUnavailable",
    "SamsaError",
    "ScoringError",
    "SentenceTooLong",
    "UnknownPluginError",
]


class SamsaError(Exception):
    """Base class of every error samsa raises deliberately."""


class InputError(SamsaError, ValueError):
    """Bad user input: the message starts with ``path:line:`` when both are known.

    Parameters
    ----------
    path
        The offending file (or a label such as ``<stdin>``); ``None`` if unknown.
    line
        1-based line number inside ``path``; ``None`` if unknown.
    message
        What was expected, what was found, and how to fix it.
    """

    def __init__(self, path: str | PathLike[str] | None, line: int | None, message: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.detail = message
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        super().__init__(f"{where}{message}")

    def __reduce__(self) -> tuple[Any, ...]:
        # picklable with its fields, so an error raised in a worker process reaches the parent intact
        return (self.__class__, (self.path, self.line, self.detail))


class SentenceTooLong(InputError):
    """A sentence longer than the parser reads, refused before anything is allocated for it: the parser's memory
    grows with the square of a sentence's length and its time with the cube. ``index``: the sentence's 0-based
    position among those the parser was given (what a caller maps to its file and line)."""

    def __init__(self, path: str | PathLike[str] | None, line: int | None, tokens: int, limit: int, index: int = 0):
        self.tokens, self.limit, self.index = tokens, limit, index
        super().__init__(
            path,
            line,
            f"a sentence of {tokens} tokens, more than the parser's limit of {limit} (its memory grows with the "
            "square of the length); cut the line into sentences, or leave it out",
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.path, self.line, self.tokens, self.limit, self.index))

    def at(self, path: str | PathLike[str] | None, line: int | None) -> SentenceTooLong:
        """The same refusal, naming the file and line the sentence came from."""
        return SentenceTooLong(path, line, self.tokens, self.limit, self.index)


class InvalidGraphError(InputError):
    """A UCCA passage that reads as XML but breaks the graph's structural rules (see :mod:`samsa.ucca.validate`)."""

    def __init__(
        self, path: str | PathLike[str] | None, line: int | None, message: str, *, node: str | None = None
    ) -> None:
        super().__init__(path, line, message)
        self.node = node

    def __reduce__(self) -> tuple[Any, ...]:
        return (_invalid_graph, (self.path, self.line, self.detail, self.node))


def _invalid_graph(path: str | None, line: int | None, message: str, node: str | None) -> InvalidGraphError:
    return InvalidGraphError(path, line, message, node=node)


class OutputError(SamsaError, OSError):
    """An output file cannot be written (or would overwrite an input); the message names it."""

    def __init__(self, path: str | PathLike[str], message: str) -> None:
        self.path = str(path)
        self.detail = message
        super().__init__(f"{self.path}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.path, self.detail))

    def __str__(self) -> str:  # OSError would format (errno, strerror)
        return f"{self.path}: {self.detail}"


class ConfigError(SamsaError, ValueError):
    """An unknown option value (mode, variant, tokenizer, ...) given to a library function."""


class UnknownPluginError(SamsaError, KeyError):
    """A plug-in name (aligner, parser, ...) that no registry knows."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class PluginUnavailable(SamsaError, ImportError):
    """A plug-in exists but an optional dependency it needs is not installed."""


class ScoringError(SamsaError, ValueError):
    """The metric cannot be computed on this input (e.g. an EASSE index error)."""
