"""Start-up of the ``samsa`` command: networkx's algorithms are imported only if something uses them, and spaCy's
network library does not import PyTorch. Each step is kept because it saves more than 20% of a command users run
(docs/BENCHMARKS.md, "Start-up"); the savings are noted beside each below. More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from samsa.allocator import tune_allocator

__all__ = [
    "NETWORKX_DEFERRED",
    "STEPS",
    "apply_startup",
    "defer_networkx_library",
    "hide_torch_from_thinc",
]


class _Wrapped(importlib.abc.Loader):
    """A module's own loader, whose ``exec_module`` a subclass surrounds with something of its own."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def __getattr__(self, name: str) -> Any:  # get_data, get_filename, get_resource_reader, ...: the real loader's
        return getattr(self.loader, name)


class _TorchHiddenFromThinc(importlib.abc.MetaPathFinder):
    """Wraps the loader of ``thinc.compat``; while that module runs, ``torch`` cannot be found. Leaves
    ``sys.meta_path`` once it has done so."""

    def __init__(self) -> None:
        self.active = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if self.active and (name == "torch" or name.startswith("torch.")):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden from thinc by samsa)", name=name)
        if name != "thinc.compat" or self.active:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Hiding(spec.loader, self)
        return spec


class _WhileActive(_Wrapped):
    """A module's own loader, run while ``finder`` is active; the finder leaves ``sys.meta_path`` afterwards."""

    def __init__(self, loader: Any, finder: Any) -> None:
        super().__init__(loader)
        self.finder = finder

    @contextmanager
    def finder_active(self) -> Iterator[None]:
        self.finder.active = True
        try:
            yield
        finally:
            self.finder.active = False
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self.finder]


class _Hiding(_WhileActive):
    """``thinc.compat``'s own loader, run while ``finder`` hides PyTorch."""

    def exec_module(self, module: ModuleType) -> None:
        with self.finder_active():
            self.loader.exec_module(module)


def hide_torch_from_thinc() -> bool:
    """Let ``thinc.compat``, when it is imported, find no PyTorch (unless PyTorch or thinc is imported already:
    then nothing changes); returns whether it registered the finder."""
    if "torch" in sys.modules or "thinc.compat" in sys.modules:
        return False
    sys.meta_path.insert(0, _TorchHiddenFromThinc())
    return True


#: networkx's subpackages that ``import networkx`` runs and star-imports, in its order; samsa's graph model needs
#: none of them (``networkx.classes``), and they are two thirds of networkx's import time
NETWORKX_DEFERRED = ("generators", "readwrite", "algorithms", "linalg", "drawing")


class _NetworkxDeferred(importlib.abc.MetaPathFinder):
    """Wraps the loader of the ``networkx`` package: while its ``__init__`` runs, the deferred subpackages are
    empty stand-ins (their star-imports import nothing). Leaves ``sys.meta_path`` once it has done so."""

    def __init__(self) -> None:
        self.active = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if self.active:
            if name.startswith("networkx.") and name[len("networkx.") :] in NETWORKX_DEFERRED:
                return importlib.machinery.ModuleSpec(name, _EmptyPackage(), is_package=True)
            return None
        if name != "networkx":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Deferring(spec.loader, self)
        return spec


class _EmptyPackage(importlib.abc.Loader):
    """Loader of a stand-in: an empty package (nothing to star-import, no submodules)."""

    def create_module(self, spec: Any) -> ModuleType:
        module = ModuleType(spec.name)
        module.__path__ = []
        module.__all__ = []  # type: ignore[attr-defined]
        module.__samsa_stand_in__ = True  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: ModuleType) -> None:
        pass


class _Deferring(_WhileActive):
    """``networkx``'s own loader, run with the stand-ins; afterwards they are dropped and the package finds a name
    it lacks by importing the real subpackages then (:func:`_networkx_hooks`). Should networkx's own code
    need one of them while it is imported (another networkx version), it is imported again the normal way."""

    def exec_module(self, module: ModuleType) -> None:
        try:
            with self.finder_active():
                self.loader.exec_module(module)
        except Exception:  # whatever went wrong with the stand-ins: the import the normal way decides
            _drop_stand_ins(module)
            self.loader.exec_module(module)
            return
        _drop_stand_ins(module)
        _networkx_hooks(module)


def _drop_stand_ins(module: ModuleType) -> None:
    for sub in NETWORKX_DEFERRED:
        name = f"{module.__name__}.{sub}"
        if getattr(sys.modules.get(name), "__samsa_stand_in__", False):
            del sys.modules[name]
        if getattr(module.__dict__.get(sub), "__samsa_stand_in__", False):
            del module.__dict__[sub]


def _networkx_hooks(module: ModuleType) -> None:
    """Give ``networkx`` a module ``__getattr__`` and ``__dir__``: the first name it lacks (or a ``dir``) imports
    the deferred subpackages in networkx's order and copies what their star-imports would have copied
    (``networkx.descendants``...); networkx's own ``__getattr__`` is back from then on."""
    original = module.__dict__.get("__getattr__")

    def load() -> None:
        module.__dict__.pop("__dir__", None)
        if original is None:
            module.__dict__.pop("__getattr__", None)
        else:
            module.__dict__["__getattr__"] = original
        for sub in NETWORKX_DEFERRED:
            real = importlib.import_module(f"{module.__name__}.{sub}")
            names = getattr(real, "__all__", None)
            for public in [n for n in vars(real) if not n.startswith("_")] if names is None else names:
                setattr(module, public, getattr(real, public))

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # the import system probing: not a use
            raise AttributeError(name)
        load()
        if name in module.__dict__:
            return module.__dict__[name]
        if original is not None:
            return original(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        load()
        return sorted(module.__dict__)

    module.__dict__.update(__getattr__=__getattr__, __dir__=__dir__)


def defer_networkx_library() -> bool:
    """Have ``import networkx`` leave out its algorithms, generators, readers and drawing until a name of theirs is
    used (unless networkx is imported already, or laid out otherwise); returns whether it registered the finder."""
    root = _package_dir("networkx")
    if root is None or not all((root / sub / "__init__.py").is_file() for sub in NETWORKX_DEFERRED):
        return False
    sys.meta_path.insert(0, _NetworkxDeferred())
    return True


def _package_dir(name: str) -> Path | None:
    """The directory of package ``name`` if it is installed and not imported yet (else None)."""
    if name in sys.modules:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


#: the executable's start-up steps by name; ``SAMSA_STARTUP_OFF=networkx,torch`` (or ``all``) leaves those
#: out, to measure what each saves (``python benchmarks/samsa_speed.py --startup``) or to rule one out
STEPS: dict[str, Callable[[], bool]] = {
    "networkx": defer_networkx_library,
    "torch": hide_torch_from_thinc,
    "allocator": tune_allocator,
}


def apply_startup() -> list[str]:
    """Apply the start-up steps not named in ``$SAMSA_STARTUP_OFF``; returns the names of those applied."""
    off = {x.strip() for x in os.environ.get("SAMSA_STARTUP_OFF", "").split(",") if x.strip()}
    return [name for name, step in STEPS.items() if "all" not in off and name not in off and step()]
