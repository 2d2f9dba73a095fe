"""``samsa sample``: draw the source lines to annotate, at random with known probabilities (uniform, or from the
parse's doubt), into a plan that ``samsa score --plan`` turns into an estimate of the all-manual corpus SAMSA."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NamedTuple

from samsa.cli.common import (
    Runtime,
    add_raw_source_options,
    add_runtime_options,
    add_text_options,
)
from samsa.cli.io import Output, add_command, add_system_options, int_at_least, positive_number
from samsa.errors import InputError
from samsa.fileio import atomic_write_text, check_output_path

DESCRIPTION = """\
Draw the source lines to annotate with manual UCCA, at random, each with a known probability: higher where the
parse is in more doubt (--design doubt) or the same for every line (--design uniform). The plan (-o PLAN.json)
lists the lines and every line's probability; annotate the lines (samsa annotate, or any UCCA tool: N.xml for
line N), then `samsa score --plan PLAN.json --source ... --ucca DIR` estimates each system's all-manual corpus
SAMSA, with a 95% interval, without the parser's bias (docs/validity.md).

examples:
  samsa sample --source src.txt sys1.txt sys2.txt --budget 0.2 -o plan.json
  samsa sample -t hsplit out.txt --budget 60 --seed 7 -o plan.json
  samsa sample --source src.txt out.txt --target-width 3 -o plan.json   # as many lines as a +-3 interval needs
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "sample", "draw the lines to annotate into a plan (for score --plan)", DESCRIPTION)
    add_system_options(p)
    add_raw_source_options(p)
    p.add_argument("--parser", default=None, help="parser of the sources (default: the language's)")
    add_text_options(p)
    g = p.add_argument_group("the plan")
    g.add_argument(
        "--budget",
        metavar="B",
        default=None,
        help="how many lines to annotate: a share of them (0.2) or a number (60); default 0.2",
    )
    g.add_argument(
        "--target-width",
        metavar="W",
        type=positive_number,
        default=None,
        help="instead of --budget: the fewest lines whose predicted 95%% half-width is at most W SAMSA points, "
        "for every system",
    )
    g.add_argument(
        "--seed", type=int_at_least(0, 2**32 - 1), default=0, help="the draw's seed, 0 or more (default: %(default)s)"
    )
    g.add_argument(
        "--design",
        choices=("doubt", "uniform"),
        default=None,
        help="how lines are drawn: in proportion to the parse's doubt mixed with a uniform share, or uniformly "
        "(default: the one the dev sets chose for the parser, docs/validity.md)",
    )
    g.add_argument("-o", "--output", dest="plan", metavar="PLAN.json", required=True, help="where the plan goes")
    p.add_argument("-f", "--format", choices=("table", "json"), default="table", help="(default: %(default)s)")
    p.add_argument("--json", dest="format", action="store_const", const="json", help="same as -f json")
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.cli.inputs import ScoreInputs

    if not (args.source or args.test_set):
        raise InputError(None, None, "no sources: give --source FILE or -t NAME (a plan is drawn from their parse)")
    if args.budget is not None and args.target_width is not None:
        raise InputError(None, None, "give --budget or --target-width, not both")
    inputs = ScoreInputs.from_args(args)
    runtime = Runtime.from_args(args)
    how = Sampling(args.budget, args.target_width, args.seed, args.design, args.plan)
    return sample(inputs, how, runtime, Output(args.format))


class Sampling(NamedTuple):
    """How the lines are drawn: the budget (a share or a count) or the target half-width, the seed, the design
    (None: the parser's default) and where the plan goes."""

    budget: str | None
    width: float | None
    seed: int
    design: str | None
    path: str


def sample(inputs: Any, how: Sampling, runtime: Runtime, output: Output) -> int:
    """Parse the sources with their doubt, predict each line's error, draw the plan, write it, say what it asks."""
    from samsa.engine.plan import sources_digest
    from samsa.engine.planned import doubt_lines
    from samsa.engine.uncertainty import parser_error_model, run_doubt

    check_output_path(how.path, inputs.input_files())
    systems, files = inputs.read_systems()
    source_path, sources = inputs.read_sources()
    if how.width is None:
        _budget(how.budget or "0.2", len(sources))  # refused before the parse
    items, parser = inputs.sentence_items(systems, files, (source_path, sources))
    calibration = run_doubt(parser, wanted=True)
    assert calibration is not None
    model = parser_error_model(parser)
    config = inputs_config(inputs, parser)
    with runtime.parse_run(len(sources), "sample", source_path) as where:
        parsed, doubt = doubt_lines(config, [it.source for it in items], list(systems.values()), calibration, where)
    plan = draw_plan(parsed, doubt, model, how, source_path, sources_digest(sources), parser.signature())
    plan = plan._replace(
        text={"tokenizer": inputs.tokenizer, "separator": inputs.separator, "splitter": inputs.splitter}
    )
    atomic_write_text(how.path, plan.to_json())
    output.emit(_summary(plan, list(systems), how, output.format))
    return 0


def inputs_config(inputs: Any, parser: Any) -> Any:
    """SAMSA's settings of a sampling run (the default aligner; the inputs' text settings)."""
    from samsa.config import SamsaConfig

    settings: dict[str, Any] = {"tokenizer": inputs.tokenizer, "separator": inputs.separator}
    return SamsaConfig(parser=parser, language=inputs.language.code, splitter=inputs.splitter_name, **settings)


def draw_plan(
    parsed: list[list[Any]], doubt: Any, model: Any, how: Sampling, source_path: str, digest: str, parser: str
) -> Any:
    """The plan: each line's predicted error over the systems, the probabilities of the design at the budget (or
    at the smallest budget that meets the target width), and the lines drawn."""
    import numpy as np

    from samsa.engine.plan import Plan
    from samsa.engine.planned import predicted_errors
    from samsa.scoring.estimate import Z95, design_variance, draw_lines, inclusion_probabilities, smallest_budget

    pred = predicted_errors(doubt, model)  # (systems, lines)
    rms = np.sqrt(pred.mean(axis=0))
    n = len(rms)
    design = how.design or model.design
    share = 1.0 if design == "uniform" else model.uniform_share
    if how.width is not None:
        fewest = smallest_budget(pred, how.width, design, model.uniform_share)
        if fewest is None:
            raise InputError(None, None, f"no budget gives a half-width of {how.width:g}, not even every line")
        budget_text, count = f"width:{how.width:g}", float(fewest)
    else:
        budget_text, count = _budget(how.budget or "0.2", n)
    pi = inclusion_probabilities(rms, count, share)
    drawn = np.flatnonzero(draw_lines(pi, how.seed)) + 1
    if not len(drawn):
        raise InputError(
            None, None, f"the draw picked no line ({pi.sum():.1f} expected): raise --budget, or change --seed"
        )
    widths = {f"system_{s}": round(Z95 * design_variance(p, pi) ** 0.5, 3) for s, p in enumerate(pred)}
    estimator = {**model._asdict(), "coef": list(model.coef)}
    parsed_means = [round(float(np.mean([line[s].samsa for line in parsed])), 4) for s in range(len(pred))]
    predicted = {"expected_lines": round(float(pi.sum()), 2), "half_width": widths, "parsed_samsa": parsed_means}
    return Plan(
        drawn=tuple(int(k) for k in drawn),
        probabilities=tuple(float(p) for p in pi),
        seed=how.seed,
        design=design,
        budget=budget_text,
        sources=source_path,
        lines=n,
        digest=digest,
        parser=parser,
        calibration=doubt.calibration.signature(),
        estimator=estimator,
        predicted=predicted,
    )


def _budget(text: str, n: int) -> tuple[str, float]:
    """``--budget`` as (what the plan records, the expected number of lines): a share in (0, 1), or a whole number
    of lines from 1 to the number of source lines."""
    allowed = f"a share between 0 and 1 (0.2) or a whole number of lines from 1 to {n} (60)"
    try:
        value = float(text)
    except ValueError:
        raise InputError(None, None, f"--budget takes {allowed}, not {text!r}") from None
    whole = text.strip().isdigit()
    if not ((whole and 1 <= value <= n) or (not whole and 0 < value < 1)):
        raise InputError(None, None, f"--budget takes {allowed}, not {text}")
    return text, value if whole else value * n


def _summary(plan: Any, names: list[str], how: Sampling, fmt: str) -> str:
    """What the plan asks: how many lines, which, and the predicted 95% half-width of each system's estimate."""
    widths = list(plan.predicted["half_width"].values())
    if fmt == "json":
        return json.dumps(
            {
                "plan": how.path,
                "lines": plan.lines,
                "drawn": list(plan.drawn),
                "design": plan.design,
                "budget": plan.budget,
                "seed": plan.seed,
                "expected_lines": plan.predicted["expected_lines"],
                "predicted_half_width": dict(zip(names, widths, strict=True)),
            },
            indent=2,
        )
    rows = "\n".join(f"  {name:<20} +-{w:.2f}" for name, w in zip(names, widths, strict=True))
    print(f"wrote {how.path}", file=sys.stderr)
    return (
        f"annotate {len(plan.drawn)} of {plan.lines} source lines ({plan.design} design, budget {plan.budget}, "
        f"seed {plan.seed}):\n  {' '.join(map(str, plan.drawn)) or '(none)'}\n"
        f"predicted half-width of each system's 95% interval, once they are annotated:\n{rows}\n"
        f"then: samsa score --plan {how.path} --source ... --ucca DIR (DIR holding N.xml for each line N)"
    )
