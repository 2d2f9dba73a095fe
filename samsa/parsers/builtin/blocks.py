"""How much of a long sentence the parser computes at once: the spans the network scores and the decoder reads,
and the (Scene, unit) pairs whose remote edges it classifies, in blocks, so that a sentence's memory grows with
what it must keep (its spans' label log-probabilities), not with the temporaries of every span at once."""

from __future__ import annotations

__all__ = ["REMOTE_BLOCK", "SPAN_BLOCK", "SPAN_WHOLE", "row_blocks"]

#: span rows the network scores (and the decoder reads) at once. A sentence of n tokens has n(n+1)/2 spans, and
#: the MLP's hidden layer holds one float32 vector of its width per span: scored in blocks, a sentence of 1,000
#: tokens needs about 0.14 GB for its label log-probabilities and 0.03 GB for a block's hidden layer, not 1 GB
SPAN_BLOCK = 1 << 15
#: a sentence with at most this many spans (up to 511 tokens) is scored in one piece, exactly as before blocks
#: existed (a block's matrix product may round differently from the whole sentence's: BLAS picks its kernels by
#: size)
SPAN_WHOLE = 1 << 17
#: (Scene, unit) pairs whose remote edges are classified at once: a sentence of 1,000 tokens has about 100,000
#: (an ordinary one about 60, classified in one piece as before)
REMOTE_BLOCK = 1 << 14


def row_blocks(m: int, block: int | None = None) -> list[slice]:
    """``m`` rows cut into consecutive slices of at most ``block`` rows (default :data:`SPAN_BLOCK`; one slice for
    ``m <= block``).

    >>> row_blocks(5, 2)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    size = block or SPAN_BLOCK
    return [slice(lo, min(lo + size, m)) for lo in range(0, max(m, 1), size)]
