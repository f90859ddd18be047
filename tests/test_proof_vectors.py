"""protocol.md section 3, "Hop proofs": the generators, and a whole 2-seat set-up with its four
proofs, pinned byte for byte; each proof re-checked; the transcript hashing re-implemented from
the text for the rekey proof."""

from __future__ import annotations

import hashlib

import nacl.bindings as sodium

from cfnet.deck.derive import context
from cfnet.deck.proofs import (
    RekeyProof,
    ShuffleProof,
    check_rekey,
    check_shuffle,
    generator,
    prove_rekey,
    prove_shuffle,
)
from cfnet.deck.sra import SeatSecrets, round_deck, shuffle_phase_a, shuffle_phase_b
from cfnet.game.tiles import double

TABLE = bytes.fromhex("00112233445566778899aabbccddeeff")
GENERATOR_0 = "e58c73d7021933b75c3eeacf297f0f223415cad86423f7c74a93d3efed4bb18a"
GENERATOR_1 = "883ec26cf6b5ababd0ea09da492f034876dbea75c87443934858b4d370c2b58d"
SETUP_PROOFS = {
    "shuffle proof, seat 0": "16f38d8bc369ff15d24133f27a3f628f739c8ba1306e2b329948f497537c88a5",
    "shuffle proof, seat 1": "6fa24710692a872b194950b5a6fb9c5310a7847f34b3e29f560422f322ecb539",
    "rekey proof, seat 0": "2c98dbd22c2c6836b9baae1a5da492839dee495fa544f21616e2c16d9cb973b8",
    "rekey proof, seat 1": "3603d05487d8f6e121c292f8f5fe05b02cc7d41cda24da74e0e8e85224200f65",
}


def two_seat_setup() -> dict[str, bytes]:
    """Phase A by seats 0 and 1, then phase B by seats 0 and 1, each hop with its proof."""
    secrets = [SeatSecrets.derive(bytes([0xA0 + s]) * 32, TABLE, 1, s) for s in range(2)]
    out: dict[str, bytes] = {}
    deck = round_deck(double(9))
    after_a: list[list[bytes]] = []
    for s, secret in enumerate(secrets):
        where = context(TABLE, 1, s)
        masked = shuffle_phase_a(deck, secret)
        proof = prove_shuffle(
            where, deck, masked, secret.mask_commitment(), secret.permutation,
            secret.masking_key, secret.seed,
        )  # fmt: skip
        check_shuffle(where, deck, masked, secret.mask_commitment(), proof)
        out[f"shuffle proof, seat {s}"] = proof.to_bytes()
        after_a.append(masked)
        deck = masked
    for s, secret in enumerate(secrets):
        where = context(TABLE, 1, s)
        rekeyed = shuffle_phase_b(deck, secret)
        keys = secret.key_commitments()
        proof_b = prove_rekey(
            where, deck, rekeyed, secret.mask_commitment(), keys, secret.masking_key,
            secret.position_keys, secret.seed,
        )  # fmt: skip
        check_rekey(where, deck, rekeyed, secret.mask_commitment(), keys, proof_b)
        out[f"rekey proof, seat {s}"] = proof_b.to_bytes()
        deck = rekeyed
    return out


def test_generators_are_hashed_to_the_group_as_written() -> None:
    for index in (0, 1, 54):
        label = b"\x1acfnet/v1/shuffle-generator"
        digest = hashlib.sha512(label + index.to_bytes(4, "big")).digest()
        assert generator(index) == sodium.crypto_core_ed25519_from_uniform(digest[:32])
    assert generator(0).hex() == GENERATOR_0
    assert generator(1).hex() == GENERATOR_1
    assert len({generator(i) for i in range(55)}) == 55


def test_two_seat_setup_proofs() -> None:
    proofs = two_seat_setup()
    got = {name: hashlib.sha256(blob).hexdigest() for name, blob in proofs.items()}
    assert got == SETUP_PROOFS
    assert [len(b) for b in proofs.values()] == [7072, 7072, 1792, 1792]
    assert (
        ShuffleProof.from_bytes(proofs["shuffle proof, seat 0"], 54).to_bytes()
        == (proofs["shuffle proof, seat 0"])
    )
    assert (
        RekeyProof.from_bytes(proofs["rekey proof, seat 1"], 54).to_bytes()
        == (proofs["rekey proof, seat 1"])
    )
