"""Named plug-ins (aligners, parsers), discovered lazily from entry points.
More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from samsa.errors import ConfigError, InputError, UnknownPluginError

__all__ = ["available", "get_aligner", "get_parser", "register", "resolve"]

BUILTIN: dict[str, dict[str, str]] = {
    "aligners": {
        "exact.v1": "samsa.aligners.exact:make",
        "lemma.v1": "samsa.aligners.lemma:make",
        "sultan.v1": "samsa.aligners.sultan:make",
    },
    "parsers": {
        "xml.v1": "samsa.parsers.xml:make",
        "builtin.v5": "samsa.parsers.builtin:make",
        "tupa.v1": "samsa.parsers.tupa:make",
    },
}

_VERSION = re.compile(r"^(?P<base>.+)\.v(?P<n>\d+)$")


def _table(kind: str) -> dict[str, str | Callable[..., Any]]:
    table: dict[str, str | Callable[..., Any]] = dict(BUILTIN[kind])
    for name, value in _discovered(kind):
        table.setdefault(name, value)
    table.update(_REGISTERED.get(kind, {}))
    return table


@functools.cache
def _discovered(kind: str) -> tuple[tuple[str, str], ...]:
    """The ``samsa.<kind>`` entry points as (name, ``module:attr``), read once per process: each read parses
    the metadata of every installed distribution, and one command resolves names a dozen times."""
    return tuple((ep.name, ep.value) for ep in entry_points(group=f"samsa.{kind}"))


_REGISTERED: dict[str, dict[str, Callable[..., Any]]] = {"aligners": {}, "parsers": {}}


def register(kind: str, name: str, factory: Callable[..., Any]) -> None:
    """Register a factory under ``name`` (for tests and user code); names are never overwritten."""
    if kind not in _REGISTERED:
        raise ConfigError(f"unknown plug-in kind {kind!r}; choose from {sorted(_REGISTERED)}")
    existing = _REGISTERED[kind].get(name)
    if existing is not None and existing is not factory:
        raise ConfigError(f"{kind} name {name!r} is already registered to another factory")
    _REGISTERED[kind][name] = factory


def available(kind: str) -> list[str]:
    """Registered names of one kind (``"aligners"`` or ``"parsers"``), versioned."""
    return sorted(_table(kind))


def resolve(kind: str, name: str) -> str:
    """The versioned registry name for ``name`` (``exact`` -> ``exact.v1``)."""
    table = _table(kind)
    if name in table:
        return name
    versions = [(int(m["n"]), full) for full in table if (m := _VERSION.match(full)) and m["base"] == name]
    if not versions:
        raise UnknownPluginError(f"No {kind[:-1]} named {name!r}. Available: {', '.join(sorted(table))}.")
    return max(versions)[1]


def _load(kind: str, name: str) -> Callable[..., Any]:
    target = _table(kind)[resolve(kind, name)]
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _build(kind: str, name: str, options: dict[str, Any]) -> Any:
    factory = _load(kind, name)
    try:  # options the factory does not take, or required ones missing: say which, without a TypeError
        inspect.signature(factory).bind(**options)
    except TypeError as e:
        raise InputError(
            None, None, f"{kind[:-1]} {name!r} cannot be built with options {sorted(options)}: {e}"
        ) from None
    except ValueError:  # no signature (a builtin or C callable): let the call decide
        pass
    return factory(**options)


def get_aligner(name: str, **options: Any) -> Any:
    """Build the aligner registered as ``name`` with keyword options."""
    return _build("aligners", name, options)


def get_parser(name: str, **options: Any) -> Any:
    """Build the parser registered as ``name`` with keyword options.

    ``NAME:PIPELINE`` is short for ``pipeline=PIPELINE`` (``builtin:accurate``), so
    every command's ``--parser`` can name a pipeline.
    """
    name, sep, pipeline = name.partition(":")
    if sep:
        options = {"pipeline": pipeline, **options}
    return _build("parsers", name, options)
