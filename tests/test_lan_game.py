"""Complete games between real `cfnet` processes on 127.0.0.1: the table is found by real mDNS,
played over real TCP links; every peer's log is byte-identical and `cfnet verify` accepts it."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

from lan_helpers import (
    CFNET,
    LOOPBACK,
    Peer,
    cfnet_tables_until,
    cfnet_verify,
    same_logs,
    start_all,
    table_peers,
    unique,
    wait_all,
    wait_until,
)

from cfnet.protocol.wire import TABLE


def test_four_processes_find_the_table_by_mdns_and_play_it(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "lan-four", rounds=2)
    start_all(peers)
    assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    entries = same_logs(peers)
    assert entries[0].kind == TABLE
    verdict = cfnet_verify(peers[0].log_path())
    assert verdict.returncode == 0, verdict.stdout
    assert "round 2: " in verdict.stdout and "\ntotal " in verdict.stdout
    for peer in peers:
        text = peer.output()
        assert "verified: the log is a complete, valid game" in text
        assert "Traceback" not in text and "Exception" not in text, text
    seats = sorted(peer.meta().seat for peer in peers)
    assert seats == [0, 1, 2, 3]
    assert all(peer.meta().finished for peer in peers)


def test_host_starts_its_computer_players_which_join_by_address(tmp_path: Path) -> None:
    host = Peer(
        tmp_path / "host",
        ["host", "--name", "lan-bots", "--seats", "3", "--rule", "rounds=1", "--bots", "2",
         "--interface", LOOPBACK, "--strategy", "random", "--code", "open sesame"],
    )  # fmt: skip
    host.start()
    assert wait_all([host]) == [0], host.output()
    bot_logs = sorted((tmp_path / "host" / "bots").glob("bot*/tables/*/table.cflog"))
    assert len(bot_logs) == 2
    mine = host.log_path().read_bytes()
    assert all(path.read_bytes() == mine for path in bot_logs)
    said = host.output()
    assert "join code required" in said
    assert cfnet_verify(host.log_path()).returncode == 0
    # a computer seat's plain lines: the roster as it fills, the game's progress and its end
    for line in (
        r"^bot1 \([a-z2-7-]{19}\) sits in seat [12]$",
        r"^  seat 0: random-\w{4} \([a-z2-7-]{19}\)$",
        r"^  seat 2: \(free\)$",
        r"^  seat 2: bot[12] \([a-z2-7-]{19}\)$",
        r"^round 1: seat \d \(\S+\) starts$",
        r"^round 1: scores \[\d+, \d+, \d+\], totals \[\d+, \d+, \d+\]$",
        r"^game over: totals \[\d+, \d+, \d+\]; winners?: seat \d \(\S+\)",  # a tie: winners
        r"^log saved: .+table\.cflog \(\d+ entries\)$",
        r"^verified: the log is a complete, valid game \(every signature, shuffle, key, move and "
        r"round audit checked as it came\)$",
    ):
        assert re.search(line, said, re.MULTILINE), (line, said)


def test_a_wrong_join_code_is_refused(tmp_path: Path) -> None:
    name = unique("lan-code")
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "2", "--rule", "rounds=1", "--code", "right",
         "--interface", LOOPBACK, "--strategy", "greedy", "--port", "0"],
    )  # fmt: skip
    host.start()
    try:
        wrong = subprocess.run(
            [*CFNET, "bot", "--table", name, "--code", "wrong", "--interface", LOOPBACK,
             "--home", str(tmp_path / "wrong")],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert wrong.returncode == 1
        assert "wrong join code" in wrong.stderr or "closed our link" in wrong.stderr
        right = Peer(
            tmp_path / "right",
            ["bot", "--table", name, "--code", "right", "--interface", LOOPBACK],
        )
        right.start()
        assert wait_all([host, right]) == [0, 0], host.output()
        same_logs([host, right])
    finally:
        host.kill()


def test_the_table_is_listed_and_a_player_may_leave_before_the_start(tmp_path: Path) -> None:
    name = unique("lan-leave")
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "3", "--rule", "rounds=1", "--interface", LOOPBACK,
         "--strategy", "greedy"],
    )  # fmt: skip
    bot_args = ["bot", "--table", name, "--interface", LOOPBACK]
    leaver, *stayers = (Peer(tmp_path / f"bot{i}", bot_args) for i in range(3))
    host.start()
    try:
        wait_until(lambda: "open on" in host.output(), what="the table to open")
        listing = asyncio.run(cfnet_tables_until(lambda out: name in out))
        (row,) = [line for line in listing.splitlines() if line.startswith(name)]
        assert " 1/3 " in row and f"{LOOPBACK}:" in row
        leaver.start()
        wait_until(lambda: "sits in seat 1" in host.output(), what="the first joiner to sit")
        leaver.kill()
        wait_until(lambda: "left the table" in host.output(), what="the host to see it leave")
        for peer in stayers:
            peer.start()
        assert wait_all([host, *stayers]) == [0, 0, 0], host.output()
    finally:
        for peer in (host, leaver, *stayers):
            peer.kill()
    same_logs([host, *stayers])
    assert not list(leaver.home.glob("tables/*"))
