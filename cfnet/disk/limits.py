"""The open-file limit: a seat's process raises its soft limit to the hard one, so that many
network connections leave room for the state directory's files. POSIX systems (Linux, macOS)
have the `resource` module's RLIMIT_NOFILE; Windows has no such per-process limit on sockets
(they are handles, not C runtime descriptors) and no `resource` module: nothing to raise."""

from __future__ import annotations

import contextlib

UNLIMITED_FILES = 10240  # the open-file limit aimed at when the hard limit is "unlimited"


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
