"""The link handshake: mutual authentication bound to fresh key shares and the table; join codes
through CPace (one online guess per connection, nothing to test offline); the frame keys."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import pytest
from net_helpers import LOOPBACK, link_server

from cfnet.net.framing import decode_body, encode_frame
from cfnet.net.handshake import Handshake, HandshakeError, HandshakeResult, WrongJoinCode
from cfnet.net.link import Link, LinkClosed
from cfnet.record.identity import Identity

TABLE = bytes(range(16))
HOST, GUEST, OTHER = (Identity.from_seed(bytes([n]) * 32) for n in (1, 2, 3))

Transcript = list[tuple[str, dict[str, Any]]]


def run(initiator: Handshake, responder: Handshake) -> Transcript:
    """Deliver messages between the two sides until neither has anything to send."""
    sent: Transcript = []
    queue = [("i", m) for m in initiator.start()] + [("r", m) for m in responder.start()]
    while queue:
        side, message = queue.pop(0)
        sent.append((side, message))
        receiver, reply_side = (responder, "r") if side == "i" else (initiator, "i")
        queue += [(reply_side, m) for m in receiver.receive(message)]
    return sent


def pair(
    host_code: str | None = None, guest_code: str | None = None, **guest: Any
) -> tuple[Handshake, Handshake]:
    initiator = Handshake(
        GUEST, initiator=True, table_id=guest.pop("table_id", None), join_code=guest_code, **guest
    )
    responder = Handshake(HOST, initiator=False, table_id=TABLE, join_code=host_code)
    return initiator, responder


def test_success_authenticates_both_keys_binds_the_table_and_keys_each_direction() -> None:
    initiator, responder = pair(accept={HOST.public}, table_id=TABLE)
    run(initiator, responder)
    mine, theirs = initiator.result, responder.result
    assert mine is not None and theirs is not None
    assert (mine.peer_key, mine.table_id) == (HOST.public, TABLE)
    assert (theirs.peer_key, theirs.table_id) == (GUEST.public, TABLE)
    assert mine.transcript == theirs.transcript
    assert (mine.send_key, mine.receive_key) == (theirs.receive_key, theirs.send_key)
    assert mine.send_key != mine.receive_key
    assert mine.send_key.hex() not in repr(mine)  # keys never reach a log line
    again, _ = run_pair(pair(accept={HOST.public}, table_id=TABLE))
    assert again.send_key != mine.send_key  # fresh shares, fresh keys


def run_pair(sides: tuple[Handshake, Handshake]) -> tuple[HandshakeResult, HandshakeResult]:
    run(*sides)
    assert sides[0].result is not None and sides[1].result is not None
    return sides[0].result, sides[1].result


def test_join_code_right_code_any_spelling() -> None:
    initiator, responder = pair(host_code="Blue Moon", guest_code=" blue moon ")
    sent = run(initiator, responder)
    assert initiator.result is not None and responder.result is not None
    assert all(b"moon" not in encode_frame(m).lower() for _, m in sent)  # never in the clear


@pytest.mark.parametrize(
    ("host_code", "guest_code", "error"),
    [
        ("blue moon", "red moon", "wrong join code"),
        ("blue moon", None, "needs a join code"),
        (None, "blue moon", "the table uses none"),
    ],
)
def test_join_code_mismatch_fails(
    host_code: str | None, guest_code: str | None, error: str
) -> None:
    with pytest.raises(HandshakeError, match=error):
        run(*pair(host_code, guest_code))


def test_a_wrong_code_is_one_guess_seen_by_the_responder_only_after_a_valid_signature() -> None:
    initiator, responder = pair(host_code="blue moon", guest_code="red moon")
    responder.start()
    assert responder.receive(initiator.start()[0]) == []
    other = Handshake(HOST, initiator=False, table_id=TABLE, join_code="blue moon")
    (auth,) = initiator.receive(other.start()[0])  # an auth for another session
    with pytest.raises(HandshakeError, match="signature does not verify") as refused:
        responder.receive(auth)
    assert not isinstance(refused.value, WrongJoinCode)  # not counted as a guess
    initiator, responder = pair(host_code="blue moon", guest_code="red moon")
    with pytest.raises(WrongJoinCode, match="wrong join code"):  # a guess, and only then
        run(initiator, responder)


def test_a_fake_host_gets_one_guess_per_connection_and_nothing_to_test_offline() -> None:
    """A fake host records a joiner's handshake, knowing its own secret scalar, then replays
    the record against every candidate code with the same scalar. Only the code it put in its
    share gets an answer (the online guess it made); the right code gets none: the record
    holds no proof over the code that a candidate could be checked against (the old scrypt MAC
    let every candidate be tested)."""
    scalar = bytes([7]) * 32
    guess, code = "1234", "4711"

    def fake_host(candidate: str) -> tuple[Handshake, dict[str, Any]]:
        host = Handshake(
            OTHER, initiator=False, table_id=TABLE, join_code=candidate, entropy=lambda n: scalar
        )
        return host, host.start()[0]

    joiner = Handshake(GUEST, initiator=True, table_id=None, join_code=code)
    (hello,) = joiner.start()
    fake, fake_hello = fake_host(guess)
    fake.receive(hello)
    (auth,) = joiner.receive(fake_hello)
    with pytest.raises(WrongJoinCode):
        fake.receive(auth)  # the one online guess: wrong
    verdicts: dict[str, str] = {}
    for candidate in [code, guess] + [f"{n:04}" for n in range(0, 10000, 97)]:
        replay, _ = fake_host(candidate)
        replay.receive(hello)
        with pytest.raises(HandshakeError) as failed:
            replay.receive(auth)
        verdicts[candidate] = str(failed.value)
    assert verdicts.pop(guess) == "wrong join code"
    assert set(verdicts.values()) == {"the peer's handshake signature does not verify"}
    assert code in verdicts


def test_a_degenerate_key_share_fails() -> None:
    for share in (bytes(32), b"\x01" + bytes(31)):  # low-order points: the shared point is 0
        _, responder = pair()
        responder.start()
        hello = Handshake(GUEST, initiator=True, table_id=None).start()[0] | {"share": share}
        with pytest.raises(HandshakeError, match="degenerate key share"):
            responder.receive(hello)


def test_wrong_table_or_unexpected_key_fails() -> None:
    with pytest.raises(HandshakeError, match="wants table"):
        run(*pair(table_id=os.urandom(16)))
    with pytest.raises(HandshakeError, match="not one we accept"):
        run(*pair(accept={OTHER.public}))
    responder = Handshake(HOST, initiator=False, table_id=TABLE, accept={OTHER.public})
    with pytest.raises(HandshakeError, match="not one we accept"):
        run(Handshake(GUEST, initiator=True, table_id=TABLE), responder)


def test_claiming_another_key_fails() -> None:
    """An impostor announces GUEST's public key but can only sign with its own."""
    impostor = Handshake(OTHER, initiator=True, table_id=TABLE)
    responder = Handshake(HOST, initiator=False, table_id=TABLE)
    hello = impostor.start()[0] | {"key": GUEST.public}
    responder.start()
    assert responder.receive(hello) == []
    (auth,) = impostor.receive(Handshake(HOST, initiator=False, table_id=TABLE).start()[0])
    with pytest.raises(HandshakeError, match="signature does not verify"):
        responder.receive(auth)


def test_replayed_handshake_fails_both_ways() -> None:
    initiator, responder = pair(host_code="code", guest_code="code")
    sent = run(initiator, responder)
    from_initiator = [m for side, m in sent if side == "i"]
    from_responder = [m for side, m in sent if side == "r"]
    fresh_responder = Handshake(HOST, initiator=False, table_id=TABLE, join_code="code")
    fresh_responder.start()
    fresh_responder.receive(from_initiator[0])
    with pytest.raises(HandshakeError, match="signature does not verify"):
        fresh_responder.receive(from_initiator[1])
    fresh_initiator = Handshake(GUEST, initiator=True, table_id=TABLE, join_code="code")
    fresh_initiator.start()
    fresh_initiator.receive(from_responder[0])
    with pytest.raises(HandshakeError, match="signature does not verify"):
        fresh_initiator.receive(from_responder[1])


def test_malformed_and_out_of_order_messages_fail() -> None:
    _, responder = pair()
    responder.start()
    with pytest.raises(HandshakeError, match="unexpected 'auth'"):
        responder.receive({"t": "auth", "sig": b"\x00" * 64, "confirm": b"\x00" * 32})
    _, responder = pair()
    responder.start()
    with pytest.raises(HandshakeError, match="malformed hello"):
        responder.receive(
            Handshake(GUEST, initiator=True, table_id=None).start()[0] | {"share": b"1"}
        )
    _, responder = pair()
    responder.start()
    with pytest.raises(HandshakeError, match="network version"):
        responder.receive({"t": "hello", "v": 1})  # version 1: the handshake before CPace
    initiator, responder = pair()
    responder.start()
    responder.receive(initiator.start()[0])
    with pytest.raises(HandshakeError, match="malformed auth"):
        responder.receive({"t": "auth", "sig": b"\x00" * 64, "mac": b"\x00" * 32})


async def _over_sockets(
    guest_code: str | None,
) -> tuple[HandshakeResult | LinkClosed, LinkClosed | HandshakeResult]:
    async with link_server() as (port, accepted):
        client = await Link.connect(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 30)
        outcomes = await asyncio.gather(
            client.handshake(Handshake(GUEST, initiator=True, table_id=None, join_code=guest_code)),
            server_link.handshake(
                Handshake(HOST, initiator=False, table_id=TABLE, join_code="1234")
            ),
            return_exceptions=True,
        )
        for outcome in outcomes:
            assert isinstance(outcome, HandshakeResult | LinkClosed), outcome
        return outcomes[0], outcomes[1]  # type: ignore[return-value]


def test_link_handshake_with_right_and_wrong_code(caplog: pytest.LogCaptureFixture) -> None:
    client, server = asyncio.run(_over_sockets("1234"))
    assert isinstance(client, HandshakeResult) and client.peer_key == HOST.public
    assert isinstance(server, HandshakeResult) and server.peer_key == GUEST.public
    caplog.set_level(logging.INFO, logger="cfnet.net")
    client, server = asyncio.run(_over_sockets("4321"))
    assert isinstance(server, LinkClosed) and server.reason == "handshake failed: wrong join code"
    assert isinstance(client, LinkClosed) and "wrong join code" in client.reason  # told why
    assert any("handshake failed: wrong join code" in r.getMessage() for r in caplog.records)


async def _replay_recorded_frames() -> LinkClosed:
    """Record a real handshake's initiator frames, then replay them to a new server session."""
    initiator, responder = pair()
    recorded = [encode_frame(m) for side, m in run(initiator, responder) if side == "i"]
    async with link_server() as (port, accepted):
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 30)
        writer.write(b"".join(recorded))
        with pytest.raises(LinkClosed) as info:
            await server_link.handshake(Handshake(HOST, initiator=False, table_id=TABLE))
        frames = await asyncio.wait_for(reader.read(), 30)
        writer.close()
        assert decode_body(frames[4 : 4 + int.from_bytes(frames[:4], "big")])["t"] == "hello"
        return info.value


def test_replayed_handshake_over_a_socket_is_closed_with_reason() -> None:
    closed = asyncio.run(_replay_recorded_frames())
    assert closed.reason == "handshake failed: the peer's handshake signature does not verify"
    assert isinstance(closed.error, HandshakeError)


async def _silent_peer() -> LinkClosed:
    async with link_server() as (port, accepted):
        _, writer = await asyncio.open_connection(LOOPBACK, port)
        server_link = await asyncio.wait_for(accepted.get(), 30)
        with pytest.raises(LinkClosed) as info:
            await server_link.handshake(
                Handshake(HOST, initiator=False, table_id=TABLE), timeout=0.2
            )
        writer.close()
        return info.value


def test_a_silent_peer_times_out_the_handshake() -> None:
    assert asyncio.run(_silent_peer()).reason == "handshake timed out after 0.2 s"
