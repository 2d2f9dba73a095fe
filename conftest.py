"""Collection rules for the doctest run over the package.

Modules that exist only for training import PyTorch at module level; the README's test command must pass
without it (PyTorch is the ``[train]`` extra), so when torch is missing no module that imports it at its top
level is collected. The rule reads each module's own imports, so a new training module needs no list entry.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

_TORCH = importlib.util.find_spec("torch") is not None


def _imports_torch_at_top(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        if any(n == "torch" or n.startswith("torch.") for n in names):
            return True
    return False


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if not _TORCH and collection_path.suffix == ".py" and "samsa" in collection_path.parts:
        return _imports_torch_at_top(collection_path) or None
    return None
