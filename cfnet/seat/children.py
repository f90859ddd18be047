"""Child processes a command starts (computer players): each in its own session (Ctrl-C
reaches only the command, which stops them), each told by the kernel to exit should the command
die (Linux); `Children.stop()` leaves none behind."""

from __future__ import annotations

import contextlib
import ctypes
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

STOP_WAIT = 3.0  # after SIGTERM, how long a child may take before it is killed


@dataclass
class Child:
    """One computer player's `cfnet bot` process and the file holding its output."""

    name: str
    process: subprocess.Popen[bytes]
    output: Path

    def tail(self, lines: int = 6) -> str:
        try:
            text = self.output.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join("    " + row for row in text.strip().splitlines()[-lines:])

    def failure(self, code: int) -> str:
        how = (
            f"was killed by signal {signal.Signals(-code).name}"
            if code < 0
            else f"stopped with exit code {code}"
        )
        tail = self.tail()
        said = f"; its last output:\n{tail}" if tail else ""
        return f"computer player {self.name} (process {self.process.pid}) {how}{said}"


def _die_with_parent() -> Callable[[], None] | None:
    """Linux: a function for `preexec_fn` that has the child get SIGTERM if the demo dies."""
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


class Children:
    """The demo's child processes: started in their own session (Ctrl-C reaches the demo only,
    which stops them), each told to exit should the demo die; `stop()` leaves none behind."""

    def __init__(self) -> None:
        self.children: list[Child] = []
        self._arm = _die_with_parent()

    def start(self, name: str, command: Sequence[str], output: Path) -> Child:
        with open(output, "wb") as out:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=self._arm,  # only a prctl call, looked up before the fork
            )
        child = Child(name, process, output)
        self.children.append(child)
        return child

    def failed(self) -> str | None:
        """What went wrong if a child has exited with an error, else None."""
        for child in self.children:
            code = child.process.poll()
            if code:
                return child.failure(code)
        return None

    def wait(self, timeout: float) -> str | None:
        """Wait until every child has exited; what went wrong, if anything."""
        until = time.monotonic() + timeout
        for child in self.children:
            try:
                code = child.process.wait(max(0.0, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                return f"computer player {child.name} (process {child.process.pid}) did not exit"
            if code:
                return child.failure(code)
        return None

    def stop(self) -> None:
        """Terminate every child still running (kill those that do not exit) and reap them."""
        alive = [c.process for c in self.children if c.process.poll() is None]
        for process in alive:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        until = time.monotonic() + STOP_WAIT
        for process in alive:
            try:
                process.wait(max(0.0, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
