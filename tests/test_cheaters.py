"""The cheater zoo: one seat misbehaves in each test; it is caught (at once where the design
allows, else at the reveal), blamed, no honest seat is ever blamed, and `verify` agrees. Cheats
inside a shuffle step are in tests/adversary/test_shuffle_proofs.py (caught at the hop)."""

from __future__ import annotations

import os
from typing import Any

import nacl.bindings as sodium
import pytest
from cheaters import Cheater, assert_caught, assert_timed_out, bad_signature, resign, run

from cfnet.protocol.testing import Network, Tamper
from cfnet.protocol.wire import (
    BAD_ENTRY,
    BAD_PROOF,
    EQUIVOCATION,
    OUT_OF_TURN,
    pack,
    unpack,
)
from cfnet.record.entry import Entry

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


@pytest.mark.parametrize("cheat", [1, 2])
def test_junk_point_in_phase_a(cheat: int) -> None:
    """A point that is not in the group fails the hop's proof: refused at the hop by every
    peer (protocol.md, "Hop proofs"; tests/adversary/test_shuffle_proofs.py has the others)."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_a":
            return None
        deck = unpack(body["deck"])
        body["deck"] = pack([*deck[:5], _junk_point(), *deck[6:]])
        return kind, body

    network, cheater = run(3, 2, cheat, rewrite)
    assert cheater is not None
    assert assert_caught(network, cheat, BAD_PROOF) == cheater.cheated_at


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

    network, cheater = run(2, 5, 0, rewrite)
    assert cheater is not None and cheater.cheated_at is not None
    assert assert_caught(network, 0, BAD_ENTRY) == cheater.cheated_at
    assert "cannot pass" in network.tables[1].aborted.detail  # type: ignore[union-attr]


def test_drawn_tile_that_fits_not_played() -> None:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        public = c.table.public if c.table else None
        if kind != "play" or public is None or not public.drawn_pending:
            return None
        return "pass", {"round": body["round"]}

    network, cheater = run(2, 1, 1, rewrite)
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
            copied = {
                "seed_commitment": r.a[0].seed_commitment,
                "nonce_commitment": r.a[0].nonce_commitment,
            }
            return kind, {**body, **copied}
        if kind == "shuffle_b":
            return kind, {**body, "nonce": r.b[0].nonce}
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
    left = assert_timed_out(network, 2)
    assert any("signature" in str(e) for _, e in network.errors)
    # anyone can forge a bad signature: the timeout does not say the seat sent it
    assert "refused" not in left.fault.detail


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
    left = assert_timed_out(network, 0)
    assert left.fault.detail.startswith("did not post its reveal within")
    assert left.redealt and left.seated == (1, 2)
    assert network.now >= 60, "timed out only after the deadline"


def test_entry_replayed_from_another_table() -> None:
    def foreign(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        return [(resign(identity, entry, table_id=bytes(16)).wire, None)]

    network, _ = run(3, 18, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", foreign))
    assert_timed_out(network, 1)
    assert any("another table" in str(e) for _, e in network.errors)


def test_junk_point_in_the_final_deck() -> None:
    """The last phase-B step's junk point fails its proof: no owner ever has to open it."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_b":
            return None
        deck = unpack(body["deck"])
        return kind, {**body, "deck": pack([_junk_point(), *deck[1:]])}

    network, cheater = run(3, 20, 2, rewrite)
    assert cheater is not None
    assert assert_caught(network, 2, BAD_PROOF) == cheater.cheated_at


def test_false_accusation() -> None:
    """Seat 1 posts, in its turn, an abort blaming seat 0 for an entry that broke no rule: the
    accusation stays in the chain as seat 1's bad entry and seat 1 is blamed."""

    def accuse(identity: Any, entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        body = {"blamed": 0, "code": "bad-entry", "detail": "made up", "evidence": {"seq": 2}}
        return [(resign(identity, entry, kind="abort", body=body).wire, None)]

    network, _ = run(3, 22, 1, tamper=lambda n: _tamper_once(n, 1, "shuffle_a", accuse))
    seq = assert_caught(network, 1, BAD_ENTRY)
    assert _entry_at(network, seq).kind == "abort" and _entry_at(network, seq).seat == 1
