"""Test sets by name (``-t hsplit``), read from a data root that the user points to. More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass
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

_TS = "easse/test_sets"
_GPL = "GPL-3.0 (EASSE release)"
_CCBYSA = "CC BY-SA 4.0 (ASSET)"


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


def _turk(split: str) -> TestSet:
    return TestSet(
        f"turkcorpus_{'test' if split == 'test' else 'valid'}",
        f"{_TS}/turkcorpus/{split}.truecase.detok.orig",
        tuple(f"{_TS}/turkcorpus/{split}.truecase.detok.simp.{k}" for k in range(8)),
        f"TurkCorpus {split} (Xu et al. 2016), detokenized truecased, 8 references",
        _GPL,
    )


def _turk_legacy(split: str) -> TestSet:
    return TestSet(
        f"turkcorpus_{'test' if split == 'test' else 'valid'}_legacy",
        f"{_TS}/turkcorpus/legacy/{split}.8turkers.tok.norm",
        tuple(f"{_TS}/turkcorpus/legacy/{split}.8turkers.tok.turk.{k}" for k in range(8)),
        f"TurkCorpus {split}, the original tokenized lowercased files, 8 references",
        _GPL,
        tokenized=True,
    )


def _asset(split: str) -> TestSet:
    return TestSet(
        f"asset_{split}",
        f"{_TS}/asset/asset.{split}.orig",
        tuple(f"{_TS}/asset/asset.{split}.simp.{k}" for k in range(10)),
        f"ASSET {split} (Alva-Manchego et al. 2020), 10 references",
        _CCBYSA,
    )


TEST_SETS: dict[str, TestSet] = {
    t.name: t
    for t in (
        _turk("test"),
        _turk("tune"),
        _turk_legacy("test"),
        _turk_legacy("tune"),
        _asset("test"),
        _asset("valid"),
        TestSet(
            "hsplit_test",
            f"{_TS}/hsplit/hsplit.tok.src",
            tuple(f"{_TS}/hsplit/hsplit.tok.{k}" for k in range(1, 5)),
            "HSplit (Sulem et al. 2018): the 359 TurkCorpus test sources, 4 sentence-splitting references "
            "(tokenized, lowercased)",
            "CC BY-SA 3.0",
            tokenized=True,
        ),
        TestSet(
            "pwkp_test",
            f"{_TS}/pwkp/pwkp.test.orig",
            (f"{_TS}/pwkp/pwkp.test.simp",),
            "PWKP test (Zhu et al. 2010), 1 reference",
            _GPL,
        ),
        TestSet(
            "pwkp_valid",
            f"{_TS}/pwkp/pwkp.valid.orig",
            (f"{_TS}/pwkp/pwkp.valid.simp",),
            "PWKP validation, 1 reference",
            _GPL,
        ),
        TestSet(
            "qats_test",
            f"{_TS}/qats/qats.test.orig",
            (f"{_TS}/qats/qats.test.simp",),
            "QATS 2016 shared task test pairs; the 'reference' is the rated simplification",
            _GPL,
        ),
        TestSet(
            "wikisplit_test",
            f"{_TS}/wikisplit/wikisplit.test.untok.orig",
            (f"{_TS}/wikisplit/wikisplit.test.untok.split",),
            "WikiSplit test (Botha et al. 2018), 5,000 pairs; references split with <::::>",
            "CC BY-SA 4.0",
            separator="<::::>",
        ),
        TestSet(
            "wikisplit_valid",
            f"{_TS}/wikisplit/wikisplit.valid.untok.orig",
            (f"{_TS}/wikisplit/wikisplit.valid.untok.split",),
            "WikiSplit validation; references split with <::::>",
            "CC BY-SA 4.0",
            separator="<::::>",
        ),
    )
}

_TS_DE = "easse_de/test_sets"
_EASSE_DE = "GPL-3.0 (EASSE-DE release)"


def _german(name: str, orig: str, ref: str, description: str, licence: str, separator: str | None = None) -> TestSet:
    return TestSet(
        name, f"{_TS_DE}/{orig}", (f"{_TS_DE}/{ref}",), description, licence, separator=separator, language="de"
    )


GERMAN_TEST_SETS = (
    _german(
        "bisect_de_test",
        "BiSECT/BiSECT_test.org",
        "BiSECT/BiSECT_test.simp",
        "BiSECT German split-and-rephrase test (Kim et al. 2021), 735 pairs, tokenized, umlauts stripped; "
        "references split with _SPLIT_",
        _EASSE_DE,
        "_SPLIT_",
    ),
    _german(
        "bisect_de_valid",
        "BiSECT/BiSEC_valid.org",
        "BiSECT/BiSEC_valid.simp",
        "BiSECT German validation, 864 pairs; references split with _SPLIT_",
        _EASSE_DE,
        "_SPLIT_",
    ),
    _german(
        "deplain_web_test",
        "DEplain-web/manual-public/DEplain-web-manual-public.test.org",
        "DEplain-web/manual-public/DEplain-web-manual-public.test.simp",
        "DEplain-web manual-public test (Stodden et al. 2023), 1,846 manually aligned pairs, 1 reference",
        _EASSE_DE,
    ),
    _german(
        "geolino_test",
        "geolino/geolino.test.org",
        "geolino/geolino.test.simp",
        "GEOlino test (Mallinson et al. 2020), 663 pairs, 1 reference",
        _EASSE_DE,
    ),
    _german(
        "geolino_valid",
        "geolino/geolino.valid.org",
        "geolino/geolino.valid.simp",
        "GEOlino validation, 535 pairs, 1 reference",
        _EASSE_DE,
    ),
    _german(
        "textcomplexityde_test",
        "TextComplexityDE/TextComplexityDE_test.org",
        "TextComplexityDE/TextComplexityDE_test.simp",
        "TextComplexityDE test (Naderi et al. 2019), 249 pairs, 1 reference",
        "MIT (TextComplexityDE)",
    ),
    _german(
        "abgb_test",
        "ABGB/ABGB_test.org",
        "ABGB/ABGB_test.simp",
        "ABGB (Austrian civil code) test, 448 pairs: the 1811 text and its simplification",
        _EASSE_DE,
    ),
)
TEST_SETS.update((t.name, t) for t in GERMAN_TEST_SETS)

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
