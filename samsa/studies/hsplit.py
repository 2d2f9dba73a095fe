"""The HSplit benchmark: lexical metrics of system outputs on the 359 TurkCorpus/HSplit sources. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from samsa.engine.seams import IN_PROCESS, Execution
from samsa.errors import InputError
from samsa.fileio import read_lines
from samsa.lexical.suite import SuiteConfig, evaluate_lexical
from samsa.studies.reproduce import HSPLITS, table2_normalize

__all__ = ["REFERENCE_SETS", "benchmark_hsplit", "load_references"]

METRICS = ("sari", "bleu", "ibleu", "fkgl", "ld_sc", "ld_sr", "splits")
REFERENCE_SETS = ("turk8", "simplewiki", "hsplit4")


def _read(path: Path, first: int | None) -> list[str]:
    lines = read_lines(path, max_tokens=None)
    lines = lines[:first] if first else lines
    return [table2_normalize(x) for x in lines]


def load_references(data: Path, first: int | None = None) -> dict[str, Any]:
    tc = data / "turkcorpus" / "data" / "turkcorpus"
    return {
        "source": _read(tc / "test.8turkers.tok.norm", first),
        "turk8": [_read(tc / f"test.8turkers.tok.turk.{k}", first) for k in range(8)],
        "simplewiki": [_read(tc / "test.8turkers.tok.simp", first)],
        "hsplit4": [_read(data / "hsplit" / "HSplit" / f"{h}_full", first) for h in HSPLITS],
    }


def benchmark_hsplit(
    data: str | Path,
    systems: Mapping[str, Sequence[str]],
    *,
    first: int | None = None,
    include_hsplit: bool = True,
    samsa: bool = True,
    parser: Any = None,
    aligner: str = "exact",
    execution: Execution = IN_PROCESS,
) -> dict[str, Any]:
    """``{system: {reference_set: {metric: value}}}`` plus signatures; outputs must be line-parallel.

    ``execution`` says how SAMSA's parse and scoring run (``samsa.engine.pipeline``), not what they compute.
    """
    data = Path(data)
    refs = load_references(data, first)
    src = refs["source"]
    outputs = {
        name: [table2_normalize(x) for x in (lines[:first] if first else lines)] for name, lines in systems.items()
    }
    for name, out in outputs.items():
        if len(out) != len(src):  # never cut a longer output silently: it is the wrong file, or a shifted one
            raise InputError(
                None,
                None,
                f"system {name!r} has {len(out)} lines; the benchmark has {len(src)} sources, one output line each",
            )
    if include_hsplit:
        outputs.update({h: refs["hsplit4"][k] for k, h in enumerate(HSPLITS)})
    config = SuiteConfig(tokenizer="none", lowercase=False, sari_variant="easse", prenorm="table2")
    results: dict[str, Any] = {}
    signatures: dict[str, Any] = {}
    for name, out in outputs.items():
        results[name] = {}
        for ref_set in REFERENCE_SETS:
            streams = refs[ref_set]
            if ref_set == "hsplit4" and name in HSPLITS:  # leave the system's own corpus out
                streams = [s for h, s in zip(HSPLITS, streams, strict=True) if h != name]
            per_sentence = [[s[i] for s in streams] for i in range(len(src))]
            res = evaluate_lexical(src, out, per_sentence, METRICS, config)
            signatures[ref_set] = res.pop("signatures")
            results[name][ref_set] = res
    if samsa:
        from samsa.config import SamsaConfig
        from samsa.engine.corpus import score_means
        from samsa.engine.worker import Job
        from samsa.registry import get_parser
        from samsa.scoring.metric import Samsa

        raw = read_lines(data / "easse" / "test_sets" / "turkcorpus" / "test.truecase.detok.orig")
        settings = SamsaConfig(aligner=aligner, tokenizer="none", parser=parser or get_parser("builtin"))
        metric, job = Samsa(settings), Job(settings)
        means = score_means(raw[: len(src)], list(outputs.values()), job, execution)  # parsed once, for every system
        for name, (samsa_score, abl) in zip(outputs, means, strict=True):
            results[name]["samsa"] = {"samsa": samsa_score, "samsa_abl": abl}
        signatures["samsa"] = metric.signature()
    return {"systems": results, "signatures": signatures, "sentences": len(src)}
