"""Cheats inside a shuffle step, each refused at the hop by its proof (protocol.md, "Hop
proofs"): the author is blamed with `bad-proof` by every peer and by `verify`, before any tile
can be opened; and an honest hop is always accepted."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nacl.bindings as sodium
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.deck.derive import context
from cfnet.deck.proofs import (
    ProofError,
    RekeyProof,
    ShuffleProof,
    check_rekey,
    check_shuffle,
    prove_rekey,
    prove_shuffle,
)
from cfnet.deck.sra import SeatSecrets, round_deck, shuffle_phase_a, shuffle_phase_b
from cfnet.game.tiles import double
from cfnet.protocol.events import HandDealt, SeatLeft
from cfnet.protocol.schedule import Step
from cfnet.protocol.wire import BAD_PROOF, pack, unpack

sys.path.insert(0, str(Path(__file__).parent.parent))
from cheaters import Cheater, assert_caught, run
from deck_helpers import deck_threads

Body = dict[str, Any]
Rewrite = Callable[[Cheater, str, Body], tuple[str, Body] | None]
TABLE = bytes(range(16))


def _secrets(c: Cheater, body: Body) -> SeatSecrets:
    assert c.table is not None
    return SeatSecrets.derive(c.seeds[body["round"]], c.table.table_id, body["round"], c.seat)


def _input(c: Cheater, step: Step) -> list[bytes]:
    assert c.table is not None and c.table.round is not None
    return c.table.round.hop_input(step, c.seat)


def swapped_pair(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
    if kind != "shuffle_a":
        return None
    deck = unpack(body["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    return kind, {**body, "deck": pack(deck)}


def replaced_point(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
    """Phase A: one output point replaced by the masked point of the centre double (a tile
    that is not in the round)."""
    if kind != "shuffle_a":
        return None
    deck = unpack(body["deck"])
    centre = round_deck(double(0))[-1]
    deck[7] = sodium.crypto_scalarmult_ed25519_noclamp(_secrets(c, body).masking_key, centre)
    return kind, {**body, "deck": pack(deck)}


def copy_in_phase_b(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
    """Phase B: position 0 gets position q's point under position 0's key, so that it opens
    to position q's tile (the copy attack that read other seats' hidden tiles)."""
    if kind != "shuffle_b" or c.table is None or c.table.round is None:
        return None
    q = c.table.round.hand if c.seat == 0 else c.table.round.hand * 2
    keys = _secrets(c, body).position_keys
    ratio = sodium.crypto_core_ed25519_scalar_mul(
        keys[0], sodium.crypto_core_ed25519_scalar_invert(keys[q])
    )
    deck = unpack(body["deck"])
    deck[0] = sodium.crypto_scalarmult_ed25519_noclamp(ratio, deck[q])
    return kind, {**body, "deck": pack(deck)}


def another_key(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
    """Phase B: one position locked with a key other than the committed one."""
    if kind != "shuffle_b":
        return None
    deck = unpack(body["deck"])
    deck[3] = sodium.crypto_scalarmult_ed25519_noclamp((5).to_bytes(32, "little"), deck[3])
    return kind, {**body, "deck": pack(deck)}


def proof_for(where: Callable[[Cheater, Body], bytes]) -> Rewrite:
    """An honest phase-A hop whose proof is made for another context."""

    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != "shuffle_a":
            return None
        s = _secrets(c, body)
        proof = prove_shuffle(
            where(c, body),
            _input(c, Step.SHUFFLE_A),
            unpack(body["deck"]),
            body["mask_commitment"],
            s.permutation,
            s.masking_key,
            s.seed,
        )
        return kind, {**body, "proof": proof.to_bytes()}

    return rewrite


def flipped_byte(kind_: str, offset: int) -> Rewrite:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != kind_:
            return None
        proof = bytearray(body["proof"])
        proof[offset] ^= 1
        return kind, {**body, "proof": bytes(proof)}

    return rewrite


def zero_response(kind_: str, index: int) -> Rewrite:
    def rewrite(c: Cheater, kind: str, body: Body) -> tuple[str, Body] | None:
        if kind != kind_:
            return None
        proof = bytearray(body["proof"])
        proof[index * 32 : (index + 1) * 32] = bytes(32)
        return kind, {**body, "proof": bytes(proof)}

    return rewrite


ATTACKS: dict[str, tuple[int, Rewrite]] = {
    "a swapped pair in phase A": (2, swapped_pair),
    "a replaced point in phase A": (1, replaced_point),
    "seat 0 copies a position of seat 1 in phase B": (0, copy_in_phase_b),
    "a later seat copies a later seat's position in phase B": (1, copy_in_phase_b),
    "one position under another key in phase B": (2, another_key),
    "a proof for another seat": (
        1, proof_for(lambda c, b: context(c.table.table_id, b["round"], 2)),  # type: ignore[union-attr]
    ),
    "a proof for another round": (
        1, proof_for(lambda c, b: context(c.table.table_id, b["round"] + 1, c.seat)),  # type: ignore[union-attr]
    ),
    "a proof for another table": (1, proof_for(lambda c, b: context(TABLE, b["round"], c.seat))),
    "a flipped byte in a shuffle proof": (0, flipped_byte("shuffle_a", 100)),
    "a flipped byte in a rekey proof": (2, flipped_byte("shuffle_b", 40)),
    "a zero response in a shuffle proof": (1, zero_response("shuffle_a", 54 * 2 + 1)),
    "a zero response in a rekey proof": (0, zero_response("shuffle_b", 1)),
}  # fmt: skip


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_cheat_inside_a_shuffle_step_is_refused_at_the_hop(attack: str) -> None:
    cheat, rewrite = ATTACKS[attack]
    network, cheater = run(3, 4, cheat, rewrite)
    assert cheater is not None and cheater.cheated_at is not None
    assert assert_caught(network, cheat, BAD_PROOF) == cheater.cheated_at
    for events in network.events:  # no tile of the deal it cheated in was ever dealt
        before = events[: next(i for i, e in enumerate(events) if isinstance(e, SeatLeft))]
        assert not any(isinstance(e, HandDealt) for e in before), "a tile was dealt"


def _hop_inputs(seed: bytes, size: int) -> tuple[SeatSecrets, list[bytes]]:
    secrets = SeatSecrets.derive(seed, TABLE, 1, 0, size)
    return secrets, round_deck(double(9))[:size]


@settings(max_examples=12, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), size=st.integers(1, 9))
def test_an_honest_hop_is_always_accepted_and_a_changed_one_never(seed: bytes, size: int) -> None:
    secrets, inputs = _hop_inputs(seed, size)
    where = context(TABLE, 1, 0)
    mask, keys = secrets.mask_commitment(), secrets.key_commitments()
    masked = shuffle_phase_a(inputs, secrets)
    proof = prove_shuffle(
        where, inputs, masked, mask, secrets.permutation, secrets.masking_key, seed
    )
    check_shuffle(where, inputs, masked, mask, ShuffleProof.from_bytes(proof.to_bytes(), size))
    rekeyed = shuffle_phase_b(masked, secrets)
    rekey = prove_rekey(
        where, masked, rekeyed, mask, keys, secrets.masking_key, secrets.position_keys, seed
    )
    check_rekey(where, masked, rekeyed, mask, keys, RekeyProof.from_bytes(rekey.to_bytes(), size))
    check_shuffle(where, inputs, masked, mask, proof)  # again: a proof already checked
    blob = proof.to_bytes()
    flipped = ShuffleProof.from_bytes(blob[:40] + bytes([blob[40] ^ 1]) + blob[41:], size)
    with pytest.raises(ProofError):  # a changed byte is checked afresh, never taken as seen
        check_shuffle(where, inputs, masked, mask, flipped)
    other = context(TABLE, 1, 1)
    with pytest.raises(ProofError):
        check_shuffle(other, inputs, masked, mask, proof)
    with pytest.raises(ProofError):
        check_rekey(other, masked, rekeyed, mask, keys, rekey)
    if size > 1:
        with pytest.raises(ProofError):
            check_shuffle(where, inputs, [masked[-1], *masked[:-1]], mask, proof)
        with pytest.raises(ProofError):
            check_rekey(where, masked, [rekeyed[-1], *rekeyed[:-1]], mask, keys, rekey)


def test_a_proof_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ProofError, match="bytes"):
        ShuffleProof.from_bytes(os.urandom(100), 54)
    with pytest.raises(ProofError, match="bytes"):
        RekeyProof.from_bytes(os.urandom(100), 54)


BAD_POINTS = (
    bytes([1]) + bytes(31),  # the identity (0, 1)
    bytes(32),  # (sqrt(-1), 0), of order 4
    (2**255 - 20).to_bytes(32, "little"),  # (0, -1), of order 2
    b"\xff" * 32,  # y = 2^255 - 1: not canonical
    bytes([2]) + bytes(31),  # y = 2: no x has it, off the curve
)


def _outcome(threads: int, check: Callable[[], None]) -> str:
    """What a check says with the deck on `threads` threads: "ok", or its error's text."""
    with deck_threads(threads):
        try:
            check()
        except ProofError as error:
            return str(error)
    return "ok"


@settings(max_examples=30, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    size=st.integers(1, 9),
    flips=st.lists(st.integers(0, 10**6), max_size=3),
    planted=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(BAD_POINTS)), max_size=3),
    threads=st.integers(2, 4),
)
def test_a_forged_hop_gets_the_same_verdict_on_any_number_of_threads(
    seed: bytes,
    size: int,
    flips: list[int],
    planted: list[tuple[int, bytes]],
    threads: int,
) -> None:
    """A proof with flipped bits and bad points planted in it or in its statement gets the same
    answer, to the word, whether its check runs on one thread or is shared among several:
    a peer, a watcher and `cfnet verify` on another machine name the same fault."""
    secrets, inputs = _hop_inputs(seed, size)
    where, mask = context(TABLE, 1, 0), secrets.mask_commitment()
    outputs = shuffle_phase_a(inputs, secrets)
    proof = prove_shuffle(
        where, inputs, outputs, mask, secrets.permutation, secrets.masking_key, seed
    ).to_bytes()
    keys = secrets.key_commitments()
    rekeyed = shuffle_phase_b(outputs, secrets)
    rekey = prove_rekey(
        where, outputs, rekeyed, mask, keys, secrets.masking_key, secrets.position_keys, seed
    ).to_bytes()
    # One list of every 32-byte field, the proofs' and their statements': forged in place.
    fields = [
        *(proof[i : i + 32] for i in range(0, len(proof), 32)),
        *(rekey[i : i + 32] for i in range(0, len(rekey), 32)),
        *outputs,
        *rekeyed,
        *keys,
    ]
    for at, point in planted:
        fields[at % len(fields)] = point
    for bit in flips:
        at = bit // 256 % len(fields)
        field = bytearray(fields[at])
        field[bit % 256 // 8] ^= 1 << bit % 8
        fields[at] = bytes(field)
    shuffle_fields, rest = len(proof) // 32, iter(fields[len(proof) // 32 :])
    rekey_blob = b"".join(next(rest) for _ in range(len(rekey) // 32))
    forged_outputs = [next(rest) for _ in range(size)]
    forged_rekeyed = [next(rest) for _ in range(size)]
    forged_keys = [next(rest) for _ in range(size)]
    shuffle_blob = b"".join(fields[:shuffle_fields])

    def shuffle() -> None:
        check_shuffle(
            where, inputs, forged_outputs, mask, ShuffleProof.from_bytes(shuffle_blob, size)
        )

    def rekeying() -> None:
        check_rekey(
            where,
            forged_outputs,
            forged_rekeyed,
            mask,
            forged_keys,
            RekeyProof.from_bytes(rekey_blob, size),
        )

    for check in (shuffle, rekeying):  # a forged proof is not remembered: checked afresh
        alone = _outcome(1, check)
        assert _outcome(threads, check) == alone
        if not (flips or planted):
            assert alone == "ok"
