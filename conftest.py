"""Collection rules for the doctest run over the package folders.

Modules that exist only for training import PyTorch at module level; the README's test command
must pass without it (PyTorch is the ``[train]`` extra), so they are not collected then.
"""

from __future__ import annotations

import importlib.util

_TORCH_ONLY = [
    "samsa/parsers/builtin/encoder_torch.py",
    "samsa/parsers/builtin/model.py",
    "samsa/parsers/train.py",
    "samsa/parsers/train_start.py",
]

collect_ignore = [] if importlib.util.find_spec("torch") else list(_TORCH_ONLY)
