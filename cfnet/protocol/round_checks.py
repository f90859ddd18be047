"""One round's public checks (protocol.md, "A round"): what every seat posted, each round entry
checked as it arrives by the seat the schedule names. The local seat's secrets and openings are
in `local_seat`. Pure; raises Blame with the culprit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cfnet.deck.derive import context
from cfnet.deck.pool import spread
from cfnet.deck.proofs import ProofError, RekeyProof, ShuffleProof, check_rekey, check_shuffle
from cfnet.deck.sra import (
    DeckError,
    check_deck,
    check_key,
    check_nonce,
    check_seed,
    joint_draw_index,
    open_points,
    round_deck,
    tile_for_point,
)
from cfnet.game.board import PublicRound
from cfnet.game.moves import DRAW, PASS, Draw, IllegalMoveError, Move, Pass, play
from cfnet.game.round import Round, starting_seat
from cfnet.game.rules import RuleOptions, hand_size, round_double
from cfnet.game.tiles import ALL_TILES, Tile, double
from cfnet.protocol.events import Event, MoveMade, RoundStarted
from cfnet.protocol.schedule import YARD_KEYS, Step
from cfnet.protocol.wire import (
    CERTIFY,
    DEAL,
    PLAY,
    REVEAL,
    SHUFFLE_A,
    SHUFFLE_B,
    TURN_KINDS,
    YARD_KEY,
    Blame,
    bad_proof,
    blame,
    unpack,
)
from cfnet.protocol.wire import DRAW as DRAW_KIND
from cfnet.protocol.wire import (
    PASS as PASS_KIND,
)
from cfnet.record.entry import Entry

DECK_SIZE = len(ALL_TILES) - 1


@dataclass(slots=True)
class PendingDraw:
    """A draw waiting for the other seats' keys for yard position `position`, in `waiting` order."""

    drawer: int
    position: int
    waiting: list[int]


@dataclass(frozen=True, slots=True)
class HopA:
    """A seat's `shuffle_a`, checked: its entry's seq, deck and commitments."""

    seq: int
    deck: list[bytes]
    mask: bytes
    seed_commitment: bytes
    nonce_commitment: bytes


@dataclass(frozen=True, slots=True)
class HopB:
    """A seat's `shuffle_b`, checked: its entry's seq, deck, key commitments and nonce."""

    seq: int
    deck: list[bytes]
    key_commitments: list[bytes]
    nonce: bytes


@dataclass(frozen=True, slots=True)
class AuditResult:
    """A round that passed the audit: the tile at every position and the replayed round."""

    tiles: tuple[Tile, ...]
    replayed: Round


def deal_tag(number: int, deal: int) -> int:
    """What the derivations take as the round (protocol.md): the round number, plus the deal
    number times 65 536, so that every deal of a round has fresh secrets."""
    return number + (deal << 16)


@dataclass(slots=True)
class RoundChecks:
    """Everything posted in one deal of a round, checked as it arrives. `me` is the local seat
    (None for an observer): its own hop proofs are not checked again. `seated`: the seats dealt
    in, ascending; a seat's place is its index there (hops, positions and keys follow places).
    `deal`: 0, or how many times the round was dealt again after a departure."""

    table_id: bytes
    players: int
    number: int
    options: RuleOptions
    me: int | None
    seated: tuple[int, ...]
    deal: int = 0
    check_proofs: bool = True
    a: list[HopA] = field(default_factory=list)
    b: list[HopB] = field(default_factory=list)
    starter: int = 0
    public: PublicRound | None = None
    keys: list[dict[int, bytes]] = field(default_factory=list)
    owner: list[int | None] = field(default_factory=list)
    next_yard: int = 0
    played: set[int] = field(default_factory=set)
    draw: PendingDraw | None = None
    moves: list[tuple[int, Move, int]] = field(default_factory=list)
    suspect: tuple[int, int] | None = None
    seeds: dict[int, bytes] = field(default_factory=dict)
    head: bytes = b""
    scores: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()

    @classmethod
    def start(
        cls,
        table_id: bytes,
        players: int,
        number: int,
        options: RuleOptions,
        me: int | None,
        check_proofs: bool = True,
        seated: tuple[int, ...] | None = None,
        deal: int = 0,
    ) -> RoundChecks:
        """A deal at its first commitment among `seated` (default every seat); without
        `check_proofs` the hop proofs are taken unchecked (for a round the audit covers)."""
        order = tuple(range(players)) if seated is None else seated
        h = hand_size(len(order))
        dealt = len(order) * h
        owner: list[int | None] = [order[p // h] if p < dealt else None for p in range(DECK_SIZE)]
        return cls(
            table_id,
            players,
            number,
            options,
            me,
            order,
            deal,
            check_proofs=check_proofs,
            keys=[{} for _ in range(players)],
            owner=owner,
            next_yard=dealt,
        )

    # -- schedule

    @property
    def hand(self) -> int:
        return hand_size(len(self.seated))

    @property
    def tag(self) -> int:
        """What the derivations take as the round: `deal_tag` of this deal."""
        return deal_tag(self.number, self.deal)

    def place(self, seat: int) -> int:
        """`seat`'s index among the seats dealt in."""
        return self.seated.index(seat)

    def committed(self, seat: int) -> bool:
        """`seat` has posted its `shuffle_a` (its seed commitment) in this deal."""
        return self.place(seat) < len(self.a)

    @property
    def centre(self) -> Tile:
        return double(round_double(self.number))

    def turn(self) -> tuple[int, frozenset[str]]:
        """In the turns: the seat to post next and its kinds (a yard key while a draw waits)."""
        assert self.public is not None
        if self.draw is not None and self.draw.waiting:
            return self.draw.waiting[0], YARD_KEYS
        return self.public.turn, TURN_KINDS

    @property
    def turns_over(self) -> bool:
        """The turns have ended: publicly, or at a tile played twice (the reveal follows)."""
        return self.suspect is not None or (self.public is not None and self.public.is_over)

    def dealt_positions(self, seat: int) -> range:
        h, place = self.hand, self.place(seat)
        return range(place * h, (place + 1) * h)

    def others_positions(self, seat: int) -> list[int]:
        """The dealt positions of every seat but `seat`, ascending (a deal entry's key order)."""
        return [p for p in range(len(self.seated) * self.hand) if self.owner[p] != seat]

    @property
    def final_deck(self) -> list[bytes]:
        return self.b[-1].deck

    # -- live checks

    def apply(self, entry: Entry) -> list[Event]:
        """Check and record one round entry by the entitled seat; Blame if it breaks a rule."""
        return HANDLERS[entry.kind](self, entry, entry.seat, entry.body)

    def _checked_deck(self, entry: Entry, deck: object) -> list[bytes]:
        try:
            return check_deck(deck, DECK_SIZE, validate_points=False)
        except DeckError as error:
            raise blame(entry.seat, f"its {entry.kind} deck: {error.reason}", entry.seq) from None

    def hop_input(self, phase: Step, seat: int) -> list[bytes]:
        """The deck `seat`'s step of `phase` takes: the previous step's output."""
        place = self.place(seat)
        if phase is Step.SHUFFLE_A:
            return round_deck(self.centre) if place == 0 else self.a[place - 1].deck
        return self.a[-1].deck if place == 0 else self.b[place - 1].deck

    def _proven(self, entry: Entry, check: Any) -> None:
        """Run a hop proof's check unless the proofs are not checked or the hop is our own."""
        if not self.check_proofs or entry.seat == self.me:
            return
        try:
            check()
        except ProofError as error:
            raise bad_proof(
                entry.seat, f"its {entry.kind} proof: {error.reason}", entry.seq
            ) from None

    def _on_shuffle_a(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        deck = self._checked_deck(entry, unpack(body["deck"]))
        where = context(self.table_id, self.tag, seat)
        self._proven(
            entry,
            lambda: check_shuffle(
                where,
                self.hop_input(Step.SHUFFLE_A, seat),
                deck,
                body["mask_commitment"],
                ShuffleProof.from_bytes(body["proof"], DECK_SIZE),
            ),
        )
        self.a.append(
            HopA(
                entry.seq,
                deck,
                body["mask_commitment"],
                body["seed_commitment"],
                body["nonce_commitment"],
            )
        )
        return []

    def _on_shuffle_b(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        try:
            check_nonce(
                body["nonce"],
                self.a[self.place(seat)].nonce_commitment,
                self.table_id,
                self.tag,
                seat,
            )
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None
        deck = self._checked_deck(entry, unpack(body["deck"]))
        key_points = unpack(body["key_commitments"])
        where = context(self.table_id, self.tag, seat)
        self._proven(
            entry,
            lambda: check_rekey(
                where,
                self.hop_input(Step.SHUFFLE_B, seat),
                deck,
                self.a[self.place(seat)].mask,
                key_points,
                RekeyProof.from_bytes(body["proof"], DECK_SIZE),
            ),
        )
        self.b.append(HopB(entry.seq, deck, key_points, body["nonce"]))
        if len(self.b) < len(self.seated):
            return []
        index = joint_draw_index([hop.nonce for hop in self.b], self.table_id, self.tag)
        self.starter = starting_seat(self.number, self.players, index, self.seated)
        self.public = PublicRound(
            self.players, self.number, self.starter, self.options, seated=self.seated
        )
        return [RoundStarted(self.number, self.starter)]

    def _check_key(self, entry: Entry, key: bytes, position: int) -> bytes:
        seat = entry.seat
        commitment = self.b[self.place(seat)].key_commitments[position]
        try:
            return check_key(key, commitment, position)
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None

    def _on_deal(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        released = self.keys[seat]
        given = list(zip(self.others_positions(seat), unpack(body["keys"]), strict=True))
        checked = spread(lambda pair: self._check_key(entry, pair[1], pair[0]), given)
        for (position, _), key in zip(given, checked, strict=True):
            released[position] = key
        return []

    def keys_for(self, position: int, own: bytes, owner: int) -> list[bytes]:
        return [self.keys[t][position] for t in self.seated if t != owner] + [own]

    def _on_play(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        public = self.public
        assert public is not None
        position, index, end = body["position"], body["tile"], body["end"]
        if position >= DECK_SIZE or self.owner[position] != seat or position in self.played:
            raise blame(
                seat, f"position {position} is not an unplayed position it holds", entry.seq
            )
        if public.drawn_pending and self.draw is not None and position != self.draw.position:
            raise blame(seat, "after a draw only the drawn tile may be played", entry.seq)
        if index >= len(ALL_TILES):
            raise blame(seat, f"tile index {index} is not a tile (0..54)", entry.seq)
        key = self._check_key(entry, body["key"], position)
        try:
            point = open_points([self.final_deck[position]], [self.keys_for(position, key, seat)])[
                0
            ]
        except DeckError:
            raise self.bad_final_point(position) from None
        try:
            tile = tile_for_point(point)
        except DeckError:
            raise blame(seat, f"position {position} opens to no tile", entry.seq) from None
        claimed = ALL_TILES[index]
        if tile != claimed:
            raise blame(
                seat,
                f"played {claimed.label} but its position {position} holds {tile.label}",
                entry.seq,
            )
        move = play(tile, end)
        try:
            public.apply_public(move, seat)
        except IllegalMoveError as error:
            if public.on_board(tile):
                # A tile held twice: only a bad shuffle does that; the audit finds whose.
                self.suspect = (seat, entry.seq)
                return [MoveMade(self.number, seat, move)]
            raise blame(seat, str(error), entry.seq) from None
        self.played.add(position)
        return self._moved(seat, move, entry.seq)

    def _moved(self, seat: int, move: Move, seq: int, drawn: Tile | None = None) -> list[Event]:
        assert self.public is not None
        self.moves.append((seat, move, seq))
        if not isinstance(move, Draw):
            self.draw = None
        return [MoveMade(self.number, seat, move, drawn)]

    def bad_final_point(self, position: int) -> Blame:
        return blame(
            self.seated[-1],
            f"position {position} of its final deck is not a point of the group",
            self.b[-1].seq,
            position,
        )

    def _on_draw(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        self._public_move(entry, DRAW)
        position = self.next_yard
        self.next_yard += 1
        self.owner[position] = seat
        k, place = len(self.seated), self.place(seat)
        waiting = [self.seated[(place + i) % k] for i in range(1, k)]
        self.draw = PendingDraw(seat, position, waiting)
        events = self._moved(seat, DRAW, entry.seq)
        return [] if seat == self.me else events  # the local draw is told when opened

    def _public_move(self, entry: Entry, move: Draw | Pass) -> None:
        assert self.public is not None
        try:
            self.public.apply_public(move, entry.seat)
        except IllegalMoveError as error:
            raise blame(entry.seat, str(error), entry.seq) from None

    def _on_yard_key(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        pending = self.draw
        assert pending is not None
        if body["position"] != pending.position:
            raise blame(
                seat,
                f"the drawn yard position is {pending.position}, not {body['position']}",
                entry.seq,
            )
        self.keys[seat][pending.position] = self._check_key(entry, body["key"], pending.position)
        pending.waiting.pop(0)
        return []

    def _on_pass(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        self._public_move(entry, PASS)
        return self._moved(seat, PASS, entry.seq)

    def _on_reveal(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        try:
            commitment = self.a[self.place(seat)].seed_commitment
            check_seed(body["seed"], commitment, self.table_id, self.tag, seat)
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None
        self.seeds[seat] = body["seed"]
        self.head = entry.hash
        return []

    def _on_certify(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        expected = {"head": self.head, "scores": list(self.scores), "totals": list(self.totals)}
        for name, value in expected.items():
            if body[name] != value:
                raise blame(
                    seat, f"its certificate's {name} differs from the audited round", entry.seq
                )
        return []


Handler = Callable[[RoundChecks, Entry, int, dict[str, Any]], list[Event]]
HANDLERS: dict[str, Handler] = {
    SHUFFLE_A: RoundChecks._on_shuffle_a,
    SHUFFLE_B: RoundChecks._on_shuffle_b,
    DEAL: RoundChecks._on_deal,
    PLAY: RoundChecks._on_play,
    DRAW_KIND: RoundChecks._on_draw,
    YARD_KEY: RoundChecks._on_yard_key,
    PASS_KIND: RoundChecks._on_pass,
    REVEAL: RoundChecks._on_reveal,
    CERTIFY: RoundChecks._on_certify,
}
"""The check of each round entry kind (the schedule says which kinds a step allows)."""
