"""The link handshake: mutual authentication bound to fresh nonces and the table; join codes."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import pytest
from net_helpers import LOOPBACK, link_server

from cfnet.identity import Identity
from cfnet.net.framing import decode_body, encode_frame
from cfnet.net.handshake import Handshake, HandshakeError, HandshakeResult
from cfnet.net.link import Link, LinkClosed

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


def test_success_authenticates_both_keys_and_binds_the_table() -> None:
    initiator, responder = pair(accept={HOST.public}, table_id=TABLE)
    run(initiator, responder)
    assert initiator.result == HandshakeResult(HOST.public, TABLE, responder_transcript(responder))
    assert responder.result is not None and responder.result.peer_key == GUEST.public
    assert initiator.result.transcript == responder.result.transcript


def responder_transcript(responder: Handshake) -> bytes:
    assert responder.result is not None
    return responder.result.transcript


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
        responder.receive({"t": "auth", "sig": b"\x00" * 64, "mac": None})
    _, responder = pair()
    responder.start()
    with pytest.raises(HandshakeError, match="malformed hello"):
        responder.receive(
            Handshake(GUEST, initiator=True, table_id=None).start()[0] | {"nonce": b"1"}
        )
    _, responder = pair()
    responder.start()
    with pytest.raises(HandshakeError, match="network version"):
        responder.receive({"t": "hello", "v": 99})


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
