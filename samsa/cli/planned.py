"""Scoring with a plan (``samsa score --plan``): the plan and the annotations checked against the sources, every line
parsed with its doubt, the annotated lines scored on their manual UCCA, and each system's estimate of its
all-manual corpus SAMSA (``samsa.engine.planned``) beside the parsed score."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from samsa.cli.common import Runtime
from samsa.cli.inputs import ScoreInputs, ScoreOptions, check_annotation, check_count, manual_lines
from samsa.cli.io import Output
from samsa.cli.results import corpus_summary, score_table
from samsa.errors import InputError
from samsa.fileio import atomic_open
from samsa.ucca.skeleton_write import DRAFT
from samsa.ucca.xmlsafe import passage_attributes

__all__ = [
    "annotations_for",
    "estimate_fields",
    "evaluate_planned",
    "planned_estimate",
    "report_estimate",
    "score_planned",
]


def annotations_for(plan: Any, ucca: str | None, sources: list[str], source_path: str) -> dict[int, Path]:
    """The annotated lines (``N.xml`` of ``ucca``), each checked against its source line; a drawn line without its
    file is refused (all of them named), and a file for a line the plan did not draw is said in one line (it
    replaces that line's parse in the parsed score, and stays out of the estimate)."""
    if not ucca:
        raise InputError(None, None, "--plan reads the drawn lines' annotations: give --ucca DIR (N.xml for line N)")
    files = manual_lines(ucca, len(sources))
    for k, path in files.items():
        check_annotation(path, k, sources[k - 1], source_path)
    drafts = [k for k in plan.drawn if k in files and passage_attributes(files[k]).get("draft") == DRAFT["draft"]]
    if drafts:
        shown = " ".join(map(str, drafts[:20])) + (" ..." if len(drafts) > 20 else "")
        raise InputError(ucca, None, f"{len(drafts)} drawn line(s) still drafts (mark them done): {shown}")
    missing = [k for k in plan.drawn if k not in files]
    if missing:
        shown = " ".join(map(str, missing[:20])) + (" ..." if len(missing) > 20 else "")
        raise InputError(
            ucca, None, f"{len(missing)} line(s) the plan drew have no annotation here (N.xml for line N): {shown}"
        )
    extra = sorted(set(files) - set(plan.drawn))
    if extra:
        print(
            f"samsa: warning: {ucca}: {len(extra)} annotation(s) of lines the plan did not draw (first: line "
            f"{extra[0]}): they replace their lines' parse in the parsed score and stay out of the estimate",
            file=sys.stderr,
        )
    return files


def estimate_fields(estimates: list[dict[str, Any]], signature: str) -> list[dict[str, Any]]:
    """Each system's ``estimate``, ``estimate_abl`` and (from the second on) ``estimate_vs_first`` as JSON."""
    out = []
    for e in estimates:
        fields: dict[str, Any] = {
            "estimate": {**_interval(e["samsa"], "samsa"), "signature": signature},
            "estimate_abl": _interval(e["samsa_abl"], "samsa_abl"),
        }
        if e["vs_first"] is not None:
            fields["estimate_vs_first"] = _interval(e["vs_first"], "difference")
        out.append(fields)
    return out


def _interval(e: Any, key: str) -> dict[str, Any]:
    return {
        key: round(e.value, 4),
        "low": round(e.low, 4),
        "high": round(e.high, 4),
        "se": round(e.se, 4),
        "lines_used": e.n_used,
        "effective_lines": round(e.ess, 1),
    }


def planned_estimate(
    plan: Any,
    ucca: str | None,
    corpus: tuple[str, list[str]],
    systems: dict[str, list[str]],
    doubt: tuple[Any, Any],
    runtime: Runtime | None = None,
    parsed: Any = None,
) -> Any:
    """What ``score``, ``evaluate`` and ``report`` estimate from a plan: the plan checked against the run's parser
    and calibration, the annotations read and checked, then :func:`samsa.engine.planned.estimate_from_plan` with
    the plan's error model and estimator (``doubt``: the SAMSA settings whose parser parses, and its calibration),
    run with the command's runtime unless ``parsed`` holds the lines' results and doubt already."""
    from samsa.engine.planned import estimate_from_plan

    source_path, sources = corpus
    config, calibration = doubt
    for what, plan_has, run_has in (
        ("parser", plan.parser, config.parser.signature()),
        ("calibration", plan.calibration, calibration.signature()),
    ):
        if plan_has != run_has:
            raise InputError(None, None, f"the plan was drawn with another {what} ({plan_has}), not {run_has}")
    manual = annotations_for(plan, ucca, sources, source_path)
    settings = (calibration, plan.error_model())
    outputs = list(systems.values())
    if parsed is not None or runtime is None:
        return estimate_from_plan(config, sources, outputs, plan, manual, settings, parsed=parsed)
    with runtime.parse_run(len(sources), "samsa", source_path) as execution:
        return estimate_from_plan(config, sources, outputs, plan, manual, settings, execution)


def score_planned(inputs: ScoreInputs, options: ScoreOptions, plan_path: str, runtime: Runtime, output: Output) -> int:
    """``samsa score --plan``."""
    from samsa.engine.plan import read_plan
    from samsa.engine.uncertainty import run_doubt
    from samsa.fileio import check_output_path

    if inputs.documents:
        raise InputError(None, None, "--plan estimates from sentences: it does not go with --documents")
    if not inputs.parses:
        raise InputError(None, None, "--plan estimates from parsed sentences: give --source FILE or -t NAME")
    if options.compat != "paper":
        raise InputError(None, None, f"--plan estimates paper-mode SAMSA, not --compat {options.compat}")
    files = inputs.input_files()
    if options.per_sentence:
        check_output_path(options.per_sentence, files)
    output.check(files)
    systems, names = inputs.read_systems()
    source_path, sources = inputs.read_sources()
    plan = read_plan(plan_path, source_path, sources)
    parser = inputs.text_parser()
    calibration = run_doubt(parser, wanted=True, compat=options.compat)
    assert calibration is not None
    settings: dict[str, Any] = {"compat": options.compat, "tokenizer": inputs.tokenizer, "separator": inputs.separator}
    settings.update(splitter=inputs.splitter_name, lowercase=inputs.lowercase)
    config = options.aligner.samsa_config(inputs.language, parser, **settings)
    lines = [s.lower() for s in sources] if inputs.lowercase else sources
    for name, outs in systems.items():
        check_count(names[name], len(outs), source_path, len(lines))
    est = planned_estimate(plan, inputs.ucca, (source_path, lines), systems, (config, calibration), runtime)
    run, manual = est.run, est.run.manual
    mixed = run.mixed()
    named = replace(config, manual=f"{len(manual)}/{len(lines)}") if manual else config
    summaries = _summaries(mixed, named, list(systems), names)
    for summary, fields in zip(summaries, estimate_fields(est.estimates, est.signature), strict=True):
        summary.update(fields)
    if options.parse_uncertainty:
        for s, summary in enumerate(summaries):
            summary["parse_interval"] = {**run.doubt.interval(s), "signature": calibration.signature()}
    if options.per_sentence:
        with atomic_open(options.per_sentence) as f:
            for k, results in enumerate(mixed, 1):
                row = {"line": k, **results[0].to_dict(), "annotated": k in manual, "drawn": k in plan.drawn}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    if output.format == "json":
        output.emit(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2, ensure_ascii=False))
    else:
        output.emit(score_table(summaries, output.format, output.width))
    return 0


def _summaries(mixed: list[list[Any]], config: Any, systems: list[str], names: dict[str, str]) -> list[dict[str, Any]]:
    """Each system's corpus summary of the mixed sources (manual UCCA where a line has it)."""
    from samsa.scoring.metric import Samsa
    from samsa.scoring.result import CorpusTotals

    metric = Samsa(config)
    out = []
    for s, name in enumerate(systems):
        totals = CorpusTotals()
        for line in mixed:
            totals.add(line[s])
        out.append({"system": name, "file": names[name], **corpus_summary(totals, metric, False), "n_dropped": 0})
    return out


def report_estimate(
    plan: Any, inputs: Any, corpus: tuple[str, list[str]], systems: dict[str, list[str]], parsed: tuple[Any, ...]
) -> dict[str, Any]:
    """What the report shows of a plan: each system's parsed SAMSA beside its estimate (and SAMSA-abl's, and the
    difference from the first), the annotated lines and the signature (``parsed``: the report's parser,
    calibration, parse doubt and results)."""
    from samsa.engine.planned import doubt_totals

    parser, calibration, doubt, results = parsed
    config = inputs.samsa_config(parser)
    lines = (results, doubt_totals(calibration, doubt))
    est = planned_estimate(plan, inputs.ucca, corpus, systems, (config, calibration), parsed=lines)
    fields = estimate_fields(est.estimates, est.signature)
    parsed_means = _parsed_means(est.run)
    return {
        "systems": [
            {"system": name, "parsed": round(m, 4), **f}
            for name, m, f in zip(systems, parsed_means, fields, strict=True)
        ],
        "annotated": sorted(k for k in est.run.manual if k in plan.drawn),
        "signature": est.signature,
    }


def evaluate_planned(
    result: dict[str, Any], inputs: Any, corpus: tuple[str, list[str]], systems: dict[str, list[str]], runtime: Runtime
) -> None:
    """``samsa evaluate --plan``: SAMSA and SAMSA-abl of the mixed sources (the annotated lines' manual UCCA), and
    each system's estimate of its all-manual SAMSA, into ``result`` (``samsa_est``, ``samsa_est_lo``,
    ``samsa_est_hi``, the same for ``samsa_abl``, and ``samsa_est_vs_first`` from the second system on)."""
    from samsa.config import shared_parser
    from samsa.engine.plan import read_plan
    from samsa.engine.uncertainty import run_doubt
    from samsa.scoring.metric import Samsa
    from samsa.scoring.result import CorpusTotals

    source_path, sources = corpus
    if not (inputs.source or inputs.test_set):
        raise InputError(None, None, "--plan estimates from parsed sentences: give --source FILE or -t NAME")
    plan = read_plan(inputs.plan, source_path, sources)
    parser = shared_parser(inputs.language.parser)
    calibration = run_doubt(parser, wanted=True)
    config = inputs.config.samsa_config(parser)
    est = planned_estimate(plan, inputs.ucca, corpus, systems, (config, calibration), runtime)
    manual = est.run.manual
    named = replace(config, manual=f"{len(manual)}/{len(sources)}") if manual else config
    mixed = est.run.mixed()
    for s, (name, e) in enumerate(zip(systems, est.estimates, strict=True)):
        totals = CorpusTotals()
        for line in mixed:
            totals.add(line[s])
        samsa, abl = totals.means()
        values = {
            "samsa": samsa,
            "samsa_abl": abl,
            **_flat(e["samsa"], "samsa_est"),
            **_flat(e["samsa_abl"], "samsa_abl_est"),
        }
        if e["vs_first"] is not None:
            values.update(_flat(e["vs_first"], "samsa_est_vs_first"))
        result["systems"][name].update(values)
    sig = Samsa(named).signature()
    result["signatures"].update(samsa=sig, samsa_abl=sig, samsa_est=est.signature, samsa_abl_est=est.signature)


def _flat(e: Any, key: str) -> dict[str, float]:
    return {key: round(e.value, 4), f"{key}_lo": round(e.low, 4), f"{key}_hi": round(e.high, 4)}


class LiveEstimate:
    """What ``samsa annotate``'s page shows once every drawn line is done: each system's estimate, computed in this
    process by :func:`planned_estimate`. The lines' parse and doubt are computed once (:meth:`prepare`, which the
    command starts at once, beside the page); each call reads the annotations anew."""

    def __init__(
        self,
        plan: Any,
        ucca: str,
        corpus: tuple[str, list[str]],
        systems: dict[str, list[str]],
        doubt: tuple[Any, Any],
        runtime: Runtime,
    ) -> None:
        import threading

        self.plan, self.ucca, self.corpus, self.systems, self.doubt = plan, ucca, corpus, systems, doubt
        self.runtime = runtime._replace(quiet=True)
        self.parsed: Any = None
        self.lock = threading.Lock()

    def prepare(self) -> None:
        """Parse every line with its doubt, once."""
        from samsa.engine.planned import doubt_lines

        with self.lock:
            if self.parsed is None:
                (config, calibration), (path, lines) = self.doubt, self.corpus
                with self.runtime.parse_run(len(lines), "samsa", path) as execution:
                    outputs = list(self.systems.values())
                    self.parsed = doubt_lines(config, lines, outputs, calibration, execution)

    def __call__(self) -> dict[str, Any]:
        self.prepare()
        est = planned_estimate(self.plan, self.ucca, self.corpus, self.systems, self.doubt, parsed=self.parsed)
        rows = []
        for name, e, mean in zip(self.systems, est.estimates, _parsed_means(est.run), strict=True):
            value = e["samsa"]
            row = {"name": name, "parsed": mean, "estimate": value.value, "low": value.low, "high": value.high}
            rows.append({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
        return {"systems": rows, "signature": est.signature}


def _parsed_means(run: Any) -> list[float]:
    """Each system's corpus SAMSA on the parse alone."""
    n = len(run.parsed[0]) if run.parsed else 0
    return [sum(line[s].samsa for line in run.parsed) / len(run.parsed) for s in range(n)]
