"""Train the built-in UCCA parser (reproducible, CPU).

Usage:
    python -m lab.train --data ../shared/data --out ucca-span.npz

Training data: ``ucca/wiki/train`` + ``ucca/ewt/train`` (EWT's UCCA v2 labels
harmonized: T -> D, Q -> E, unless ``--v2-labels``; first category of multi-category edges). The span
classifier and the remote-edge classifier are trained jointly (sum of the two
mean cross-entropies; ``--scene-weight`` makes gold Scenes and their main
relations cost more). Early stopping on the labeled pooled F1 (primary +
remote; ``--select``: or scene-unit F1, or the mean of the two) of
``ucca/wiki/dev`` + ``ucca/ewt/dev`` together (``--patience`` epochs without
improvement); fixed seeds; ``--max-minutes`` is a safety cap
only. The weights file records the command, the data hashes, the epochs and
the dev scores. ``--finetune-encoder`` (v4) trains the encoder's transformer
layers too (``encoder_torch.py``); ``--device cuda`` trains on a GPU, where a
folder made by ``lab/pack.py`` replaces spaCy and the shared data.
``--silver DIR`` adds machine-parsed passages (UCCA XML, for example ``samsa parse``'s
output on raw text) to the training data, never to the vocabulary or the dev sets.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from torch import nn

from lab.annotations import Annotations, annotate, to_features
from lab.corpora import CORPORA, data_hash, dev_limit, load, styles_of
from lab.model import SpanModel, pair_tensors, to_torch
from lab.oracle import gold_pairs, graph_to_spans, save_weights, update_meta
from lab.train_options import options
from lab.train_start import continue_from, finetuned_features, single_window
from samsa.parsers.builtin.decode import decode_batch
from samsa.parsers.builtin.encoder import WordEncoder
from samsa.parsers.builtin.features import NONE, PAD, STYLES, UNK, Vocab
from samsa.parsers.builtin.subwords import SHAPES, featurize_words, ngram_table
from samsa.ucca.evaluation import evaluate_corpus, scene_scores

#: weights format by recipe: v2 spaCy features only; v3 + frozen encoder features and/or styles; v4 fine-tuned encoder
FORMATS = {"v2": "samsa-ucca-span-v2", "v3": "samsa-ucca-span-v3", "v4": "samsa-ucca-span-v4"}


def encoder_features(encoder, sentences: list[list[str]], cache_dir: Path | None) -> list[np.ndarray]:
    """The frozen encoder's per-word states (float16), computed once and kept in ``cache_dir``.

    The cache file is named by a hash of the sentences, the encoder, its depth and its weights files (path,
    size, modification time), so a changed corpus or encoder never reuses stale features.
    """
    stats = [(str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in encoder.weight_files]
    key = hashlib.sha256(json.dumps([sentences, type(encoder).__name__, encoder.n_outputs, stats]).encode()).hexdigest()
    path = cache_dir / f"encoder-{key[:24]}.npz" if cache_dir else None
    if path and path.is_file():
        with np.load(path, allow_pickle=False) as z:
            return [z[f"s{k}"] for k in range(len(sentences))]
    out: list[np.ndarray] = []
    for b in range(0, len(sentences), 256):
        out.extend(e.astype(np.float16) for e in encoder.words(sentences[b : b + 256]))
        print(f"encoder features {len(out)}/{len(sentences)}", file=sys.stderr, flush=True)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **{f"s{k}": e for k, e in enumerate(out)})  # type: ignore[arg-type]  # numpy's stub: **kwds
        tmp.replace(path)
    return out


def add_features(feats, styles: list[int], encoded: list[np.ndarray] | None) -> None:
    """Give each featurized sentence its guideline style and (v3) its cached encoder states, in place."""
    for k, f in enumerate(feats):
        f.style = styles[k]
        if encoded is not None:
            f.encoded = encoded[k]


def build_vocab(ann: Annotations, examples, remotes, min_word: int = 2, min_label: int = 2) -> Vocab:
    words = Counter(w.lower() for toks, _ in examples for w in toks)
    labels = Counter(s.label for _, spans in examples for s in spans)
    remote_labels = Counter(lab for pairs in remotes for _, lab in pairs if lab)
    return Vocab(
        words=[PAD, UNK, *sorted(w for w, c in words.items() if c >= min_word)],
        tags=[PAD, UNK, *ann.tag_labels[: ann.pipeline_tags]],
        deps=[PAD, UNK, *ann.dep_labels[: ann.pipeline_deps]],
        labels=[NONE, *sorted(lab for lab, c in labels.items() if c >= min_label)],
        remotes=[NONE, *sorted(lab for lab, c in remote_labels.items() if c >= min_label)],
    )


def build_words_vocab(examples, remotes, min_word: int = 2, min_label: int = 2) -> Vocab:
    """A words-only vocabulary (no spaCy: ``subwords.py``): word shapes as tags, character n-grams as subwords."""
    spacy_free = Annotations([], [], None, list(SHAPES), [], "none", len(SHAPES), 0)
    vocab = build_vocab(spacy_free, examples, remotes, min_word, min_label)
    vocab.subwords = ngram_table(toks for toks, _ in examples)
    vocab.__post_init__()
    return vocab


def remote_targets(vocab: Vocab, pairs) -> tuple[torch.Tensor, ...] | None:
    """Pair tensors plus gold category ids (0 = none, also for categories too rare to be in the vocabulary)."""
    if not pairs:
        return None
    labels = torch.tensor([vocab.remote_id.get(lab, 0) for _, lab in pairs], dtype=torch.long)
    return (*pair_tensors([p for p, _ in pairs]), labels)


def targets(vocab: Vocab, n: int, spans) -> torch.Tensor:
    t = torch.full((n + 1, n + 1), -100, dtype=torch.long)
    iu = torch.triu_indices(n + 1, n + 1, offset=1)
    t[iu[0], iu[1]] = 0
    for s in spans:
        t[s.start, s.end] = vocab.label_id.get(s.label, 0)
    return t


def is_main_relation(label: str) -> bool:
    """A span label that makes its parent a Scene (P or S anywhere in a unary chain), as the decoder reads it."""
    return any(x.rstrip("^") in ("P", "S") for x in label.split("/"))


def scene_weights(n: int, spans, weight: float) -> torch.Tensor | None:
    """Per-span loss weights (n+1, n+1): ``weight`` on the gold main relations and on the gold Scenes that hold
    them (the smallest gold span strictly containing a main relation), 1 elsewhere; None when ``weight`` is 1.

    Scenes are a few percent of the spans but all of what SAMSA reads, and the
    plain loss lets the parser miss them (noun and adjective main relations,
    Scenes embedded as participants): this makes a missed Scene cost more.
    """
    if weight == 1.0:
        return None
    w = torch.ones((n + 1, n + 1))
    for s in spans:
        if not is_main_relation(s.label):
            continue
        w[s.start, s.end] = weight
        holders = [t for t in spans if t.start <= s.start and s.end <= t.end and (t.end - t.start) > (s.end - s.start)]
        if holders:
            h = min(holders, key=lambda t: t.end - t.start)
            w[h.start, h.end] = weight
    return w


def main(argv: list[str] | None = None) -> int:
    ap = options(__doc__)
    args = ap.parse_args(argv)
    if args.finetune_encoder and args.encoder != "minilm":
        ap.error("--finetune-encoder needs --encoder minilm")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    start = time.time()
    data = Path(args.data)
    words_only = args.lang != "en"
    if words_only and (args.encoder not in ("none", "e5") or args.finetune_encoder):
        ap.error(f"--lang {args.lang} reads words only: no --encoder but e5")
    train_dirs, dev_dirs = CORPORA[args.lang]
    train_files, train_graphs = load([data / d for d in train_dirs], args.limit)
    gold_count = len(train_files)  # the vocabulary is the gold corpora's, so --init files stay compatible
    if args.silver:
        silver_files, silver_graphs = load([Path(args.silver)], args.limit)
        train_files, train_graphs = train_files + silver_files, train_graphs + silver_graphs
    dev_files, dev_graphs = load([data / d for d in dev_dirs], dev_limit(args.limit))
    if args.v2_labels and not args.styles:
        ap.error("--v2-labels needs --styles: the ewt style is what predicts T and Q")
    v2 = [s == STYLES.index("ewt") for s in styles_of(train_files)] if args.v2_labels else [False] * len(train_files)
    train = [graph_to_spans(g, harmonize=not keep) for g, keep in zip(train_graphs, v2, strict=True)]
    train_pairs = [list(gold_pairs(g)) for g in train_graphs]
    cache = Path(args.feature_cache) if args.feature_cache else None
    train_tokens = [t for t, _ in train]
    dev_tokens = [graph_to_spans(g)[0] for g in dev_graphs]
    if words_only:
        vocab = build_words_vocab(train[:gold_count], train_pairs[:gold_count])
        raw = featurize_words(vocab, train_tokens)
    else:
        train_ann = annotate(train_tokens, cache, vectors=not args.no_vectors)
        vocab = build_vocab(train_ann, train[:gold_count], train_pairs[:gold_count])
        raw = to_features(vocab, train_tokens, train_ann)
        del train_ann
    tgts = [targets(vocab, len(t), s) for t, s in train]
    weights = [scene_weights(len(t), s, args.scene_weight) for t, s in train]
    rtgts = [remote_targets(vocab, p) for p in train_pairs]
    if words_only:
        dev_feats = featurize_words(vocab, dev_tokens)
    else:
        dev_feats = to_features(vocab, dev_tokens, annotate(dev_tokens, cache, vectors=not args.no_vectors))
    recipe = "v4" if args.finetune_encoder else "v3" if args.encoder != "none" or args.styles else "v2"
    layers = [int(x) for x in args.encoder_layers.split(",")] if args.encoder != "none" else []
    encoder: WordEncoder | None = None
    finetune = None
    if args.encoder == "minilm":
        from samsa.parsers.builtin.encoder import MiniLM

        if args.finetune_encoder:
            from lab.encoder_torch import TorchMiniLM

            encoder = MiniLM(depth=max(layers), precision="float16")
            finetune = TorchMiniLM.from_numpy(encoder)
        else:
            encoder = MiniLM()
    elif args.encoder == "mpnet":
        from samsa.parsers.builtin.mpnet import MPNet

        encoder = MPNet(depth=max(layers))
    elif args.encoder == "e5":
        from samsa.parsers.builtin.e5 import E5

        encoder = E5(depth=max(layers))
    train_styles = styles_of(train_files) if args.styles else [0] * len(train_files)
    dev_styles = styles_of(dev_files) if args.styles else [0] * len(dev_files)
    frozen = encoder is not None and finetune is None
    add_features(raw, train_styles, encoder_features(encoder, train_tokens, cache) if frozen else None)
    add_features(dev_feats, dev_styles, encoder_features(encoder, dev_tokens, cache) if frozen else None)
    feats = to_torch(raw)
    del raw
    dev_pieces = None
    if finetune is not None:
        for f, words in zip(feats, train_tokens, strict=True):
            f.pieces = single_window(encoder, words)
        dev_pieces = [single_window(encoder, words) for words in dev_tokens]
    print(
        f"train {len(train)} (silver {len(train) - gold_count}) dev {len(dev_graphs)} labels {len(vocab.labels)} "
        f"words {len(vocab.words)} "
        f"remotes {vocab.remotes} ({time.time() - start:.0f}s)",
        file=sys.stderr,
        flush=True,
    )
    model = SpanModel(
        vocab,
        hidden=args.hidden,
        encoder_layers=layers,
        encoder_dim=encoder.dim if encoder else 0,
        encoder_name=args.encoder,
        styles=len(STYLES) if args.styles else 0,
        vectors=not (args.no_vectors or words_only),
        finetune=finetune,
    )
    if words_only:
        model.config["language"] = args.lang  # the parser refuses sentences of another language's pipeline
    if args.init_add_styles and not (args.init and args.styles):
        ap.error("--init-add-styles needs --init and --styles")
    init = (
        continue_from(model, vocab, Path(args.init), add_styles=args.init_add_styles, add_labels=args.v2_labels)
        if args.init
        else None
    )
    model.lexical_dropout = args.lexical_dropout
    model.sentence_lexical_dropout = args.sentence_lexical_dropout
    device = torch.device(args.device)
    model.to(device)
    tuned = [p for n, p in model.named_parameters() if n.startswith("encoder.")]
    rest = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    opt = torch.optim.Adam([{"params": rest}, {"params": tuned, "lr": args.encoder_lr}], lr=args.lr)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100, reduction="sum")
    span_loss_fn = nn.CrossEntropyLoss(ignore_index=-100, reduction="none")
    best, best_epoch = -1.0, 0
    history: list[dict] = []

    def keep(out: Path) -> None:  # the network as it is now, with the run's record so far
        save(model, vocab, args, train_files, dev_files, history, out, FORMATS[recipe], init,
             silver=len(train_files) - gold_count)  # fmt: skip

    first = 1 + (init["best_epoch"] if init else 0)
    order = list(range(len(train)))
    for epoch in range(first, first + args.epochs):
        model.train()
        random.shuffle(order)
        total = 0.0
        for b in range(0, len(order), args.batch):
            idx = order[b : b + args.batch]
            fence, lengths = model.encode([feats[k] for k in idx])
            span_loss, remote_loss = torch.zeros((), device=device), torch.zeros((), device=device)
            count = remote_count = 0
            for bi, k in enumerate(idx):
                logits = model.span_logits(fence, bi, lengths[bi])
                t = tgts[k].to(device)
                each = span_loss_fn(logits.reshape(-1, logits.shape[-1]), t.reshape(-1))  # 0 where ignored
                w = weights[k]
                span_loss = span_loss + (each.sum() if w is None else (each * w.to(device).reshape(-1)).sum())
                count += int((tgts[k] >= 0).sum())
                remote = rtgts[k]
                if remote is not None:
                    *pair, gold = (x.to(device) for x in remote)
                    remote_loss = remote_loss + loss_fn(model.remote_logits(fence, bi, *pair), gold)
                    remote_count += len(gold)
            loss = span_loss / max(count, 1) + remote_loss / max(remote_count, 1)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            total += float(loss.detach())
        model.eval()
        if finetune is not None:  # the dev sentences' states under the encoder as saved (float16)
            add_features(dev_feats, dev_styles, finetuned_features(model.encoder, dev_pieces))
        # the network's own spans, as trained (the decoding steps after them are scored by benchmarks/parser_eval.py)
        predicted = [p.to_graph() for p in decode_batch(model.to_numpy(), vocab, dev_feats, dev_tokens, steps=False)]
        scores = evaluate_corpus(zip(predicted, dev_graphs, strict=True)).to_dict()["labeled"]
        scene = scene_scores(zip(predicted, dev_graphs, strict=True))
        pooled = scores["pooled"]["f1"]
        selected = {"pooled": pooled, "scene": scene["scene_f1"], "mean": (pooled + scene["scene_f1"]) / 2}[args.select]
        minutes = (time.time() - start) / 60
        history.append(
            {
                "epoch": epoch,
                "loss": round(total, 4),
                "dev_pooled_f1": round(pooled, 4),
                "dev_primary_f1": round(scores["primary"]["f1"], 4),
                "dev_remote_f1": round(scores["remote"]["f1"], 4),
                "dev_scene_f1": round(scene["scene_f1"], 4),
                "minutes": round(minutes, 1),
            }
        )
        print(json.dumps(history[-1]), file=sys.stderr, flush=True)

        if args.every_epoch:
            keep(Path(args.out).with_stem(f"{Path(args.out).stem}-epoch{epoch}"))
        if selected > best:
            best, best_epoch = selected, epoch
            keep(Path(args.out))
        if epoch - best_epoch >= args.patience:
            stopped = f"no dev improvement for {args.patience} epochs"
            break
        if minutes > args.max_minutes:
            stopped = f"--max-minutes {args.max_minutes} reached"
            break
    else:
        stopped = f"--epochs {args.epochs} done"
    # the whole run (epochs after the best one included) and why it stopped
    update_meta(Path(args.out), history=history, best_epoch=best_epoch, stopped=stopped)
    print(f"best dev {args.select} F1 {best:.4f} at epoch {best_epoch}; stopped: {stopped}", file=sys.stderr)
    return 0


def save(
    model, vocab, args, train_files, dev_files, history, out: Path, fmt: str, init: dict | None, silver: int = 0
) -> None:
    meta = {
        "command": "python -m lab.train " + " ".join(sys.argv[1:]),
        "train_files": len(train_files),
        "silver_files": silver,
        "train_sha256": data_hash(train_files),
        "dev_sha256": data_hash(dev_files),
        "history": history,
        "seed": args.seed,
        "torch": str(torch.__version__),
    }
    if init:
        meta["init"] = init
    save_weights(out, state=model.numpy_state(), vocab=vocab, config=model.config, meta=meta, fmt=fmt)


if __name__ == "__main__":
    sys.exit(main())
