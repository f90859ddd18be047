"""One process at a time holds a table: an exclusive lock on an open file, taken without
waiting, with the system's own call: `fcntl.flock` on POSIX systems (Linux, macOS) and
`msvcrt.locking` on Windows (its first byte, which Windows locks past the end of a file too).
Either lock ends when the file is closed or the process ends, however it ends."""

from __future__ import annotations

import sys
from typing import BinaryIO


def try_lock(f: BinaryIO) -> bool:
    """Lock the open file `f` for this process alone; False if another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        f.seek(0)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)  # raises OSError if it is held
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
