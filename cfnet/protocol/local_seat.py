"""The local seat: its identity and round seeds (`LocalSeat`, what is saved to resume), and in
each round its secrets, the tiles it opened and the bodies it posts (`SeatRound`). A failure
found while opening is seen by this seat alone (Blame with the culprit). Pure but for
`LocalSeat.entropy`, os.urandom unless a test supplies a derivation.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfnet.deck.derive import DEAL_SEED, SEED_BYTES, context, secret_blocks
from cfnet.deck.proofs import prove_rekey, prove_shuffle
from cfnet.deck.sra import (
    DeckError,
    SeatSecrets,
    first_invalid,
    nonce_commitment,
    open_points,
    seed_commitment,
    shuffle_phase_a,
    shuffle_phase_b,
    tile_for_point,
)
from cfnet.errors import LocalProtocolError
from cfnet.game.moves import DRAW, Move, Play
from cfnet.game.tiles import Tile
from cfnet.protocol.events import Event, HandDealt, MoveMade
from cfnet.protocol.round_checks import HopA, HopB, RoundChecks
from cfnet.protocol.schedule import Step
from cfnet.protocol.wire import (
    CERTIFY,
    DEAL,
    PLAY,
    REVEAL,
    SHUFFLE_A,
    SHUFFLE_B,
    YARD_KEY,
    blame,
    is_b32,
    pack,
)
from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity


@dataclass(slots=True)
class LocalSeat:
    """The local player's identity, seat and round secrets (`seeds`: round -> 32-byte seed).

    `seeds` is what the net layer persists (mode 0600) to resume; `entropy(n)` gives fresh
    secret bytes (os.urandom; tests pass a cryptographic derivation for reproducible games)."""

    identity: Identity
    seat: int
    entropy: Callable[[int], bytes] = os.urandom
    seeds: dict[int, bytes] = field(default_factory=dict)

    def seed(self, round_number: int) -> bytes:
        """This seat's seed for a round, drawn on first use."""
        if round_number not in self.seeds:
            seed = self.entropy(SEED_BYTES)
            if len(seed) != SEED_BYTES:
                raise LocalProtocolError(f"entropy gave {len(seed)} bytes, not {SEED_BYTES}")
            self.seeds[round_number] = seed
        return self.seeds[round_number]

    def deal_seed(self, table_id: bytes, tag: int, after: bytes) -> bytes:
        """This seat's secret seed for the deal `tag` that starts after the chain entry whose
        hash is `after` (protocol version 4): the first 32 bytes of the stream
        DEAL_SEED over the stored seed, with context(table_id, tag, seat) || `after`. The same
        deal on another chain (after a rewind) gets other secrets."""
        info = context(table_id, tag, self.seat) + after
        return next(secret_blocks(self.seed(tag), DEAL_SEED, info))[:SEED_BYTES]

    def sign(
        self, table_id: bytes, seq: int, prev: bytes, kind: str, body: dict[str, Any]
    ) -> Entry:
        """This seat's signed entry."""
        return sign_entry(self.identity, table_id, seq, prev, self.seat, kind, body)

    def secrets_to_plain(self) -> dict[str, Any]:
        return {"seat": self.seat, "seeds": {str(r): s for r, s in sorted(self.seeds.items())}}

    @classmethod
    def from_plain(cls, identity: Identity, plain: Any) -> LocalSeat:
        """The seat `secrets_to_plain` saved; LocalProtocolError if malformed."""
        try:
            seeds = {int(r): s for r, s in plain["seeds"].items()}
            seat = plain["seat"]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise LocalProtocolError("malformed saved seat secrets") from None
        if type(seat) is not int or not all(is_b32(s) for s in seeds.values()):
            raise LocalProtocolError("malformed saved seat secrets")
        return cls(identity, seat, seeds=seeds)


class SeatRound:
    """The local seat's side of one round: its secrets (derived from its seed), the tiles it
    opened (`mine`: position -> tile, None for a position that opens to no tile), and the body
    of each entry it posts; `checks` is the round's public record."""

    def __init__(self, checks: RoundChecks, me: int, seed: bytes) -> None:
        self.checks = checks
        self.me = me
        self.secrets = SeatSecrets.derive(seed, checks.table_id, checks.tag, me)
        self.mine: dict[int, Tile | None] = {}

    # -- openings (once every other seat released its keys)

    def open_hand(self) -> list[Event]:
        """Open the local seat's dealt tiles once every other seat released its keys."""
        positions = list(self.checks.dealt_positions(self.me))
        self.mine = dict(zip(positions, self._open_own(positions), strict=True))
        return [HandDealt(self.checks.number, tuple(self.mine.values()))]

    def open_drawn(self) -> list[Event]:
        """Open the yard tile the local seat just drew (every other key has arrived)."""
        assert self.checks.draw is not None
        position = self.checks.draw.position
        tile = self._open_own([position])[0]
        self.mine[position] = tile
        return [MoveMade(self.checks.number, self.me, DRAW, tile)]

    def _open_own(self, positions: list[int]) -> list[Tile | None]:
        checks, own = self.checks, self.secrets.position_keys
        points = [checks.final_deck[p] for p in positions]
        try:
            opened = open_points(points, [checks.keys_for(p, own[p], self.me) for p in positions])
        except DeckError:
            raise checks.bad_final_point(positions[first_invalid(points)]) from None
        tiles: list[Tile | None] = []
        for point in opened:
            try:
                tiles.append(tile_for_point(point))
            except DeckError:
                tiles.append(None)  # a bad shuffle: the audit at the reveal names its author
        return tiles

    # -- what the local seat holds

    def hand_tiles(self) -> tuple[Tile, ...]:
        """The local seat's known, unplayed tiles."""
        played = self.checks.played
        return tuple(t for p, t in self.mine.items() if t is not None and p not in played)

    def drawn_tile(self) -> Tile | None:
        """The tile of the local seat's pending draw, once opened (else None)."""
        draw = self.checks.draw
        if draw is None or draw.drawer != self.me:
            return None
        return self.mine.get(draw.position)

    def position_of(self, tile: Tile) -> int:
        """The local seat's unplayed position holding `tile`."""
        for position, held in self.mine.items():
            if held == tile and position not in self.checks.played:
                return position
        raise LocalProtocolError(f"you do not hold {tile.label}: play a tile from your hand")

    # -- what the local seat posts

    def body(self, kind: str, move: Move | None) -> dict[str, Any]:
        """The body of the local seat's next entry of `kind` (Blame if an input is bad)."""
        checks, secrets, me = self.checks, self.secrets, self.me
        body: dict[str, Any] = {"round": checks.number}
        if kind == SHUFFLE_A:
            body.update(self._shuffle_a())
        elif kind == SHUFFLE_B:
            body.update(self._shuffle_b())
        elif kind == DEAL:
            body["keys"] = pack([secrets.position_keys[p] for p in checks.others_positions(me)])
        elif kind == YARD_KEY:
            assert checks.draw is not None
            body["position"] = checks.draw.position
            body["key"] = secrets.position_keys[checks.draw.position]
        elif kind == PLAY:
            assert isinstance(move, Play)
            position = self.position_of(move.tile)
            body.update(
                position=position,
                tile=move.tile.index,
                end=move.end,
                key=secrets.position_keys[position],
            )
        elif kind == REVEAL:
            body["seed"] = secrets.seed
        elif kind == CERTIFY:
            body.update(head=checks.head, scores=list(checks.scores), totals=list(checks.totals))
        return body

    def _shuffle_a(self) -> dict[str, Any]:
        checks, secrets, me, r = self.checks, self.secrets, self.me, self.checks.tag
        source = checks.hop_input(Step.SHUFFLE_A, me)
        place = checks.place(me)
        if place == 0:
            deck = shuffle_phase_a(source, secrets)
        else:
            deck = self._hop(shuffle_phase_a, checks.a, place - 1)
        mask = secrets.mask_commitment()
        proof = prove_shuffle(
            context(checks.table_id, r, me),
            source,
            deck,
            mask,
            secrets.permutation,
            secrets.masking_key,
            secrets.seed,
        )
        return {
            "seed_commitment": seed_commitment(secrets.seed, checks.table_id, r, me),
            "nonce_commitment": nonce_commitment(secrets.starter_nonce, checks.table_id, r, me),
            "deck": pack(deck),
            "mask_commitment": mask,
            "proof": proof.to_bytes(),
        }

    def _shuffle_b(self) -> dict[str, Any]:
        checks, secrets, me = self.checks, self.secrets, self.me
        source = checks.hop_input(Step.SHUFFLE_B, me)
        place = checks.place(me)
        if place == 0:
            deck = self._hop(shuffle_phase_b, checks.a, len(checks.seated) - 1)
        else:
            deck = self._hop(shuffle_phase_b, checks.b, place - 1)
        key_points = secrets.key_commitments()
        rekey = prove_rekey(
            context(checks.table_id, checks.tag, me),
            source,
            deck,
            checks.a[place].mask,
            key_points,
            secrets.masking_key,
            secrets.position_keys,
            secrets.seed,
        )
        return {
            "deck": pack(deck),
            "key_commitments": pack(key_points),
            "nonce": secrets.starter_nonce,
            "proof": rekey.to_bytes(),
        }

    def _hop(self, step: Any, hops: Sequence[HopA | HopB], source: int) -> list[Any]:
        """`step` applied to the deck of the seat at place `source`; a bad point there is that
        seat's fault."""
        deck = hops[source].deck
        try:
            out: list[Any] = step(deck, self.secrets)
        except DeckError:
            index = first_invalid(deck)
            raise blame(
                self.checks.seated[source],
                f"position {index} of its deck is not a point of the group",
                hops[source].seq,
                index,
            ) from None
        return out
