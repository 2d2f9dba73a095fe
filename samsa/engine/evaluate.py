"""``samsa.evaluate``: every metric for one or more systems, in one call (what ``samsa evaluate`` prints). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

from samsa.engine.seams import Execution
from samsa.errors import InputError
from samsa.languages import DEFAULT_LANGUAGE, get_language
from samsa.lexical import per_sentence_refs
from samsa.lexical.suite import SuiteConfig, default_metrics, evaluate_lexical, known_metrics

__all__ = ["NEEDS_REFERENCES", "evaluate", "file_refs", "parse_metrics", "test_set_corpus"]

#: metrics that compare with references
NEEDS_REFERENCES = frozenset({"sari", "sari_add", "sari_keep", "sari_del", "bleu", "ibleu", "fkbleu", "ld_sr"})


def parse_metrics(metrics: str | Sequence[str]) -> list[str]:
    """``"sari,bleu"`` or a list -> the metric names, unknown ones refused with the list of known ones."""
    names = [m.strip() for m in (metrics.split(",") if isinstance(metrics, str) else metrics) if m.strip()]
    known = known_metrics()
    unknown = sorted(set(names) - set(known) - {"samsa"})
    if unknown:
        raise InputError(None, None, f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(known)}, samsa")
    if not names:
        raise InputError(None, None, "no metric named")
    return names


def file_refs(streams: Sequence[Sequence[str]], n: int, separator: str | None, names: Sequence[str]) -> list[list[str]]:
    """Reference files' lines -> references per sentence: a blank line is a missing reference, a split
    reference (``separator``) is one text for the lexical metrics (as EASSE collapses WikiSplit's)."""

    def clean(x: str) -> str:
        return " ".join(x.replace(separator, " ").split()) if separator else (x if x.strip() else "")

    return per_sentence_refs([[clean(x) for x in s] for s in streams], n, names=names)


def test_set_corpus(name: str, data: str | PathLike[str] | None = None) -> tuple[list[str], list[list[str]]]:
    """(sources, references per sentence) of a named test set."""
    from samsa.testsets import get_orig_sents, get_refs_sents, get_test_set, test_set_files

    ts = get_test_set(name)
    orig = get_orig_sents(ts.name, data)
    names = [str(p) for p in test_set_files(ts.name, data)[1]]
    return orig, file_refs(get_refs_sents(ts.name, data), len(orig), ts.separator, names)


test_set_corpus.__test__ = False  # type: ignore[attr-defined]


def evaluate(
    systems: Mapping[str, Sequence[str]] | Sequence[str],
    *,
    test_set: str | None = None,
    orig_sents: Sequence[str] | None = None,
    refs_sents: Sequence[Sequence[str]] | None = None,
    refs_layout: str = "streams",
    metrics: str | Sequence[str] | None = None,
    config: SuiteConfig | None = None,
    data: str | PathLike[str] | None = None,
    ucca: str | PathLike[str] | None = None,
    jobs: int = 1,
    dask: str | None = None,
    cache: Any = None,
    progress: Callable[[int], Any] | None = None,
    documents: bool = False,
    doubt: Any = None,
    source_name: str = "<source>",
) -> dict[str, Any]:
    """``{"test_set", "systems": {name: {metric: value}}, "signatures": {metric: signature}}``.

    ``systems`` is ``{name: outputs}``, or one list of outputs (named ``"system"``); ``refs_sents`` is in
    EASSE's layout (``refs_layout="streams"``) or one list per sentence (``"sentences"``); ``config`` holds the
    lexical metrics' settings (default: ``SuiteConfig()``, what ``samsa evaluate`` uses, in the language of
    ``test_set``); ``metrics`` default:
    SARI, BLEU and the readability of the configuration's language (``default_metrics``). ``documents``: each
    line is a document and SAMSA is document-level (``ucca`` then holds a sub-folder or a passage file per
    document; ``samsa.engine.documents``). ``doubt``: an :class:`~samsa.engine.uncertainty.UncertaintyTotals`
    (of the language's parser's calibration) to fill with parse uncertainty; each system then gets
    ``samsa_parse_lo`` and ``samsa_parse_hi``, the 95% parse interval of its SAMSA (parsed sources only).
    ``source_name``: what an error about a source line names as its file.
    """
    config = config or _default_config(test_set)
    if not isinstance(systems, Mapping):
        systems = {"system": systems}
    wanted = parse_metrics(metrics or default_metrics(config.samsa.language))
    source, refs = _corpus(test_set, orig_sents, refs_sents, refs_layout, data)
    for name, outs in systems.items():
        if len(outs) != len(source):
            raise InputError(
                name,
                min(len(outs), len(source)) + 1,
                f"has {len(outs)} lines for {len(source)} sources; must be line-parallel",
            )
    missing = sorted(set(wanted) & NEEDS_REFERENCES)
    if missing and not refs:
        raise InputError(None, None, f"metric(s) {', '.join(missing)} need references (--refs or a test set)")
    lexical = [m for m in wanted if m != "samsa"]
    results: dict[str, dict[str, Any]] = {}
    signatures: dict[str, str] = {}
    for name, outs in systems.items():
        r = evaluate_lexical(source, list(outs), refs or [[s] for s in source], lexical, config)
        signatures.update(r.pop("signatures"))
        results[name] = r
    if "samsa" in wanted:
        execution = Execution(cache, jobs, dask, progress, source_name)
        run = _SamsaRun(config, ucca, execution, documents, doubt)
        scores, sig = _samsa(source, [list(o) for o in systems.values()], run)
        for s, (name, (samsa_score, abl)) in enumerate(zip(systems, scores, strict=True)):
            results[name].update(samsa=samsa_score, samsa_abl=abl)
            if doubt is not None:
                iv = doubt.interval(s)
                results[name].update(samsa_parse_lo=iv["low"], samsa_parse_hi=iv["high"])
        signatures.update(samsa=sig, samsa_abl=sig)
        if doubt is not None:
            signatures["samsa_parse"] = doubt.calibration.signature()
    return {"test_set": test_set, "systems": results, "signatures": signatures}


def _corpus(
    test_set: str | None,
    orig_sents: Sequence[str] | None,
    refs_sents: Sequence[Sequence[str]] | None,
    refs_layout: str,
    data: str | PathLike[str] | None,
) -> tuple[list[str], list[list[str]] | None]:
    """(sources, references per sentence or None) of a named test set, or as given."""
    if test_set is not None:
        if orig_sents is not None or refs_sents is not None:
            raise InputError(None, None, "give either a test set or orig_sents/refs_sents, not both")
        return test_set_corpus(test_set, data)
    if orig_sents is None:
        raise InputError(None, None, "no sources: give test_set= or orig_sents=")
    source = list(orig_sents)
    return source, per_sentence_refs(refs_sents, len(source), refs_layout) if refs_sents else None


@dataclass(frozen=True)
class _SamsaRun:
    """How SAMSA is computed beside the lexical metrics: its settings, its sources' annotation, the runtime, and
    the parse doubt to fill."""

    config: SuiteConfig
    ucca: Any
    execution: Execution
    documents: bool
    doubt: Any


def _default_config(test_set: str | None) -> SuiteConfig:
    """``SuiteConfig()`` in the language of the test set (English without one): its tokenizer and language."""
    from samsa.config import SamsaConfig
    from samsa.testsets import get_test_set

    lang = get_language(get_test_set(test_set).language if test_set else DEFAULT_LANGUAGE)
    return SuiteConfig(tokenizer=lang.bleu_tokenizer, samsa=SamsaConfig(language=lang.code))


def _samsa(source: list[str], systems: list[list[str]], run: _SamsaRun) -> tuple[list[tuple[float, float]], str]:
    """SAMSA of every system in one pass: gold UCCA of ``run.ucca``, else the built-in parser's UCCA of the
    sources."""
    from dataclasses import replace

    from samsa.config import shared_parser
    from samsa.engine.corpus import score_means
    from samsa.engine.documents import DOCUMENT_CHUNK, DOCUMENT_WINDOW
    from samsa.engine.seams import ItemKind
    from samsa.engine.uncertainty import run_doubt
    from samsa.engine.worker import Job
    from samsa.registry import get_parser
    from samsa.scoring.metric import Samsa

    parser = shared_parser(get_language(run.config.samsa.language).parser)
    doubt = run.doubt
    run_doubt(parser, wanted=doubt is not None, parsed=run.ucca is None, documents=run.documents)
    if run.documents:
        graphs, named = _documents(source, run, parser)
        settings = run.config.samsa_config(named)
        job = Job(replace(settings, parser=None))
        execution = Execution(jobs=run.execution.jobs, dask=run.execution.dask)  # the parse counted the progress
        scores = score_means(
            graphs, systems, job, execution, kind="graph", chunk=DOCUMENT_CHUNK, window=DOCUMENT_WINDOW
        )
        return scores, Samsa(settings).signature(documents=True)
    kind: ItemKind = "parse"
    sources: list[Any] = source
    execution = run.execution
    if run.ucca is not None:
        xml = get_parser("xml", directory=run.ucca)
        xml.check_count(len(source))
        sources, kind, parser, execution = xml.files, "xml", xml, execution._replace(cache=None)
    settings = run.config.samsa_config(parser)
    uncertainty = doubt.calibration if doubt is not None else None
    job = Job(settings if kind == "parse" else replace(settings, parser=None), uncertainty=uncertainty)
    scores = score_means(sources, systems, job, execution, kind=kind, doubt=doubt)
    return scores, Samsa(settings).signature()


def _documents(source: list[str], run: _SamsaRun, parser: Any) -> tuple[Iterable[Any], Any]:
    """Each source document as one passage (gold UCCA of ``run.ucca``, else parsed), and the parser to name."""
    from samsa.engine.documents import document_files, document_sentences, load_documents, parse_documents

    if run.ucca is not None:
        docs = document_files(run.ucca)
        if len(docs) != len(source):
            raise InputError(run.ucca, None, f"holds {len(docs)} documents for {len(source)} source lines")
        return load_documents(docs), "xml"
    config, origin = run.config, str(run.execution.origin)
    texts = [
        document_sentences(x, separator=config.separator, splitter=config.splitter, where=(origin, k))
        for k, x in enumerate(source, 1)
    ]
    parsed = parse_documents(parser, texts, run.execution)
    return parsed, parser
