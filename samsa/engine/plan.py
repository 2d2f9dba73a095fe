"""A plan of lines to annotate (``samsa sample``) and what reading one back checks (``samsa score --plan``). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from samsa import __version__
from samsa.errors import InputError
from samsa.scoring.estimate import ErrorModel

__all__ = ["FORMAT", "Plan", "read_plan", "sources_digest"]

#: the plan files this samsa writes and reads
FORMAT = "samsa-plan-1"


def sources_digest(lines: Sequence[str]) -> str:
    """SHA-256 of the source lines' text (one line each, ``\\n``-joined): a plan names the sources it was drawn
    from by it."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


class Plan(NamedTuple):
    """What a plan file holds (:data:`FORMAT`)."""

    drawn: tuple[int, ...]
    probabilities: tuple[float, ...]
    seed: int
    design: str
    budget: str
    sources: str
    lines: int
    digest: str
    parser: str
    calibration: str
    estimator: dict[str, Any]
    predicted: dict[str, Any]
    text: dict[str, Any] | None = None  # the outputs' tokenizer, separator and splitter (None: the language's)

    @property
    def drawn_mask(self) -> np.ndarray:
        mask = np.zeros(self.lines, dtype=bool)
        mask[[k - 1 for k in self.drawn]] = True
        return mask

    def to_json(self) -> str:
        doc = {"format": FORMAT, "samsa": __version__, **self._asdict()}
        doc["drawn"], doc["probabilities"] = list(self.drawn), [round(p, 8) for p in self.probabilities]
        doc["checks"] = {k: _check_digest(doc[k]) for k in Plan._fields}
        fields = (f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.items())
        return "{\n" + ",\n".join(fields) + "\n}\n"  # a key a line, each value on its line

    def error_model(self) -> ErrorModel:
        """The error model and estimator settings the plan was drawn with: what its estimate is computed with."""
        e = self.estimator
        return ErrorModel(**{k: e[k] for k in ErrorModel._fields if k in e and k != "coef"}, coef=tuple(e["coef"]))

    def signature(self, annotated: int) -> str:
        """The estimate's signature: the estimator the estimate is computed with (the plan's), the plan's design,
        budget, lines drawn and annotated, seed."""
        e = self.estimator
        return (
            f"estimate|method:{e.get('method')}+floor.{e.get('floor')}+{e.get('quantile', 't')}"
            f"{'+small.' + format(e['small'], 'g') if e.get('small') else ''}|design:{self.design}"
            f"|budget:{self.budget}|drawn:{len(self.drawn)}|annotated:{annotated}|seed:{self.seed}|version:{__version__}"
        )


def read_plan(path: str | Path, source_name: str, lines: Sequence[str]) -> Plan:
    """The plan at ``path``, checked against the sources it is used with (their number and text); a plan that
    does not fit is refused in one line naming it."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(path, None, f"cannot read the plan: {e.strerror}") from None
    except ValueError as e:
        raise InputError(path, None, f"not a plan (JSON: {e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(path, None, f"not a samsa plan (format {FORMAT}); make one with samsa sample")
    try:
        plan = Plan(**{k: doc[k] for k in Plan._fields if k != "text"}, text=_text(doc.get("text")))
        checks, coef = doc["checks"], plan.estimator["coef"]
    except (KeyError, TypeError) as e:
        raise InputError(path, None, f"the plan has no {e.args[0]!r}; make it again with samsa sample") from None
    edited = [k for k in Plan._fields if not isinstance(checks, dict) or checks.get(k) != _check_digest(doc.get(k))]
    if edited:
        raise InputError(
            path, None, f"the plan's {edited[0]!r} was changed after samsa sample wrote it: undo it, or draw again"
        )
    if not (isinstance(coef, list) and len(coef) == 3 and all(isinstance(c, (int, float)) for c in coef)):
        raise InputError(path, None, "the plan's error model must have three coefficients; draw it again")
    _check(path, plan, source_name, lines)
    return plan._replace(
        drawn=tuple(int(k) for k in plan.drawn), probabilities=tuple(float(p) for p in plan.probabilities)
    )


def _check_digest(value: Any) -> str:
    """A field's digest, as the plan's ``checks`` keep it: what tells a hand edit."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def _text(value: Any) -> dict[str, Any] | None:
    """The plan's text settings: data, each a name or None (the language's); anything else reads as None."""
    if not isinstance(value, dict):
        return None
    return {k: value[k] if isinstance(value.get(k), str) else None for k in ("tokenizer", "separator", "splitter")}


def _check(path: str | Path, plan: Plan, source_name: str, lines: Sequence[str]) -> None:
    n = len(lines)
    if plan.lines != n or plan.digest != sources_digest(lines):
        raise InputError(
            path,
            None,
            f"a plan for other sources ({plan.sources}, {plan.lines} lines): {source_name} has {n} lines and "
            "other text; sample them again with samsa sample",
        )
    probs = plan.probabilities
    if not isinstance(probs, list) or len(probs) != n:
        raise InputError(path, None, f"the plan's probabilities must be one per source line ({n})")
    bad = next((k for k, p in enumerate(probs, 1) if not isinstance(p, (int, float)) or not 0 < p <= 1), None)
    if bad is not None:
        raise InputError(path, None, f"line {bad}'s probability {probs[bad - 1]!r} is outside (0, 1]")
    drawn = plan.drawn
    if not isinstance(drawn, list) or any(not isinstance(k, int) or not 1 <= k <= n for k in drawn):
        raise InputError(path, None, f"the plan's drawn lines must be line numbers from 1 to {n}")
    if sorted(set(drawn)) != drawn:
        raise InputError(path, None, "the plan's drawn lines must be sorted and each given once")
