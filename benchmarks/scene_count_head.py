"""An experiment: `fast`'s network fine-tuned jointly with a Scene-count head; does the head know the count?

Usage (needs the ``train`` extra for torch; about 4 minutes an epoch on 2 CPU threads):
    python benchmarks/scene_count_head.py [--epochs 8] [--count-weight 1.0]

Why: ``benchmarks/scene_count_decoding.py`` shows that a Scene bias chosen per
sentence could give 86% of Wiki dev sentences the gold number of Scenes, and
that neither spaCy's part-of-speech counts nor the frozen network's pooled
states predict that number. Here the gradients of a count objective reach the
BiLSTM. Starting from `fast`'s weights (``ucca-span-v2-scenes.npz``), the
network trains on its own recipe (Wiki + EWT train, scene weight 2, span and
remote-edge losses) plus ``--count-weight`` x the cross-entropy of a small head
(attention pooling and sum pooling over the fenceposts, one hidden layer)
classifying each sentence's gold Scene count (0-11). After each epoch, on Wiki
dev: the share of sentences whose parse at bias 0 has the gold count, the
head's own accuracy (its argmax, and its expected count rounded), and the share
when each sentence takes the bias of ``scene_count_decoding.GRID`` whose count
is nearest the head's expected count. After the last epoch, the SAMSA agreement
(``compare_annotations.py``'s two outputs) of the parses at bias 0 and at the
head's bias, remote edges included. Nothing is saved but the JSON: the head is
not part of any shipped pipeline. Writes
``benchmarks/results/scene_count_head.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

FAST = Path(__file__).resolve().parents[1] / "parsers" / "builtin" / "weights" / "ucca-span-v2-scenes.npz"
CLASSES = 12  # Scene counts 0-11 (a sentence with more is counted as 11)


def main() -> None:
    import torch
    from scene_count_decoding import GRID, agreement, nearest_bias
    from torch import nn

    import samsa.parsers.train as T
    from samsa.graph import tokens
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.features import featurize
    from samsa.parsers.builtin.model import SpanModel, to_torch
    from samsa.queries import scenes
    from samsa.ucca_xml import list_passage_files, load_passage

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--count-weight", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--feature-cache", default=None, help="spaCy annotations cache (samsa.parsers.train's)")
    args = ap.parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    start = time.time()

    _, train_graphs = T.load([DATA / d for d in T.TRAIN], None)
    train = [T.graph_to_spans(g) for g in train_graphs]
    train_pairs = [list(T.gold_pairs(g)) for g in train_graphs]
    train_tokens = [t for t, _ in train]
    counts_gold = torch.tensor([min(len(scenes(g)), CLASSES - 1) for g in train_graphs])
    ann = T.annotate(train_tokens, Path(args.feature_cache) if args.feature_cache else None, vectors=True)
    vocab = T.build_vocab(ann, train, train_pairs)
    feats = to_torch(T.to_features(vocab, train_tokens, ann))
    tgts = [T.targets(vocab, len(t), s) for t, s in train]
    weights = [T.scene_weights(len(t), s, 2.0) for t, s in train]
    rtgts = [T.remote_targets(vocab, p) for p in train_pairs]
    model = SpanModel(vocab)
    T.continue_from(model, vocab, FAST)
    width = 2 * model.hidden  # a fencepost's state: both directions

    class CountHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.att = nn.Linear(width, 1)
            self.mlp = nn.Sequential(nn.Linear(2 * width, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, CLASSES))

        def forward(self, fence: torch.Tensor, lengths: list[int]) -> torch.Tensor:
            m = torch.arange(fence.shape[1])[None, :] <= torch.tensor(lengths)[:, None]
            a = self.att(fence).squeeze(-1).masked_fill(~m, -1e9).softmax(-1)
            pooled = (a.unsqueeze(-1) * fence).sum(1)
            summed = (fence * m.unsqueeze(-1)).sum(1) / 10.0
            return self.mlp(torch.cat([pooled, summed], -1))

    head = CountHead()
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=args.lr)
    span_loss_fn = nn.CrossEntropyLoss(ignore_index=-100, reduction="none")
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100, reduction="sum")

    parser = BuiltinParser(pipeline="fast")
    dev_graphs = [load_passage(f) for f in list_passage_files(DATA / "ucca" / "wiki" / "dev")]
    dev_tokens = [tokens(g) for g in dev_graphs]
    dev_gold = np.array([len(scenes(g)) for g in dev_graphs])
    dev_feats = featurize(parser.nlp, vocab, dev_tokens)
    zero = GRID.index(0.0)

    def evaluate() -> tuple[dict, dict]:
        """Dev figures, and the parses at bias 0 and at the head's bias (for the agreement)."""
        model.eval()
        head.eval()
        counts, parses = count_grid(model.to_numpy(), vocab, dev_feats, dev_tokens)  # the shipped decoder
        expected = np.zeros(len(dev_tokens))
        argmax = np.zeros(len(dev_tokens))
        with torch.no_grad():
            for b in range(0, len(dev_tokens), 64):
                fence, lengths = model.encode(to_torch(dev_feats[b : b + 64]))
                logits = head(fence, lengths)
                argmax[b : b + 64] = logits.argmax(-1).numpy()
                expected[b : b + 64] = (logits.softmax(-1) * torch.arange(CLASSES)).sum(-1).numpy()
        chosen = nearest_bias(expected, counts)
        got = counts[np.arange(len(dev_gold)), chosen]
        figures = {"bias_0_gold_count": round(float(np.mean(counts[:, zero] == dev_gold)), 4),
                   "head_argmax_gold_count": round(float(np.mean(argmax == dev_gold)), 4),
                   "head_expected_rounded_gold_count": round(float(np.mean(np.round(expected) == dev_gold)), 4),
                   "head_bias_gold_count": round(float(np.mean(got == dev_gold)), 4),
                   "head_bias_fewer": round(float(np.mean(got < dev_gold)), 4),
                   "head_bias_more": round(float(np.mean(got > dev_gold)), 4)}  # fmt: skip
        return figures, {"bias_0": [p[zero] for p in parses],
                         "head_bias": [p[c] for p, c in zip(parses, chosen, strict=True)]}  # fmt: skip

    history = []
    figures, parses = evaluate()
    history.append({"epoch": 0, **figures})
    print(json.dumps(history[-1]), file=sys.stderr, flush=True)
    order = list(range(len(train)))
    for epoch in range(1, args.epochs + 1):
        model.train()
        head.train()
        random.shuffle(order)
        for b in range(0, len(order), 16):
            idx = order[b : b + 16]
            fence, lengths = model.encode([feats[k] for k in idx])
            span_loss = remote_loss = torch.zeros(())
            n_spans = n_remotes = 0
            for bi, k in enumerate(idx):
                logits = model.span_logits(fence, bi, lengths[bi])
                each = span_loss_fn(logits.reshape(-1, logits.shape[-1]), tgts[k].reshape(-1))
                w = weights[k]
                span_loss = span_loss + (each.sum() if w is None else (each * w.reshape(-1)).sum())
                n_spans += int((tgts[k] >= 0).sum())
                if rtgts[k] is not None:
                    *pair, gold = rtgts[k]
                    remote_loss = remote_loss + loss_fn(model.remote_logits(fence, bi, *pair), gold)
                    n_remotes += len(gold)
            count_loss = nn.functional.cross_entropy(head(fence, lengths), counts_gold[idx])
            loss = span_loss / max(n_spans, 1) + remote_loss / max(n_remotes, 1) + args.count_weight * count_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 5.0)
            opt.step()
        figures, parses = evaluate()
        history.append({"epoch": epoch, **figures, "minutes": round((time.time() - start) / 60, 1)})
        print(json.dumps(history[-1]), file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        samsa = {name: agreement(graphs, "ucca/wiki/dev", tmp) for name, graphs in parses.items()}
    result = {"command": "python benchmarks/scene_count_head.py " + " ".join(sys.argv[1:]),
              "start_weights": FAST.name, "count_weight": args.count_weight, "lr": args.lr, "seed": args.seed,
              "history": history, "samsa_agreement_after_last_epoch": samsa}  # fmt: skip
    print(write_json("scene_count_head.json", result))


def count_grid(net, vocab, feats, sentences) -> tuple[np.ndarray, list[list]]:
    """Each sentence's Scene count at every bias of the grid, and its parses (remote edges added) at each, in
    batches of 64 in input order (``fast``'s decoding: Scenes un-nested)."""
    from scene_count_decoding import GRID, decode_grid

    from samsa.parsers.builtin.decode import predict_remotes

    counts = np.zeros((len(sentences), len(GRID)))
    parses: list[list] = []
    for b0 in range(0, len(sentences), 64):
        fence, counts[b0 : b0 + 64], graphs = decode_grid(net, vocab, feats[b0 : b0 + 64], sentences[b0 : b0 + 64],
                                                          unnest=True)  # fmt: skip
        for bi in range(len(graphs[0])):
            for b in range(len(GRID)):
                predict_remotes(net, vocab, fence, bi, graphs[b][bi])
            parses.append([graphs[b][bi] for b in range(len(GRID))])
    return counts, parses


if __name__ == "__main__":
    main()
