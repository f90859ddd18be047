"""mDNS discovery on 127.0.0.1 with real zeroconf, across real processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import zeroconf._core
from lan_helpers import cfnet_tables_until

from cfnet.errors import LocalProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.net.discovery import (
    NAMESAKE_LOOK,
    SAME_NAME_SETTLE,
    Discovery,
    TableInfo,
    TxtError,
    check_name,
    service_type,
    txt_properties,
)
from cfnet.net.lobby import check_player
from cfnet.record.identity import Identity

ADVERTISER = Path(__file__).with_name("net_advertiser.py")
CFNET = [sys.executable, "-m", "cfnet"]
KEY = Identity.from_seed(b"\x07" * 32)
ONE_DOT_LEADER = "\u2024"  # protocol.md 6.4: stands for "." in an instance label


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


def txt_bytes(info: TableInfo) -> dict[bytes, bytes | None]:
    return {k.encode(): v.encode() for k, v in info.to_txt().items()}


def test_txt_round_trip_and_sizes() -> None:
    for info in (table(), table(rules=RuleOptions(), code=False, name="é" * 20, host="x" * 40)):
        assert TableInfo.from_txt(txt_bytes(info), "127.0.0.1", 4242) == info
        assert all(len(k) + 1 + len(v.encode()) < 100 for k, v in info.to_txt().items())
        assert len(info.instance.split("._cfnet")[0].encode()) <= 63  # one DNS label


def test_every_name_is_checked_by_one_rule_in_characters() -> None:
    """A table name, a player name and a listed name: 1..40 printable characters (the genesis's
    rule), however many UTF-8 bytes they take."""
    name = "名前" * 20  # 40 characters, 120 UTF-8 bytes
    assert check_name(f" {name} ") == check_player(name) == name
    info = table(name=name)
    assert TableInfo.from_txt(txt_bytes(info), "127.0.0.1", 4242) == info
    for bad in ("名" * 41, " ", "a\x1b[2J"):
        with pytest.raises(LocalProtocolError, match="use 1 to 40 printable characters"):
            check_name(bad)
        with pytest.raises(LocalProtocolError, match="use 1 to 40 printable characters"):
            check_player(bad)
        with pytest.raises(TxtError):
            TableInfo.from_txt(txt_bytes(table()) | {b"name": bad.encode()}, "127.0.0.1", 1)


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


async def _cli_sees_our_table(*more: TableInfo) -> str:
    async with Discovery("127.0.0.1") as discovery:
        for info in (table(), *more):
            await discovery.advertise(info, ["127.0.0.1"])
        return await cfnet_tables_until(
            lambda out: KEY.fingerprint in out and all(info.instance in out for info in more),
            "--verbose",
        )


def test_cfnet_tables_verbose_names_each_advertisement_it_skips_and_why() -> None:
    nine = table(name="Nine", table_id=os.urandom(16), seats=9, taken=1)
    out = asyncio.run(_cli_sees_our_table(nine))
    assert "Nine" not in out.split(" not listed:")[0]
    assert f"  {nine.instance}: TXT seats='1/9' is out of range" in out.splitlines()


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
            found = [await browser.wait_for(has_id(i), 30) for i in ids]
            elapsed = time.monotonic() - started
            assert [(t.name, t.code, t.taken, t.port) for t in found] == [
                ("Kitchen", False, 1, 40100),
                ("Kitchen", True, 1, 40101),
            ]
            assert found[0].instance != found[1].instance  # same name, unique instances
            other.stdin.write(b"taken 3\n")
            updated = await browser.wait_for(lambda t: has_id(ids[0])(t) and t.taken == 3, 30)
            assert updated.free == 1
            assert all(t.table_id != own.table_id for t in browser.tables.values())  # own skipped
            other.stdin.write(b"quit\n")
            await browser.wait_gone(ids[0], 30)  # withdrawn: goodbye packets, not TTL (120 s)
            await asyncio.wait_for(other.wait(), 30)
        finally:
            if other.returncode is None:
                other.kill()
                await other.wait()
        return elapsed


def test_browse_sees_other_process_tables_updates_and_withdrawal() -> None:
    elapsed = asyncio.run(_browse_update_and_goodbye())
    print(f"discovery of another process's tables (incl. its start-up): {elapsed:.3f} s")


def _announcing() -> list[asyncio.Task[object]]:
    """The tasks still to send announcements or goodbyes: zeroconf's, and the last repeat."""
    names = ("._async_broadcast_service", "._repeat.<locals>.repeats")
    return [task for task in asyncio.all_tasks() if task.get_coro().__qualname__.endswith(names)]


def test_a_table_is_open_from_its_first_announcement_to_its_goodbye(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`advertise` returns once the first announcement is out, and a browser finds the table
    then: zeroconf's two repeats of it (here an hour apart) go on behind, while a lobby takes
    its joiners. Withdrawing the table ends them with its goodbye: nothing is left that would
    announce it after."""
    monkeypatch.setattr(zeroconf._core, "_REGISTER_TIME", 3_600_000)  # ms between the repeats
    own = table(table_id=os.urandom(16))

    async def run() -> None:
        async with Discovery("127.0.0.1") as looking, Discovery("127.0.0.1") as hosting:
            browser = looking.browse()
            async with asyncio.timeout(60):
                await hosting.advertise(own, ["127.0.0.1"])
                assert _announcing()  # the repeats, still to come
                await browser.wait_for(has_id(own.table_id), 60)
                await hosting.withdraw(own.table_id)
                assert not _announcing()
                await browser.wait_gone(own.table_id, 60)

    asyncio.run(run())


async def _browse_after_a_silent_announcer() -> tuple[list[TableInfo], float]:
    """Listen; another process announces two tables of one name and dies without a goodbye
    (it answers no question after); browse 1.5 s after listening began."""
    ids = [os.urandom(16), os.urandom(16)]
    async with Discovery("127.0.0.1") as discovery:
        loop = asyncio.get_running_loop()
        listening = loop.time()
        other = await _subprocess(str(ADVERTISER), *(i.hex() for i in ids))
        assert other.stdout is not None
        try:
            assert await asyncio.wait_for(other.stdout.readline(), 30) == b"ready\n"
        finally:
            other.kill()  # no goodbye: its records stay where they were heard
            await other.wait()
        while loop.time() < listening + NAMESAKE_LOOK:
            await asyncio.sleep(NAMESAKE_LOOK)
        browser = discovery.browse()
        found = [await browser.wait_for(has_id(i), 30) for i in ids]
        return found, browser.namesake_wait()


def test_a_browse_sees_what_was_announced_since_listening_began_and_looks_from_then() -> None:
    """protocol.md 6.4: the look for namesakes counts from when the process began listening,
    because what was multicast since then was heard (and is listed from zeroconf's cache)."""
    found, look = asyncio.run(_browse_after_a_silent_announcer())
    assert [t.name for t in found] == ["Kitchen", "Kitchen"]
    assert look == SAME_NAME_SETTLE  # not NAMESAKE_LOOK after the browse began


# ---------------------------------------------------------------- what goes on the wire


def _name(packet: bytes, pos: int) -> tuple[list[bytes], int]:
    """The labels of the DNS name at `pos` (following compression pointers), and where the
    name ends in the packet."""
    labels: list[bytes] = []
    end = -1
    while True:
        length = packet[pos]
        if length >= 0xC0:
            end = pos + 2 if end < 0 else end
            pos = int.from_bytes(packet[pos : pos + 2], "big") & 0x3FFF
        elif length == 0:
            return labels, pos + 1 if end < 0 else end
        else:
            labels.append(packet[pos + 1 : pos + 1 + length])
            pos += 1 + length


def _records(packet: bytes) -> list[tuple[list[bytes], int, list[bytes] | bytes]]:
    """Each resource record of an mDNS packet: (owner labels, type, target labels for PTR and
    SRV, else the raw rdata); questions are skipped."""
    counts = [int.from_bytes(packet[i : i + 2], "big") for i in range(4, 12, 2)]
    pos = 12
    for _ in range(counts[0]):
        pos = _name(packet, pos)[1] + 4
    records: list[tuple[list[bytes], int, list[bytes] | bytes]] = []
    for _ in range(sum(counts[1:])):
        owner, pos = _name(packet, pos)
        kind = int.from_bytes(packet[pos : pos + 2], "big")
        size = int.from_bytes(packet[pos + 8 : pos + 10], "big")
        rdata_at = pos + 10
        pos = rdata_at + size
        data: list[bytes] | bytes = packet[rdata_at:pos]
        if kind == 12:  # PTR
            data = _name(packet, rdata_at)[0]
        elif kind == 33:  # SRV: priority, weight, port, target
            data = _name(packet, rdata_at + 6)[0]
        records.append((owner, kind, data))
    return records


def _mdns_listener() -> socket.socket:
    """A socket that receives every mDNS packet sent on 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", 5353))
    group = socket.inet_aton("224.0.0.251") + socket.inet_aton("127.0.0.1")
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
    sock.setblocking(False)
    return sock


async def _announced(info: TableInfo) -> list[tuple[list[bytes], int, list[bytes] | bytes]]:
    """The records of the first packet that announces `info` on 127.0.0.1, as received."""
    loop = asyncio.get_running_loop()
    mark = info.table_id.hex()[:12].encode()
    with _mdns_listener() as sock:
        async with Discovery("127.0.0.1") as discovery:
            await discovery.advertise(info, ["127.0.0.1"])
            async with asyncio.timeout(20):
                while True:
                    packet = await loop.sock_recv(sock, 9000)
                    if mark in packet:
                        return _records(packet)


@pytest.mark.parametrize("name", ["St. Mary's", "v1.2 night", "...", "Kitchen"])
def test_a_table_name_is_one_dns_label_on_the_wire(name: str) -> None:
    """RFC 6763 4.3: the instance name is one label (avahi drops a name split at its dots);
    each dot stands as "\u2024" there, and the TXT `name` keeps the real name."""
    info = table(name=name, table_id=os.urandom(16))
    records = asyncio.run(_announced(info))
    label = f"{name.replace('.', ONE_DOT_LEADER)} [{info.table_id.hex()[:12]}]".encode()
    service = [label, *(part.encode() for part in service_type().removesuffix(".").split("."))]
    assert (service[1:], 12, service) in records  # PTR -> the instance, one label
    kinds = {kind for owner, kind, _ in records if owner == service}
    assert {16, 33} <= kinds  # its TXT and SRV records are owned by that one label
    (txt,) = [data for owner, kind, data in records if owner == service and kind == 16]
    assert isinstance(txt, bytes)
    assert txt_properties(txt)[b"name"] == name.encode()


def test_txt_keys_are_case_insensitive_and_the_first_counts() -> None:
    """RFC 6763 6.4: "NAME" is "name"; of a repeated key only the first counts."""
    wire = b"".join(
        bytes([len(item)]) + item
        for item in (
            *(f"{k.upper()}={v}".encode() for k, v in table().to_txt().items() if k != "seats"),
            b"Seats=2/6",
            b"seats=9/9",
        )
    )
    properties = txt_properties(wire)
    assert properties[b"seats"] == b"2/6" and b"SEATS" not in properties
    assert TableInfo.from_txt(properties, "127.0.0.1", 4242) == table()
    upper = {k.upper(): v for k, v in txt_bytes(table()).items()}
    assert TableInfo.from_txt(upper, "127.0.0.1", 4242) == table()


# ---------------------------------------------------------------- a host on two networks


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def two_networks() -> Iterator[tuple[str, str, str]]:
    """Three network namespaces: a host on two networks (10.78.1.1 on the first, which has
    its default route, and 10.78.2.1 on the second) and one neighbour on each; (host, first,
    second). Everything made is removed at the end."""
    prefix = f"cfd-{os.getpid()}"
    host, first, second = (f"{prefix}-{n}" for n in ("h", "a", "b"))
    made: list[str] = []
    try:
        for ns in (host, first, second):
            _ip("netns", "add", ns)
            made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        for net, ns in ((1, first), (2, second)):
            _ip("-n", host, "link", "add", f"eth{net}", "type", "veth", "peer", "eth0",
                "netns", ns)  # fmt: skip
            _ip("-n", host, "addr", "add", f"10.78.{net}.1/24", "dev", f"eth{net}")
            _ip("-n", ns, "addr", "add", f"10.78.{net}.2/24", "dev", "eth0")
            _ip("-n", host, "link", "set", f"eth{net}", "up")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        _ip("-n", host, "route", "add", "default", "via", "10.78.1.2")
        yield host, first, second
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _tables_in(ns: str) -> str:
    command = ["ip", "netns", "exec", ns, *CFNET, "tables", "--wait", "3"]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=True).stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to build network namespaces")
@pytest.mark.skipif(shutil.which("ip") is None, reason="needs `ip` (iproute2) for ip netns")
def test_a_host_on_two_networks_announces_only_where_its_lobby_listens(tmp_path: Path) -> None:
    """Without --interface the lobby listens on the default route's network; a neighbour on
    the other network must not be told of a table at an address it cannot reach."""
    name = f"two-nets-{os.getpid()}"
    with two_networks() as (host, first, second):
        command = ["ip", "netns", "exec", host, *CFNET, "host", "--name", name, "--seats", "2",
                   "--strategy", "greedy", "--home", str(tmp_path / "home")]  # fmt: skip
        with open(tmp_path / "host.out", "wb") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while name not in (listing := _tables_in(first)):
                assert time.monotonic() < deadline, (tmp_path / "host.out").read_text()
            (row,) = [line for line in listing.splitlines() if line.startswith(name)]
            assert " 10.78.1.1:" in row
            assert name not in _tables_in(second)
        finally:
            process.terminate()
            process.wait(30)


def test_the_instance_label_vector_of_protocol_md() -> None:
    """protocol.md 6.4's example: table "St. Mary's", id 00112233..., one 27-byte label."""
    info = table(name="St. Mary's", table_id=bytes.fromhex("00112233445566778899aabbccddeeff"))
    label = info.label.encode()
    vector = "53 74 e2 80 a4 20 4d 61 72 79 27 73 20 5b 30 30 31 31 32 32 33 33 34 34 35 35 5d"
    assert label == bytes.fromhex(vector) and len(label) == 27
    spec = " ".join((Path(__file__).parent.parent / "protocol.md").read_text().split())
    assert f"`{vector}`, length 27" in spec
    assert TableInfo.from_txt(txt_bytes(info), "127.0.0.1", 4242).name == "St. Mary's"


LOADED_AT_LISTENING = """
import sys
import cfnet.net.discovery as discovery
from cfnet.cli.main import main

opened = discovery.AsyncZeroconf.__init__

def listening(self, *args, **kwargs):
    opened(self, *args, **kwargs)
    print("\\n".join(sorted(sys.modules)), file=sys.stderr, flush=True)

discovery.AsyncZeroconf.__init__ = listening
sys.exit(main(sys.argv[1:]))
"""


def test_a_joiner_listens_for_mdns_before_it_loads_the_game(tmp_path: Path) -> None:
    """protocol.md 6.4: the look for namesakes counts from when a joiner began listening, and
    what it loads meanwhile costs it nothing; so it listens first. When its mDNS sockets open
    (`cfnet bot --table NAME`), the handshake, the signed records, the state directory, the
    deck and the game's network play are not loaded yet."""
    command = ["-c", LOADED_AT_LISTENING, "bot", "--table", "Nowhere", "--wait", "0.2"]
    done = subprocess.run(
        [sys.executable, *command, "--interface", "127.0.0.1", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    loaded = set(done.stderr.splitlines())
    assert "zeroconf" in loaded and "no table 'Nowhere' is seen" in done.stderr, done.stderr
    later = {
        "cfnet.net.handshake",
        "cfnet.record.entry",
        "cfnet.disk.store",
        "cfnet.deck.sra",
        "cfnet.seat.join",
        "cfnet.seat.net_game",
        "cryptography",
    }
    assert not later & loaded
