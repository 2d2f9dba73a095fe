"""samsa: structural evaluation of text simplification (SAMSA, Sulem et al. 2018).

Public API::

    from samsa import Samsa, SamsaConfig, corpus_samsa, sentence_samsa, load_passage
"""

__version__ = "0.1.0"

import importlib

from samsa.errors import InputError, SamsaError, ScoringError

__all__ = [
    "CorpusResult",
    "InputError",
    "Samsa",
    "SamsaConfig",
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

#: where each public name lives; imported on first use, so that ``import samsa`` stays light: the graph model
#: (networkx), numpy and the lexical suite (sacrebleu) load with the first name that needs them, and the
#: ``samsa`` executable can set up its start-up (``samsa.startup``) before any of them is imported
_LAZY = {
    "CorpusResult": "samsa.scoring.metric",
    "Samsa": "samsa.scoring.metric",
    "SamsaConfig": "samsa.config",
    "corpus_samsa": "samsa.scoring.metric",
    "get_samsa_sentence_scores": "samsa.scoring.metric",
    "score": "samsa.scoring.metric",
    "sentence_samsa": "samsa.scoring.metric",
    "load_passage": "samsa.ucca.xml",
    "to_standard_xml": "samsa.ucca.xml",
    "evaluate": "samsa.engine.evaluate",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'samsa' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
