"""The mental deck: frozen test vectors, the derivations, and every pitfall of DESIGN.md."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter
from collections.abc import Collection, Iterator, Sequence

import nacl.bindings as sodium
import nacl.exceptions
import pytest
from deck_helpers import audit_deck, new_seed, open_point, open_tile, tile_point
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.deck.derive import (
    GROUP_ORDER,
    fisher_yates,
    is_scalar,
    scalar_from_blocks,
    uniform_below,
)
from cfnet.deck.sra import (
    DRAW_ORDER_SIZE,
    ROUND_DECK_SIZE,
    TILE_POINTS,
    DeckError,
    SeatSecrets,
    check_deck,
    check_key,
    check_nonce,
    check_seed,
    group_commitment,
    joint_draw_index,
    nonce_commitment,
    open_points,
    round_deck,
    seed_commitment,
    shuffle_phase_a,
    shuffle_phase_b,
    tile_for_point,
)
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.rules import hand_size
from cfnet.game.tiles import ALL_TILES, Tile, double

# ---------------------------------------------------------------- frozen test vectors
# Generated once by this code and copied into protocol.md; a change here is a protocol change.
VECTOR_SEED = bytes(range(32))
VECTOR_TABLE = bytes.fromhex("00112233445566778899aabbccddeeff")
VECTOR_ROUND = 1
VECTOR_SEAT = 2
TILE_POINT_VECTORS = {
    "0-0": "71b6f2dd65d7d50edfdba4e2baafb5b7affebc7ecf4097e9c876de12776b2b57",
    "5-3": "36e5e7b67b9b66d32a8e039dc0494a6ed8ca076ac594639acded1d029ad0de9b",
    "9-9": "adeefac7aa032426ac85aade28672a1ffd01301959261266218075ae107c5dc5",
}
ALL_TILE_POINTS_SHA256 = "06d317d876b9eee5953a049f16221c5db24d84b027a8697011ff0c215b7e647d"
MASKING_KEY = "8125c3241c483a402bf406e88ba3ec79daeed75c0802665afdc1bc35ba26a50f"
PERMUTATION_TEXT = (
    "1 4 45 39 12 44 34 48 28 47 9 27 29 13 17 37 26 31 25 5 41 15 52 6 49 16 2 36 46 7 22 "
    "32 53 38 20 3 23 43 51 10 0 8 21 40 33 18 30 11 42 19 35 24 50 14"
)
PERMUTATION = tuple(map(int, PERMUTATION_TEXT.split()))
POSITION_KEYS = {
    0: "697593f73ad2e6fa754e95b991610f841a2c3e31bc0cbc075278b5757a389f04",
    1: "f158622ae9152b5231f2fe448109fd03cfc09bea3929e66e61c7ff9864d55507",
    53: "6c51c5aaf85653ebbd8039e3ee46e863f83ed01e3e9de37ec96de36eb46feb08",
}
STARTER_NONCE = "5dcfcba789501ac3cdf88e964eaa04dff36690ea320b5d01a0a488fc124e7e95"
SEED_COMMITMENT = "72b6b9c65177c6c5a942c8c6bbf6847a23e97e8b7e1efd58c428d41d346fd70d"
NONCE_COMMITMENT = "d81cd05dffff71d7fcb5ac4af786272cef30e5710317a2a4a90a0b67a8424e5a"
KEY_COMMITMENT_0 = "90213241c52d4228135be7c038ea6dd6643c56df4b1a0a0e0d7ebe5d58dddc15"
MASK_COMMITMENT = "339202d88bf0adf518e4634039428f201866b681b01a7a4b5e18ec4abcacca45"
# joint_draw_index with nonces bytes([i]) * 32 for seats i = 0..3
JOINT_DRAW_VECTORS = {(4, 1): 8, (2, 1): 42, (4, 2): 44}  # (seats, round) -> index
# round 1 (centre 9-9): one seat's phase A then phase B on the fresh deck, position 0
PHASE_A_0 = "9a46df7c306b91ab8155e4ca0f875a6ae36dcab0e1ab4b37831ccc09056da0a5"
PHASE_B_0 = "f94be05ba4be4ae1bbf45d0a8c9e6a6779147ac78c803ba3ec243a1d7dd16236"
# A whole 2-seat set-up, round 1 (centre 9-9), seat s's seed bytes([0xa0 + s]) * 32: SHA-256 of
# the deck (points concatenated) after phase A and after phase B, the audited tile order, and
# the joint draw index of the two seats' derived starter nonces.
SETUP_AFTER_A = "c0a718febf3407f193c8f7b354252d766c083c2336909c8abbe817e04e0fd254"
SETUP_FINAL = "b830b93fe364473ed152d121c04774f5383afb7aee8b55ff1d872b0bc07b2efd"
SETUP_TILES = (
    "5-2 8-0 2-0 6-5 4-4 6-6 3-0 7-1 8-3 7-5 4-0 7-7 5-0 8-2 9-5 3-1 3-2 9-7 8-8 6-1 9-3 7-4 8-4 "
    "4-1 5-1 9-4 2-1 0-0 5-5 5-4 6-4 7-2 7-6 6-2 6-3 9-0 7-3 4-2 9-6 8-7 4-3 5-3 9-1 9-8 8-1 6-0 "
    "3-3 7-0 1-0 1-1 8-5 8-6 9-2 2-2"
)
SETUP_JOINT_DRAW = 44

# Small-order points (libsodium's blacklist) and non-canonical encodings.
IDENTITY = bytes.fromhex("01" + "00" * 31)
ORDER_2 = bytes.fromhex("ec" + "ff" * 30 + "7f")  # (0, -1)
ORDER_4 = bytes(32)  # (sqrt(-1), 0)
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
ORDER_8_B = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
SMALL_ORDER = (IDENTITY, ORDER_2, ORDER_4, ORDER_8, ORDER_8_B)
NON_CANONICAL = (
    bytes.fromhex("ed" + "ff" * 30 + "7f"),  # y = p, i.e. 0
    bytes.fromhex("ee" + "ff" * 30 + "7f"),  # y = p + 1, i.e. 1: the identity again
    bytes.fromhex("01" + "00" * 30 + "80"),  # identity with the x sign bit set
)
ONE = (1).to_bytes(32, "little")
MASKING_KEY_BYTES = bytes.fromhex(MASKING_KEY)

TABLE = bytes(range(100, 116))
OTHER_TABLE = bytes(range(200, 216))


def vector_secrets() -> SeatSecrets:
    return SeatSecrets.derive(VECTOR_SEED, VECTOR_TABLE, VECTOR_ROUND, VECTOR_SEAT)


def test_tile_point_vectors() -> None:
    for label, point in TILE_POINT_VECTORS.items():
        assert tile_point(Tile.parse(label)).hex() == point
    assert hashlib.sha256(b"".join(TILE_POINTS)).hexdigest() == ALL_TILE_POINTS_SHA256


def test_derivation_vectors() -> None:
    secrets = vector_secrets()
    assert secrets.masking_key.hex() == MASKING_KEY
    assert secrets.permutation == PERMUTATION
    for position, key in POSITION_KEYS.items():
        assert secrets.position_keys[position].hex() == key
    assert secrets.starter_nonce.hex() == STARTER_NONCE
    where = (VECTOR_TABLE, VECTOR_ROUND, VECTOR_SEAT)
    assert seed_commitment(VECTOR_SEED, *where).hex() == SEED_COMMITMENT
    assert nonce_commitment(secrets.starter_nonce, *where).hex() == NONCE_COMMITMENT
    assert secrets.key_commitments()[0].hex() == KEY_COMMITMENT_0
    assert group_commitment(secrets.position_keys[0]).hex() == KEY_COMMITMENT_0
    assert secrets.mask_commitment().hex() == MASK_COMMITMENT
    phase_a = shuffle_phase_a(round_deck(double(9)), secrets)
    assert phase_a[0].hex() == PHASE_A_0
    assert shuffle_phase_b(phase_a, secrets)[0].hex() == PHASE_B_0


def test_joint_draw_vectors() -> None:
    for (seats, round_number), index in JOINT_DRAW_VECTORS.items():
        nonces = [bytes([i]) * 32 for i in range(seats)]
        assert joint_draw_index(nonces, VECTOR_TABLE, round_number) == index


def test_whole_setup_vector() -> None:
    secrets = [SeatSecrets.derive(bytes([0xA0 + s]) * 32, VECTOR_TABLE, 1, s) for s in range(2)]
    deck = round_deck(double(9))
    for s in secrets:
        deck = shuffle_phase_a(deck, s)
    assert hashlib.sha256(b"".join(deck)).hexdigest() == SETUP_AFTER_A
    for s in secrets:
        deck = shuffle_phase_b(deck, s)
    assert hashlib.sha256(b"".join(deck)).hexdigest() == SETUP_FINAL
    tiles = audit_deck(deck, double(9), secrets)
    assert " ".join(t.label for t in tiles) == SETUP_TILES
    nonces = [s.starter_nonce for s in secrets]
    assert joint_draw_index(nonces, VECTOR_TABLE, 1) == SETUP_JOINT_DRAW


# ------------------------------------- the spec, re-implemented from protocol.md's words
L = GROUP_ORDER


def spec_label(label: str) -> bytes:
    return bytes([len(label)]) + label.encode()


def spec_context(seat: int, *more: int) -> bytes:
    ints = (VECTOR_ROUND, seat, *more)
    return VECTOR_TABLE + b"".join(i.to_bytes(4, "big") for i in ints)


def spec_block(label: str, info: bytes, counter: int) -> bytes:
    message = spec_label(label) + info + counter.to_bytes(4, "big")
    return hmac.new(VECTOR_SEED, message, hashlib.sha512).digest()


def spec_scalar(label: str, info: bytes) -> bytes:
    value = int.from_bytes(spec_block(label, info, 0), "little") % L
    return value.to_bytes(32, "little")  # nonzero for these inputs (else: the next block)


def test_derivations_match_the_written_spec() -> None:
    secrets = vector_secrets()
    where = spec_context(VECTOR_SEAT)
    assert secrets.masking_key == spec_scalar("cfnet/v1/masking-key", where)
    assert secrets.position_keys[7] == spec_scalar(
        "cfnet/v1/position-key", spec_context(VECTOR_SEAT, 7)
    )
    assert secrets.starter_nonce == spec_block("cfnet/v1/starter-nonce", where, 0)[:32]
    stream = b"".join(
        spec_block("cfnet/v1/permutation", spec_context(VECTOR_SEAT, 54), i) for i in range(4)
    )
    words = iter(int.from_bytes(stream[i : i + 4], "big") for i in range(0, len(stream), 4))
    order = list(range(54))
    for i in range(53, 0, -1):
        while (word := next(words)) >= 2**32 - 2**32 % (i + 1):
            pass
        j = word % (i + 1)
        order[i], order[j] = order[j], order[i]
    assert secrets.permutation == tuple(order)
    seed_hash = hashlib.sha256(spec_label("cfnet/v1/seed-commitment") + where + VECTOR_SEED)
    assert seed_commitment(VECTOR_SEED, VECTOR_TABLE, VECTOR_ROUND, VECTOR_SEAT) == (
        seed_hash.digest()
    )
    base_point = sodium.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
    assert secrets.key_commitments()[3] == sodium.crypto_scalarmult_ed25519_noclamp(
        secrets.position_keys[3], base_point
    )
    tile = Tile.of(3, 5)
    digest = hashlib.sha512(spec_label("cfnet/v1/tile-point") + bytes([0, 0, 0, 3, 0, 0, 0, 5]))
    assert tile_point(tile) == sodium.crypto_core_ed25519_from_uniform(digest.digest()[:32])


def test_joint_draw_matches_the_written_spec() -> None:
    nonces = [bytes([i]) * 32 for i in range(4)]
    info = VECTOR_TABLE + (1).to_bytes(4, "big") + (4).to_bytes(4, "big") + b"".join(nonces)
    for counter in itertools.count():
        block = hashlib.sha512(
            spec_label("cfnet/v1/joint-draw") + info + counter.to_bytes(4, "big")
        )
        words = [int.from_bytes(block.digest()[i : i + 4], "big") for i in range(0, 64, 4)]
        accepted = [w % 55 for w in words if w < 2**32 - 2**32 % 55]
        if accepted:
            break
    assert joint_draw_index(nonces, VECTOR_TABLE, 1) == accepted[0]


# ----------------------------------------------------------------------- tile points
def test_tile_points_are_distinct_valid_group_points() -> None:
    assert len(TILE_POINTS) == len(ALL_TILES) == len(set(TILE_POINTS))
    assert all(sodium.crypto_core_ed25519_is_valid_point(p) for p in TILE_POINTS)
    assert all(tile_for_point(tile_point(t)) == t for t in ALL_TILES)


def test_round_deck_is_the_54_other_tiles_in_index_order() -> None:
    deck = round_deck(double(5))
    assert len(deck) == ROUND_DECK_SIZE == 54
    assert tile_point(double(5)) not in deck
    assert [tile_for_point(p).index for p in deck] == sorted(
        t.index for t in ALL_TILES if t != double(5)
    )


def test_a_point_that_is_no_tile_is_a_deck_error() -> None:
    masked = sodium.crypto_scalarmult_ed25519_noclamp(MASKING_KEY_BYTES, tile_point(double(1)))
    with pytest.raises(DeckError, match="not the point of any tile"):
        tile_for_point(masked)
    assert issubclass(DeckError, PeerProtocolError)
    assert DeckError("x").seat is None


# --------------------------------------------------------------- scalars, sampling
def test_scalars_are_reduced_from_64_bytes_and_never_zero() -> None:
    low = bytes(range(32))
    assert scalar_from_blocks([low + bytes(32)]) != scalar_from_blocks([low + b"\x01" * 32])
    zero_mod_l = L.to_bytes(64, "little")
    two_l = (2 * L).to_bytes(64, "little")
    assert scalar_from_blocks([zero_mod_l, two_l, (L + 5).to_bytes(64, "little")]) == (
        (5).to_bytes(32, "little")
    )
    with pytest.raises(LocalProtocolError):
        scalar_from_blocks([zero_mod_l])
    assert not is_scalar(bytes(32)) and not is_scalar(L.to_bytes(32, "little"))
    assert is_scalar((L - 1).to_bytes(32, "little")) and not is_scalar(b"\x01" * 31)


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), seat=st.integers(0, 7))
def test_derived_secrets_are_well_formed(seed: bytes, seat: int) -> None:
    secrets = SeatSecrets.derive(seed, TABLE, 3, seat)
    assert sorted(secrets.permutation) == list(range(ROUND_DECK_SIZE))
    keys = (secrets.masking_key, *secrets.position_keys)
    assert all(is_scalar(k) for k in keys) and len(set(keys)) == len(keys)
    assert len(secrets.starter_nonce) == 32
    assert SeatSecrets.derive(seed, TABLE, 3, seat) == secrets


def test_secrets_differ_by_seed_table_round_and_seat() -> None:
    seed = VECTOR_SEED
    variants = [
        SeatSecrets.derive(seed, TABLE, 1, 0),
        SeatSecrets.derive(bytes(32), TABLE, 1, 0),
        SeatSecrets.derive(seed, OTHER_TABLE, 1, 0),
        SeatSecrets.derive(seed, TABLE, 2, 0),
        SeatSecrets.derive(seed, TABLE, 1, 1),
    ]
    for field in ("masking_key", "permutation", "position_keys", "starter_nonce"):
        assert len({getattr(v, field) for v in variants}) == len(variants)


def test_secrets_repr_shows_no_secret() -> None:
    text = repr(vector_secrets())
    assert VECTOR_SEED.hex() not in text and MASKING_KEY not in text and "seed" not in text


def test_derive_rejects_bad_arguments() -> None:
    with pytest.raises(LocalProtocolError, match="seed"):
        SeatSecrets.derive(b"short", TABLE, 1, 0)
    with pytest.raises(LocalProtocolError, match="table id"):
        SeatSecrets.derive(VECTOR_SEED, b"short", 1, 0)
    with pytest.raises(LocalProtocolError):
        SeatSecrets.derive(VECTOR_SEED, TABLE, -1, 0)
    with pytest.raises(LocalProtocolError):
        SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0, size=0)
    assert len(new_seed()) == 32 and new_seed() != new_seed()


def test_uniform_below_rejects_the_biased_top_of_the_word_range() -> None:
    limit = 2**32 - 2**32 % 55
    assert uniform_below(55, iter([limit, limit + 1, 2**32 - 1, 7])) == 7
    assert uniform_below(55, iter([limit - 1])) == 54
    assert uniform_below(1, iter([2**32 - 1])) == 0
    assert uniform_below(2**32, iter([2**32 - 1])) == 2**32 - 1
    with pytest.raises(LocalProtocolError):
        uniform_below(0, iter([1]))
    with pytest.raises(LocalProtocolError, match="ended"):
        uniform_below(55, iter([limit]))


def counter_words(tag: int) -> Iterator[int]:
    for block in itertools.count():
        digest = hashlib.sha512(f"{tag}/{block}".encode()).digest()
        yield from (int.from_bytes(digest[i : i + 4], "big") for i in range(0, 64, 4))


def chi_square(counts: Collection[int], cells: int) -> float:
    """Pearson's statistic of `counts` against `cells` equally likely cells."""
    expected = sum(counts) / cells
    observed = [*counts, *[0] * (cells - len(counts))]
    return sum((o - expected) ** 2 / expected for o in observed)


def test_fisher_yates_is_a_uniform_permutation() -> None:
    counts: Counter[tuple[int, ...]] = Counter(
        fisher_yates(4, counter_words(i)) for i in range(4800)
    )
    assert set(counts) == set(itertools.permutations(range(4)))
    assert chi_square(counts.values(), 24) < 49.7  # 23 degrees of freedom, p = 0.001


def test_permutations_from_seeds_put_each_tile_anywhere() -> None:
    first: Counter[int] = Counter(
        SeatSecrets.derive(hashlib.sha256(bytes([i, j])).digest(), TABLE, 1, 0).permutation[0]
        for i in range(20)
        for j in range(55)
    )
    assert chi_square(first.values(), ROUND_DECK_SIZE) < 90.6  # 53 degrees of freedom, p = 0.001


def test_joint_draw_index_is_uniform_and_uses_every_nonce() -> None:
    nonces = [bytes([i]) * 32 for i in range(3)]
    index = joint_draw_index(nonces, TABLE, 1)
    assert 0 <= index < DRAW_ORDER_SIZE
    changed = [
        joint_draw_index([*nonces[:i], bytes([9]) * 32, *nonces[i + 1 :]], TABLE, 1)
        for i in range(3)
    ]
    many: Counter[int] = Counter(
        joint_draw_index([hashlib.sha256(bytes([i, j])).digest()], TABLE, 1)
        for i in range(40)
        for j in range(110)
    )
    assert changed != [index] * 3
    assert chi_square(many.values(), DRAW_ORDER_SIZE) < 92.0  # 54 degrees of freedom, p = 0.001
    with pytest.raises(LocalProtocolError, match="nonce"):
        joint_draw_index([b"short"], TABLE, 1)


# --------------------------------------------------- libsodium's point checks (pitfalls)
def valid_point() -> bytes:
    return tile_point(Tile.of(2, 7))


def test_the_small_order_encodings_really_have_small_order() -> None:
    for point in SMALL_ORDER:
        multiple = point
        for _ in range(3):
            multiple = sodium.crypto_core_ed25519_add(multiple, multiple)
        assert multiple == IDENTITY


def torsioned(torsion: bytes) -> bytes:
    """A valid point plus a small-order point: on the curve, outside the prime-order group."""
    return bytes(sodium.crypto_core_ed25519_add(valid_point(), torsion))


def off_curve() -> bytes:
    """The first y = 2, 3, ... whose encoding is no curve point (libsodium refuses to add it)."""
    for y in itertools.count(2):
        candidate = y.to_bytes(32, "little")
        try:
            sodium.crypto_core_ed25519_add(candidate, candidate)
        except nacl.exceptions.RuntimeError:
            return candidate
    raise AssertionError("unreachable")


BAD_POINTS = [
    *SMALL_ORDER,
    *NON_CANONICAL,
    torsioned(ORDER_2),  # CVE-2025-69277: accepted before libsodium's fix
    torsioned(ORDER_4),
    torsioned(ORDER_8),
    off_curve(),
]


@pytest.mark.parametrize("point", BAD_POINTS, ids=lambda p: p.hex()[:8])
def test_libsodium_rejects_bad_points_in_validation_and_in_multiplication(point: bytes) -> None:
    assert not sodium.crypto_core_ed25519_is_valid_point(point)
    with pytest.raises(nacl.exceptions.RuntimeError):
        sodium.crypto_scalarmult_ed25519_noclamp(vector_secrets().masking_key, point)
    with pytest.raises(DeckError):
        check_deck([point], 1)
    with pytest.raises(DeckError, match="position 0 is not a point of the prime-order group"):
        shuffle_phase_a([point], SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0, size=1))
    with pytest.raises(DeckError, match="not a point of the prime-order group"):
        open_point(point, [ONE])


def test_the_2_torsion_point_is_a_valid_point_negated() -> None:
    """P + (0, -1) = (-x, -y): the point the pre-fix subgroup check let through."""
    p = int.from_bytes(valid_point(), "little")
    y, sign = p & (2**255 - 1), p >> 255
    negated = ((2**255 - 19 - y) | ((1 - sign) << 255)).to_bytes(32, "little")
    assert torsioned(ORDER_2) == negated


def test_noclamp_multiplication_refuses_identity_results_and_the_zero_scalar() -> None:
    point = valid_point()
    with pytest.raises(nacl.exceptions.RuntimeError):
        sodium.crypto_scalarmult_ed25519_noclamp(L.to_bytes(32, "little"), point)
    with pytest.raises(nacl.exceptions.RuntimeError):
        sodium.crypto_scalarmult_ed25519_noclamp(bytes(32), point)
    assert sodium.crypto_scalarmult_ed25519_noclamp(ONE, point) == point  # not clamped
    assert sodium.crypto_scalarmult_ed25519(ONE, point) != point  # clamping would break it


def test_structural_check_catches_non_canonical_y_without_libsodium() -> None:
    for point in NON_CANONICAL[:2]:
        with pytest.raises(DeckError, match="non-canonical"):
            check_deck([point], 1, validate_points=False)


# ------------------------------------------------------------------------ check_deck
def test_check_deck_structure() -> None:
    deck = round_deck(double(9))
    assert check_deck(deck, 54) == deck
    assert check_deck(tuple(deck), 54, validate_points=False) == deck
    bad: list[tuple[object, str]] = [
        ({"a": 1}, "a deck is a list of 54 points, not dict"),
        (b"x" * 54, "not bytes"),
        (deck[:53], "has 53 points: it must have exactly 54"),
        ([*deck[:53], deck[0]], "positions 0 and 53 hold the same point"),
        ([*deck[:53], "x" * 32], "position 53 is not a 32-byte point"),
        ([*deck[:53], deck[53][:31]], "position 53 is not a 32-byte point"),
        ([*deck[:53], bytearray(deck[53])], "position 53 is not a 32-byte point"),
    ]
    for value, message in bad:
        with pytest.raises(DeckError, match=message):
            check_deck(value, 54, validate_points=False)


def test_junk_passes_the_cheap_check_but_never_a_multiplication() -> None:
    deck = round_deck(double(9))
    deck[20] = torsioned(ORDER_2)
    assert check_deck(deck, 54, validate_points=False) == deck
    with pytest.raises(DeckError, match="position 20 is not a point"):
        check_deck(deck, 54)
    with pytest.raises(DeckError, match="position 20 is not a point of the prime-order group"):
        shuffle_phase_a(deck, SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0))
    with pytest.raises(DeckError, match="position 20 is not a point of the prime-order group"):
        shuffle_phase_b(deck, SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0))


def test_shuffles_refuse_a_deck_of_the_wrong_size() -> None:
    secrets = vector_secrets()
    with pytest.raises(LocalProtocolError):
        shuffle_phase_a(round_deck(double(9))[:10], secrets)
    with pytest.raises(LocalProtocolError):
        shuffle_phase_b(round_deck(double(9))[:10], secrets)


# ---------------------------------------------------------------- commitments, binding
def test_seed_and_nonce_commitments_bind_table_round_and_seat() -> None:
    secrets = vector_secrets()
    where = (VECTOR_TABLE, VECTOR_ROUND, VECTOR_SEAT)
    seed_c = seed_commitment(VECTOR_SEED, *where)
    nonce_c = nonce_commitment(secrets.starter_nonce, *where)
    assert check_seed(VECTOR_SEED, seed_c, *where) == VECTOR_SEED
    assert check_nonce(secrets.starter_nonce, nonce_c, *where) == secrets.starter_nonce
    elsewhere = [
        (OTHER_TABLE, VECTOR_ROUND, VECTOR_SEAT),
        (VECTOR_TABLE, VECTOR_ROUND + 1, VECTOR_SEAT),
        (VECTOR_TABLE, VECTOR_ROUND, VECTOR_SEAT + 1),  # the copier's seat
    ]
    for place in elsewhere:
        with pytest.raises(DeckError, match="revealed seed does not match"):
            check_seed(VECTOR_SEED, seed_c, *place)
        with pytest.raises(DeckError, match="revealed starter nonce does not match"):
            check_nonce(secrets.starter_nonce, nonce_c, *place)
    with pytest.raises(DeckError, match="revealed seed does not match"):
        check_seed(bytes(32), seed_c, *where)
    with pytest.raises(DeckError, match="must be 32 bytes"):
        check_seed("x" * 32, seed_c, *where)
    with pytest.raises(DeckError, match="must be 32 bytes"):
        check_nonce(None, nonce_c, *where)
    assert nonce_c != seed_commitment(secrets.starter_nonce, *where)  # labels separate kinds


def test_a_released_key_must_open_its_group_commitment() -> None:
    secrets = vector_secrets()
    key, commitment = secrets.position_keys[5], secrets.key_commitments()[5]
    assert check_key(key, commitment, 5) == key
    with pytest.raises(DeckError, match="does not match"):  # a wrong key released
        check_key(secrets.position_keys[6], commitment, 5)
    with pytest.raises(DeckError, match="must be 32 bytes"):
        check_key(key[:31], commitment, 5)


@pytest.mark.parametrize("bad_key", [bytes(32), L.to_bytes(32, "little"), b"\xff" * 32])
def test_a_released_key_that_is_no_scalar_is_refused(bad_key: bytes) -> None:
    with pytest.raises(DeckError, match=r"not a scalar in 1\.\.L-1"):
        check_key(bad_key, valid_point(), 0)
    with pytest.raises(DeckError, match="not a 32-byte scalar"):
        open_point(valid_point(), [bad_key])


def test_opening_removes_several_keys_at_once() -> None:
    keys = [SeatSecrets.derive(VECTOR_SEED, TABLE, 1, s).masking_key for s in range(3)]
    point = valid_point()
    locked = point
    for key in keys:
        locked = sodium.crypto_scalarmult_ed25519_noclamp(key, locked)
    assert open_point(locked, keys) == point
    assert open_tile(locked, list(reversed(keys))) == Tile.of(2, 7)
    assert open_point(locked, keys[:2]) != point
    assert open_points([locked, locked, point], [keys, keys[::-1], [ONE]]) == [point] * 3
    assert open_points([], []) == []
    with pytest.raises(LocalProtocolError):
        open_point(point, [])
    with pytest.raises(LocalProtocolError):
        open_points([point], [])


# ------------------------------------------------------------------- whole rounds
def run_setup(
    seats: int,
    centre: Tile,
    cheat_phase_b: tuple[int, int, int] | None = None,
) -> tuple[list[SeatSecrets], list[bytes]]:
    """Commit, shuffle phase A and phase B seat by seat; every other seat checks each hop.
    `cheat_phase_b` = (seat, copy_from, copy_to): that seat copies one position over another."""
    secrets = [SeatSecrets.derive(new_seed(), TABLE, 1, s) for s in range(seats)]
    for s in secrets:
        commitment = seed_commitment(s.seed, TABLE, 1, s.seat)
        assert check_seed(s.seed, commitment, TABLE, 1, s.seat) == s.seed
    deck = round_deck(centre)
    for s in secrets:
        deck = check_deck(shuffle_phase_a(deck, s), ROUND_DECK_SIZE, validate_points=False)
    for s in secrets:
        out = shuffle_phase_b(deck, s)
        if cheat_phase_b is not None and cheat_phase_b[0] == s.seat:
            _, source, target = cheat_phase_b
            out[target] = open_point(deck[source], [s.masking_key, key_inverse(s, target)])
        deck = check_deck(out, ROUND_DECK_SIZE, validate_points=False)
    return secrets, deck


def key_inverse(secrets: SeatSecrets, position: int) -> bytes:
    inverse: bytes = sodium.crypto_core_ed25519_scalar_invert(secrets.position_keys[position])
    return inverse


def deal(secrets: Sequence[SeatSecrets], deck: Sequence[bytes]) -> list[list[Tile]]:
    """Every seat releases its keys for others' positions; each owner opens its own hand."""
    seats = len(secrets)
    size = hand_size(seats)
    commitments = [s.key_commitments() for s in secrets]
    hands: list[list[Tile]] = []
    for owner in range(seats):
        positions = range(owner * size, (owner + 1) * size)
        released = [
            [
                check_key(s.position_keys[p], commitments[s.seat][p], p)
                for s in secrets
                if s.seat != owner
            ]
            for p in positions
        ]
        for p, keys in zip(positions, released, strict=True):  # without the owner's key
            with pytest.raises(DeckError, match="not the point of any tile"):
                open_tile(deck[p], keys)
        own = [secrets[owner].position_keys[p] for p in positions]
        opened = open_points(
            [deck[p] for p in positions], [[*k, o] for k, o in zip(released, own, strict=True)]
        )
        hands.append([tile_for_point(point) for point in opened])
    return hands


@pytest.mark.parametrize("seats", [2, 4])
def test_full_round_trip(seats: int) -> None:
    centre = double(9)
    secrets, deck = run_setup(seats, centre)
    hands = deal(secrets, deck)
    tiles = audit_deck(deck, centre, secrets)
    assert sorted(tiles) == sorted(t for t in ALL_TILES if t != centre)
    size = hand_size(seats)
    assert hands == [tiles[s * size : (s + 1) * size] for s in range(seats)]
    base = [t for t in ALL_TILES if t != centre]
    for position, tile in enumerate(tiles):  # position p holds base[perm_0[perm_1[...[p]]]]
        source = position
        for s in reversed(secrets):
            source = s.permutation[source]
        assert base[source] == tile


def test_a_position_copied_in_phase_b_is_caught_only_by_the_audit() -> None:
    centre = double(8)
    secrets, deck = run_setup(4, centre, cheat_phase_b=(0, 40, 2))
    assert check_deck(deck, ROUND_DECK_SIZE) == deck  # distinct, valid points
    hands = deal(secrets, deck)  # keys check, every owner opens a real tile: nothing looks wrong
    assert all(len(set(hand)) == len(hand) for hand in hands)
    with pytest.raises(DeckError, match="positions 2 and 40 both open to"):
        audit_deck(deck, centre, secrets)


def test_a_position_copied_by_a_later_seat_opens_to_no_tile() -> None:
    centre = double(8)
    secrets, deck = run_setup(2, centre, cheat_phase_b=(1, 3, 30))
    with pytest.raises(DeckError, match="position 30 does not open to a tile"):
        audit_deck(deck, centre, secrets)


def test_a_duplicated_point_in_phase_a_is_caught_at_the_next_hop() -> None:
    secrets = [SeatSecrets.derive(new_seed(), TABLE, 1, s) for s in range(2)]
    out = shuffle_phase_a(round_deck(double(9)), secrets[0])
    out[7] = out[8]
    with pytest.raises(DeckError, match="positions 7 and 8 hold the same point"):
        check_deck(out, ROUND_DECK_SIZE, validate_points=False)


def test_the_audit_refuses_the_centre_double() -> None:
    secrets = [SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0)]
    deck = round_deck(double(9))
    deck[0] = tile_point(double(9))
    locked = [
        sodium.crypto_scalarmult_ed25519_noclamp(k, p)
        for k, p in zip(secrets[0].position_keys, deck, strict=True)
    ]
    with pytest.raises(DeckError, match="position 0 opens to the centre double"):
        audit_deck(locked, double(9), secrets)
    with pytest.raises(LocalProtocolError):
        audit_deck(locked, double(9), [SeatSecrets.derive(VECTOR_SEED, TABLE, 1, 0, size=3)])
