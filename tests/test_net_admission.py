"""A listener's connections being set up (`Admission`, on a real lobby on 127.0.0.1): one that
sends no hello is closed after the short hello deadline; when they are too many, the one that
got least far (then the oldest) is closed to let a new one in, of its own address when that
address is at its cap; a joiner that comes to a full lobby is let in and seated."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from cfnet.game.rules import RuleOptions
from cfnet.net.handshake import Handshake
from cfnet.net.joining import join_table
from cfnet.net.link import (
    HELLO_TIMEOUT,
    MAX_UNAUTHENTICATED,
    MAX_UNAUTHENTICATED_PER_ADDRESS,
    Link,
    LinkClosed,
)
from cfnet.net.lobby import HostLobby, Seating
from cfnet.record.identity import Identity

LOOPBACK = "127.0.0.1"


@asynccontextmanager
async def lobby(hello_timeout: float = HELLO_TIMEOUT) -> AsyncIterator[tuple[HostLobby, int]]:
    host = HostLobby(
        Identity.generate(), None, name="slots", player="host", seats=2,
        options=RuleOptions(rounds=1), timeout=20, code=None, interface=LOOPBACK,
        say=lambda _: None, hello_timeout=hello_timeout,
    )  # fmt: skip
    port = await host.open()
    try:
        yield host, port
    finally:
        await host.close()


async def idle(port: int, source: str) -> Link:
    """A connection from `source` (a 127.x address) that sends nothing."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port, local_addr=(source, 0))
    return Link(reader, writer)


async def why_closed(link: Link, within: float = 30.0) -> str:
    """The goodbye the listener closed `link` with (reading until it comes)."""
    async with asyncio.timeout(within):
        while True:
            try:
                await link.receive()
            except LinkClosed as closed:
                return closed.reason


def test_a_connection_that_sends_no_hello_is_closed_after_the_hello_deadline() -> None:
    async def run() -> tuple[str, float]:
        async with lobby() as (_, port):
            began = time.monotonic()
            link = await idle(port, "127.0.0.2")
            return await why_closed(link), time.monotonic() - began

    reason, took = asyncio.run(run())
    assert reason == f"peer said goodbye: 'no hello within {HELLO_TIMEOUT:g} s'"
    assert took >= HELLO_TIMEOUT


def test_the_least_advanced_oldest_connection_makes_room_and_a_joiner_is_seated() -> None:
    async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        return 40000 + seat

    async def run() -> tuple[str, str, Seating]:
        async with lobby(hello_timeout=600) as (host, port):  # only room-making closes here
            sources = [f"127.0.0.{2 + i % 4}" for i in range(MAX_UNAUTHENTICATED)]
            crowd = [await idle(port, source) for source in sources]  # every slot held
            first = asyncio.create_task(why_closed(crowd[0]))
            one_more = await idle(port, "127.0.0.9")
            pushed_out = await first
            # an address at its cap makes room among its own connections only
            same = [await idle(port, "127.0.0.10") for _ in range(MAX_UNAUTHENTICATED_PER_ADDRESS)]
            own = asyncio.create_task(why_closed(same[0]))
            await idle(port, "127.0.0.10")
            own_reason = await own
            joiner = join_table(Identity.generate(), "guest", LOOPBACK, port, prepare,
                                say=lambda _: None)  # fmt: skip
            seating = asyncio.create_task(host.seat_all(prepare))
            seated = await asyncio.wait_for(joiner, 30)
            await seating
            for link in [*crowd, one_more, *same]:
                await link.close("test over")
            return pushed_out, own_reason, seated

    pushed_out, own_reason, seated = asyncio.run(run())
    assert pushed_out == (
        f"peer said goodbye: '{MAX_UNAUTHENTICATED} connections are being set up: the one "
        "that got least far is closed to let a new one in'"
    )
    assert own_reason == (
        f"peer said goodbye: '{MAX_UNAUTHENTICATED_PER_ADDRESS} connections are being set up "
        "from 127.0.0.10: the one that got least far is closed to let a new one in'"
    )
    assert seated.seat == 1  # the joiner was let in, evicting an idle connection


def test_a_hello_that_came_while_the_listener_was_busy_is_read_not_timed_out() -> None:
    """The listener's loop is blocked past the hello deadline (a long computation) and the
    hello arrives meanwhile: when the loop runs again, the hello is read first and the
    handshake goes on."""
    connected = threading.Event()
    outcome: list[str] = []

    def joiner(port: int) -> None:
        async def run() -> None:
            link = await Link.connect(LOOPBACK, port)
            connected.set()
            await asyncio.sleep(HELLO_TIMEOUT / 2)  # the hello comes while the host is busy
            try:
                await link.handshake(Handshake(Identity.generate(), initiator=True, table_id=None))
                outcome.append("authenticated")
            except LinkClosed as closed:
                outcome.append(closed.reason)
            await link.close("done")

        asyncio.run(run())

    async def run() -> None:
        async with lobby() as (_, port):
            thread = threading.Thread(target=joiner, args=(port,))
            thread.start()
            await asyncio.to_thread(connected.wait, 30)
            await asyncio.sleep(0.2)  # the host takes the connection in and waits for its hello
            time.sleep(HELLO_TIMEOUT * 1.5)  # blocks the host's loop past the deadline
            await asyncio.to_thread(thread.join, 30)

    asyncio.run(run())
    assert outcome == ["authenticated"]
