"""What mDNS lists on 127.0.0.1: a host whose name is long in UTF-8 bytes stays visible (its
name cut to fit the TXT record), and a table of another network version is listed as such."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
from pathlib import Path

import pytest
from lan_helpers import Peer, cfnet_tables_until, unique
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth

from cfnet.cli.commands.tables import listing
from cfnet.game.rules import RuleOptions
from cfnet.net.discovery import MAX_NAME_BYTES, Discovery, TableInfo, fit_name
from cfnet.net.joining import join_table
from cfnet.net.lobby import HostLobby, check_player
from cfnet.record.identity import Identity
from cfnet.ui.browser import BrowserScreen
from cfnet.ui.page import Terminal

LOOPBACK = "127.0.0.1"
HOST = Identity.from_seed(b"\x05" * 32)
LONG = "名前" * 20  # 40 characters (a valid player name), 120 UTF-8 bytes


def test_fit_name_cuts_at_a_character_boundary() -> None:
    assert check_player(LONG) == LONG
    assert fit_name("alice") == "alice" and fit_name("é" * 20) == "é" * 20  # 40 bytes: as is
    cut = fit_name(LONG)
    assert cut == "名前" * 6 + "…" and len(cut.encode()) == 39  # 36 + 3 bytes
    assert fit_name("ab" + "é" * 20) == "ab" + "é" * 17 + "…"  # 2 + 34 + 3 bytes
    assert fit_name("a" * 36 + " bcde") == "a" * 36 + "…"  # no space before the mark
    assert all(len(fit_name("é" * n).encode()) <= MAX_NAME_BYTES for n in range(1, 41))


async def _listings() -> tuple[TableInfo, TableInfo, str]:
    table_id = os.urandom(16)
    async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
        lobby = HostLobby(
            HOST,
            hosting,
            name="Zoë's table",
            player=LONG,
            seats=3,
            options=RuleOptions(rounds=2),
            timeout=60,
            code=None,
            interface=LOOPBACK,
            say=lambda text: None,
        )
        await lobby.open()
        future = TableInfo(
            "Future", table_id, "bob", HOST.fingerprint, RuleOptions(), 4, 1, False, port=9
        )
        await hosting.advertise(dataclasses.replace(future, version=7), [LOOPBACK])
        browser = looking.browse()
        try:
            long = await browser.wait_for(lambda t: t.table_id == lobby.table_id, 30)
            other = await browser.wait_for(lambda t: t.table_id == table_id, 30)
            out = await cfnet_tables_until(lambda out: "Zoë's table" in out and "Future" in out)
        finally:
            await lobby.close()
    return long, other, out


def test_a_long_host_name_and_another_version_are_listed() -> None:
    long, other, listing = asyncio.run(_listings())
    assert long.name == "Zoë's table" and long.host == fit_name(LONG)
    assert long.incompatible is None
    assert other.version == 7 and other.incompatible == "needs cfnet protocol v7"
    lines = listing.splitlines()
    zoe = next(i for i, line in enumerate(lines) if line.startswith("Zoë's table  "))
    assert lines[zoe].split()[-3:-1] == ["60", "s"]  # the table's timeout
    assert lines[zoe + 1] == f"    host {fit_name(LONG)} · key {HOST.fingerprint}"
    future = next(i for i, line in enumerate(lines) if line.startswith("Future  "))
    assert lines[future].split()[2] == "?"  # no timeout advertised
    assert lines[future + 3] == "    cannot be joined: needs cfnet protocol v7"
    assert max(get_cwidth(line) for line in lines) <= 80


def test_the_listing_fits_80_columns_at_its_widest() -> None:
    widest = TableInfo(
        "W" * 40,
        bytes(16),
        "名前" * 20,
        HOST.fingerprint,
        RuleOptions(rounds=10, start_trains=None, double_blank_50=True),
        8,
        8,
        True,
        "255.255.255.255",
        65535,
        version=7,
        timeout=86400,
    )
    lines = listing([widest, dataclasses.replace(widest, name="名" * 13, host="h" * 40)])
    assert len(lines) == 1 + 2 * 4
    assert max(get_cwidth(line) for line in lines) <= 80, "\n".join(lines)


async def _seat_counts_seen() -> list[str]:
    """The seat counts a browser lists while a guest joins a 3-seat table and leaves at once."""
    async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
        lobby = HostLobby(
            HOST,
            hosting,
            name="Comings and goings",
            player="host",
            seats=3,
            options=RuleOptions(),
            timeout=60,
            code=None,
            interface=LOOPBACK,
            say=lambda text: None,
        )
        port = await lobby.open()
        browser = looking.browse()
        seen: list[str] = []

        async def shows(taken: int) -> None:
            table = await browser.wait_for(
                lambda t: t.table_id == lobby.table_id and t.taken == taken, 30
            )
            seen.append(f"{table.taken}/{table.seats}")

        async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
            raise AssertionError("the guest leaves before the start")

        try:
            await shows(1)
            guest = asyncio.create_task(
                join_table(
                    Identity.generate(), "guest", LOOPBACK, port, prepare, say=lambda text: None
                )
            )
            await shows(2)
            guest.cancel()  # the guest leaves: the host announces 1/3 again, under a second on
            await asyncio.gather(guest, return_exceptions=True)
            await shows(1)
        finally:
            await lobby.close()
        return seen


def test_a_browser_follows_a_join_and_a_leave_within_a_second() -> None:
    """zeroconf tells a browser nothing of a TXT record it still has cached (1/3 again): the
    browser takes every TXT record it receives. A zeroconf receiver drops a packet it first saw
    less than 0.8 s before: the 1/3 of the leave, right after the table opened with 1/3, is
    heard from its last announcement, a second after it."""
    assert asyncio.run(_seat_counts_seen()) == ["1/3", "2/3", "1/3"]


# ---------------------------------------------------------------- a host that is stopped


async def _listed_then_gone(tmp: Path, signum: signal.Signals) -> tuple[int, str]:
    """Start a real `cfnet host`, see its table listed, send it `signum`; wait (deadline) for
    the listing to go; (the host's exit status, its output)."""
    name = unique("stopped")
    host = Peer(
        tmp / "host",
        ["host", "--name", name, "--seats", "2", "--interface", LOOPBACK, "--strategy", "greedy"],
    )
    async with Discovery(LOOPBACK) as looking:
        browser = looking.browse()
        host.start()
        try:
            listed = await browser.wait_for(lambda t: t.name == name, 30)
            assert host.process is not None
            host.process.send_signal(signum)
            await browser.wait_gone(listed.table_id, 30)  # its goodbye, not a TTL (minutes)
            status = await asyncio.to_thread(host.wait, 30)
        finally:
            host.kill()
    return status, host.output()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_host_killed_or_hung_up_withdraws_its_table(
    tmp_path: Path, signum: signal.Signals
) -> None:
    status, output = asyncio.run(_listed_then_gone(tmp_path, signum))
    assert status == 128 + signum, output
    assert f"cfnet host: stopped by {signum.name}" in output
    assert "Traceback" not in output


# ---------------------------------------------------------------- the browser


async def _browser_rows() -> tuple[list[str], list[str], list[TableInfo]]:
    """Two tables of one name (two host keys) and the browser's rows, then its lines with
    the first of them selected."""
    name = unique("namesake")
    twins = [
        TableInfo(name, os.urandom(16), "alice", key.fingerprint, RuleOptions(), 4, 1, False,
                  port=9, timeout=45)
        for key in (HOST, Identity.generate())
    ]  # fmt: skip
    with create_pipe_input() as keys:
        async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
            for twin in twins:
                await hosting.advertise(twin, [LOOPBACK])
            screen = BrowserScreen(looking, "Me", Terminal(keys, DummyOutput()))
            for twin in twins:
                await screen.browser.wait_for(lambda t: t.table_id == twin.table_id, 30)  # noqa: B023
            text = ["".join(part[1] for part in row) for row in screen.body()[0]]
            screen.selected = twins[0].instance
            selected = ["".join(part[1] for part in row) for row in screen.body()[0]]
    return text, selected, twins


def test_the_browser_tells_tables_of_one_name_apart_and_shows_the_timeout() -> None:
    rows, selected, twins = asyncio.run(_browser_rows())
    for twin in twins:
        (row,) = [row for row in rows if twin.name in row and twin.fingerprint[:4] in row]
        assert f" alice {twin.fingerprint[:4]} " in row
    assert f"   host key {twins[0].fingerprint} at {LOOPBACK}:9" in selected
    assert "   each seat has 45 s to answer · 2 tables have this name: check the key" in selected
