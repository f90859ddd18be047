"""mDNS discovery on 127.0.0.1 with real zeroconf, across real processes."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cfnet.identity import Identity
from cfnet.net.discovery import Discovery, TableInfo, TxtError, lan_addresses
from cfnet.rules import RuleOptions

ADVERTISER = Path(__file__).with_name("net_advertiser.py")
KEY = Identity.from_seed(b"\x07" * 32)


def table(**changes: object) -> TableInfo:
    fields: dict[str, object] = {
        "name": "Kitchen",
        "table_id": bytes(range(16)),
        "host": "alice",
        "fingerprint": KEY.fingerprint,
        "rules": RuleOptions(rounds=3, start_trains=6),
        "seats": 6,
        "taken": 2,
        "code": True,
        "address": "127.0.0.1",
        "port": 4242,
        "timeout": 90,
    }
    return TableInfo(**(fields | changes))  # type: ignore[arg-type]


def test_lan_addresses_are_ipv4_and_not_loopback_unless_alone() -> None:
    found = lan_addresses()
    assert found and all(isinstance(ipaddress.ip_address(a), ipaddress.IPv4Address) for a in found)
    assert found == ["127.0.0.1"] or not any(a.startswith("127.") for a in found)


def txt_bytes(info: TableInfo) -> dict[bytes, bytes | None]:
    return {k.encode(): v.encode() for k, v in info.to_txt().items()}


def test_txt_round_trip_and_sizes() -> None:
    for info in (table(), table(rules=RuleOptions(), code=False, name="é" * 20, host="x" * 40)):
        assert TableInfo.from_txt(txt_bytes(info), "127.0.0.1", 4242) == info
        assert all(len(k) + 1 + len(v.encode()) < 100 for k, v in info.to_txt().items())
        assert len(info.instance.split("._cfnet")[0].encode()) <= 63  # one DNS label


@pytest.mark.parametrize(
    "change",
    [
        {b"seats": b"5/4"},
        {b"seats": b"1/9"},
        {b"id": b"00"},
        {b"fp": b"nope"},
        {b"rules": b"rounds=11"},
        {b"code": b"2"},
        {b"name": b""},
        {b"v": b"x"},
        {b"host": None},
    ],
)
def test_bad_txt_is_refused(change: dict[bytes, bytes | None]) -> None:
    with pytest.raises(TxtError):
        TableInfo.from_txt(txt_bytes(table()) | change, "127.0.0.1", 1)


async def _subprocess(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def _cli_sees_our_table() -> str:
    async with Discovery("127.0.0.1") as discovery:
        await discovery.advertise(table(), ["127.0.0.1"])
        cli = await _subprocess(
            "-m", "cfnet.cli", "tables", "--interface", "127.0.0.1", "--wait", "2"
        )
        out, err = await asyncio.wait_for(cli.communicate(), 20)
        assert cli.returncode == 0, err.decode()
        return out.decode()


def test_cfnet_tables_in_another_process_lists_the_table() -> None:
    out = asyncio.run(_cli_sees_our_table())
    header, *lines = out.splitlines()
    assert header.split() == ["NAME", "SEATS", "TIMEOUT", "ADDRESS"]
    row = lines.index(f"    host alice · key {KEY.fingerprint}") - 1
    assert lines[row].split() == ["Kitchen", "2/6", "90", "s", "127.0.0.1:4242"]
    assert lines[row + 2] == "    rounds=3 start_trains=6 double_blank_50=off · join code"


def has_id(table_id: bytes) -> Callable[[TableInfo], bool]:
    return lambda t: t.table_id == table_id


async def _browse_update_and_goodbye() -> float:
    ids = [os.urandom(16), os.urandom(16)]
    async with Discovery("127.0.0.1") as discovery:
        own = table(table_id=os.urandom(16), name="Ours")
        await discovery.advertise(own, ["127.0.0.1"])
        browser = discovery.browse()
        started = time.monotonic()
        other = await _subprocess(str(ADVERTISER), *(i.hex() for i in ids))
        assert other.stdin is not None and other.stdout is not None
        try:
            found = [await browser.wait_for(has_id(i), 10) for i in ids]
            elapsed = time.monotonic() - started
            assert [(t.name, t.code, t.taken, t.port) for t in found] == [
                ("Kitchen", False, 1, 40100),
                ("Kitchen", True, 1, 40101),
            ]
            assert found[0].instance != found[1].instance  # same name, unique instances
            other.stdin.write(b"taken 3\n")
            updated = await browser.wait_for(lambda t: has_id(ids[0])(t) and t.taken == 3, 10)
            assert updated.free == 1
            assert all(t.table_id != own.table_id for t in browser.tables.values())  # own skipped
            other.stdin.write(b"quit\n")
            await browser.wait_gone(ids[0], 10)  # withdrawn: goodbye packets, not TTL expiry
            await asyncio.wait_for(other.wait(), 10)
        finally:
            if other.returncode is None:
                other.kill()
                await other.wait()
        return elapsed


def test_browse_sees_other_process_tables_updates_and_withdrawal() -> None:
    elapsed = asyncio.run(_browse_update_and_goodbye())
    print(f"discovery of another process's tables (incl. its start-up): {elapsed:.3f} s")
    assert elapsed < 5
