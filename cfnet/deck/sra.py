"""The mental deck (DESIGN.md): tiles as points of edwards25519's prime-order subgroup,
seat secrets derived from a seed, commitments, the two shuffle phases, opening and the audit.

Pure functions over 32-byte `bytes` (points and scalars). Anything a peer sent that breaks the
rules raises `DeckError` (seat=None: the table layer knows whom to blame).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import nacl.bindings as sodium
import nacl.exceptions

from cfnet.deck.derive import (
    GROUP_ORDER,
    JOINT_DRAW,
    MASKING_KEY,
    NONCE_COMMITMENT,
    PERMUTATION,
    POSITION_KEY,
    SCALAR_BYTES,
    SEED_BYTES,
    SEED_COMMITMENT,
    STARTER_NONCE,
    TILE_POINT,
    commitment_hash,
    context,
    fisher_yates,
    is_scalar,
    label_bytes,
    public_blocks,
    round_context,
    scalar_from_blocks,
    secret_blocks,
    secret_scalars,
    u32,
    uniform_below,
    words,
)
from cfnet.deck.pool import ahead, keep, spread, taken, threads
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.tiles import ALL_TILES, Tile
from cfnet.lang import N_, Sentence

POINT_BYTES = 32
NONCE_BYTES = 32
ROUND_DECK_SIZE = len(ALL_TILES) - 1
DRAW_ORDER_SIZE = len(ALL_TILES)
_FIELD_PRIME = 2**255 - 19
_Y_MASK = 2**255 - 1
_NACL_POINT_ERRORS = (nacl.exceptions.RuntimeError, nacl.exceptions.TypeError)


class DeckError(PeerProtocolError):
    """A point, deck, key, seed or nonce from a peer that breaks the mental-deck rules."""


def _hash_to_point(tile: Tile) -> bytes:
    digest = hashlib.sha512(label_bytes(TILE_POINT) + u32(tile.low) + u32(tile.high)).digest()
    point: bytes = sodium.crypto_core_ed25519_from_uniform(digest[:POINT_BYTES])
    return point


TILE_POINTS: tuple[bytes, ...] = tuple(_hash_to_point(tile) for tile in ALL_TILES)
_TILE_OF_POINT: dict[bytes, Tile] = dict(zip(TILE_POINTS, ALL_TILES, strict=True))


def tile_for_point(point: bytes) -> Tile:
    """The tile whose point is `point`; DeckError if it is no tile's point."""
    tile = _TILE_OF_POINT.get(point)
    if tile is None:
        raise DeckError(
            Sentence(N_("the opened point is not the point of any tile: a key or a shuffle is bad"))
        )
    return tile


def round_deck(centre: Tile) -> list[bytes]:
    """The 54 tile points of a round, in tile-index order, without the centre double."""
    return [point for tile, point in zip(ALL_TILES, TILE_POINTS, strict=True) if tile != centre]


def _secret_scalar(seed: bytes, label: str, info: bytes) -> bytes:
    return scalar_from_blocks(secret_blocks(seed, label, info))


@dataclass(frozen=True, slots=True)
class SeatSecrets:
    """One seat's secrets for one round, all derived from its seed (repr shows no secret)."""

    table_id: bytes
    round_number: int
    seat: int
    seed: bytes = field(repr=False)
    masking_key: bytes = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    position_keys: tuple[bytes, ...] = field(repr=False)
    starter_nonce: bytes = field(repr=False)

    @classmethod
    def derive(
        cls,
        seed: bytes,
        table_id: bytes,
        round_number: int,
        seat: int,
        size: int = ROUND_DECK_SIZE,
    ) -> SeatSecrets:
        """Masking key, permutation of 0..size-1, `size` position keys and the starter nonce."""
        made: SeatSecrets | None = taken(("derive", seed, table_id, round_number, seat, size))
        if made is not None:  # derived ahead (shuffles_ahead)
            return made
        if size < 1:
            raise LocalProtocolError(  # untranslated: a caller's bug
                f"a deck of {size} points cannot be shuffled: use 1 or more"
            )
        where = context(table_id, round_number, seat)
        return cls(
            table_id=table_id,
            round_number=round_number,
            seat=seat,
            seed=seed,
            masking_key=_secret_scalar(seed, MASKING_KEY, where),
            permutation=fisher_yates(
                size, words(secret_blocks(seed, PERMUTATION, where + u32(size)))
            ),
            position_keys=tuple(islice(secret_scalars(seed, POSITION_KEY, where), size)),
            starter_nonce=next(secret_blocks(seed, STARTER_NONCE, where))[:NONCE_BYTES],
        )

    def mask_commitment(self) -> bytes:
        """M = masking_key * G, published with the phase-A step."""
        return group_commitment(self.masking_key)

    def key_commitments(self) -> tuple[bytes, ...]:
        """K[p] = position_key[p] * G for every position, published with the phase-B step."""
        return tuple(spread(key_commitment, self.position_keys))


COMMITMENTS_KEPT = 4096
"""How many keys' commitments are kept (a few rounds of the largest table's): a released key is
checked, and the audit recomputes the commitments of the keys it derives from the seeds; each
key's multiplication is done once for both (the check's, which comes first)."""

_commitments: dict[bytes, bytes] = {}  # key: key * G, as made here
_commitments_lock = threading.Lock()


def key_commitment(key: bytes) -> bytes:
    """group_commitment(key), made once for a key seen lately."""
    made = _commitments.get(key)
    if made is None:
        made = group_commitment(key)
        with _commitments_lock:
            _commitments[key] = made
            while len(_commitments) > COMMITMENTS_KEPT:
                del _commitments[next(iter(_commitments))]
    return made


def _sized(
    value: object, size: int, what: str, error: type[ValueError] = LocalProtocolError
) -> bytes:
    """`value` if it is `size` bytes; else `error` saying that `what` (a marked template)
    must be."""
    if not isinstance(value, bytes) or len(value) != size:
        raise error(Sentence(N_("{what} must be {size} bytes"), what=Sentence(what), size=size))
    return value


def seed_commitment(seed: bytes, table_id: bytes, round_number: int, seat: int) -> bytes:
    """SHA-256(label || table_id || u32 round || u32 seat || seed)."""
    where = context(table_id, round_number, seat)
    return commitment_hash(SEED_COMMITMENT, where, _sized(seed, SEED_BYTES, N_("a seed")))


def nonce_commitment(nonce: bytes, table_id: bytes, round_number: int, seat: int) -> bytes:
    """SHA-256(label || table_id || u32 round || u32 seat || nonce)."""
    where = context(table_id, round_number, seat)
    return commitment_hash(
        NONCE_COMMITMENT, where, _sized(nonce, NONCE_BYTES, N_("a starter nonce"))
    )


def group_commitment(scalar: bytes) -> bytes:
    """scalar * G (G the Ed25519 base point): a commitment in the group to a key."""
    point: bytes = sodium.crypto_scalarmult_ed25519_base_noclamp(
        _sized(scalar, SCALAR_BYTES, N_("a key"))
    )
    return point


def _check_opening(computed: bytes, expected: bytes, wrong: str) -> None:
    """DeckError saying `wrong` (a marked sentence) unless `computed` is `expected`."""
    if not hmac.compare_digest(computed, expected):
        raise DeckError(Sentence(wrong))


def check_seed(
    seed: object, commitment: bytes, table_id: bytes, round_number: int, seat: int
) -> bytes:
    """The revealed `seed` if it opens `commitment` for this table, round and seat."""
    value = _sized(seed, SEED_BYTES, N_("the revealed seed"), DeckError)
    computed = seed_commitment(value, table_id, round_number, seat)
    wrong = N_(
        "the revealed seed does not match the seat's commitment for this table, round and seat"
    )
    _check_opening(computed, commitment, wrong)
    return value


def check_nonce(
    nonce: object, commitment: bytes, table_id: bytes, round_number: int, seat: int
) -> bytes:
    """The revealed starter `nonce` if it opens `commitment` for this table, round and seat."""
    value = _sized(nonce, NONCE_BYTES, N_("the revealed starter nonce"), DeckError)
    computed = nonce_commitment(value, table_id, round_number, seat)
    wrong = N_(
        "the revealed starter nonce does not match the seat's commitment for this table, round"
        " and seat"
    )
    _check_opening(computed, commitment, wrong)
    return value


def check_key(key: object, commitment: bytes, position: int) -> bytes:
    """The released position `key` if it is a scalar in 1..L-1 and key * G is `commitment`
    (the seat's K[position], bound to its table, round and seat by its proven phase-B step)."""
    if not isinstance(key, bytes) or len(key) != SCALAR_BYTES:
        wrong = N_("the key for position {position} must be {size} bytes")
        raise DeckError(Sentence(wrong, position=position, size=SCALAR_BYTES))
    value = key
    if not is_scalar(value):
        wrong = N_("the key for position {position} is not a scalar in 1..L-1")
        raise DeckError(Sentence(wrong, position=position))
    if not hmac.compare_digest(key_commitment(value), commitment):
        wrong = N_(
            "the key for position {position} does not match the seat's commitment K[{position}]"
        )
        raise DeckError(Sentence(wrong, position=position))
    return value


def joint_draw_index(nonces: Sequence[bytes], table_id: bytes, round_number: int) -> int:
    """Uniform 0..54 from the seats' nonces (seat order): where the round's double is drawn."""
    info = round_context(table_id, round_number) + u32(len(nonces))
    info += b"".join(_sized(nonce, NONCE_BYTES, N_("a starter nonce")) for nonce in nonces)
    return uniform_below(DRAW_ORDER_SIZE, words(public_blocks(JOINT_DRAW, info)))


def check_deck(deck: object, size: int, *, validate_points: bool = True) -> list[bytes]:
    """`deck` as a list if it has `size` distinct 32-byte points with canonical y (always) and,
    with `validate_points`, each in the prime-order subgroup (libsodium is_valid_point)."""
    if not isinstance(deck, list | tuple):
        wrong = N_("a deck is a list of {size} points, not {kind}")
        raise DeckError(Sentence(wrong, size=size, kind=type(deck).__name__))
    if len(deck) != size:
        wrong = N_("the deck has {count} points: it must have exactly {size}")
        raise DeckError(Sentence(wrong, count=len(deck), size=size))
    if not validate_points and _well_formed(deck):
        return list(deck)
    points: list[bytes] = []
    seen: dict[bytes, int] = {}
    for position, point in enumerate(deck):
        if not isinstance(point, bytes) or len(point) != POINT_BYTES:
            wrong = N_("position {position} is not a {size}-byte point")
            raise DeckError(Sentence(wrong, position=position, size=POINT_BYTES))
        if int.from_bytes(point, "little") & _Y_MASK >= _FIELD_PRIME:
            wrong = N_("position {position} is a non-canonical encoding (y >= 2^255-19)")
            raise DeckError(Sentence(wrong, position=position))
        if point in seen:
            wrong = N_(
                "positions {first} and {position} hold the same point: every point of a deck"
                " must be distinct"
            )
            raise DeckError(Sentence(wrong, first=seen[point], position=position))
        if validate_points and not is_valid_point(point):
            wrong = N_("position {position} is not a point of the prime-order group")
            raise DeckError(Sentence(wrong, position=position))
        seen[point] = position
        points.append(point)
    return points


def _well_formed(deck: list[Any] | tuple[Any, ...]) -> bool:
    """The fast path of the structural check: all canonical 32-byte encodings, all distinct."""
    return all(
        type(point) is bytes
        and len(point) == POINT_BYTES
        and int.from_bytes(point, "little") & _Y_MASK < _FIELD_PRIME
        for point in deck
    ) and len(set(deck)) == len(deck)


def _mul(scalar: bytes, point: bytes, where: str, number: int) -> bytes:
    """scalar * point (noclamp); libsodium refuses invalid points, which become DeckError
    naming the point as `where` (a marked template with a `{number}`) does."""
    try:
        result: bytes = sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except _NACL_POINT_ERRORS as error:
        wrong = N_(
            "{where} is not a point of the prime-order group (off the curve, non-canonical,"
            " small order or with a torsion component)"
        )
        raise DeckError(Sentence(wrong, where=Sentence(where, number=number))) from error
    return result


POSITION = N_("position {number}")
POINT = N_("point {number}")


def _muls(terms: Sequence[tuple[bytes, bytes, int]], where: str) -> list[bytes]:
    """`_mul` of every (scalar, point, number), shared among the deck's threads; `where` (a
    marked template with a `{number}`) names a point in an error."""
    return spread(functools.partial(_term_product, where), terms)


def _term_product(where: str, term: tuple[bytes, bytes, int]) -> bytes:
    scalar, point, number = term
    return _mul(scalar, point, where, number)


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _scalar(value: int) -> bytes:
    """value mod L as 32 bytes: what libsodium's scalar arithmetic gives, without the FFI."""
    return (value % GROUP_ORDER).to_bytes(SCALAR_BYTES, "little")


def _scalar_mul(a: bytes, b: bytes) -> bytes:
    return _scalar(_int(a) * _int(b))


def _invert(scalar: bytes) -> bytes:
    return _scalar(pow(_int(scalar), -1, GROUP_ORDER))


def _expect_size(deck: Sequence[bytes], size: int) -> None:
    if len(deck) != size:
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"a deck of {len(deck)} points for secrets of size {size}"
        )


def shuffle_phase_a(deck: Sequence[bytes], secrets: SeatSecrets) -> list[bytes]:
    """Mask and permute: out[i] = masking_key * deck[permutation[i]]."""
    _expect_size(deck, len(secrets.permutation))
    made: list[bytes] | None = taken(("A", tuple(deck), secrets))
    if made is not None:  # made ahead (shuffles_ahead)
        return list(made)
    return _shuffle_a(deck, secrets)


def _shuffle_a(deck: Sequence[bytes], secrets: SeatSecrets) -> list[bytes]:
    key = secrets.masking_key
    return _muls([(key, deck[source], source) for source in secrets.permutation], POSITION)


def shuffle_phase_b(deck: Sequence[bytes], secrets: SeatSecrets) -> list[bytes]:
    """Swap the mask for position keys: out[p] = (position_key[p] / masking_key) * deck[p]."""
    _expect_size(deck, len(secrets.position_keys))
    made: list[bytes] | None = taken(("B", tuple(deck), secrets))
    if made is not None:  # made ahead (shuffles_ahead)
        return list(made)
    return _shuffle_b(deck, secrets)


def _shuffle_b(deck: Sequence[bytes], secrets: SeatSecrets) -> list[bytes]:
    unmask = _invert(secrets.masking_key)
    return _muls(
        [
            (_scalar_mul(key, unmask), point, position)
            for position, (key, point) in enumerate(zip(secrets.position_keys, deck, strict=True))
        ],
        POSITION,
    )


def _key_product(keys: Sequence[bytes]) -> bytes:
    if not keys:
        raise LocalProtocolError("opening a point needs at least one key")  # untranslated: bug
    if not all(is_scalar(key) for key in keys):
        raise DeckError(Sentence(N_("a key is not a 32-byte scalar in 1..L-1")))
    product = keys[0]
    for key in keys[1:]:
        product = _scalar_mul(product, key)
    return product


def _batch_invert(scalars: Sequence[bytes]) -> list[bytes]:
    """Every scalar's inverse with one inversion (Montgomery's trick)."""
    if not scalars:
        return []
    prefixes = [scalars[0]]
    for scalar in scalars[1:]:
        prefixes.append(_scalar_mul(prefixes[-1], scalar))
    inverses = [b""] * len(scalars)
    running = _invert(prefixes[-1])
    for i in range(len(scalars) - 1, 0, -1):
        inverses[i] = _scalar_mul(running, prefixes[i - 1])
        running = _scalar_mul(running, scalars[i])
    inverses[0] = running
    return inverses


def open_points(points: Sequence[bytes], key_sets: Sequence[Sequence[bytes]]) -> list[bytes]:
    """Remove key_sets[i] from points[i], each with one multiplication by the keys' inverse."""
    if len(points) != len(key_sets):
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"{len(points)} points but {len(key_sets)} sets of keys"
        )
    inverses = _batch_invert([_key_product(keys) for keys in key_sets])
    return _muls(
        [
            (inverse, point, i)
            for i, (inverse, point) in enumerate(zip(inverses, points, strict=True))
        ],
        POINT,
    )


def is_valid_point(point: bytes) -> bool:
    """Whether `point` is a canonical point of the prime-order group (what libsodium accepts)."""
    valid: bool = sodium.crypto_core_ed25519_is_valid_point(point)
    return valid


def first_invalid(points: Sequence[bytes]) -> int:
    """The index of the first point libsodium refuses; LocalProtocolError if none is (a
    multiplication failed for another reason: nobody can be accused of a bad point)."""
    for index, point in enumerate(points):
        if not is_valid_point(point):
            return index
    raise LocalProtocolError(  # untranslated: a bug
        "a multiplication failed, yet every point of its input is valid"
    )


def shuffles_ahead(
    seed: bytes, table_id: bytes, round_number: int, seat: int, decks: Sequence[Sequence[bytes]]
) -> None:
    """Start, on the deck's threads or their helper process, what checking a seat's revealed
    `seed` recomputes: its shuffle of each deck of `decks` in order (phase A of decks[0],
    phase B of decks[1]); its secrets are derived here. The calls of those with the same input
    then take the results (pool.ahead)."""
    if threads() <= 1:
        return
    secrets = SeatSecrets.derive(seed, table_id, round_number, seat)
    keep(("derive", seed, table_id, round_number, seat, ROUND_DECK_SIZE), secrets)
    for phase, deck in zip("AB", decks, strict=False):  # each a piece of work of its own
        given = tuple(deck)
        ahead([(phase, given, secrets)], _shuffled, phase, given, secrets)


def _shuffled(phase: str, deck: Sequence[bytes], secrets: SeatSecrets) -> list[list[bytes]]:
    """[`secrets`' shuffle of `deck` in `phase`]."""
    return [(_shuffle_a if phase == "A" else _shuffle_b)(deck, secrets)]
