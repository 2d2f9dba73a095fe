"""Loaders of the human-judgment benchmarks into tidy pandas DataFrames. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

import json
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

from samsa.errors import InputError, PluginUnavailable

__all__ = [
    "ACL2018_SYSTEM_FILES",
    "load_acl2018_ratings",
    "load_hsplit_ratings",
    "load_samsa2018_ratings",
    "sentence_scores",
    "system_scores",
]

#: acl2018 .ods system names -> output files, relative to the data root
#: (the layout of README's "Getting the data"). "Identity" is the source itself.
ACL2018_SYSTEM_FILES: dict[str, str] = json.loads(
    (resources.files("samsa.studies") / "acl2018_systems.json").read_text(encoding="utf-8")
)


def _read_ods(path: str | PathLike[str]) -> Any:
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - environment dependent
        raise PluginUnavailable(
            "reading human ratings needs pandas and odfpy: pip install 'samsa-metric[human]'"
        ) from e
    p = Path(path)
    if not p.is_file():
        raise InputError(p, None, "no such ratings file")
    try:
        return pd.read_excel(p, engine="odf", header=None)
    except ImportError as e:  # pragma: no cover
        raise PluginUnavailable("reading .ods files needs odfpy: pip install odfpy") from e
    except Exception as e:  # a broken spreadsheet: say which file
        raise InputError(p, None, f"cannot read the spreadsheet: {e}") from None


def _rows_q(
    raw: Any,
    path: Path,
    first_data_row: int,
    sentence_col: int,
    system_col: int | None,
    annotator_cols: list[tuple[str, int]],
    fixed_system: str | None,
) -> list[dict[str, Any]]:
    rows = []
    system = fixed_system
    for r in range(first_data_row, len(raw)):
        row = raw.iloc[r]
        if system_col is not None and isinstance(row[system_col], str) and row[system_col].strip():
            system = row[system_col].strip()
        sent = row[sentence_col]
        if sent != sent:  # NaN: trailing empty rows
            continue
        try:
            sentence = int(sent)
            for name, col in annotator_cols:
                q = [float(row[col + k]) for k in range(4)]
                rows.append(
                    {
                        "system": system,
                        "sentence": sentence,
                        "annotator": name,
                        "Qa": q[0],
                        "Qb": q[1],
                        "Qc": q[2],
                        "Qd": q[3],
                    }
                )
        except (TypeError, ValueError):
            raise InputError(
                path, r + 1, f"expected a sentence number and 4 numeric answers per annotator, found {list(row)}"
            ) from None
    return rows


def _frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows)


def load_acl2018_ratings(path: str | PathLike[str]) -> Any:
    """The ACL 2018 benchmark: 3 annotators x 70 sentences x 28 systems, with G, M, S, StS."""
    raw = _read_ods(path)
    annotators = [(str(raw.iloc[0, c]), c) for c in (2, 6, 10)]
    df = _frame(_rows_q(raw, Path(path), 2, 0, 1, annotators, None))
    return _dims_1_5(df)


def load_hsplit_ratings(path: str | PathLike[str], system: str | None = None) -> Any:
    """One HSplit human evaluation file (3 annotators x 70 sentences); ``system`` defaults to the file stem."""
    raw = _read_ods(path)
    name = system or Path(path).stem.replace("_eval", "")
    annotators = [(str(raw.iloc[0, c]), c) for c in (1, 5, 9)]
    df = _frame(_rows_q(raw, Path(path), 2, 0, None, annotators, name))
    return _dims_1_5(df)


def _dims_1_5(df: Any) -> Any:
    df["G"], df["M"], df["S"], df["StS"] = df["Qa"], df["Qb"], df["Qc"], df["Qd"]
    return df


def load_samsa2018_ratings(path: str | PathLike[str]) -> Any:
    """The SAMSA paper benchmark: 5 annotators x 100 sentences x 7 systems, with G, P, S, AvgHuman."""
    raw = _read_ods(path)
    annotators = [(str(raw.iloc[0, c]).replace("Annotator", ""), c) for c in (2, 6, 10, 14, 18)]
    df = _frame(_rows_q(raw, Path(path), 2, 1, 0, annotators, None))
    df["system"] = df["system"].str.replace(r"\s*\(.*\)$", "", regex=True)  # "TSM (Zhu et al., 2010)" -> "TSM"
    df["G"] = df["Qa"]
    df["P"] = ((4 - df["Qb"]) + (4 - df["Qc"])) / 2  # inverting 1 <-> 3 is x -> 4 - x
    df["S"] = df["Qd"]
    df["AvgHuman"] = (df["G"] + df["P"] + df["S"]) / 3
    return df


def sentence_scores(df: Any, dims: tuple[str, ...]) -> Any:
    """Per (system, sentence): the mean over annotators."""
    return df.groupby(["system", "sentence"], sort=False)[list(dims)].mean().reset_index()


def system_scores(df: Any, dims: tuple[str, ...]) -> Any:
    """Per system: the mean over annotators and sentences (indexed by system, in file order)."""
    return df.groupby("system", sort=False)[list(dims)].mean()
