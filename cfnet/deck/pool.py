"""The deck's worker threads: independent group operations of one check or proof spread over
the machine's cores (libsodium releases the GIL while it multiplies).

A setting of the process, chosen at its edge (the command line, a benchmark): `use_threads`.
The results, and the error raised for bad input, are exactly those of doing the work in order
on the calling thread: only the time changes. Work may also be started ahead (`ahead`), while
the calling thread goes on with other things: the call that needs its results takes them
(`taken`); work not yet begun by then is dropped and done by the caller itself.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Generic, TypeVar

from cfnet.errors import LocalProtocolError
from cfnet.lang import N_, Sentence

T = TypeVar("T")
R = TypeVar("R")

THREADS_VARIABLE = "CFNET_THREADS"
"""The environment variable a command reads its thread count from (1: no pool)."""

MIN_SHARE = 8
"""Fewer items than this per thread are not worth handing out."""

AHEAD_MEMORY = 128
"""How many pieces of work started ahead are kept for the calls that take their results (the
oldest is dropped: a log whose audit never comes does not hold memory)."""

_lock = threading.Lock()
_worker = threading.local()
_setting: list[int] = [0]  # threads in use, the calling one included (0: not chosen yet)
_executors: list[ThreadPoolExecutor] = []  # [shares of `spread`, work started `ahead`]
_ahead: dict[Future[None], list[Hashable]] = {}  # work started ahead: the keys it makes
_made: dict[Hashable, tuple[Future[None], Any]] = {}  # key: its work and (once made) its result


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
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"the deck cannot use {count} threads: use 1 or more"
        )
    with _lock:
        _setting[0] = default_threads() if count is None else count
        for executor in _executors:
            executor.shutdown(wait=False)
        _executors.clear()
        _ahead.clear()
        _made.clear()


def threads_setting(text: str) -> int:
    """The thread count `text` (the value of THREADS_VARIABLE) asks for."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise LocalProtocolError(
            Sentence(
                N_(
                    "{variable} is {value!r}: use a whole number of threads, 1 or more (1: every"
                    " check on one thread)"
                ),
                variable=THREADS_VARIABLE,
                value=text,
            )
        )
    return count


def threads() -> int:
    """How many threads the deck's work uses (the calling one included)."""
    if not _setting[0]:
        use_threads(None)
    return _setting[0]


def _mark_worker() -> None:
    _worker.inside = True


def _executor(count: int, index: int = 0) -> ThreadPoolExecutor:
    """The threads for `spread`'s shares (index 0: count - 1 of them) or for work started
    `ahead` (index 1: one, so that a share never waits behind such work)."""
    with _lock:
        if not _executors:
            for name, size in (("cfnet-deck", count - 1), ("cfnet-ahead", 1)):
                _executors.append(ThreadPoolExecutor(size, name, initializer=_mark_worker))
        return _executors[index]


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


def spread(work: Callable[[T], R], items: Sequence[T], min_share: int = MIN_SHARE) -> list[R]:
    """[work(item) for item in items], the items shared among the threads (the calling thread
    takes a share too; each share at least `min_share` items); the first item's error, in item
    order, is raised, as in order. Work inside an item is not shared again."""
    count = min(threads(), len(items) // min_share)
    if count <= 1 or getattr(_worker, "inside", False):
        return [work(item) for item in items]
    shares = [_Share(work, items, start, count) for start in range(count)]
    executor = _executor(threads())
    futures = [executor.submit(share.run) for share in shares[1:]]
    _worker.inside = True  # its share's own work is not handed out: the others are busy
    try:
        shares[0].run()
    finally:
        _worker.inside = False
    wait(futures)
    first = min(shares, key=lambda share: share.failed_at)
    if first.error is not None:
        raise first.error
    results: list[R] = [shares[0].results[0]] * len(items)
    for share in shares:
        results[share.start :: count] = share.results
    return results


Make = Callable[[Callable[[Hashable, Any], None]], None]
"""Work started ahead: it calls `made(key, result)` for each result it makes."""


def ahead(keys: Sequence[Hashable], work: Make) -> None:
    """Start `work` on the deck's threads (nothing without them: the caller does it all when
    it needs it); it makes the results of `keys`, which `taken` then gives."""
    if threads() <= 1 or not keys:
        return
    future: Future[None] = Future()
    with _lock:
        _ahead[future] = list(keys)
        for key in keys:
            _made[key] = (future, _NOT_MADE)
        while len(_ahead) > AHEAD_MEMORY:
            _drop(next(iter(_ahead)))

    def run() -> None:
        if future.set_running_or_notify_cancel():
            with contextlib.suppress(Exception):  # the caller does it again, meets the error
                work(_maker(future))
            future.set_result(None)

    _executor(threads(), 1).submit(run)


_NOT_MADE = object()


def keep(key: Hashable, result: Any) -> None:
    """Keep `result`, made already, for `taken(key)` (with the deck's threads: without them
    nothing is made ahead)."""
    if threads() <= 1:
        return
    future: Future[None] = Future()
    future.set_result(None)
    with _lock:
        _ahead[future] = [key]
        _made[key] = (future, result)
        while len(_ahead) > AHEAD_MEMORY:
            _drop(next(iter(_ahead)))


def _maker(future: Future[None]) -> Callable[[Hashable, Any], None]:
    """What work started ahead calls with each result: kept while its key is still wanted."""

    def made(key: Hashable, result: Any) -> None:
        with _lock:
            if _made.get(key, (None,))[0] is future:
                _made[key] = (future, result)

    return made


def _drop(future: Future[None]) -> None:
    """Forget `future`'s keys (lock held); it is not begun if it has not been."""
    future.cancel()
    for key in _ahead.pop(future, ()):
        if _made.get(key, (None,))[0] is future:
            del _made[key]


def taken(key: Hashable) -> Any | None:
    """The result made ahead for `key` (waiting for its work if it is under way), or None:
    none was started, or its work had not begun (it is dropped) or did not make it."""
    with _lock:
        found = _made.get(key)
        if found is None:
            return None
        future, result = found
        if result is _NOT_MADE and future.cancel():
            _drop(future)
            return None
    if result is _NOT_MADE:
        wait([future])
    with _lock:
        found = _made.pop(key, None)
        keys = _ahead.get(future)
        if keys is not None and not any(_made.get(k, (None,))[0] is future for k in keys):
            del _ahead[future]
    return None if found is None or found[1] is _NOT_MADE else found[1]
