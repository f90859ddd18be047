"""Run `cfnet` (the arguments after the first) with a probe on its event loop: how long each
callback kept the loop's thread, in CPU time of that thread (what the callback itself did,
whatever else the machine runs) and in wall time; the longest of each, and what ran then,
are written as JSON to the file named by the first argument when the process exits.

    python tests/loop_probe.py OUT.json host --seats 8 ...
"""

from __future__ import annotations

import asyncio.events
import atexit
import json
import sys
import time
from pathlib import Path

from cfnet.cli.main import main

_longest = {"cpu": 0.0, "cpu_callback": "", "wall": 0.0, "wall_callback": "", "callbacks": 0}
_run = asyncio.events.Handle._run


def _probed(handle: asyncio.events.Handle) -> None:
    cpu, wall = time.thread_time(), time.perf_counter()
    _run(handle)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    _longest["callbacks"] = int(_longest["callbacks"]) + 1
    if cpu > float(_longest["cpu"]):
        _longest["cpu"], _longest["cpu_callback"] = cpu, _what(handle)
    if wall > float(_longest["wall"]):
        _longest["wall"], _longest["wall_callback"] = wall, _what(handle)


def _what(handle: asyncio.events.Handle) -> str:
    """The callback, or the coroutine of the task it wakes."""
    task = getattr(handle._callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        return f"task {task.get_coro().__qualname__}"
    return repr(handle)[:300]


def _write(path: Path) -> None:
    path.write_text(json.dumps(_longest))


if __name__ == "__main__":
    asyncio.events.Handle._run = _probed  # type: ignore[method-assign]
    atexit.register(_write, Path(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
