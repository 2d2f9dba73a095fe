"""Where the runtime's time goes: parser throughput, its stages, the warm-cache path and start-up pieces.

Usage:
    python benchmarks/runtime_profile.py [--out NAME]

One process, BLAS at one thread, the shipped weights. Reported:
- ``BuiltinParser.parse`` sentences/s on Wiki test and 20K test (gold tokens) and on the 359 HSplit
  sources (raw text), spaCy included, model loaded (second of two passes);
- the parse of the HSplit sources split by stage (spaCy features, BiLSTM, span scores, CKY, graph
  building, remote edges), as ``BuiltinParser.parse`` runs them;
- how much the BiLSTM's batches of the HSplit sources are padded, in ``samsa.pipeline``'s chunks cut
  from consecutive sources and in its ``chunk_order``;
- the warm-cache path per source: reading and decoding the cached paper-mode structure, and
  scoring one HSplit reference (exact aligner) per pair; for comparison, what it replaced:
  decoding the cached graph and deriving its structure;
- start-up pieces, each in a fresh interpreter: importing ``samsa.cli``, importing spaCy (plainly,
  and with spaCy's command line deferred as the ``samsa`` executable does), loading the parser's
  spaCy pipeline (as ``load_spacy`` does, and with the pipeline's saved tokenizer read back);
- the interpreter's shutdown after loading the parser and parsing one sentence (from the script's
  last line to the process's end, median of 5), plainly and with the heap frozen first, as the
  ``samsa`` executable ends.
Writes ``benchmarks/results/runtime_profile.json`` (``--out`` another name).
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, HSPLIT_SOURCES, write_json


def fresh(code: str, setup: str = "") -> float:
    """Seconds a fresh interpreter spends on ``code`` (measured inside it, interpreter start and ``setup``
    excluded)."""
    timed = f"import time\n{setup}\nt = time.perf_counter()\n{code}\nprint(time.perf_counter() - t)"
    return round(float(subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True,
                                      check=True).stdout.split()[-1]), 2)  # fmt: skip


def shutdown(code: str, repeat: int = 5) -> float:
    """Median seconds from the end of ``code``, run in a fresh interpreter, to that process's end."""
    import statistics

    timed = f"{code}\nimport sys, time\nsys.stdout.write(repr(time.time()))\nsys.stdout.flush()"
    ends = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True, check=True).stdout
        ends.append(time.time() - float(out.split()[-1]))
    return round(statistics.median(ends), 3)


def stages(parser, sentences: list[list[str]]) -> dict[str, float]:
    from samsa.parsers.builtin import _batches
    from samsa.parsers.builtin.decode import cky_batch, main_relation_mask, pair_arrays, span_charts
    from samsa.parsers.builtin.features import featurize
    from samsa.parsers.builtin.remotes import candidate_pairs
    from samsa.parsers.builtin.runtime import batch_span_log_probs
    from samsa.parsers.builtin.tree import Span, spans_to_graph

    t = dict.fromkeys(("spacy_features", "bilstm", "span_scores", "cky", "graph_building", "remote_edges"), 0.0)
    order = sorted(range(len(sentences)), key=lambda k: len(sentences[k]))
    bias = parser.scene_bias * main_relation_mask(parser.vocab)
    for idx in _batches(order, [len(s) for s in sentences], parser.batch_size):
        batch = [sentences[k] for k in idx]
        s = time.perf_counter()
        feats = featurize(parser.nlp, parser.vocab, batch)
        t["spacy_features"] += time.perf_counter() - s
        s = time.perf_counter()
        fence, lengths = parser.net.encode(feats)
        t["bilstm"] += time.perf_counter() - s
        s = time.perf_counter()
        best, gain = span_charts(batch_span_log_probs(parser.net, fence, lengths), lengths, bias)
        t["span_scores"] += time.perf_counter() - s
        s = time.perf_counter()
        found = cky_batch(gain, lengths)
        t["cky"] += time.perf_counter() - s
        for bi, spans in enumerate(found):
            s = time.perf_counter()
            g = spans_to_graph(batch[bi], [Span(i, j, parser.vocab.labels[best[bi, i, j]]) for i, j in spans])
            t["graph_building"] += time.perf_counter() - s
            s = time.perf_counter()
            pairs = candidate_pairs(g)
            if pairs:
                parser.net.remote_logits(fence, bi, *pair_arrays(pairs)).argmax(-1)
            t["remote_edges"] += time.perf_counter() - s
    total = sum(t.values())
    return {**{k: round(v, 3) for k, v in t.items()}, "total_s": round(total, 3),
            "shares_percent": {k: round(100 * v / total) for k, v in t.items()}}  # fmt: skip


def padding(parser, sources: list[str]) -> dict[str, int]:
    """Padded BiLSTM positions over real ones, in percent more, when the pipeline cuts the sources into
    consecutive chunks (as it did before session 10) and in ``chunk_order`` (as it does now)."""
    from samsa.executors import Item
    from samsa.parsers.builtin import _batches
    from samsa.pipeline import CHUNK, WINDOW, chunk_order

    lengths = [len(parser.tokenize(s)) for s in sources]

    def percent(order: list[int]) -> int:
        padded = real = 0
        for c in range(0, len(order), CHUNK):
            chunk = sorted(order[c : c + CHUNK], key=lambda k: lengths[k])  # the parser sorts its input
            for idx in _batches(chunk, lengths, parser.batch_size):
                padded += len(idx) * (max(lengths[k] for k in idx) + 2)
                real += sum(lengths[k] + 2 for k in idx)
        return round(100 * (padded - real) / real)

    ordered = []
    for w in range(0, len(sources), CHUNK * WINDOW):
        window = [Item("parse", s) for s in sources[w : w + CHUNK * WINDOW]]
        ordered += [w + k for k in chunk_order(window)]
    return {"consecutive_chunks": percent(list(range(len(sources)))), "chunk_order": percent(ordered)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="runtime_profile.json", help="result file name under benchmarks/results/")
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    from samsa.fileio import read_lines
    from samsa.graph import tokens
    from samsa.parse_cache import ParseCache, decode_graph
    from samsa.parsers.builtin import BuiltinParser
    from samsa.scoring import graph_structure, score_passage
    from samsa.scoring.paper import decode_structure, encode_structure, structure_version
    from samsa.text import split_output
    from samsa.ucca_xml import list_passage_files, load_passage

    parser = BuiltinParser()
    hsplit_src = read_lines(HSPLIT_SOURCES)
    sets = {
        "wiki_test": [tokens(load_passage(f)) for f in list_passage_files(DATA / "ucca" / "wiki" / "test")],
        "20k_test": [tokens(load_passage(f)) for f in list_passage_files(DATA / "ucca" / "20k" / "test")],
        "hsplit_sources": hsplit_src,
    }
    result: dict[str, object] = {"command": " ".join(["python benchmarks/runtime_profile.py", *sys.argv[1:]])}
    with threadpool_limits(1):
        for name, sents in sets.items():
            parser.parse(sents)  # first pass: spaCy and caches warm
            start = time.perf_counter()
            graphs = parser.parse(sents)  # the HSplit graphs (last set) feed the warm path below
            result[f"parse_{name}_sentences_per_s"] = round(len(sents) / (time.perf_counter() - start), 1)
        result["hsplit_parse_stages"] = stages(parser, [parser.tokenize(s) for s in hsplit_src])
        result["hsplit_batch_padding_percent"] = padding(parser, hsplit_src)
        # warm path on the HSplit sources: graphs as the cache stores them, scored against HSplit1. A warm run
        # never loads the parser, so the collector must not walk spaCy's objects here: one full pass over them
        # (0.1-0.2 s) had landed in a timed step of some runs (0.08 vs 0.5 ms per source); the heap as it is
        # goes to the permanent generation for this part
        gc.collect()
        gc.freeze()
        with tempfile.TemporaryDirectory() as tmp, ParseCache(Path(tmp) / "c.sqlite") as cache:
            key = parser.cache_key()
            cache.put_many(key, hsplit_src, graphs)
            payloads = cache.get_payloads(key, hsplit_src)
            assert all(p is not None for p in payloads)
            s = time.perf_counter()
            decoded = [decode_graph(p, src) for p, src in zip(payloads, hsplit_src, strict=True)]
            decode = time.perf_counter() - s
            s = time.perf_counter()
            structures = [graph_structure(g) for g in decoded]
            structure = time.perf_counter() - s
            # what a warm scoring run does instead: read and decode the stored structures, no graph at all
            version = structure_version()
            cache.put_encoded(key, hsplit_src, payloads,
                              [encode_structure(st, g).encode() for st, g in zip(structures, decoded, strict=True)],
                              version)  # fmt: skip
            s = time.perf_counter()
            entries = cache.get_entries(key, hsplit_src, version)
            stored = [decode_structure(e[1], src) for e, src in zip(entries, hsplit_src, strict=True)]
            read_structures = time.perf_counter() - s
            assert stored == list(structures)
            outputs = read_lines(DATA / "hsplit" / "HSplit" / "HSplit1_full")
            from samsa.aligners.exact import ExactAligner

            aligner = ExactAligner()
            s = time.perf_counter()
            for st, line in zip(stored, outputs, strict=True):
                score_passage(None, split_output(line, separator=None, tokenizer="none"), aligner, "paper", st)
            scoring = time.perf_counter() - s
        gc.unfreeze()
        n = len(hsplit_src)
        result["warm_path_ms"] = {"read_and_decode_cached_structure_per_source": round(1000 * read_structures / n, 2),
                                  "scoring_per_pair": round(1000 * scoring / n, 2),
                                  "instead_of_decode_cached_graph_per_source": round(1000 * decode / n, 2),
                                  "and_paper_structure_per_source": round(1000 * structure / n, 2)}  # fmt: skip
    result["startup_s"] = {
        "import_samsa_cli": fresh("import samsa.cli"),
        "import_spacy": fresh("import spacy"),
        "import_spacy_as_the_samsa_executable_does": fresh(
            "defer_spacy_cli()\nimport spacy", setup="from samsa.cli.startup import defer_spacy_cli"
        ),
        "load_parser_spacy_pipeline": fresh(
            "import spacy\nt = time.perf_counter()\nfrom samsa.aligners.annotate import "
            "load_spacy\nload_spacy(exclude=('ner', 'lemmatizer', 'attribute_ruler'))"
        ),
        # the same pipeline with its saved tokenizer read back, as spacy.load does by default
        "load_parser_spacy_pipeline_reading_its_saved_tokenizer": fresh(
            "import spacy\nt = time.perf_counter()\nfrom samsa.aligners.annotate import spacy_model_id\n"
            "spacy.load(spacy_model_id().rsplit('-', 1)[0], exclude=['senter', 'ner', 'lemmatizer', 'attribute_ruler'])"
        ),
    }
    parsed = "from samsa.parsers.builtin import BuiltinParser\nBuiltinParser().parse(['John went home .'])"
    result["shutdown_s"] = {
        "after_loading_the_parser": shutdown(parsed),
        "the_same_with_the_heap_frozen_first": shutdown(parsed + "\nimport gc\ngc.freeze()"),
    }
    print(result, file=sys.stderr)
    print(write_json(args.out, result))


if __name__ == "__main__":
    main()
