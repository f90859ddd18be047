"""What every seated command's process does around its asyncio loop: the checks before it,
where it logs, the loop itself (a stop signal, cfnet.seat.signals, ends it as Ctrl-C does) and
how a stop or a failure is said (exit status 130 or 128 + N, 2 for a usage error, 1 for any
other)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

from cfnet.disk.limits import keep_spare_descriptors
from cfnet.errors import UsageError, describe, exit_status
from cfnet.lang import _
from cfnet.net.faults import chaos_from_env
from cfnet.seat.config import PeerConfig
from cfnet.seat.loop_probe import probe_from_env
from cfnet.seat.signals import catch, signal_name, stop_signals

CLIENT_LOG = "client.log"


def setup(peer: PeerConfig) -> None:
    """A person's seat needs a terminal; the test-only CFNET_TEST_CHAOS must be well formed.
    File descriptors are set aside for the state directory (network floods cannot take them)."""
    chaos_from_env()
    keep_spare_descriptors()
    if peer.strategy is None and not (sys.stdin.isatty() and sys.stdout.isatty()):
        from cfnet.game.bots import BOT_STRATEGIES  # the engine: not before a joiner listens

        raise UsageError(
            _(
                "a person's seat needs a terminal for the game screen; give --strategy"
                " {strategies} for a computer seat"
            ).format(strategies="|".join(BOT_STRATEGIES))
        )


def seat_logging(peer: PeerConfig, home: Path) -> contextlib.AbstractContextManager[None]:
    """Where the seat logs (link events too with --verbose): stderr for a computer seat;
    HOME/client.log for a person's, whose terminal the screens own."""
    if peer.strategy is None:
        return log_file(home, peer.verbose)
    logging.basicConfig(
        level=logging.INFO if peer.verbose else logging.WARNING,
        format="cfnet: %(message)s",
        stream=sys.stderr,
    )
    return contextlib.nullcontext()


@contextlib.contextmanager
def log_file(home: Path, verbose: bool = False) -> Iterator[None]:
    """Log to HOME/client.log while a full screen owns the terminal (stderr would overwrite
    it); at the end, say where on stderr if anything was logged."""
    path = home / CLIENT_LOG
    size = path.stat().st_size if path.exists() else 0
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
        if path.stat().st_size > size:
            logged = _("cfnet: messages were logged in {file}").format(file=path)
            print(logged, file=sys.stderr, flush=True)


async def drain(timeout: float = 1.0) -> None:
    """Let the tasks of links just closed finish before the loop ends (asyncio.run would
    cancel them, and a cancelled server connection task is reported as an error)."""
    others = asyncio.all_tasks() - {asyncio.current_task()}
    if others:
        await asyncio.wait(others, timeout=timeout)


class Stopped(KeyboardInterrupt):
    """A stop signal (a kill, a closed terminal: cfnet.seat.signals) ended the loop, as Ctrl-C
    does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_loop(main: Coroutine[Any, Any, int]) -> int:
    """`asyncio.run(main)`, where a stop signal cancels `main` as Ctrl-C does, so that
    every cleanup runs (a table is withdrawn from mDNS, with goodbye packets); then `Stopped`.
    With CFNET_LOOP_PROBE set, the loop is probed meanwhile (cfnet.seat.loop_probe)."""
    received: list[int] = []

    async def guarded() -> int:
        task = asyncio.current_task()
        assert task is not None

        def stop(signum: int) -> None:
            received.append(signum)
            task.cancel()

        release = catch(stop_signals(), stop)
        try:
            async with probe_from_env():
                return await main
        finally:
            release()

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if received:
            raise Stopped(received[0]) from None
        raise


def interrupted(command: str, stop: KeyboardInterrupt) -> int:
    """Say how the command was stopped; 130 for Ctrl-C, 128 + N for signal N."""
    if isinstance(stop, Stopped):
        line = _(
            "cfnet {command}: stopped by {signal} (a game under way goes on with `cfnet resume`)"
        ).format(command=command, signal=signal_name(stop.signum))
        code = 128 + stop.signum
    else:
        line = _(
            "cfnet {command}: interrupted (a game under way goes on with `cfnet resume`)"
        ).format(command=command)
        code = 130
    print(line, file=sys.stderr, flush=True)
    return code


def failed(command: str, error: Exception) -> int:
    """Say `error` in one line; its exit status (2: usage, 1: any other failure)."""
    print(f"cfnet {command}: {describe(error)}", file=sys.stderr, flush=True)
    return exit_status(error)
