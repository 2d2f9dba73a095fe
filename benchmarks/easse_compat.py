"""samsa against EASSE: the EASSE test assertions that cannot pass here, with what samsa gives instead
(docs/easse_api.md), and how many gold UCCA passages make EASSE's SAMSA fail (docs/samsa.md, difference 1).

    python benchmarks/easse_compat.py          # writes benchmarks/results/easse_compat.json

Also times ``samsa.easse.samsa.sentence_samsa`` on text: the first call (builds the parser) and the mean of
the next ones (the parser is shared per process). For the failures, each gold passage is scored against its
own tokens (one output sentence) with ``compat="easse"``; a passage counts when scoring raises ScoringError
(EASSE raises an index error there).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

os.environ.setdefault("SAMSA_DATA", str(DATA))

from samsa.easse.fkgl import corpus_fkgl
from samsa.easse.resources import get_orig_sents, get_refs_sents, get_system_outputs_dir
from samsa.easse.samsa import corpus_samsa, sentence_samsa
from samsa.easse.sari import corpus_sari
from samsa.fileio import read_lines

# EASSE test_samsa.py::test_sentence_samsa (skipped in EASSE): the cases whose expected values come from TUPA
SAMSA_CASES = [
    ("The river is indeed an ever-present part of the city's decor , and the official entrance to Lisbon is a broad "
     "marble stair mounting from the water to the vast , arcaded Commerce Square ( Praca do Comercio) .",
     "The river is indeed an ever-present part of the city's decor , and the entrance to Lisbon is a broad marble "
     "stair mounting from the water to the covering , arcaded Commerce Square ( Praca do Comercio) .", 25.0),
    ("The second largest city of Russia and one of the world's major cities , St . Petersburg has played a vital "
     "role in Russian history .", "The second largest city of Russia and one of the world's major cities , St "
     "Petersburg , and has played a vital role in Russian history .", 83.3333333),
    ("The incident followed the killing in August of five Egyptian security guards by Israeli soldiers pursuing "
     "militants who had ambushed and killed eight Israelis along the Israeli-Egyptian border.",
     "The incident followed the killing in August by Israeli soldiers. Israeli soldiers pursued militants. "
     "Militants had ambushed and killed eight Israelis along the Israeli-Egyptian border.", 71.875),
    ("The injured man was able to drive his car to Cloverhill Prison where he got help. He is being treated at "
     "Tallaght  Hospital but his injuries are not thought to be life-threatening.",
     "The injured man drive his car to Cloverhill Prison he got help.", 22.22222222222222),
]  # fmt: skip
# the older EASSE test_sari.py::test_corpus_sari_plain (tokenizer="plain")
PLAIN = {"Dress-Ls": 36.73586275692667, "Dress": 36.5859900146575, "EncDecA": 34.73946658449856,
         "Hybrid": 31.008109926854227, "PBMT-R": 37.817966679481013, "SBMT-SARI": 39.360477024519125}  # fmt: skip


def main() -> None:
    start = time.perf_counter()
    first = sentence_samsa("John got home .", "John got home .")
    first_s = time.perf_counter() - start
    start = time.perf_counter()
    cases = [{"expected": e, "samsa": sentence_samsa(o, s, lowercase=True)} for o, s, e in SAMSA_CASES]
    per_call = (time.perf_counter() - start) / len(SAMSA_CASES)
    qats = DATA / "easse" / "test_sets" / "qats"
    qats_value = corpus_samsa(read_lines(qats / "qats.test.orig"), read_lines(qats / "qats.test.simp"), lowercase=True)
    legacy_orig, legacy_refs = get_orig_sents("turkcorpus_test_legacy"), get_refs_sents("turkcorpus_test_legacy")
    out_dir = get_system_outputs_dir("turkcorpus_test") / "tok.low"
    plain = {s: {"expected": v, "samsa_metric": corpus_sari(legacy_orig, read_lines(out_dir / f"{s}.tok.low"),
                                                            legacy_refs, tokenizer="plain")}
             for s, v in PLAIN.items()}  # fmt: skip
    result = {
        "command": "python benchmarks/easse_compat.py",
        "sentence_samsa_tupa_cases": cases,
        "qats_corpus_samsa": {"expected": 40.864794606114, "samsa_metric": qats_value},
        "fkgl_turkcorpus_test": {"expected_orig": 9.9, "orig": corpus_fkgl(get_orig_sents("turkcorpus_test")),
                                 "expected_ref0": 8.2, "ref0": corpus_fkgl(get_refs_sents("turkcorpus_test")[0])},
        "sari_plain_old_values": plain,
        "sentence_samsa_seconds": {"first_call": round(first_s, 2), "next_calls_mean": round(per_call, 3),
                                   "check": first},
    }  # fmt: skip
    result["easse_errors"] = easse_errors()
    print(write_json("easse_compat.json", result).read_text())


CORPORA = ["wiki/train", "wiki/dev", "wiki/test", "ewt/train", "ewt/dev", "ewt/test", "20k/test"]


def easse_errors() -> dict[str, dict[str, int]]:
    """Per gold corpus: passages, and how many make EASSE-mode scoring raise."""
    from samsa import Samsa, ScoringError
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage

    metric = Samsa(compat="easse", tokenizer="none")
    result = {}
    for corpus in CORPORA:
        files = list_passage_files(DATA / "ucca" / corpus)
        errors = 0
        for f in files:
            graph = load_passage(f)
            try:
                metric.sentence_score(graph, " ".join(tokens(graph)))
            except ScoringError:
                errors += 1
        result[corpus] = {"files": len(files), "easse_errors": errors}
    return result


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
