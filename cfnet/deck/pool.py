"""The deck's worker threads: independent group operations of one check or proof spread over
the machine's cores (libsodium releases the GIL while it multiplies).

A setting of the process, chosen at its edge (the command line, a benchmark): `use_threads`.
The results, and the error raised for bad input, are exactly those of doing the work in order
on the calling thread: only the time changes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Generic, TypeVar

from cfnet.errors import LocalProtocolError

T = TypeVar("T")
R = TypeVar("R")

THREADS_VARIABLE = "CFNET_THREADS"
"""The environment variable a command reads its thread count from (1: no pool)."""

MIN_SHARE = 8
"""Fewer items than this per thread are not worth handing out."""

_lock = threading.Lock()
_worker = threading.local()
_setting: list[int] = [0]  # threads in use, the calling one included (0: not chosen yet)
_executors: list[ThreadPoolExecutor] = []


def default_threads() -> int:
    """The threads a process uses unless told otherwise: one per core it may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def use_threads(count: int | None = None) -> None:
    """Use `count` threads for the deck's work from now on, the calling one included (None:
    `default_threads()`; 1: everything on the calling thread, as a measurement without the
    pool needs)."""
    if count is not None and count < 1:
        raise LocalProtocolError(f"the deck cannot use {count} threads: use 1 or more")
    with _lock:
        _setting[0] = default_threads() if count is None else count
        for executor in _executors:
            executor.shutdown(wait=False)
        _executors.clear()


def threads_setting(text: str) -> int:
    """The thread count `text` (the value of THREADS_VARIABLE) asks for."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise LocalProtocolError(
            f"{THREADS_VARIABLE} is {text!r}: use a whole number of threads, 1 or more "
            "(1: every check on one thread)"
        )
    return count


def threads() -> int:
    """How many threads the deck's work uses (the calling one included)."""
    if not _setting[0]:
        use_threads(None)
    return _setting[0]


def _mark_worker() -> None:
    _worker.inside = True


def _executor(count: int) -> ThreadPoolExecutor:
    with _lock:
        if not _executors:
            _executors.append(ThreadPoolExecutor(count - 1, "cfnet-deck", initializer=_mark_worker))
        return _executors[0]


class _Share(Generic[T, R]):
    """Every `step`-th item from `start`, worked in order until the first failure."""

    def __init__(self, work: Callable[[T], R], items: Sequence[T], start: int, step: int) -> None:
        self.work, self.items, self.start, self.step = work, items, start, step
        self.results: list[R] = []
        self.failed_at = len(items)
        self.error: Exception | None = None

    def run(self) -> None:
        for index in range(self.start, len(self.items), self.step):
            try:
                self.results.append(self.work(self.items[index]))
            except Exception as error:  # raised by `spread` if no earlier item failed
                self.failed_at, self.error = index, error
                return


def spread(work: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """[work(item) for item in items], the items shared among the threads (the calling thread
    takes a share too); the first item's error, in item order, is raised, as in order."""
    count = min(threads(), len(items) // MIN_SHARE)
    if count <= 1 or getattr(_worker, "inside", False):
        return [work(item) for item in items]
    shares = [_Share(work, items, start, count) for start in range(count)]
    executor = _executor(threads())
    futures = [executor.submit(share.run) for share in shares[1:]]
    shares[0].run()
    wait(futures)
    first = min(shares, key=lambda share: share.failed_at)
    if first.error is not None:
        raise first.error
    results: list[R] = [shares[0].results[0]] * len(items)
    for share in shares:
        results[share.start :: count] = share.results
    return results
