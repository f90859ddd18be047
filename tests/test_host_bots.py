"""The computer players `cfnet host --bots K` starts end with it, at once, however it ends: a
person leaving the lobby, Ctrl-C, SIGTERM (kill), SIGHUP (a closed terminal), SIGKILL. Real
processes on 127.0.0.1: the host, its `cfnet bot` children seated in its lobby."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
from pathlib import Path

import pytest
from lan_helpers import LOOPBACK, Peer, unique, wait_until

GONE_WITHIN = 15.0  # far above the few tenths of a second it takes; far below the old 75 s


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """`pid` is running (a zombie, ended but not yet reaped, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def host_args(name: str, *extra: str) -> list[str]:
    return [
        "host", "--name", name, "--seats", "4", "--bots", "2", "--rule", "rounds=1",
        "--interface", LOOPBACK, *extra,
    ]  # fmt: skip


def assert_gone(bots: list[int], what: str) -> None:
    try:
        wait_until(lambda: not any(alive(pid) for pid in bots), GONE_WITHIN, what)
    finally:
        for pid in bots:  # never leave one behind, even when the test fails
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    ("signum", "status"),
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130), (signal.SIGKILL, -9)],
    ids=["SIGTERM", "SIGHUP", "SIGINT", "SIGKILL"],
)
def test_the_bots_end_with_the_host_however_it_is_stopped(
    tmp_path: Path, signum: int, status: int
) -> None:
    host = Peer(tmp_path / "host", host_args(unique("bots-end"), "--strategy", "greedy"))
    host.start()
    assert host.process is not None
    try:
        wait_until(lambda: "sits in seat 2" in host.output(), 60, "both bots to sit")
        bots = children_of(host.process.pid)
        assert len(bots) == 2, host.output()
        host.process.send_signal(signum)
        assert host.wait(GONE_WITHIN) == status, host.output()
        assert_gone(bots, f"the bots to end after {signal.Signals(signum).name}")
    finally:
        host.kill()
    if signum != signal.SIGKILL:
        assert "Traceback" not in host.output(), host.output()
        said = host.output().splitlines()[-1]
        assert said.startswith("cfnet host: ") and ("stopped by" in said or "interrupted" in said)


@pytest.mark.parametrize("where", ["lobby", "game"])
def test_a_person_who_quits_takes_the_bots_along(tmp_path: Path, where: str) -> None:
    """The person types `quit` in the lobby (both computer players seated, a seat free), or in
    the game screen (and confirms): the host ends at once, and so do they."""
    home = tmp_path / "person"
    argv = host_args(unique(f"bots-{where}"), "--home", str(home), "--player", "Person")
    if where == "game":
        argv[argv.index("--seats") + 1] = "3"  # the two bots fill the table: the game starts
    pid, fd = pty.fork()
    if pid == 0:  # the child: cfnet host on the terminal
        os.environ.update({"NO_COLOR": "1", "TERM": "xterm"})
        os.execv(sys.executable, [sys.executable, "-m", "cfnet", *argv])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    seen = b""
    try:
        bots: list[int] = []

        def read() -> None:
            nonlocal seen
            if select.select([fd], [], [], 0.05)[0]:
                with contextlib.suppress(OSError):  # the terminal closed
                    seen += os.read(fd, 1 << 16)

        def ready() -> bool:
            read()
            bots[:] = children_of(pid)
            if where == "game":  # the status bar, its unchanged cells skipped by cursor moves
                shown = re.sub(rb"\x1b\[(\d*)C", lambda m: b" " * int(m[1] or 1), seen)
                return len(bots) == 2 and "· yard ".encode() in shown
            said = [home / "bots" / f"bot{i}" / "output.txt" for i in (1, 2)]
            rosters = [p.read_text() if p.exists() else "" for p in said]
            return len(bots) == 2 and all("bot1 (" in r and "bot2 (" in r for r in rosters)

        wait_until(ready, 60, f"the {where} with both bots seated")
        os.write(fd, b"quit\r" + (b"y\r" if where == "game" else b""))  # y: yes, leave

        def host_ended() -> bool:
            read()
            return os.waitpid(pid, os.WNOHANG)[0] == pid

        wait_until(host_ended, GONE_WITHIN, f"the host to end: {seen[-2000:]!r}")
        assert_gone(bots, f"the bots to end after the person left the {where}")
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


def test_after_a_finished_game_the_bots_finish_too(tmp_path: Path) -> None:
    host = Peer(
        tmp_path / "host",
        ["host", "--name", unique("bots-finish"), "--seats", "3", "--bots", "2",
         "--rule", "rounds=1", "--interface", LOOPBACK, "--strategy", "greedy"],
    )  # fmt: skip
    host.start()
    try:
        assert host.wait() == 0, host.output()
    finally:
        host.kill()
    logs = sorted((tmp_path / "host").glob("bots/bot*/tables/*/table.cflog"))
    assert len(logs) == 2 and all(p.read_bytes() == host.log_path().read_bytes() for p in logs)
    outputs = [p.read_text() for p in (tmp_path / "host").glob("bots/bot*/output.txt")]
    assert len(outputs) == 2 and all("Traceback" not in text for text in outputs)
