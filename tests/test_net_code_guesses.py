"""Guessing a table's join code from many addresses (127.0.0.2, 127.0.0.3, ...: all loopback):
each connection is one guess, and the table as a whole refuses every joiner for a while after
10 wrong codes, twice as long each time, and never holds more than 10 guesses under way."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

import pytest
from net_helpers import LOOPBACK

from cfnet.errors import describe
from cfnet.game.rules import RuleOptions
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.net.handshake import Handshake, HandshakeResult
from cfnet.net.joining import join_table
from cfnet.net.link import Link, LinkClosed
from cfnet.net.lobby import TABLE_CODE_FAILURES, HostLobby
from cfnet.net.roster import LobbyError
from cfnet.record.identity import Identity

CODE = "blue harbour 42"


@contextlib.asynccontextmanager
async def hosting(now: list[float], said: list[str]) -> AsyncIterator[int]:
    """A 3-seat table with a join code on 127.0.0.1 (no mDNS), on the clock `now[0]`; yields
    its lobby port."""
    lobby = HostLobby(
        Identity.from_seed(b"\x01" * 32),
        None,
        name="Kitchen",
        player="host",
        seats=3,
        options=RuleOptions(rounds=3),
        timeout=60,
        code=CODE,
        interface=LOOPBACK,
        say=said.append,
        clock=lambda: now[0],
    )
    try:
        yield await lobby.open()
    finally:
        await lobby.close()


async def guess(port: int, source: str, code: str) -> HandshakeResult | LinkClosed:
    """One join attempt from the address `source` with `code`: what the handshake gave."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port, local_addr=(source, 0))
    link = Link(reader, writer)
    try:
        async with asyncio.timeout(30):
            return await link.handshake(
                Handshake(Identity.generate(), initiator=True, table_id=None, join_code=code), 30
            )
    except LinkClosed as closed:
        return closed
    finally:
        await link.close("test over")


def reason(outcome: HandshakeResult | LinkClosed) -> str:
    assert isinstance(outcome, LinkClosed), "the table let a guess in"
    return outcome.reason


WRONG = "peer said goodbye: 'handshake failed: wrong join code'"


def test_wrong_codes_from_many_addresses_lock_the_whole_table_longer_each_time() -> None:
    now, said = [1000.0], list[str]()
    addresses = iter(f"127.0.0.{n}" for n in range(2, 250))

    async def scenario() -> list[str]:
        async with hosting(now, said) as port:
            refusals = []
            for lockout in (30, 60):
                for n in range(TABLE_CODE_FAILURES):  # one wrong code from each address
                    assert reason(await guess(port, next(addresses), "red harbour 42")) == WRONG
                    locked = [line for line in said if "every joiner is refused" in line]
                    assert len(locked) == lockout // 30 - (n < TABLE_CODE_FAILURES - 1)
                assert said[-1] == (
                    f"10 wrong join codes at this table: every joiner is refused for {lockout} s "
                    "(someone may be guessing the code)"
                )
                refusals.append(reason(await guess(port, next(addresses), CODE)))  # right code
                now[0] += lockout - 1
                assert "for 1 s more" in reason(await guess(port, next(addresses), CODE))
                now[0] += 1
                assert isinstance(await guess(port, next(addresses), CODE), HandshakeResult)
            return refusals

    refusals = asyncio.run(scenario())
    assert refusals == [
        f"peer said goodbye: 'the table refuses every joiner for {lockout} s more: too many "
        "wrong join codes were tried (someone may be guessing its code)'"
        for lockout in (30, 60)
    ]


async def _silent(port: int, source: str) -> asyncio.StreamWriter:
    """A connection from `source` that starts no handshake (an attempt under way)."""
    _, writer = await asyncio.open_connection(LOOPBACK, port, local_addr=(source, 0))
    return writer


def test_at_most_ten_guesses_are_under_way_at_once_whatever_the_addresses() -> None:
    now, said = [1000.0], list[str]()

    async def scenario() -> tuple[str, HandshakeResult | LinkClosed]:
        async with hosting(now, said) as port:
            pending = [await _silent(port, f"127.0.0.{n}") for n in range(2, 12)]
            refused = await guess(port, "127.0.0.12", CODE)
            for writer in pending:
                writer.close()
            async with asyncio.timeout(30):
                while isinstance(outcome := await guess(port, "127.0.0.13", CODE), LinkClosed):
                    await asyncio.sleep(0.05)  # until the host has seen them go
            return reason(refused), outcome

    refused, outcome = asyncio.run(scenario())
    assert refused == (
        "peer said goodbye: 'too many join attempts at once at this table: try again in a moment'"
    )
    assert isinstance(outcome, HandshakeResult)
    assert not [line for line in said if "wrong join codes" in line]  # none was a guess


def test_a_joiner_reads_the_tables_refusal_in_its_own_language_and_digits() -> None:
    """The host says why in English on the wire (the joiner may read another language); a
    joiner reading Persian is told in Persian, its numbers in Persian digits."""
    now, said = [1000.0], list[str]()
    addresses = iter(f"127.0.0.{n}" for n in range(2, 250))

    async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        raise AssertionError("a refused joiner is never seated")

    async def scenario() -> tuple[str, LobbyError]:
        async with hosting(now, said) as port:
            for _ in range(TABLE_CODE_FAILURES):
                assert reason(await guess(port, next(addresses), "red harbour 42")) == WRONG
            wire = reason(await guess(port, next(addresses), CODE))
            set_language(LANGUAGES["fa"])
            try:
                with pytest.raises(LobbyError) as refused:
                    await join_table(
                        Identity.generate(), "Guest", LOOPBACK, port, prepare, code=CODE
                    )
            finally:
                set_language(LANGUAGES[SOURCE])
            return wire, refused.value

    wire, refused = asyncio.run(scenario())
    assert "the table refuses every joiner for 30 s more" in wire  # English on the wire
    set_language(LANGUAGES["fa"])
    try:
        shown = describe(refused)
    finally:
        set_language(LANGUAGES[SOURCE])
    assert "میز تا ۳۰ ثانیهٔ دیگر هر تازه‌واردی را رد می‌کند" in shown, shown
    where = re.escape(LOOPBACK) + r":\d+"  # the address as dialled: notation
    assert not re.search(r"[0-9]|refuses|joiner|guessing", re.sub(where, "", shown)), shown
