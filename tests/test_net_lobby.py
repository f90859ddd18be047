"""The lobby on 127.0.0.1 with real sockets: what a joiner checks in the genesis, the host's
limit on join-code guesses, pings and idle timeouts on lobby links, `ready` only after
`start` and within one deadline for all, and a seat freed just before the start."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from net_helpers import LOOPBACK, link_server

from cfnet.game.rules import RuleOptions
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.net import NET_VERSION
from cfnet.net.discovery import TableInfo
from cfnet.net.handshake import Handshake
from cfnet.net.joining import join_table
from cfnet.net.link import Link, LinkClosed
from cfnet.net.lobby import (
    HostLobby,
    LobbyError,
    LobbyEvent,
    Prepare,
    Seating,
    SeatTaken,
    TableOpened,
)
from cfnet.net.roster import Roster
from cfnet.protocol.genesis import SeatInfo, make_genesis, parse_genesis
from cfnet.record.identity import Identity

HOST = Identity.from_seed(b"\x01" * 32)
GUEST = Identity.from_seed(b"\x02" * 32)
OTHER = Identity.from_seed(b"\x03" * 32)
TABLE = bytes(range(16))
RULES = RuleOptions(rounds=3)


def quiet(text: str) -> None:
    """Says nothing (the lobby's `say`)."""


async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
    return 40000 + seat


def advertised(**changes: Any) -> TableInfo:
    info = TableInfo("Kitchen", TABLE, "host", HOST.fingerprint, RULES, 2, 1, False)
    return replace(info, **changes)


# ---------------------------------------------------------------- the genesis a joiner accepts

GOOD: dict[str, Any] = {"table": TABLE, "rules": RULES, "seats": [("host", HOST), ("guest", GUEST)]}


def genesis_wire(**tamper: Any) -> bytes:
    """The host's genesis for GOOD, with the `tamper`ed fields."""
    genesis = GOOD | tamper
    infos = [SeatInfo(name, key.public) for name, key in genesis["seats"]]
    return make_genesis(HOST, genesis["table"], "Kitchen", genesis["rules"], infos, 60).wire


@pytest.mark.parametrize(
    ("tamper", "advert", "why"),
    [
        ({}, {}, None),
        ({"table": bytes(16)}, {}, f"it is for table {bytes(16).hex()}, not {TABLE.hex()}"),
        ({"rules": RuleOptions(rounds=5)}, {}, "its rules rounds=5 start_trains=N"),
        ({}, {"rules": RuleOptions(rounds=4)}, "the table advertised 'Kitchen' with 2 seats"),
        ({"seats": GOOD["seats"] + [("other", OTHER)]}, {}, "not those of the roster"),
        ({"seats": [("host", HOST), ("guest2", GUEST)]}, {}, "not give us the seat we took"),
        ({"seats": [("host", HOST), ("other", OTHER)]}, {}, "not give us the seat we took"),
    ],
)
def test_the_joiner_checks_the_genesis_against_handshake_lobby_and_advertisement(
    tamper: dict[str, Any], advert: dict[str, Any], why: str | None
) -> None:
    wire = genesis_wire(**tamper)
    start = {"t": "start", "genesis": wire, "port": 40000}
    outcome, closed = asyncio.run(fake_host_starts(start, prepare, advertised(**advert)))
    if why is None:
        assert isinstance(outcome, Seating) and outcome.seat == 1 and outcome.genesis == wire
    else:
        assert isinstance(outcome, LobbyError) and why in str(outcome), outcome
        assert str(outcome).startswith("refusing the host's table entry: ")
        assert closed is not None and why in closed.reason  # the host is told why


async def fake_host_starts(
    start: dict[str, Any], prepare: Prepare, advert: TableInfo | None = None
) -> tuple[Seating | LobbyError, LinkClosed | None]:
    """GUEST joins a host made of the bare parts, which seats it and sends `start`: the
    seating it got, or how it refused (and the goodbye the host got)."""
    async with link_server() as (port, accepted):
        joining = asyncio.create_task(
            join_table(GUEST, "guest", LOOPBACK, port, prepare, advertised=advert, say=quiet)
        )
        link = await accepted.get()
        await link.handshake(Handshake(HOST, initiator=False, table_id=TABLE))
        assert await link.receive() == {"t": "sit", "name": "guest"}
        roster = [["host", HOST.public], ["guest", GUEST.public]]
        await link.send({"t": "seats", "seats": roster, "of": 2, "rules": RULES.describe()})
        await link.send(start)
        try:
            assert await link.receive() == {"t": "ready", "port": 40001}
            await link.send(
                {"t": "go", "seats": [0, 1], "addresses": [["", 40000], [LOOPBACK, 40001]]}
            )
            return await joining, None
        except LinkClosed as closed:
            with pytest.raises(LobbyError) as refused:
                await joining
            return refused.value, closed


@pytest.mark.parametrize("port", [40000, None])
def test_the_joiner_knows_where_the_hosts_mesh_listens_before_it_says_ready(
    port: int | None,
) -> None:
    told: list[dict[int, tuple[str, int]]] = []

    async def noting(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        told.append(known)
        return 40000 + seat

    start = {"t": "start", "genesis": genesis_wire()} | ({} if port is None else {"port": port})
    outcome, _ = asyncio.run(fake_host_starts(start, noting))
    assert isinstance(outcome, Seating)
    # the address it dialled the lobby at, and the port `start` gave (none from an older host)
    assert told == [{0: (LOOPBACK, 40000)} if port else {}]


@pytest.mark.parametrize("port", [0, 65536, -1, "40000", True, None])
def test_the_joiner_refuses_a_start_whose_port_is_not_a_port(port: object) -> None:
    start = {"t": "start", "genesis": genesis_wire(), "port": port}
    outcome, closed = asyncio.run(fake_host_starts(start, prepare))
    why = f"malformed 'start' message: its port {port!r} is not a TCP port (an int 1..65535)"
    assert isinstance(outcome, LobbyError) and str(outcome) == why
    assert closed is not None and why in closed.reason  # the host is told why


# ---------------------------------------------------------------- a host in this process


@dataclass
class Hosted:
    """A host lobby under test: its port, every roster it showed, every line it said."""

    lobby: HostLobby
    port: int
    rosters: list[list[str]]
    said: list[str]
    changed: asyncio.Condition
    taken: list[SeatTaken]

    async def roster_is(self, *names: str) -> None:
        async with asyncio.timeout(10), self.changed:
            await self.changed.wait_for(lambda: bool(self.rosters) and self.rosters[-1] == [*names])


@contextlib.asynccontextmanager
async def hosting(
    code: str | None = None, timeout: int = 60, **options: Any
) -> AsyncIterator[Hosted]:
    """A 3-seat host lobby on 127.0.0.1 (no mDNS)."""
    changed = asyncio.Condition()
    rosters: list[list[str]] = []
    said: list[str] = []
    taken: list[SeatTaken] = []

    def on_event(event: LobbyEvent) -> None:
        if isinstance(event, SeatTaken):
            taken.append(event)
        roster = event.roster if isinstance(event, TableOpened) else event
        if isinstance(roster, Roster):
            rosters.append([name for name, _ in roster.names])
            asyncio.get_running_loop().create_task(notify())

    async def notify() -> None:
        async with changed:
            changed.notify_all()

    lobby = HostLobby(
        HOST,
        None,
        name="Kitchen",
        player="host",
        seats=3,
        options=RULES,
        timeout=timeout,
        code=code,
        interface=LOOPBACK,
        say=said.append,
        on_event=on_event,
        **options,
    )
    port = await lobby.open()
    try:
        yield Hosted(lobby, port, rosters, said, changed, taken)
    finally:
        await lobby.close()


def joining(identity: Identity, name: str, port: int, **options: Any) -> asyncio.Task[Seating]:
    return asyncio.create_task(
        join_table(identity, name, LOOPBACK, port, prepare, **({"say": quiet} | options))
    )


async def raw_joiner(identity: Identity, name: str, port: int) -> Link:
    """A joiner made of the bare parts: handshake and `sit`, then the test says what it sends."""
    link = await Link.connect(LOOPBACK, port)
    await link.handshake(Handshake(identity, initiator=True, table_id=None))
    await link.send({"t": "sit", "name": name})
    return link


async def until_closed(link: Link) -> LinkClosed:
    with pytest.raises(LinkClosed) as closed:
        async with asyncio.timeout(10):
            while True:
                await link.receive()
    return closed.value


# ---------------------------------------------------------------- join-code guesses


def test_the_host_refuses_an_address_after_five_wrong_codes_for_a_minute() -> None:
    now = [1000.0]

    async def scenario() -> list[str]:
        async with hosting(code="blue harbour 42", clock=lambda: now[0]) as host:
            for _ in range(5):
                with pytest.raises(LobbyError, match="wrong join code"):
                    await joining(GUEST, "guest", host.port, code="red harbour 42")
            with pytest.raises(LobbyError) as refused:  # even the right code, for a while
                await joining(GUEST, "guest", host.port, code="blue harbour 42")
            assert (
                "too many wrong join codes from 127.0.0.1 (at most 5 in 60 s): try again in 60 s"
                in str(refused.value)
            )
            now[0] += 59.0
            with pytest.raises(LobbyError, match="try again in 1 s"):
                await joining(GUEST, "guest", host.port, code="blue harbour 42")
            now[0] += 1.0
            guest = joining(GUEST, "guest", host.port, code="blue harbour 42")
            await host.roster_is("host", "guest")
            await leave(guest)
        return host.said

    said = asyncio.run(scenario())
    assert "5 wrong join codes from 127.0.0.1 within 60 s: it is refused for a while" in said


async def leave(joiner: asyncio.Task[Seating]) -> None:
    joiner.cancel()
    await asyncio.gather(joiner, return_exceptions=True)


def test_the_host_says_why_a_joiner_left_in_its_own_language() -> None:
    """The joiner's goodbye is English on the wire; a host reading Persian is told it in
    Persian (a reason it knows), not in the joiner's words."""

    async def scenario() -> list[str]:
        async with hosting() as host:
            guest = joining(GUEST, "guest", host.port)
            await host.roster_is("host", "guest")
            set_language(LANGUAGES["fa"])
            try:
                await leave(guest)
                await host.roster_is("host")
            finally:
                set_language(LANGUAGES[SOURCE])
            return host.said

    left = [line for line in asyncio.run(scenario()) if line.startswith("guest ")][1:]
    assert left == ["guest میز را ترک کرد (طرف مقابل خداحافظی کرد: 'ترک لابی')"], left


# ---------------------------------------------------------------- pings and idle timeouts


def test_pings_keep_a_quiet_lobby_link_and_a_silent_joiner_is_dropped() -> None:
    async def scenario() -> LinkClosed:
        async with hosting(ping_interval=0.2, idle_timeout=3.0) as host:
            guest = joining(GUEST, "guest", host.port, ping_interval=0.2, idle_timeout=3.0)
            await host.roster_is("host", "guest")
            silent = await raw_joiner(OTHER, "silent", host.port)  # sends no ping
            await host.roster_is("host", "guest", "silent")
            seated = [SeatTaken(1, "guest", GUEST.public), SeatTaken(2, "silent", OTHER.public)]
            assert host.taken == seated  # typed: nobody reads "sits in seat" lines
            await host.roster_is("host", "guest")  # dropped after 3 s
            assert not guest.done()  # the pinging guest stayed seated meanwhile
            await leave(guest)
            return await until_closed(silent)

    assert asyncio.run(scenario()).reason == "peer said goodbye: 'nothing received for 3 s'"


CFNET = [sys.executable, "-m", "cfnet"]


def test_a_joiner_gives_up_on_a_host_stopped_with_sigstop(tmp_path: Path) -> None:
    host = _start_host(tmp_path)
    try:
        port = int(_read_until(host, "open on").rsplit(":", 1)[1].split()[0])

        async def scenario() -> tuple[str, float]:
            seated = asyncio.Event()
            guest = joining(GUEST, "guest", port, idle_timeout=6.0, on_event=lambda _: seated.set())
            async with asyncio.timeout(30):
                await seated.wait()
            os.kill(host.pid, signal.SIGSTOP)  # the host vanishes without closing anything
            stopped = time.monotonic()
            with pytest.raises(LobbyError) as gone:
                async with asyncio.timeout(30):
                    await guest
            return str(gone.value), time.monotonic() - stopped

        error, after = asyncio.run(scenario())
        assert error == "the host stopped answering (nothing received for 6 s)"
        assert after < 30  # it gave up: nothing hung (the idle timeout is 6 s)
    finally:
        os.kill(host.pid, signal.SIGCONT)
        host.kill()
        host.wait()


def _start_host(home: Path) -> Any:
    import subprocess

    command = [*CFNET, "host", "--name", "Stopped", "--seats", "3", "--interface", LOOPBACK]
    command += ["--strategy", "greedy", "--home", str(home)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _read_until(process: Any, marker: str) -> str:
    for line in process.stdout:
        if marker in line:
            return str(line)
    raise AssertionError(f"the host exited before saying {marker!r}")


# ---------------------------------------------------------------- ready, start and seats


def test_ready_before_start_is_refused() -> None:
    async def scenario() -> LinkClosed:
        async with hosting() as host:
            early = await raw_joiner(GUEST, "early", host.port)
            await host.roster_is("host", "early")
            await early.send({"t": "ready", "port": 40001})
            closed = await until_closed(early)
            await host.roster_is("host")  # and its seat is free again
            return closed

    reason = asyncio.run(scenario()).reason
    assert reason == "peer said goodbye: \"unexpected lobby message 'ready' before 'start'\""


def test_the_host_waits_for_every_ready_at_once_within_one_deadline() -> None:
    async def scenario() -> tuple[Seating, float, list[str]]:
        async with hosting(timeout=3) as host:
            mute = [
                await raw_joiner(key, name, host.port) for key, name in ((GUEST, "a"), (OTHER, "b"))
            ]
            started = time.monotonic()
            seating = await host.lobby.seat_all(prepare)
            elapsed = time.monotonic() - started
            for link in mute:
                await link.close("test over")
        return seating, elapsed, host.said

    seating, elapsed, said = asyncio.run(scenario())
    assert seating.addresses == {0: (LOOPBACK, 40000)}  # neither answered
    assert 3.0 <= elapsed < 6.0  # one deadline of 3 s, not one per joiner (6 s)
    assert "seat 1 (a) did not get ready: no 'ready' within 3 s" in said
    assert "seat 2 (b) did not get ready: no 'ready' within 3 s" in said


def test_a_seat_freed_between_full_and_start_is_not_in_the_genesis() -> None:
    async def scenario() -> tuple[Seating, list[Seating]]:
        async with hosting() as host:
            first = joining(GUEST, "first", host.port)
            await host.roster_is("host", "first")
            leaving = joining(OTHER, "leaving", host.port)
            await host.roster_is("host", "first", "leaving")  # full
            await leave(leaving)  # gone before the host signs
            await host.roster_is("host", "first")
            seating = asyncio.create_task(host.lobby.seat_all(prepare))
            third = joining(Identity.from_seed(b"\x04" * 32), "third", host.port)
            async with asyncio.timeout(10):
                return await seating, [await first, await third]

    seating, joined = asyncio.run(scenario())
    names = [info.name for info in parse_genesis(seating.genesis)[4]]
    assert names == ["host", "first", "third"]
    assert [s.seat for s in joined] == [1, 2] and all(s.genesis == seating.genesis for s in joined)


# ---------------------------------------------------------------- advertised versions


def test_a_table_of_another_network_version_is_refused_before_dialling() -> None:
    info = advertised(version=7, port=9)  # nothing listens on port 9: it is never dialled
    assert info.incompatible == "needs cfnet protocol v7"
    assert advertised().incompatible is None
    with pytest.raises(LobbyError) as refused:
        asyncio.run(join_table(GUEST, "guest", LOOPBACK, 9, prepare, advertised=info, say=quiet))
    assert str(refused.value) == (
        f"table 'Kitchen' needs cfnet protocol v7 and this cfnet speaks v{NET_VERSION}: it "
        "cannot be joined "
        "(update cfnet, or choose another table)"
    )


def test_a_link_knows_whether_the_peer_closed_it_saying_why() -> None:
    """`LinkClosed.said`: the peer closed the link with a goodbye (a table that refuses us,
    saying why), not a connection that just broke: a joiner dials again in the second case
    (and in the first only if the host had no room for it then)."""

    async def receive_from(
        serve: Callable[[Link, asyncio.StreamWriter], Awaitable[None]],
    ) -> LinkClosed:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await serve(Link(reader, writer), writer)

        server = await asyncio.start_server(on_connect, LOOPBACK, 0)
        async with server:
            reader, writer = await asyncio.open_connection(
                LOOPBACK, server.sockets[0].getsockname()[1]
            )
            with pytest.raises(LinkClosed) as closed:
                await Link(reader, writer).receive()
        return closed.value

    async def refuse(link: Link, writer: asyncio.StreamWriter) -> None:
        await link.close("the table is full")

    async def hang_up(link: Link, writer: asyncio.StreamWriter) -> None:
        writer.close()

    refused = asyncio.run(receive_from(refuse))
    assert refused.by_peer and refused.reason == "peer said goodbye: 'the table is full'"
    assert refused.said == "the table is full"  # what the peer said, as it said it
    broken = asyncio.run(receive_from(hang_up))
    assert not broken.by_peer and broken.reason == "peer closed the connection"
    assert broken.said is None
