"""Child processes a command starts (computer players): each out of reach of the command's
Ctrl-C (the command stops them) and, on Linux, told by the kernel to exit should the command
die (cfnet.seat.spawn); `Children.stop()` leaves none behind. `Children.start_bot` is the one
way a computer player's `cfnet bot` process is started (by `cfnet host --bots`, the lobby screen
and the demo), `Children.resume_bot` the one way it is started again (by `cfnet resume`).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfnet.disk.store import load_identity, prepare_home
from cfnet.game.expert_bot import DEFAULT_THINK
from cfnet.lang import _, digits
from cfnet.seat.signals import signal_name
from cfnet.seat.spawn import child_options

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
        values = {"name": self.name, "pid": self.process.pid, "code": code}
        if code < 0:
            how = _("computer player {name} (process {pid}) was killed by signal {signal}")
            values["signal"] = signal_name(-code)
        else:
            how = _("computer player {name} (process {pid}) stopped with exit code {code}")
        line = how.format(**values)
        tail = self.tail()
        return _("{line}; its last output:").format(line=line) + f"\n{tail}" if tail else line


@dataclass(frozen=True, slots=True)
class BotConfig:
    """A computer player's `cfnet bot` process: its name, its own state directory, strategy
    and thinking budget; the table at `connect` (HOST, PORT), or by `table` name on the LAN
    (looked for `wait` s, on `interface`); the join code. `seed`: the demo's bot, whose secrets
    derive from it (cfnet.cli.demo_bot)."""

    name: str
    home: Path
    strategy: str = "greedy"
    think: float = DEFAULT_THINK
    rollouts: int | None = None
    connect: tuple[str, int] | None = None
    table: str | None = None
    wait: float | None = None
    interface: str | None = None
    code: str | None = None
    seed: int | None = None

    def command(self) -> list[str]:
        """The process's command line."""
        program = ["cfnet", "bot"] if self.seed is None else ["cfnet.cli.demo_bot", str(self.seed)]
        command = [sys.executable, "-m", *program, "--strategy", self.strategy]
        command += ["--home", str(self.home), "--player", self.name, f"--think={self.think}"]
        command += [] if self.rollouts is None else [f"--rollouts={self.rollouts}"]
        if self.connect is not None:
            command += ["--connect", f"{self.connect[0]}:{self.connect[1]}"]
        command += [] if self.table is None else ["--table", self.table]
        command += [] if self.wait is None else ["--wait", str(self.wait)]
        command += [] if self.interface is None else ["--interface", self.interface]
        return command + ([] if self.code is None else ["--code", self.code])


class Children:
    """A command's child processes: started in their own session (Ctrl-C reaches the demo only,
    which stops them), each told to exit should the demo die; `stop()` leaves none behind."""

    def __init__(self) -> None:
        self.children: list[Child] = []
        self._options = child_options()

    def start(self, name: str, command: Sequence[str], output: Path) -> Child:
        with open(output, "wb") as out:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                **self._options,
            )
        child = Child(name, process, output)
        self.children.append(child)
        return child

    def start_bot(self, bot: BotConfig) -> tuple[Child, bytes]:
        """Start the computer player `bot` (its output in its home's output.txt); the child
        and its identity key, made here first so that its seat is known as a computer's."""
        key = load_identity(prepare_home(bot.home)).public
        return self.start(bot.name, bot.command(), bot.home / "output.txt"), key

    def resume_bot(self, home: Path, table_id: bytes, interface: str | None) -> Child:
        """Start again, by `cfnet resume`, the computer player kept in `home` at the unfinished
        table `table_id` (its output in its home's resume-output.txt)."""
        command = [sys.executable, "-m", "cfnet", "resume", "--home", str(home)]
        command += ["--table", table_id.hex()]
        command += [] if interface is None else ["--interface", interface]
        return self.start(home.name, command, home / "resume-output.txt")

    def failed(self) -> str | None:
        """What went wrong if a child has exited with an error, else None."""
        for child in self.children:
            code = child.process.poll()
            if code:
                return child.failure(code)
        return None

    def wait(self, timeout: float, fine: frozenset[int] = frozenset({0})) -> str | None:
        """Wait until every child has exited; what went wrong (an exit status not in `fine`, a
        child that did not exit), if anything."""
        until = time.monotonic() + timeout
        for child in self.children:
            try:
                code = child.process.wait(max(0.0, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                stuck = _("computer player {name} (process {pid}) did not exit")
                return stuck.format(name=child.name, pid=digits(child.process.pid))
            if code not in fine:
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
