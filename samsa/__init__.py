"""samsa: structural evaluation of text simplification (SAMSA, Sulem et al. 2018).

Public API::

    from samsa import Samsa, corpus_samsa, sentence_samsa, load_passage
"""

__version__ = "0.1.0"

from samsa.errors import InputError, SamsaError, ScoringError
from samsa.metric import CorpusResult, Samsa, corpus_samsa, get_samsa_sentence_scores, score, sentence_samsa
from samsa.ucca_xml import load_passage, to_standard_xml

__all__ = [
    "CorpusResult",
    "InputError",
    "Samsa",
    "SamsaError",
    "ScoringError",
    "__version__",
    "corpus_samsa",
    "evaluate",
    "get_samsa_sentence_scores",
    "load_passage",
    "score",
    "sentence_samsa",
    "to_standard_xml",
]


def __getattr__(name: str):  # lazy: ``import samsa`` stays light (the lexical suite imports sacrebleu)
    if name == "evaluate":
        from samsa.evaluation import evaluate

        return evaluate
    raise AttributeError(f"module 'samsa' has no attribute {name!r}")
