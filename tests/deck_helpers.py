"""Deck operations only the tests need: a fresh seed, one point opened, the whole final deck
opened with every seat's keys (what the round audit does with the revealed seeds), and the
deck's thread count set for a while."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence

from cfnet.deck import pool
from cfnet.deck.derive import SEED_BYTES
from cfnet.deck.sra import (
    ROUND_DECK_SIZE,
    TILE_POINTS,
    DeckError,
    SeatSecrets,
    check_deck,
    open_points,
    tile_for_point,
)
from cfnet.errors import LocalProtocolError
from cfnet.game.tiles import Tile


@contextlib.contextmanager
def deck_threads(count: int) -> Iterator[None]:
    """Within: the deck's work uses `count` threads (as `CFNET_THREADS=count` sets it)."""
    before = pool.threads()
    pool.use_threads(count)
    try:
        yield
    finally:
        pool.use_threads(before)


def tile_point(tile: Tile) -> bytes:
    """The public point of `tile` (TILE_POINTS[tile.index])."""
    return TILE_POINTS[tile.index]


def new_seed() -> bytes:
    """A fresh 32-byte round seed from the operating system."""
    return os.urandom(SEED_BYTES)


def open_point(point: bytes, keys: Sequence[bytes]) -> bytes:
    """`point` with `keys` removed: one multiplication by the inverse of their product."""
    return open_points([point], [keys])[0]


def open_tile(point: bytes, keys: Sequence[bytes]) -> Tile:
    """The tile under `point` once `keys` are removed; DeckError if it is not a tile."""
    return tile_for_point(open_point(point, keys))


def audit_deck(deck: Sequence[bytes], centre: Tile, secrets: Sequence[SeatSecrets]) -> list[Tile]:
    """Open every position of the final deck with every seat's key: it must hold exactly the 54
    tiles other than `centre`. Returns them in position order (the deck for `Round.deal`)."""
    points = check_deck(deck, ROUND_DECK_SIZE, validate_points=False)
    if any(len(s.position_keys) != ROUND_DECK_SIZE for s in secrets):
        raise LocalProtocolError(f"audit_deck needs secrets of size {ROUND_DECK_SIZE}")
    opened = open_points(
        points, [[s.position_keys[p] for s in secrets] for p in range(len(points))]
    )
    first_seen: dict[Tile, int] = {}
    for position, point in enumerate(opened):
        try:
            tile = tile_for_point(point)
        except DeckError:
            raise DeckError(f"position {position} does not open to a tile") from None
        if tile == centre:
            raise DeckError(f"position {position} opens to the centre double {centre}")
        if tile in first_seen:
            raise DeckError(
                f"positions {first_seen[tile]} and {position} both open to {tile}: "
                "a shuffle step copied a position"
            )
        first_seen[tile] = position
    return list(first_seen)
