"""A person plays a LAN game in the real game screen: `cfnet host` on a pseudo-terminal, with
two computer players it starts (`--bots 2`, each a `cfnet bot` process on 127.0.0.1). The
"person" types the first listed move now and then, and Enter once the game is over."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import pty
import re
import select
import struct
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from lan_helpers import LOOPBACK, Peer, cfnet_verify, unique

from cfnet.record.logfile import read_log
from cfnet.seat.process import log_file

Typist = Callable[[bytes, int], bytes]
"""What the person types next (nothing: b""), from the screen so far and how many lines were
typed."""


def _plays_to_the_end(seen: bytes, typed: int) -> bytes:
    return b"\r" if b"Press Enter to leave" in seen else b"1\r"


def _play_on_a_terminal(
    argv: list[str],
    timeout: float = 60.0,
    typist: Typist = _plays_to_the_end,
    env: dict[str, str] | None = None,
) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: cfnet on the terminal
        os.environ.update({"NO_COLOR": "1", "TERM": "xterm", **(env or {})})
        os.execv(sys.executable, [sys.executable, "-m", "cfnet", *argv])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    seen = b""
    end = time.monotonic() + timeout
    typed, lines = 0.0, 0
    try:
        while time.monotonic() < end:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                seen += _rest(fd)
                return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(fd, 1 << 16)
                except OSError:
                    continue
            if time.monotonic() - typed > 0.1:
                typed = time.monotonic()
                keys = typist(seen, lines)
                if keys:
                    os.write(fd, keys)
                    lines += 1
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError(f"the game screen did not finish: {seen[-3000:]!r}")
    finally:
        os.close(fd)


def _rest(fd: int) -> bytes:
    """What the terminal still holds once the process has ended."""
    rest = b""
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # the terminal is closed: all was read
            break
        if not chunk:
            break
        rest += chunk
    return rest


def test_a_person_hosts_and_plays_in_the_game_screen(tmp_path: Path) -> None:
    """With --verbose, link events are logged to HOME/client.log, not over the screen."""
    home = tmp_path / "person"
    argv = [
        "host", "--name", unique("lan-screen"), "--seats", "3", "--rule", "rounds=1",
        "--bots", "2", "--interface", LOOPBACK, "--home", str(home), "--player", "Person",
        "--verbose",
    ]  # fmt: skip
    code, screen = _play_on_a_terminal(argv)
    assert code == 0, screen[-3000:]
    assert "Game over" in screen
    assert "cfnet: link " not in screen  # nothing logged over the screen
    assert "link " in (home / "client.log").read_text()
    assert f"cfnet: messages were logged in {home / 'client.log'}" in screen
    (log,) = home.glob("tables/*/table.cflog")
    bots = sorted(home.glob("bots/bot*/tables/*/table.cflog"))
    assert len(bots) == 2 and all(path.read_bytes() == log.read_bytes() for path in bots)
    assert cfnet_verify(log).returncode == 0


def test_the_screen_stays_live_during_an_eight_seat_set_up(tmp_path: Path) -> None:
    """A person's game screen at an 8-seat table (7 computer players, each a process): while
    every hop proof of the set-up is made and checked, and the round is played and audited,
    no callback keeps the screen's event loop from the others for more than 50 ms (the table's
    work runs on a thread of its own). Measured for each callback in CPU time of the loop's
    thread, which neither other processes on a busy machine nor a late timer add to, with the
    deck's work on one thread (CFNET_THREADS=1), so that any of it done on the loop's thread
    counts in full (with the deck's threads, the loop's thread would wait for their share,
    using no CPU)."""
    home, probe = tmp_path / "person", tmp_path / "loop.json"
    argv = [
        "host", "--name", unique("lan-lag"), "--seats", "8", "--rule", "rounds=1",
        "--bots", "7", "--interface", LOOPBACK, "--home", str(home), "--player", "Person",
    ]  # fmt: skip
    env = {"CFNET_LOOP_PROBE": str(probe), "CFNET_THREADS": "1"}
    code, screen = _play_on_a_terminal(argv, 300, env=env)
    assert code == 0, screen[-3000:]
    assert "Game over" in screen
    phases = json.loads(probe.read_text())
    logging.info("the screen's loop: %s", phases)
    figures = phases["game"]
    assert figures["ticks"] > 100  # the probe ran through the game
    assert 0 < figures["callback"] < 0.050, phases
    (log,) = home.glob("tables/*/table.cflog")
    assert cfnet_verify(log).returncode == 0


def test_a_person_who_quits_resigns_and_the_game_goes_on_for_the_others(tmp_path: Path) -> None:
    """`quit`, `y` in the game screen, with another peer's player at the table: the host's seat
    posts a signed `resign` at its turn; the computer player it started and the other peer go
    on at once (not after the 120 s deadline), deal the round again between them and finish
    the game with the same log, of which the person's is the start; `verify` reports the
    departure and blames nobody."""
    home, name = tmp_path / "person", unique("lan-resign")
    argv = [
        "host", "--name", name, "--seats", "3", "--rule", "rounds=2", "--bots", "1",
        "--interface", LOOPBACK, "--home", str(home), "--player", "Person",
    ]  # fmt: skip
    other = Peer(tmp_path / "other", ["bot", "--table", name, "--interface", LOOPBACK])
    other.start()

    def quits_after_a_few_moves(seen: bytes, typed: int) -> bytes:
        if b"Your turn" not in seen:
            return b""
        if typed < 6:
            return b"1\r"
        return b"quit\r" if typed == 6 else b"y\r" if typed == 7 else b""

    try:
        code, screen = _play_on_a_terminal(argv, timeout=100, typist=quits_after_a_few_moves)
        assert code == 0, screen[-3000:]
        assert other.wait() == 0, other.output()
    finally:
        other.kill()
    # "Leaving: your resignation is signed ..." shows only until the resignation is posted, which
    # the table's own thread may do before the screen is drawn again; what stays is this line:
    assert "the computer players finish the game without you" in screen
    (log,) = home.glob("tables/*/table.cflog")
    (bot,) = home.glob("bots/bot*/tables/*/table.cflog")
    assert bot.read_bytes() == other.log_path().read_bytes()
    mine, theirs = read_log(log), read_log(bot)
    resign = next(e for e in theirs if e.kind == "resign")
    assert resign.seat == 0 and [e.wire for e in mine] == [e.wire for e in theirs[: len(mine)]]
    assert len(mine) > resign.seq  # the person's log holds its resignation
    verdict = cfnet_verify(bot)
    assert verdict.returncode == 0, verdict.stdout  # the game the others finished
    assert re.search(
        rf"^departure: entry {resign.seq}: seat 0 \(Person\) resigned: round \d is dealt again",
        verdict.stdout,
        re.M,
    ), verdict.stdout
    assert "to blame" not in verdict.stdout


def test_a_person_who_leaves_only_computer_players_finds_them_waiting_on_resume(
    tmp_path: Path,
) -> None:
    """The host's person quits a game whose other seats are the computer players it started:
    they stop too, and cfnet says the game waits (not that it goes on); `cfnet resume` starts
    them again with the person, who is dealt in again and plays the game to its end, with one
    log everywhere."""
    home, name = tmp_path / "person", unique("lan-wait")
    argv = [
        "host", "--name", name, "--seats", "3", "--rule", "rounds=3", "--bots", "2",
        "--interface", LOOPBACK, "--home", str(home), "--player", "Person",
    ]  # fmt: skip

    def quits_at_once(seen: bytes, typed: int) -> bytes:
        if b"Your turn" not in seen:
            return b""
        return b"quit\r" if typed == 0 else b"y\r" if typed == 1 else b""

    code, screen = _play_on_a_terminal(argv, timeout=100, typist=quits_at_once)
    assert code == 0, screen[-3000:]
    assert "your computer players stopped with you, and the game waits" in screen
    assert "goes on without you" not in screen
    bots = sorted(home.glob("bots/bot*/tables/*/table.cflog"))
    assert len(bots) == 2 and all("unfinished" in cfnet_verify(b).stdout for b in bots)

    resume = ["resume", "--table", name, "--home", str(home), "--interface", LOOPBACK]
    code, screen = _play_on_a_terminal(resume, timeout=200)
    assert code == 0, screen[-3000:]
    assert "Game over" in screen
    (log,) = home.glob("tables/*/table.cflog")
    assert all(bot.read_bytes() == log.read_bytes() for bot in bots)
    verdict = cfnet_verify(log)
    assert verdict.returncode == 0 and "valid: a complete game" in verdict.stdout, verdict.stdout
    assert re.search(r"^departure: entry \d+: seat 0 \(Person\) resigned", verdict.stdout, re.M)
    assert re.search(r"^return: entry \d+: seat 0 \(Person\) is back", verdict.stdout, re.M)


def test_the_log_file_is_named_at_the_end_only_if_something_was_logged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with log_file(tmp_path):
        logging.getLogger("cfnet.net").info("not logged: below the level")
    assert capsys.readouterr().err == ""
    with log_file(tmp_path, verbose=True):
        logging.getLogger("cfnet.net").info("link x closed: bye")
    assert capsys.readouterr().err == f"cfnet: messages were logged in {tmp_path / 'client.log'}\n"
    assert "link x closed: bye" in (tmp_path / "client.log").read_text()
