"""The open-file limit: a seat's process raises its soft limit to the hard one, and keeps a
few descriptors in reserve for the state directory's files (`SPARE`), so that many network
connections leave room for them. POSIX systems (Linux, macOS) have the `resource` module's
RLIMIT_NOFILE; Windows has no such per-process limit on sockets (they are handles, not C
runtime descriptors) and no `resource` module: nothing to raise."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

UNLIMITED_FILES = 10240  # the open-file limit aimed at when the hard limit is "unlimited"
SPARE_DESCRIPTORS = 8  # a store operation opens at most 3 files at once


def raise_open_file_limit() -> None:
    """Raise this process's soft limit on open files to its hard limit (UNLIMITED_FILES when
    that is unlimited), where the system has one; never fails."""
    try:
        import resource
    except ImportError:  # Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_FILES if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


class _Spare:
    """File descriptors held open on /dev/null, freed only around a store operation (which
    opens its files without yielding to the event loop, so nothing else takes them meanwhile)."""

    def __init__(self) -> None:
        self._fds: list[int] = []

    def keep(self, count: int) -> None:
        """Hold `count` descriptors in reserve (fewer if the table is full already)."""
        while len(self._fds) < count:
            try:
                self._fds.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                return

    @contextlib.contextmanager
    def freed(self) -> Iterator[None]:
        """Inside: the reserved descriptors are free for the store's files."""
        count = len(self._fds)
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()
        try:
            yield
        finally:
            self.keep(count)


SPARE = _Spare()
"""The descriptors this process keeps for the state directory's files (cfnet.disk.store)."""


def keep_spare_descriptors(count: int = SPARE_DESCRIPTORS) -> None:
    """At the start of a seat's process: raise the soft open-file limit to the hard one, and
    keep `count` descriptors in reserve for the state directory's files."""
    raise_open_file_limit()
    SPARE.keep(count)
