"""The signals that stop a seat as Ctrl-C does, and how the running event loop hears of them.

POSIX systems (Linux, macOS): SIGTERM (a kill) and SIGHUP (the terminal closed), through the
loop's `add_signal_handler`. Windows has no SIGHUP and its event loops no `add_signal_handler`
(NotImplementedError): there SIGTERM and SIGBREAK (Ctrl-Break) are caught with `signal.signal`,
whose handler hands the signal to the loop (`call_soon_threadsafe`). A signal the system lacks
is left out."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterable
from functools import partial

STOP_SIGNAL_NAMES = ("SIGTERM", "SIGHUP", "SIGBREAK")


def stop_signals() -> tuple[int, ...]:
    """The signals of STOP_SIGNAL_NAMES this system has."""
    return tuple(int(getattr(signal, name)) for name in STOP_SIGNAL_NAMES if hasattr(signal, name))


def signal_name(signum: int) -> str:
    """`SIGTERM` for 15, as the system names it (the number for one it does not name)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


def catch(signals: Iterable[int], callback: Callable[[int], None]) -> Callable[[], None]:
    """Have each of `signals` call `callback(signum)` in the running loop, on the loop's
    thread; returns the function that puts back what was there before."""
    loop = asyncio.get_running_loop()
    undo: list[Callable[[], object]] = []

    def handed(signum: int, _frame: object) -> None:
        loop.call_soon_threadsafe(callback, signum)

    for signum in signals:
        try:
            loop.add_signal_handler(signum, callback, signum)
            undo.append(partial(loop.remove_signal_handler, signum))
        except NotImplementedError:  # Windows' event loops
            before = signal.signal(signum, handed)
            restore = signal.SIG_DFL if before is None else before
            undo.append(partial(signal.signal, signum, restore))

    def release() -> None:
        for step in reversed(undo):
            step()

    return release
