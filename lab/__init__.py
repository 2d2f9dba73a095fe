"""The lab: what makes and chooses samsa's parts, run from a checkout and not installed with the package.

Training and packing the built-in parser (``train``, ``train_start``, ``model``, ``encoder_torch``, ``pack``,
``annotations``, ``corpora``; PyTorch, the ``train`` extra), and the studies that measure and choose
(``validity``: the validity battery; ``agreement``: agreement with human structural simplicity;
``scene_bias``: each pipeline's Scene bias; ``documents``: the document battery). Run them from the
repository's root, e.g. ``python -m lab.train --data ../shared/data --out weights.npz``.
"""
