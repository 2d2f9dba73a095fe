"""Worker processes end with their parent, whatever ends it. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["watch_parent"]

_PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0


def watch_parent(parent_pid: int, *, kernel_signal: bool) -> None:
    """Make this (worker) process end when ``parent_pid`` is no longer its parent."""
    if kernel_signal and sys.platform.startswith("linux"):
        _ask_kernel()
    if os.getppid() != parent_pid:  # the parent died before the watch began
        os._exit(1)
    threading.Thread(target=_poll, args=(parent_pid,), name="samsa-parent-watch", daemon=True).start()


def _ask_kernel() -> None:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the polling thread alone does it
        pass


def _poll(parent_pid: int) -> None:
    event = threading.Event()
    while not event.wait(POLL_SECONDS):
        if os.getppid() != parent_pid:
            os._exit(1)
