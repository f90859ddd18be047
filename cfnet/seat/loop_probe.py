"""A probe of a seat's event loop (a measurement, off unless CFNET_LOOP_PROBE names a file).

A callback scheduled every TICK s measures its own lateness: how long the loop could not run it.
Each interval between two ticks is split by what kept the loop's thread from it: its own CPU
work (the callbacks that ran meanwhile), and the time it was ready to run but the machine ran
something else (Linux's per-thread run-queue wait; other processes on a busy machine). What is
left of the lateness once that wait is taken out is the loop's own blocking (its work, and
anything it waited for: a file, a lock). Each callback the loop runs is timed too, in CPU time
of the loop's thread ("callback": what one callback kept the loop from everything else, which
neither other processes nor a late tick add to). The longest of each, for each phase of the
command (`phase`: "start" until the game starts, then "game"; a callback counts in the phase
it began in), and what the longest callback ran ("longest"), are written as JSON to the file
when the loop ends. The processes the probed one starts (computer players) are not probed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

PROBE_VARIABLE = "CFNET_LOOP_PROBE"
"""The environment variable naming the file the probe writes to (unset: no probe)."""

TICK = 0.010
_SCHEDSTAT = "/proc/thread-self/schedstat"  # ns on the CPU, ns waiting to run, timeslices
_running: list[LoopProbe] = []  # the probe of this process's loop, if any


class LoopProbe:
    """The ticking callback and, for each phase, the longest interval it has seen by each
    measure (seconds) and how many ticks ran."""

    def __init__(self) -> None:
        self.phases: dict[str, dict[str, float]] = {}
        self.longest: dict[str, str] = {}  # phase name: what its longest callback ran
        self._name = "start"  # the phase under way
        self.phase("start")
        self._schedstat: int | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._last = (0.0, 0.0, 0.0)
        self._run = asyncio.Handle._run  # how asyncio runs a callback, before we time it

    def phase(self, name: str) -> None:
        """Count the intervals from the next tick on as `name`'s."""
        self._name = name
        figures = {"ticks": 0, "late": 0.0, "cpu": 0.0, "blocked": 0.0, "callback": 0.0}
        self.phases.setdefault(name, figures)

    def start(self) -> None:
        """Start ticking on the running loop (called on the loop's thread)."""
        with contextlib.suppress(OSError):  # not Linux: no run-queue figures (blocked = late)
            self._schedstat = os.open(_SCHEDSTAT, os.O_RDONLY)
        self._last = self._now()
        self._handle = asyncio.get_running_loop().call_later(TICK, self._tick)
        self._time_callbacks()

    def stop(self) -> None:
        """Stop ticking and timing callbacks."""
        setattr(asyncio.Handle, "_run", self._run)  # noqa: B010
        if self._handle is not None:
            self._handle.cancel()
        if self._schedstat is not None:
            os.close(self._schedstat)
            self._schedstat = None

    def _time_callbacks(self) -> None:
        """Wrap every callback this thread's loop runs (asyncio runs each one, timers and task
        steps included, by `Handle._run`) in a measure of the thread's CPU time."""
        run, loop_thread = self._run, threading.get_ident()

        def timed(handle: asyncio.Handle) -> None:
            if threading.get_ident() != loop_thread:  # another thread's loop (none is probed)
                run(handle)
                return
            name, began = self._name, time.thread_time()
            try:
                run(handle)
            finally:  # counted in the phase it began in (the one that begins a phase too)
                used = time.thread_time() - began
                figures = self.phases[name]
                if used > figures["callback"]:
                    figures["callback"] = used
                    self.longest[name] = repr(handle)

        setattr(asyncio.Handle, "_run", timed)  # noqa: B010 (a method replaced, then restored)

    def _now(self) -> tuple[float, float, float]:
        """(wall time, this thread's CPU time, its run-queue wait so far)."""
        waited = 0.0
        if self._schedstat is not None:
            waited = int(os.pread(self._schedstat, 64, 0).split()[1]) / 1e9
        return time.perf_counter(), time.thread_time(), waited

    def _tick(self) -> None:
        now = self._now()
        wall, cpu, waited = (now[i] - self._last[i] for i in range(3))
        late = max(0.0, wall - TICK)
        figures = self.phases[self._name]
        figures["ticks"] += 1
        figures["late"] = max(figures["late"], late)
        figures["cpu"] = max(figures["cpu"], cpu)
        figures["blocked"] = max(figures["blocked"], late - waited)
        self._last = now
        self._handle = asyncio.get_running_loop().call_later(TICK, self._tick)


def phase(name: str) -> None:
    """Tell the probe of this process's loop, if there is one, that phase `name` begins."""
    for probe in _running:
        probe.phase(name)


@contextlib.asynccontextmanager
async def probe_from_env() -> AsyncIterator[None]:
    """Probe the running loop while the block runs if CFNET_LOOP_PROBE names a file (taken
    out of the environment: the processes started meanwhile are not probed); write the
    figures there at its end."""
    target = os.environ.pop(PROBE_VARIABLE, None)
    if not target:
        yield
        return
    probe = LoopProbe()
    probe.start()
    _running.append(probe)
    try:
        yield
    finally:
        _running.remove(probe)
        probe.stop()
        report = {
            name: {**figures, "longest": probe.longest.get(name, "")}
            for name, figures in probe.phases.items()
        }
        Path(target).write_text(json.dumps(report), encoding="utf-8")
