"""The deck's worker threads: independent group operations of one check or proof spread over
the machine's cores (libsodium releases the GIL while it multiplies).

A setting of the process, chosen at its edge (the command line, a benchmark): `use_threads`.
The results, and the error raised for bad input, are exactly those of doing the work in order
on the calling thread: only the time changes. Work may also be started ahead (`ahead`), while
the calling thread goes on with other things: the call that needs its results takes them
(`taken`); work not yet begun by then is dropped and done by the caller itself. Within
`helper_process`, work started ahead runs in a process of its own instead, which Python's lock
does not hold back while the calling thread runs Python (a thread waits up to the switch
interval, 5 ms, to take the lock back after each multiplication).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from mmap import mmap
from typing import IO, Any, Generic, NoReturn, TypeVar

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


class _Items(Generic[T, R]):
    """The items of one `spread`, handed out one at a time, in order, to whichever of its
    threads is free, until one fails: a thread that the machine holds back takes fewer."""

    def __init__(self, work: Callable[[T], R], items: Sequence[T]) -> None:
        self.work, self.items = work, items
        self.results: list[Any] = [None] * len(items)
        self.failed_at = len(items)  # the first failed item's index, or past the end
        self.error: Exception | None = None
        self._lock = threading.Lock()
        self._next = 0

    def run(self) -> None:
        while True:
            with self._lock:
                index = self._next
                if index >= self.failed_at:  # all handed out, or an earlier one failed
                    return
                self._next += 1
            try:
                self.results[index] = self.work(self.items[index])
            except Exception as error:  # each item before it was handed out already
                with self._lock:
                    if index < self.failed_at:
                        self.failed_at, self.error = index, error
                return


def spread(work: Callable[[T], R], items: Sequence[T], min_share: int = MIN_SHARE) -> list[R]:
    """[work(item) for item in items], the items shared among the threads (the calling thread
    works too; at least `min_share` items a thread); the first item's error, in item order, is
    raised, as in order. Work inside an item is not shared again."""
    count = min(threads(), len(items) // min_share)
    if count <= 1 or getattr(_worker, "inside", False):
        return [work(item) for item in items]
    shared = _Items(work, items)
    executor = _executor(threads())
    futures = [executor.submit(shared.run) for _ in range(count - 1)]
    _worker.inside = True  # its items' own work is not handed out: the others are busy
    try:
        shared.run()
    finally:
        _worker.inside = False
    wait(futures)
    if shared.error is not None:
        raise shared.error
    return shared.results


def ahead(keys: Sequence[Hashable], function: Callable[..., Sequence[Any]], *args: Any) -> None:
    """Start `function(*args)` (a module's function, its arguments plain data), whose results
    are those of `keys` in order, in the helper process or on the deck's threads (nothing
    without them: the caller does it all when it needs it); `taken` then gives them."""
    if threads() <= 1 or not keys:
        return
    future: Future[None] = Future()
    if _helper and _helper[0].send(future, keys, function, args):
        return
    _started(future, keys)

    def run() -> None:
        if future.set_running_or_notify_cancel():
            with contextlib.suppress(Exception):  # the caller does it again, meets the error
                _make(future, keys, function(*args))
            future.set_result(None)

    _executor(threads(), 1).submit(run)


def _started(future: Future[None], keys: Sequence[Hashable]) -> None:
    """Note that `future`'s work makes the results of `keys`."""
    with _lock:
        _ahead[future] = list(keys)
        for key in keys:
            _made[key] = (future, _NOT_MADE)
        while len(_ahead) > AHEAD_MEMORY:
            _drop(next(iter(_ahead)))


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


def _make(future: Future[None], keys: Sequence[Hashable], results: Sequence[Any]) -> None:
    """Keep what `future`'s work made, for those of its keys still wanted."""
    with _lock:
        for key, result in zip(keys, results, strict=True):
            if _made.get(key, (None,))[0] is future:
                _made[key] = (future, result)


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
        if result is _NOT_MADE and (future.cancel() or (_helper and _helper[0].withdrawn(future))):
            _drop(future)
            return None
    if result is _NOT_MADE and not (_helper and _helper[0].awaited(future)):
        wait([future])
    with _lock:
        found = _made.pop(key, None)
        keys = _ahead.get(future)
        if keys is not None and not any(_made.get(k, (None,))[0] is future for k in keys):
            del _ahead[future]
    return None if found is None or found[1] is _NOT_MADE else found[1]


HELPER_JOBS = 32
"""How many pieces of work the helper process holds at most, their results not yet read."""
PIPE_BYTES = 1 << 20
"""The room asked for in each of the helper's pipes: far more than HELPER_JOBS results (each a
few kB), so that neither side waits for the other to read while it writes."""
_SLOTS = 2 * HELPER_JOBS  # a piece of work's flags: its number modulo this
_helper: list[_Helper] = []  # the helper process, while one runs


class _Helper:
    """A forked copy of this process that does work started ahead, in the order it was sent;
    its results are read by the thread that awaits one. Work it has not begun may be
    withdrawn: each piece has two flags in memory both share, `begun` (set by the helper) and
    `withdrawn` (set by this process); each sets its own, then reads the other's. Whatever
    the order in which the two processes see them, no result is lost: at worst both do it."""

    def __init__(self, pid: int, requests: IO[bytes], replies: IO[bytes], flags: mmap) -> None:
        self.pid, self.requests, self.replies, self.flags = pid, requests, replies, flags
        self.pending: deque[tuple[Future[None], Sequence[Hashable]]] = deque()
        self.slots: dict[Future[None], int] = {}
        self.sent = 0
        self.lock = threading.Lock()  # one thread at a time sends or reads
        self.gone = False

    def send(
        self,
        future: Future[None],
        keys: Sequence[Hashable],
        function: Callable[..., Sequence[Any]],
        args: tuple[Any, ...],
    ) -> bool:
        """Hand it `future`'s work (False if it is gone or holds HELPER_JOBS already)."""
        with self.lock:
            if self.gone or len(self.pending) >= HELPER_JOBS:
                return False
            future.set_running_or_notify_cancel()  # `withdrawn` says whether it is begun
            _started(future, keys)
            slot = self.sent % _SLOTS
            self.flags[slot] = self.flags[_SLOTS + slot] = 0  # its last user's reply was read
            try:
                pickle.dump((slot, function, args), self.requests, pickle.HIGHEST_PROTOCOL)
                self.requests.flush()
            except OSError:
                self.gone = True
                future.set_result(None)  # nothing made: the caller does it
            else:
                self.sent += 1
                self.slots[future] = slot
                self.pending.append((future, keys))
            return True

    def withdrawn(self, future: Future[None]) -> bool:
        """Whether `future`'s work, if it is this helper's, was withdrawn before it began (the
        helper then skips it; the caller does it)."""
        slot = self.slots.get(future)
        if slot is None:
            return False
        self.flags[_SLOTS + slot] = 1
        return not self.flags[slot]

    def awaited(self, future: Future[None]) -> bool:
        """Read results until `future`'s is in, if it is this helper's work (False if not)."""
        with self.lock:
            if not any(sent is future for sent, _ in self.pending):
                return False
            while not future.done():
                self._receive()
            return True

    def _receive(self) -> None:
        """The oldest work's results, kept (none if the helper failed at it or is gone; if
        the reading is cut short, by an error or an interrupt, the helper is given up)."""
        sent, keys = self.pending.popleft()
        del self.slots[sent]
        try:
            results = pickle.load(self.replies)
        except BaseException as error:
            self.gone = True
            self._forget()
            sent.set_result(None)
            if isinstance(error, OSError | EOFError | pickle.UnpicklingError):
                return
            raise
        if results is not None:
            _make(sent, keys, results)
        sent.set_result(None)

    def _forget(self) -> None:
        """No result will come for the work not read yet: its callers do it themselves."""
        for other, _ in self.pending:
            other.set_result(None)
        self.pending.clear()
        self.slots.clear()

    def stop(self) -> None:
        """Close its pipes (it exits when it reads their end) and wait for it to exit."""
        with self.lock:
            self._forget()
            for pipe in (self.requests, self.replies):
                with contextlib.suppress(OSError):
                    pipe.close()
        os.waitpid(self.pid, 0)


@contextlib.contextmanager
def helper_process() -> Iterator[None]:
    """Within: work started `ahead` runs in a helper process, forked on entering (where the
    deck's threads are in use, `os.fork` is safe (Linux) and this process runs one thread);
    else nothing changes. The helper exits on leaving."""
    helper = None
    if not _helper and threads() > 1 and sys.platform == "linux":
        if threading.active_count() == 1:
            helper = _fork()
    if helper is not None:
        _helper.append(helper)
    try:
        yield
    finally:
        if helper is not None:
            _helper.clear()
            helper.stop()


def _fork() -> _Helper | None:
    """A helper process, forked now (None without `fcntl`, or if its pipes cannot have their
    room)."""
    try:
        import fcntl
    except ImportError:  # as on Windows
        return None
    pipes = [os.pipe(), os.pipe()]  # requests, replies
    try:
        for _, write in pipes:
            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        for pipe in pipes:
            for end in pipe:
                os.close(end)
        return None
    (requests_in, requests_out), (replies_in, replies_out) = pipes
    flags = mmap(-1, 2 * _SLOTS)  # shared with the helper
    pid = os.fork()
    if pid == 0:  # the helper
        os.close(requests_out)
        os.close(replies_in)
        _serve(requests_in, replies_out, flags)
    os.close(requests_in)
    os.close(replies_out)
    return _Helper(pid, os.fdopen(requests_out, "wb"), os.fdopen(replies_in, "rb"), flags)


def _serve(requests: int, replies: int, flags: mmap) -> NoReturn:
    """The helper's life: each piece of work read is done unless withdrawn, its results (None
    if it raised or was withdrawn) written back, until the requests' pipe ends."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the process that forked it answers ^C
        null = os.open(os.devnull, os.O_RDWR)
        for standard in (0, 1, 2):  # a reader of this process's output waits for no helper
            os.dup2(null, standard)
        use_threads(1)
        with os.fdopen(requests, "rb") as reading, os.fdopen(replies, "wb") as writing:
            while True:
                try:
                    slot, function, args = pickle.load(reading)
                except EOFError:
                    break
                flags[slot] = 1
                try:
                    results = None if flags[_SLOTS + slot] else function(*args)
                except Exception:  # the caller does it again, meets the error
                    results = None
                pickle.dump(results, writing, pickle.HIGHEST_PROTOCOL)
                writing.flush()
    finally:
        os._exit(0)
