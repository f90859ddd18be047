"""Helpers for the LAN tests: real `cfnet` processes on 127.0.0.1 (mDNS and TCP), each with
its own state directory; their logs, compared byte for byte and verified by `cfnet verify`."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cfnet.disk.store import TableMeta, list_tables
from cfnet.record.entry import Entry
from cfnet.record.logfile import read_log

LOOPBACK = "127.0.0.1"
CFNET = [sys.executable, "-m", "cfnet"]
GAME_TIMEOUT = 180.0  # generous: a loaded 2-core machine must not fail
LISTING_TIMEOUT = 60.0


@dataclass
class Peer:
    """One `cfnet` process: its state directory and its output file (stdout + stderr)."""

    home: Path
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    runs: int = 0

    @property
    def output_path(self) -> Path:
        return self.home.with_suffix(f".out{self.runs}")

    def start(self, args: Sequence[str] | None = None) -> None:
        """Start (or, after a kill, start again with `args`) this peer's process."""
        self.runs += 1
        self.home.mkdir(parents=True, exist_ok=True)
        command = [*CFNET, *(self.args if args is None else args), "--home", str(self.home)]
        with open(self.output_path, "wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )

    def wait(self, timeout: float = GAME_TIMEOUT) -> int:
        assert self.process is not None
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"{self.args[0]} did not finish: {self.output()}") from None

    def output(self) -> str:
        """Everything every run of this peer printed."""
        runs = [self.home.with_suffix(f".out{i}") for i in range(1, self.runs + 1)]
        return "\n".join(p.read_text(errors="replace") for p in runs if p.exists())

    def meta(self) -> TableMeta:
        (meta,) = list_tables(self.home, include_finished=True)
        return meta

    def _logs(self) -> list[Path]:
        """The table logs in this peer's home (not one still being built under `ID.new`)."""
        return [p for p in self.home.glob("tables/*/table.cflog") if p.parent.suffix != ".new"]

    def log_path(self) -> Path:
        (path,) = self._logs()
        return path

    def log_size(self) -> int:
        paths = self._logs()
        return paths[0].stat().st_size if paths else 0

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def lobby_port(host: Peer) -> int:
    """The lobby port a host printed (`table 'x' open on 127.0.0.1:PORT ...`); 0 before."""
    found = re.search(rf"open on {re.escape(LOOPBACK)}:(\d+)", host.output())
    return int(found.group(1)) if found else 0


def unique(name: str) -> str:
    """`name` made unique to this test run: other runs may share the loopback mDNS."""
    return f"{name}-{os.getpid()}-{os.urandom(3).hex()}"


def table_peers(
    tmp: Path,
    name: str,
    seats: int = 4,
    rounds: int = 1,
    timeout: int = 60,
    env: Sequence[dict[str, str]] = (),
) -> list[Peer]:
    """A host and `seats - 1` bots that find its table by mDNS (not started yet); the table's
    name is `name` made unique."""
    name = unique(name)
    common = ["--interface", LOOPBACK, "--strategy", "greedy"]
    host = [
        "host", "--name", name, "--seats", str(seats), "--rule", f"rounds={rounds}",
        "--timeout", str(timeout), *common,
    ]  # fmt: skip
    bot = ["bot", "--table", name, *common]
    peers = [Peer(tmp / "h0", host)] + [Peer(tmp / f"h{i}", bot) for i in range(1, seats)]
    for peer, extra in zip(peers, env, strict=False):
        peer.env = dict(extra)
    return peers


def start_all(peers: Sequence[Peer]) -> None:
    for peer in peers:
        peer.start()


def wait_all(peers: Sequence[Peer]) -> list[int]:
    """Every peer's exit code. Their whole outputs go to the captured stdout, which pytest
    shows in full for a failing test (an assertion message is cut in the middle)."""
    try:
        return [peer.wait() for peer in peers]
    finally:
        for peer in peers:
            peer.kill()
        for peer in peers:
            print(f"===== {peer.home.name} ({' '.join(peer.args[:1])})\n{peer.output()}")


def wait_until(predicate: object, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll `predicate()` (a callable) every 20 ms until it holds."""
    assert callable(predicate)
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


async def cfnet_tables_until(
    wanted: Callable[[str], bool], *options: str, timeout: float = LISTING_TIMEOUT
) -> str:
    """`cfnet tables --interface 127.0.0.1 [options]`, run again until its output is `wanted`
    (mDNS answers may be slow on a busy machine: no fixed window); that output."""
    end = time.monotonic() + timeout
    while True:
        cli = await asyncio.create_subprocess_exec(
            *CFNET, "tables", "--interface", LOOPBACK, "--wait", "2", *options,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(cli.communicate(), timeout)
        assert cli.returncode == 0, err.decode()
        if wanted(out.decode()):
            return out.decode()
        if time.monotonic() > end:
            raise AssertionError(f"cfnet tables did not list it within {timeout:g} s:\n{out!r}")


def same_logs(peers: Sequence[Peer]) -> list[Entry]:
    """Every peer's log is byte-identical; returns its entries."""
    data = [peer.log_path().read_bytes() for peer in peers]
    for peer, blob in zip(peers, data, strict=True):
        assert blob == data[0], f"{peer.home.name}'s log differs: {peer.output()}"
    return read_log(peers[0].log_path())


def cfnet_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CFNET, "verify", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
