"""Reproductions of published evaluation tables from the releases under a data root (README, "Getting the data"). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from samsa.engine.seams import IN_PROCESS, Execution
from samsa.errors import ConfigError, InputError
from samsa.fileio import read_lines
from samsa.lexical import corpus_fkgl, corpus_sari
from samsa.lexical.bleu import corpus_bleu
from samsa.lexical.edits import mean_ld
from samsa.normalize import unescape_moses
from samsa.studies.correlation import correlate
from samsa.studies.human import ACL2018_SYSTEM_FILES, load_acl2018_ratings, load_hsplit_ratings, load_samsa2018_ratings
from samsa.studies.human import system_scores as human_system_scores
from samsa.text import split_sentences

__all__ = [
    "PAPER_TABLE2",
    "TABLE2_SYSTEMS",
    "hsplit_bleu_table2",
    "hsplit_table1",
    "samsa_human_tables",
    "table2_normalize",
]

DIMS = ("G", "M", "S", "StS")
TABLE2_SYSTEMS = {  # display name -> acl2018 .ods name
    "Identity": "Identity",
    "NTS-h1 (default)": "NTS-h1 (with the default model instead of w2v)",
    "NTS-h1 (w2v)": "NTSh1",
    "NTS-h4 (default)": "NTS-h4 (with the default model instead of w2v)",
    "NTS-h4 (w2v)": "NTSh4",
    "Moses": "Moses",
    "SBMT-SARI": "SBMT-SARI",
}
HSPLITS = ("HSplit1", "HSplit2", "HSplit3", "HSplit4")

#: The paper's Table 2 (rho, one-sided p), for the comparison in docs/REPRODUCTION.md.
PAPER_TABLE2 = {
    "without_splits": {
        "BLEU-1ref": {"G": 0.43, "M": 1.00, "S": -0.81, "StS": -0.43},
        "BLEU-8ref": {"G": 0.61, "M": 0.89, "S": -0.59, "StS": -0.11},
        "iBLEU-1ref": {"G": 0.21, "M": 0.93, "S": -0.85, "StS": -0.61},
        "iBLEU-8ref": {"G": 0.61, "M": 0.89, "S": -0.59, "StS": -0.11},
        "-FK": {"G": -0.21, "M": -0.57, "S": 0.67, "StS": 0.39},
        "SARI-8ref": {"G": -0.64, "M": -0.86, "S": 0.52, "StS": 0.00},
        "-LD_SC": {"G": 0.29, "M": 0.86, "S": -0.88, "StS": -0.57},
    },
    "all": {
        "BLEU-1ref": {"G": 0.11, "M": 0.08, "S": -0.60, "StS": -0.67},
        "BLEU-8ref": {"G": 0.26, "M": 0.13, "S": -0.42, "StS": -0.50},
        "iBLEU-1ref": {"G": 0.02, "M": 0.07, "S": -0.61, "StS": -0.71},
        "iBLEU-8ref": {"G": 0.26, "M": 0.13, "S": -0.42, "StS": -0.50},
        "-FK": {"G": -0.05, "M": -0.03, "S": 0.51, "StS": 0.64},
        "SARI-8ref": {"G": -0.64, "M": -0.72, "S": 0.26, "StS": -0.02},
        "-LD_SC": {"G": 0.21, "M": 0.51, "S": -0.68, "StS": -0.52},
    },
}

_CLITIC = re.compile(r"(?<=\w) ' (s|re|ve|ll|d|m)\b")
_NT = re.compile(r"(?<=\w)n 't\b")


def table2_normalize(line: str) -> str:
    """Bring Moses-escaped truecased outputs and lowercased PTB TurkCorpus text to one form.

    >>> table2_normalize("Islam &apos; s holiest city ( MMA ) , they &apos;ve")
    "islam 's holiest city ( mma ) , they 've"
    >>> table2_normalize("it -LRB- was -RRB- Islam ’ s . don 't")
    "it ( was ) islam 's . do n't"
    """
    text = unescape_moses(line).replace("’", "'").replace("‘", "'").lower()
    text = text.replace("-lrb-", "(").replace("-rrb-", ")")
    text = _CLITIC.sub(r" '\1", text)
    text = re.sub(r"(?<=\w) '(s|re|ve|ll|d|m)\b", r" '\1", text)
    text = _NT.sub(" n't", text)
    return " ".join(text.split())


NORMALIZATIONS = ("lowercase", "clean")


def _lines(data: Path, rel: str, n: int, normalization: str) -> list[str]:
    lines = read_lines(data / rel, max_tokens=None)[:n]
    if len(lines) < n:
        raise InputError(None, None, f"{data / rel} has only {len(lines)} lines, {n} needed")
    if normalization == "clean":
        return [table2_normalize(x) for x in lines]
    return [" ".join(x.lower().split()) for x in lines]


def _metrics(out: list[str], src: list[str], simp: list[str], turk: list[list[str]]) -> dict[str, float]:
    bleu: dict[str, Any] = {"smooth_method": "none"}
    b1 = corpus_bleu(out, [simp], **bleu).score
    b8 = corpus_bleu(out, turk, **bleu).score
    copy = corpus_bleu(out, [src], **bleu).score
    return {
        "BLEU-1ref": b1,
        "BLEU-8ref": b8,
        "iBLEU-1ref": 0.9 * b1 - 0.1 * copy,
        "iBLEU-8ref": 0.9 * b8 - 0.1 * copy,
        "-FK": -corpus_fkgl(out, tokenizer="none"),
        "SARI-8ref": corpus_sari(src, out, turk, variant="xu2016", tokenizer="none"),
        "-LD_SC": -mean_ld(out, [[s] for s in src]),
    }


def hsplit_bleu_table2(data: str | Path, first: int = 70, normalization: str = "lowercase") -> dict[str, Any]:
    """Compute the HSplit paper's Table 2 (and the inputs behind it) from ``data``."""
    if normalization not in NORMALIZATIONS:
        raise ConfigError(f"unknown normalization {normalization!r}; choose from {', '.join(NORMALIZATIONS)}")
    data = Path(data)

    def lines(rel: str) -> list[str]:
        return _lines(data, rel, first, normalization)

    src = lines(ACL2018_SYSTEM_FILES["Identity"])
    simp = lines("turkcorpus/data/turkcorpus/test.8turkers.tok.simp")
    turk = [lines(f"turkcorpus/data/turkcorpus/test.8turkers.tok.turk.{k}") for k in range(8)]
    ratings = human_system_scores(
        load_acl2018_ratings(data / "acl2018" / "Human_evaluation_benchmark_acl2018.ods"), DIMS
    )
    metrics: dict[str, dict[str, float]] = {}
    human: dict[str, dict[str, float]] = {}
    for name, ods_name in TABLE2_SYSTEMS.items():
        metrics[name] = _metrics(lines(ACL2018_SYSTEM_FILES[ods_name]), src, simp, turk)
        human[name] = {d: float(ratings.loc[ods_name, d]) for d in DIMS}
    for h in HSPLITS:
        metrics[h] = _metrics(lines(f"hsplit/HSplit/{h}_full"), src, simp, turk)
        hs = human_system_scores(
            load_hsplit_ratings(data / "hsplit" / "HSplit_human_evaluation" / f"{h}_eval.ods"), DIMS
        )
        human[h] = {d: float(hs.loc[h, d]) for d in DIMS}
    metrics["HSplit average"] = {m: sum(metrics[h][m] for h in HSPLITS) / 4 for m in metrics["HSplit1"]}
    human["HSplit average"] = {d: sum(human[h][d] for h in HSPLITS) / 4 for d in DIMS}
    groups = {"without_splits": list(TABLE2_SYSTEMS), "all": [*TABLE2_SYSTEMS, *HSPLITS, "HSplit average"]}
    table: dict[str, Any] = {}
    pvalues: dict[str, Any] = {}
    for group, systems in groups.items():
        table[group], pvalues[group] = {}, {}
        for m in metrics["Identity"]:
            table[group][m], pvalues[group][m] = {}, {}
            for d in DIMS:
                c = correlate([metrics[s][m] for s in systems], [human[s][d] for s in systems], "spearman")
                table[group][m][d] = c.r
                pvalues[group][m][d] = c.p_one_sided
    return {
        **table,
        "p_one_sided": pvalues,
        "metrics": metrics,
        "human": human,
        "first": first,
        "settings": {
            "bleu": "sacrebleu, tokenize none, smooth none (multi-bleu.perl)",
            "sari": "xu2016",
            "fk": "FKGL easse variant, tokenizer none",
            "ld_sc": "character edit distance",
            "normalization": normalization,
        },
    }


def hsplit_table1(data: str | Path) -> dict[str, dict[str, float]]:
    """#Sents (mean sentences per output) and SplitSents (% of outputs split) for HSplit1-4 and their mean."""
    data = Path(data)
    out: dict[str, dict[str, float]] = {}
    for h in HSPLITS:
        counts = [len(split_sentences(x)) for x in read_lines(data / "hsplit" / "HSplit" / f"{h}_full")]
        out[h] = {"sents": sum(counts) / len(counts), "split_percent": 100 * sum(c > 1 for c in counts) / len(counts)}
    out["HSplitAverage"] = {k: sum(out[h][k] for h in HSPLITS) / 4 for k in ("sents", "split_percent")}
    return out


def samsa_human_tables(data: str | Path) -> dict[str, Any]:
    """SAMSA paper human side: per-system means and inter-annotator Spearman (mean over annotator pairs)."""
    df = load_samsa2018_ratings(Path(data) / "samsa2018" / "Human_evaluation_benchmark.ods")
    dims = ("G", "P", "S", "AvgHuman")
    per_system = human_system_scores(df, dims)
    agreement: dict[str, dict[str, float]] = {"sentence": {}, "system": {}}
    annotators = list(dict.fromkeys(df["annotator"]))
    for q in ("Qa", "Qb", "Qc", "Qd", "AvgHuman"):
        wide = df.pivot_table(index=["system", "sentence"], columns="annotator", values=q, sort=False)
        sys_wide = wide.groupby(level=0, sort=False).mean()
        agreement["sentence"][q] = _mean_pairwise(wide, annotators)
        agreement["system"][q] = _mean_pairwise(sys_wide, annotators)
    return {
        "per_system": per_system.round(4).to_dict(orient="index"),
        "inter_annotator_spearman": agreement,
        "annotators": annotators,
    }


def _mean_pairwise(wide: Any, annotators: Sequence[str]) -> float:
    rs = [correlate(wide[a].tolist(), wide[b].tolist()).r for a, b in itertools.combinations(annotators, 2)]
    return sum(rs) / len(rs)


def samsa_correlations(
    data: str | Path,
    *,
    aligner: str = "exact",
    parser: Any = None,
    first: int = 70,
    execution: Execution = IN_PROCESS,
) -> dict[str, Any]:
    """SAMSA and SAMSA-abl (automatic: built-in parser) against human G/M/S/StS on acl2018 + HSplit.

    All 28 systems of the ACL 2018 benchmark and the 4 HSplit corpora, first
    ``first`` sentences. Sources: the truecased TurkCorpus test sentences
    (``easse/test_sets/turkcorpus/test.truecase.detok.orig``), parsed once by the
    built-in parser (spaCy tokenization). Outputs: Moses escapes undone, clitics
    rejoined (:func:`table2_normalize`), split at standalone sentence marks.
    ``execution``: how the parse and scoring run (``samsa.engine.pipeline``).
    """
    from samsa.config import SamsaConfig
    from samsa.engine.corpus import score_means
    from samsa.engine.worker import Job
    from samsa.registry import get_parser
    from samsa.scoring.metric import Samsa

    data = Path(data)
    sources = read_lines(data / "easse" / "test_sets" / "turkcorpus" / "test.truecase.detok.orig")[:first]
    settings = SamsaConfig(aligner=aligner, tokenizer="none", parser=parser or get_parser("builtin"))
    metric = Samsa(settings)
    outputs = {name: read_lines(data / rel, max_tokens=None)[:first] for name, rel in ACL2018_SYSTEM_FILES.items()}
    outputs.update({h: read_lines(data / "hsplit" / "HSplit" / f"{h}_full")[:first] for h in HSPLITS})
    human_df = load_acl2018_ratings(data / "acl2018" / "Human_evaluation_benchmark_acl2018.ods")
    human_means = human_system_scores(human_df, DIMS)
    human = {s: {d: float(human_means.loc[s, d]) for d in DIMS} for s in ACL2018_SYSTEM_FILES}
    for h in HSPLITS:
        hs = human_system_scores(
            load_hsplit_ratings(data / "hsplit" / "HSplit_human_evaluation" / f"{h}_eval.ods"), DIMS
        )
        human[h] = {d: float(hs.loc[h, d]) for d in DIMS}
    normalized = [[table2_normalize(x) for x in lines] for lines in outputs.values()]
    means = score_means(sources, normalized, Job(settings), execution)  # one parse
    scores = {name: {"SAMSA": a, "SAMSA-abl": b} for name, (a, b) in zip(outputs, means, strict=True)}
    systems = list(outputs)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for m in ("SAMSA", "SAMSA-abl"):
        table[m] = {}
        for d in DIMS:
            for method in ("spearman", "pearson"):
                c = correlate([scores[s][m] for s in systems], [human[s][d] for s in systems], method)
                table[m].setdefault(d, {})[method] = c.r
                table[m][d][f"{method}_p_one_sided"] = c.p_one_sided
    return {
        "systems": scores,
        "human": human,
        "correlations": table,
        "n_systems": len(systems),
        "first": first,
        "signature": metric.signature(),
    }
