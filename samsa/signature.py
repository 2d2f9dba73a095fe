"""Signature strings saying exactly how a number was computed (sacrebleu style)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["format_signature"]


def format_signature(metric: str, fields: Mapping[str, object], version: str) -> str:
    """``METRIC|key:value|...|version:X``; ``None`` values are dropped, bools become yes/no.

    >>> format_signature("SAMSA", {"compat": "paper", "ppdb": False}, "0.1.0")
    'SAMSA|compat:paper|ppdb:no|version:0.1.0'
    """
    parts = [metric]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{key}:{value}")
    parts.append(f"version:{version}")
    return "|".join(parts)
