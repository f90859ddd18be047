"""The cheater zoo: one seat misbehaves in each test; it is caught (at once where the design
allows, else at the reveal), blamed, no honest seat is ever blamed, and `verify` agrees."""

from __future__ import annotations

import os
from typing import Any

import nacl.bindings as sodium
import pytest
from cheaters import Cheater, assert_caught, bad_signature, resign, run

from cfnet.deck import SeatSecrets
from cfnet.log import Entry
from cfnet.table_events import HandDealt, Superseded
from cfnet.table_round import Step
from cfnet.table_sim import Network, Tamper
from cfnet.table_wire import BAD_ENTRY, BAD_POINT, EQUIVOCATION, OUT_OF_TURN, TIMEOUT, pack, unpack

Body = dict[str, Any]


def _junk_point() -> bytes:
    """A canonical 32-byte string that is not a point of the group."""
    for y in range(2, 1000):
        candidate = y.to_bytes(32, "little")
        if not sodium.crypto_core_ed25519_is_valid_point(candidate):
            return candidate
    raise AssertionError("no junk point found")


def _entry_at(network: Network, seq: int) -> Entry:
    return network.tables[0].entries[seq]


def _reveal_seq(network: Network, cheat: int) -> int:
    honest = next(t for t in network.tables if t.me != cheat)
    return min(e.seq for e in honest.entries if e.kind == "reveal")


# ---------------------------------------------------------------- shuffles


def test_duplicated_point_in_phase_a() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_a":
            return None
        deck = unpack(body["deck"])
        body["deck"] = pack([deck[0], *deck[:-1]])
        return kind, body

    network, cheater = run(3, 1, 1, rewrite)
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at


@pytest.mark.parametrize(("cheat", "finder"), [(1, 2), (2, 0)])
def test_junk_point_in_phase_a(cheat: int, finder: int) -> None:
    """The next hop's multiplication refuses the point (after seat 2's phase A comes seat 0's
    phase B); that seat reports it instead of posting its own hop."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_a":
            return None
        deck = unpack(body["deck"])
        body["deck"] = pack([*deck[:5], _junk_point(), *deck[6:]])
        return kind, body

    network, cheater = run(3, 2, cheat, rewrite)
    assert cheater is not None
    assert assert_caught(network, cheat, BAD_POINT) == cheater.cheated_at
    assert network.tables[0].aborted_by == finder, "the next hop found it and reported it"


def test_permutation_not_from_the_seed() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_a":
            return None
        deck = unpack(body["deck"])
        deck[0], deck[1] = deck[1], deck[0]
        return kind, {**body, "deck": pack(deck)}

    network, cheater = run(3, 3, 2, rewrite)
    assert cheater is not None
    assert assert_caught(network, 2, BAD_ENTRY) == cheater.cheated_at
    abort = network.tables[0].entries[-1]
    assert abort.seq > _reveal_seq(network, 2), "found by the audit at the reveal"


def test_position_copied_over_another_in_phase_b() -> None:
    """Seat 0 (first in phase B) copies seat 1's first position over its own position 0: both
    open to the same real tile, so seat 0 learns one of seat 1's tiles and every hop looks
    well formed. Here seat 1 plays that tile after seat 0 did: the table cannot tell who is
    wrong, goes straight to the reveal, and the audit blames seat 0's phase-B deck."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_b" or c.table is None:
            return None
        r, hand = body["round"], c.table.round.hand if c.table.round else 0
        keys = SeatSecrets.derive(c.seeds[r], c.table.table_id, r, c.seat).position_keys
        ratio = sodium.crypto_core_ed25519_scalar_mul(
            keys[0], sodium.crypto_core_ed25519_scalar_invert(keys[hand])
        )
        deck = unpack(body["deck"])
        deck[0] = sodium.crypto_scalarmult_ed25519_noclamp(ratio, deck[hand])
        return kind, {**body, "deck": pack(deck)}

    network, cheater = run(3, 1, 0, rewrite, bots=("random", "greedy"))
    assert cheater is not None
    dealt = [next(e for e in network.events[s] if isinstance(e, HandDealt)) for s in (0, 1)]
    assert dealt[0].tiles[0] == dealt[1].tiles[0], "seat 0 holds a copy of seat 1's tile"
    honest = network.tables[1].round
    assert honest is not None and honest.suspect is not None and honest.suspect[0] == 1
    assert assert_caught(network, 0, BAD_ENTRY) == cheater.cheated_at


# ---------------------------------------------------------------- keys and moves


def test_wrong_key_released() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "deal":
            return None
        body["keys"] = os.urandom(32) + body["keys"][32:]
        return kind, body

    network, cheater = run(4, 5, 3, rewrite)
    assert cheater is not None
    assert assert_caught(network, 3, BAD_ENTRY) == cheater.cheated_at


def test_tile_not_in_hand() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "play":
            return None
        body["tile"] = (body["tile"] + 1) % 55
        return kind, body

    network, cheater = run(3, 6, 0, rewrite)
    assert cheater is not None
    assert assert_caught(network, 0, BAD_ENTRY) == cheater.cheated_at


def test_tile_already_on_the_board() -> None:
    played: list[Body] = []

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "play":
            return None
        if not played:
            played.append(dict(body))
            return None
        return kind, {**played[0], "end": body["end"]}

    network, cheater = run(2, 7, 1, rewrite)
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at


def test_pass_while_holding_a_legal_tile() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        public = c.table.public if c.table else None
        if kind != "play" or public is None or public.drawable or public.drawn_pending:
            return None
        return "pass", {"round": body["round"]}

    network, cheater = run(2, 3, 0, rewrite)
    assert cheater is not None and cheater.cheated_at is not None
    assert assert_caught(network, 0, BAD_ENTRY) == cheater.cheated_at
    assert "cannot pass" in network.tables[1].aborted.detail  # type: ignore[union-attr]


def test_drawn_tile_that_fits_not_played() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        public = c.table.public if c.table else None
        if kind != "play" or public is None or not public.drawn_pending:
            return None
        return "pass", {"round": body["round"]}

    network, cheater = run(2, 2, 1, rewrite)
    assert cheater is not None and cheater.cheated_at is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at
    assert "must play it" in network.tables[0].aborted.detail  # type: ignore[union-attr]


def test_revealed_seed_not_matching_commitment() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "reveal":
            return None
        return kind, {**body, "seed": os.urandom(32)}

    network, cheater = run(3, 8, 1, rewrite)
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at


def test_commitment_copied_from_another_seat() -> None:
    """Seat 2 copies seat 0's commitments, then seat 0's revealed nonce: it does not open for
    seat 2 (commitments are bound to the seat)."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        r = c.table.round if c.table else None
        if r is None:
            return None
        if kind == "shuffle_a":
            copied = {"seed_commitment": r.seed_commits[0], "nonce_commitment": r.nonce_commits[0]}
            return kind, {**body, **copied}
        if kind == "shuffle_b":
            return kind, {**body, "nonce": r.nonces[0]}
        return None

    network, cheater = run(3, 9, 2, rewrite, times=2)
    assert cheater is not None
    seq = assert_caught(network, 2, BAD_ENTRY)
    assert _entry_at(network, seq).kind == "shuffle_b", "the copied nonce does not open for 2"


def test_commitment_replayed_from_an_earlier_round() -> None:
    """In round 2 seat 1 reuses its round-1 commitments and nonce: bound to round 1."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if c.table is None or c.table.round is None or c.table.round.number != 2:
            return None
        first = [e for e in c.table.entries if e.seat == c.seat and e.body.get("round") == 1]
        old = next((e for e in first if e.kind == kind), None)
        if kind == "shuffle_a" and old is not None:
            names = ("seed_commitment", "nonce_commitment")
            return kind, {**body, **{name: old.body[name] for name in names}}
        if kind == "shuffle_b" and old is not None:
            return kind, {**body, "nonce": old.body["nonce"]}
        return None

    network, cheater = run(2, 10, 1, rewrite, rounds=2, times=2)
    assert cheater is not None
    seq = assert_caught(network, 1, BAD_ENTRY)
    assert _entry_at(network, seq).kind == "shuffle_b", "a round-1 nonce does not open in round 2"


# ---------------------------------------------------------------- the chain


def _tamper_once(network: Network, cheat: int, kind: str, deliveries: Any) -> Tamper:
    done: list[bool] = []
    identity = network.tables[cheat].local.identity  # type: ignore[union-attr]

    def tamper(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        if done or entry.kind != kind:
            return [(entry.wire, None)]
        done.append(True)
        result: list[tuple[bytes, frozenset[int] | None]] = deliveries(identity, entry)
        return result

    return tamper


def test_entry_out_of_turn() -> None:
    def extra(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        again = resign(identity, entry, seq=entry.seq + 1, prev=entry.hash)
        return [(entry.wire, None), (again.wire, None)]

    network, _ = run(3, 14, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", extra))
    assert_caught(network, 1, OUT_OF_TURN)


def test_bad_signature() -> None:
    def forged(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        return [(bad_signature(entry), None)]

    network, _ = run(3, 15, 2, tamper=lambda n: _tamper_once(n, 2, "shuffle_a", forged))
    assert_caught(network, 2, TIMEOUT)
    assert any("signature" in str(e) for _, e in network.errors)
    # anyone can forge a bad signature: the timeout does not say the seat sent it
    assert "refused" not in network.tables[0].aborted.detail  # type: ignore[union-attr]


def test_two_entries_for_the_same_place() -> None:
    def split(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        deck = unpack(entry.body["deck"])
        other = resign(identity, entry, body={**entry.body, "deck": pack(deck[1:] + deck[:1])})
        return [(entry.wire, frozenset({0})), (other.wire, frozenset({2, 3}))]

    network, _ = run(4, 16, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", split))
    assert_caught(network, 1, EQUIVOCATION)


def test_seat_that_never_reveals() -> None:
    def tamper(network: Network) -> Tamper:
        def drop(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
            return [] if entry.kind == "reveal" else [(entry.wire, None)]

        return drop

    network, _ = run(3, 17, 0, tamper=tamper)
    assert_caught(network, 0, TIMEOUT)
    assert network.tables[1].round is not None
    assert network.tables[1].round.step is Step.REVEAL
    assert network.now >= 60, "blamed only after the deadline"


def test_entry_replayed_from_another_table() -> None:
    def foreign(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        return [(resign(identity, entry, table_id=bytes(16)).wire, None)]

    network, _ = run(3, 18, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", foreign))
    assert_caught(network, 1, TIMEOUT)
    assert any("another table" in str(e) for _, e in network.errors)


def test_junk_point_in_the_final_deck() -> None:
    """Only the owner's opening consumes a dealt final point: it reports it, out of turn with
    the next move, and its abort takes that move's place on every peer."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_b":
            return None
        deck = unpack(body["deck"])
        return kind, {**body, "deck": pack([_junk_point(), *deck[1:]])}

    network, cheater = run(3, 20, 2, rewrite)
    assert cheater is not None
    assert assert_caught(network, 2, BAD_POINT) == cheater.cheated_at
    assert network.tables[0].aborted_by == 0, "seat 0 owns position 0"
    assert network.tables[0].round is not None and network.tables[0].round.starter == 1
    superseded = [e for e in network.events[1] if isinstance(e, Superseded)]
    assert superseded, "the starter's first move gave way to the abort"


def test_false_accusation() -> None:
    """Seat 1 posts, in its turn, an abort blaming seat 0 for an entry that broke no rule: the
    accusation stays in the chain as seat 1's bad entry and seat 1 is blamed."""

    def accuse(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        body = {"blamed": 0, "code": "bad-entry", "detail": "made up", "evidence": {"seq": 2}}
        return [(resign(identity, entry, kind="abort", body=body).wire, None)]

    network, _ = run(3, 22, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", accuse))
    seq = assert_caught(network, 1, BAD_ENTRY)
    assert _entry_at(network, seq).kind == "abort" and _entry_at(network, seq).seat == 1
