"""Test sets by name (``-t hsplit``), read from a data root that the user points to. More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

import configparser
import json
import os
from dataclasses import dataclass
from importlib import resources
from os import PathLike
from pathlib import Path

from samsa.errors import ConfigError, InputError
from samsa.languages import DEFAULT_LANGUAGE

__all__ = [
    "TEST_SETS",
    "DataRoot",
    "TestSet",
    "available_test_sets",
    "data_root",
    "get_orig_sents",
    "get_refs_sents",
    "get_test_set",
]


@dataclass(frozen=True)
class TestSet:
    """One named test set: files relative to the data root, and how its text looks.

    ``tokenized``: sources and references are tokenized and lowercased (PTB style), so
    SAMSA parses them as whitespace tokens. ``separator``: the string that separates
    sentences inside a reference line (WikiSplit's ``<::::>``, BiSECT's ``_SPLIT_``).
    ``language``: what ``samsa evaluate -t NAME`` and ``samsa score -t NAME`` read it as
    (``samsa.languages``).
    """

    __test__ = False  # not a pytest class

    name: str
    orig: str
    refs: tuple[str, ...]
    description: str
    licence: str
    tokenized: bool = False
    separator: str | None = None
    language: str = DEFAULT_LANGUAGE


#: every named test set (package data: ``test_sets.json``), files relative to the data root
TEST_SETS: dict[str, TestSet] = {
    d["name"]: TestSet(**{**d, "refs": tuple(d["refs"])})
    for d in json.loads((resources.files("samsa") / "test_sets.json").read_text(encoding="utf-8"))
}

#: Short names users type, as in the issue tracker and papers.
ALIASES = {
    "hsplit": "hsplit_test",
    "turkcorpus": "turkcorpus_test",
    "asset": "asset_test",
    "pwkp": "pwkp_test",
    "qats": "qats_test",
    "wikisplit": "wikisplit_test",
    "turkcorpus_tune": "turkcorpus_valid",
}


def available_test_sets() -> list[str]:
    return sorted(TEST_SETS)


def get_test_set(name: str) -> TestSet:
    try:
        return TEST_SETS[ALIASES.get(name, name)]
    except KeyError:
        raise ConfigError(f"unknown test set {name!r}; choose from {', '.join(available_test_sets())}") from None


@dataclass(frozen=True)
class DataRoot:
    """A data root and the setting it came from (said in every error about it)."""

    path: Path
    setting: str

    def file(self, relative: str, what: str) -> Path:
        p = self.path / relative
        if not p.is_file():
            raise InputError(p, None, f"{what}: file not found (data root {self.path} from {self.setting})")
        return p


def _config_file() -> Path:
    if os.environ.get("SAMSA_CONFIG"):
        return Path(os.environ["SAMSA_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "samsa" / "config.ini"


def _from_config() -> DataRoot | None:
    path = _config_file()
    if not path.is_file():
        return None
    cp = configparser.ConfigParser()
    try:
        cp.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as e:
        raise InputError(path, None, f"unreadable config file: {str(e).splitlines()[0]}") from None
    value = cp.get("samsa", "data", fallback=None)
    return DataRoot(Path(value).expanduser(), f"'data' in {path}") if value else None


def data_root(data: str | PathLike[str] | None = None) -> DataRoot:
    """Where the corpora are: ``data``, else ``$SAMSA_DATA``, else the config file."""
    root: DataRoot | None
    if data is not None:
        root = DataRoot(Path(data), "--data")
    elif os.environ.get("SAMSA_DATA"):
        root = DataRoot(Path(os.environ["SAMSA_DATA"]), "$SAMSA_DATA")
    else:
        root = _from_config()
    if root is None:
        raise ConfigError(
            f"no data root: pass --data DIR, set SAMSA_DATA, or write 'data = DIR' under [samsa] in {_config_file()}"
        )
    if not root.path.is_dir():
        raise InputError(root.path, None, f"data root not found (from {root.setting})")
    return root


def _read(path: Path) -> list[str]:
    from samsa.fileio import read_lines

    return read_lines(path, max_tokens=None)


def test_set_files(name: str, data: str | PathLike[str] | None = None) -> tuple[Path, list[Path]]:
    """(source file, reference files) of a test set, each checked to exist."""
    ts, root = get_test_set(name), data_root(data)
    return root.file(ts.orig, f"test set {ts.name}"), [root.file(r, f"test set {ts.name}") for r in ts.refs]


test_set_files.__test__ = False  # type: ignore[attr-defined]


def get_orig_sents(name: str, data: str | PathLike[str] | None = None) -> list[str]:
    """The source sentences of a test set (EASSE's name)."""
    return _read(test_set_files(name, data)[0])


def get_refs_sents(name: str, data: str | PathLike[str] | None = None) -> list[list[str]]:
    """The references of a test set as streams: ``refs[k][i]`` is reference ``k`` of sentence ``i`` (EASSE's name)."""
    return [_read(p) for p in test_set_files(name, data)[1]]
