"""A fake host with its own key, the real table's id and its players' names feeds `cfnet watch`
a game it made up (keys of its own at every seat). The watcher refuses it in one line, showing
nothing of the game, when the fake's key is not seat 0's in the table entry it sent, or when
the person pinned the real host with --fingerprint. A fake that signed the made-up table entry
itself and is not pinned is shown with every seat's key: not the real players' keys."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

import pytest
from lan_helpers import CFNET, LOOPBACK, lobby_port, start_all, table_peers, wait_until

from adversary.fake_host import FakeHost, entry_frames, fake_host, made_up_game, real_genesis
from cfnet.protocol.genesis import parse_genesis
from cfnet.record.entry import Entry
from cfnet.record.identity import Identity, fingerprint

KEY = r"[a-z2-7]{4}(?:-[a-z2-7]{4}){3}"


def real_table(tmp_path: Path) -> tuple[Entry, str]:
    """A real table (a host and a bot) once its game has started: its table entry, as any
    watcher reads it, and the host's key fingerprint as the host printed it."""
    peers = table_peers(tmp_path, "real", seats=2, rounds=4, timeout=60)
    start_all(peers)
    host = peers[0]
    try:
        wait_until(lambda: host.log_size() > 0, timeout=120, what="the real game to start")
        real = asyncio.run(real_genesis(lobby_port(host)))
    finally:
        for peer in peers:
            peer.kill()
    printed = re.search(rf"you sit in seat 0 as \S+ \(({KEY})\)", host.output())
    assert printed is not None, host.output()
    return real, printed[1]


def watch(port: int, home: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CFNET, "watch", "--connect", f"{LOOPBACK}:{port}", "--plain", "--home", str(home),
         *more],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("variant", ["another key in seat 0", "pinned", "its own key"])
def test_a_fake_host_of_a_real_table_is_refused_or_shown_with_its_keys(
    tmp_path: Path, variant: str
) -> None:
    real, real_key = real_table(tmp_path)
    names = [seat.name for seat in parse_genesis(real.wire)[4]]
    fake = Identity.generate()
    seat0 = Identity.generate() if variant == "another key in seat 0" else fake
    game = made_up_game(real, seat0, seed=5)
    assert game[0].table_id == real.table_id
    assert [seat.name for seat in parse_genesis(game[0].wire)[4]] == names

    async def run() -> tuple[int, subprocess.CompletedProcess[str]]:
        served = FakeHost(fake, real.table_id, lambda: entry_frames(e.wire for e in game))
        async with fake_host(served) as port:
            pin = ["--fingerprint", real_key] if variant == "pinned" else []
            return port, await asyncio.to_thread(watch, port, tmp_path / "watcher", *pin)

    port, done = asyncio.run(run())
    if variant == "its own key":  # a check left to the person: the keys are shown, not theirs
        assert done.returncode == 0, done.stdout + done.stderr
        seat0_line = re.search(rf"seat 0: {re.escape(names[0])} ({KEY}) \(the host\)", done.stdout)
        assert seat0_line is not None, done.stdout
        assert seat0_line[1] == fingerprint(fake.public) != real_key
        return
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    if variant == "pinned":
        assert line == (
            f"cfnet watch: the host at {LOOPBACK}:{port} has the key "
            f"{fingerprint(fake.public)}, not {real_key} (--fingerprint): it is not the host you "
            "named; nothing was watched"
        )
    else:
        assert line == (
            f"cfnet watch: the host has the key {fingerprint(fake.public)}, but seat 0 "
            f"({names[0]}) of the table it sent has the key {fingerprint(seat0.public)}: it is "
            "not that table's host, and nothing it sends is shown"
        )
    assert "valid" not in done.stdout and "wins" not in done.stdout, done.stdout
    assert "seat 0:" not in done.stdout  # not even the made-up table's seats
