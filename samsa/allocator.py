"""How the ``samsa`` executable's process allocates memory: glibc keeps large freed blocks for reuse. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import os
import sys

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "allocator_environ", "tune_allocator"]

# glibc's ``mallopt`` parameters (malloc.h) and the values the executable sets
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: blocks up to this size come from the heap, not from a fresh mapping (the largest parser temporary is ~13 MB)
MMAP_THRESHOLD = 32 << 20
#: free memory at the top of the heap is returned to the system only beyond this
TRIM_THRESHOLD = 64 << 20


def tune_allocator() -> bool:
    """Make glibc's allocator reuse large freed blocks instead of mapping and unmapping them each time; returns
    whether it did.

    Why: a parse allocates numpy temporaries of 1-13 MB per batch, above glibc's
    mmap threshold, so each came as a fresh mapping whose pages the kernel faulted
    in one by one and took back at ``free``. Set once in the executable's process
    (before the pool forks, so its workers inherit it), not by the library: how a
    process allocates is its owner's choice. Nothing changes off glibc, or when the
    environment sets glibc's own knobs (any ``MALLOC_*`` variable or
    ``GLIBC_TUNABLES``): those win.
    """
    if not _allocator_is_ours():
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    # the mmap threshold first: setting either one fixes both (glibc stops adjusting them itself)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def allocator_environ() -> dict[str, str]:
    """The environment that gives a new process :func:`tune_allocator`'s setting from its start (glibc reads
    these variables then): for worker processes that samsa starts itself and that do not fork from the
    executable (a LocalCluster's, spawned by Dask's nanny, whose default environment sets glibc's trim
    threshold to 64 KiB, which also fixes the mmap threshold at 128 KiB). Empty where :func:`tune_allocator`
    would change nothing (off glibc, or glibc's knobs already in the environment)."""
    if not _allocator_is_ours():
        return {}
    return {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD), "MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD)}


def _allocator_is_ours() -> bool:
    """Linux with glibc, and none of glibc's allocator knobs in the environment (whoever set them decides)."""
    if not sys.platform.startswith("linux") or "GLIBC_TUNABLES" in os.environ:
        return False
    if any(name.startswith("MALLOC_") for name in os.environ):
        return False
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):  # no such name: not glibc
        return False
