"""How a command starts a child process of its own (a computer player): out of reach of the
Ctrl-C meant for the command, which stops its children itself (POSIX: a session of its own;
Windows: a process group of its own, CREATE_NEW_PROCESS_GROUP), and on Linux told by the kernel
to stop (SIGTERM) should the command die (prctl PR_SET_PDEATHSIG). macOS and Windows have no
such call: there a command killed outright leaves its children to stop by themselves."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any


def _die_with_parent() -> Callable[[], None] | None:
    """Linux: a function for `preexec_fn` that has the child get SIGTERM if its parent dies."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def arm() -> None:
        prctl(pr_set_pdeathsig, signal.SIGTERM)

    return arm


def child_options() -> dict[str, Any]:
    """The `subprocess.Popen` keywords for a child of this command, on this system."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    # preexec_fn is only a prctl call, looked up before the fork
    return {"start_new_session": True, "preexec_fn": _die_with_parent()}
