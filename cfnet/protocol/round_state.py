"""One round of the table protocol: its schedule, the live check of every round entry, and the
bodies the local seat posts (protocol.md, "A round"). Pure; raises Blame with the culprit."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

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
from cfnet.deck.sra import (
    DeckError,
    SeatSecrets,
    check_deck,
    check_key,
    check_nonce,
    check_seed,
    first_invalid,
    joint_draw_index,
    nonce_commitment,
    open_points,
    round_deck,
    seed_commitment,
    shuffle_phase_a,
    shuffle_phase_b,
    tile_for_point,
)
from cfnet.errors import LocalProtocolError
from cfnet.game.engine import (
    DRAW,
    PASS,
    Draw,
    IllegalMoveError,
    Move,
    Pass,
    Play,
    PublicRound,
    Round,
    play,
    starting_seat,
)
from cfnet.game.rules import RuleOptions, hand_size, round_double
from cfnet.game.tiles import ALL_TILES, Tile, double
from cfnet.protocol.events import Event, HandDealt, MoveMade, RoundStarted
from cfnet.protocol.wire import (
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
    pack,
    unpack,
)
from cfnet.record.entry import Entry

DECK_SIZE = len(ALL_TILES) - 1


class Step(Enum):
    """Where a round stands; each step is posted seat by seat except the turns."""

    SHUFFLE_A = SHUFFLE_A
    SHUFFLE_B = SHUFFLE_B
    DEAL = DEAL
    TURNS = "turns"
    REVEAL = REVEAL
    CERTIFY = "certify"
    DONE = "done"


_KINDS = {step: frozenset({step.value}) for step in Step}


@dataclass(slots=True)
class PendingDraw:
    """A draw waiting for the other seats' keys for yard position `position`, in `waiting` order."""

    drawer: int
    position: int
    waiting: list[int]


@dataclass(frozen=True, slots=True)
class AuditResult:
    """A round that passed the audit: the tile at every position and the replayed round."""

    tiles: tuple[Tile, ...]
    replayed: Round


@dataclass(slots=True)
class RoundState:
    """Everything posted in one round, checked as it arrives."""

    table_id: bytes
    players: int
    number: int
    options: RuleOptions
    me: int | None
    secrets: SeatSecrets | None
    step: Step = Step.SHUFFLE_A
    check_proofs: bool = True
    seed_commits: list[bytes] = field(default_factory=list)
    masks: list[bytes] = field(default_factory=list)
    nonce_commits: list[bytes] = field(default_factory=list)
    nonces: list[bytes] = field(default_factory=list)
    starter: int = 0
    public: PublicRound | None = None
    a_decks: list[list[bytes]] = field(default_factory=list)
    a_seqs: list[int] = field(default_factory=list)
    b_decks: list[list[bytes]] = field(default_factory=list)
    b_seqs: list[int] = field(default_factory=list)
    key_commits: list[list[bytes]] = field(default_factory=list)
    deals: int = 0
    keys: list[dict[int, bytes]] = field(default_factory=list)
    owner: list[int | None] = field(default_factory=list)
    next_yard: int = 0
    played: set[int] = field(default_factory=set)
    draw: PendingDraw | None = None
    moves: list[tuple[int, Move, int]] = field(default_factory=list)
    mine: dict[int, Tile | None] = field(default_factory=dict)
    drawn: int | None = None
    suspect: tuple[int, int] | None = None
    seeds: list[bytes] = field(default_factory=list)
    reveal_seqs: list[int] = field(default_factory=list)
    head: bytes = b""
    scores: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    certs: int = 0

    @classmethod
    def start(
        cls,
        table_id: bytes,
        players: int,
        number: int,
        options: RuleOptions,
        me: int | None,
        seed: bytes | None,
        check_proofs: bool = True,
    ) -> RoundState:
        """A round at its first commitment; `seed` is the local seat's round seed; without
        `check_proofs` the hop proofs are taken unchecked (for a round the audit covers)."""
        secrets = None
        if me is not None and seed is not None:
            secrets = SeatSecrets.derive(seed, table_id, number, me)
        h = hand_size(players)
        owner: list[int | None] = [p // h if p < players * h else None for p in range(DECK_SIZE)]
        return cls(
            table_id,
            players,
            number,
            options,
            me,
            secrets,
            check_proofs=check_proofs,
            keys=[{} for _ in range(players)],
            owner=owner,
            next_yard=players * h,
        )

    # -- schedule

    @property
    def hand(self) -> int:
        return hand_size(self.players)

    @property
    def centre(self) -> Tile:
        return double(round_double(self.number))

    def due(self) -> tuple[int, frozenset[str]]:
        """The seat entitled to post the next round entry and the kinds it may post."""
        step = self.step
        if step is Step.SHUFFLE_A:
            return len(self.a_decks), _KINDS[step]
        if step is Step.SHUFFLE_B:
            return len(self.b_decks), _KINDS[step]
        if step is Step.DEAL:
            return self.deals, _KINDS[step]
        if step is Step.REVEAL:
            return len(self.seeds), _KINDS[step]
        if step is Step.CERTIFY:
            return self.certs, _KINDS[step]
        if step is Step.TURNS:
            assert self.public is not None
            if self.draw is not None and self.draw.waiting:
                return self.draw.waiting[0], frozenset({YARD_KEY})
            return self.public.turn, TURN_KINDS
        raise LocalProtocolError("the round is over: nothing more is due")

    def dealt_positions(self, seat: int) -> range:
        h = self.hand
        return range(seat * h, (seat + 1) * h)

    def others_positions(self, seat: int) -> list[int]:
        """The dealt positions of every seat but `seat`, ascending (a deal entry's key order)."""
        return [p for p in range(self.players * self.hand) if self.owner[p] != seat]

    @property
    def final_deck(self) -> list[bytes]:
        return self.b_decks[-1]

    # -- live checks

    def apply(self, entry: Entry) -> list[Event]:
        """Check and record one round entry by the entitled seat; Blame if it breaks a rule."""
        handler = getattr(self, f"_on_{entry.kind}")
        events: list[Event] = handler(entry, entry.seat, entry.body)
        return events

    def _checked_deck(self, entry: Entry, deck: object) -> list[bytes]:
        try:
            return check_deck(deck, DECK_SIZE, validate_points=False)
        except DeckError as error:
            raise blame(entry.seat, f"its {entry.kind} deck: {error.reason}", entry.seq) from None

    def hop_input(self, phase: Step, seat: int) -> list[bytes]:
        """The deck `seat`'s step of `phase` takes: the previous step's output."""
        if phase is Step.SHUFFLE_A:
            return round_deck(self.centre) if seat == 0 else self.a_decks[seat - 1]
        return self.a_decks[-1] if seat == 0 else self.b_decks[seat - 1]

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
        where = context(self.table_id, self.number, seat)
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
        self.a_decks.append(deck)
        self.a_seqs.append(entry.seq)
        self.masks.append(body["mask_commitment"])
        self.seed_commits.append(body["seed_commitment"])
        self.nonce_commits.append(body["nonce_commitment"])
        if len(self.a_decks) == self.players:
            self.step = Step.SHUFFLE_B
        return []

    def _on_shuffle_b(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        try:
            check_nonce(body["nonce"], self.nonce_commits[seat], self.table_id, self.number, seat)
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None
        deck = self._checked_deck(entry, unpack(body["deck"]))
        key_points = unpack(body["key_commitments"])
        where = context(self.table_id, self.number, seat)
        self._proven(
            entry,
            lambda: check_rekey(
                where,
                self.hop_input(Step.SHUFFLE_B, seat),
                deck,
                self.masks[seat],
                key_points,
                RekeyProof.from_bytes(body["proof"], DECK_SIZE),
            ),
        )
        self.b_decks.append(deck)
        self.b_seqs.append(entry.seq)
        self.key_commits.append(key_points)
        self.nonces.append(body["nonce"])
        if len(self.b_decks) < self.players:
            return []
        index = joint_draw_index(self.nonces, self.table_id, self.number)
        self.starter = starting_seat(self.number, self.players, index)
        self.public = PublicRound(self.players, self.number, self.starter, self.options)
        self.step = Step.DEAL
        return [RoundStarted(self.number, self.starter)]

    def _check_key(self, entry: Entry, key: bytes, position: int) -> bytes:
        seat = entry.seat
        commitment = self.key_commits[seat][position]
        try:
            return check_key(key, commitment, position)
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None

    def _on_deal(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        released = self.keys[seat]
        for position, key in zip(self.others_positions(seat), unpack(body["keys"]), strict=True):
            released[position] = self._check_key(entry, key, position)
        self.deals += 1
        if self.deals == self.players:
            self.step = Step.TURNS
        return []

    def _keys_for(self, position: int, own: bytes, owner: int) -> list[bytes]:
        return [self.keys[t][position] for t in range(self.players) if t != owner] + [own]

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
            point = open_points([self.final_deck[position]], [self._keys_for(position, key, seat)])[
                0
            ]
        except DeckError:
            raise self._bad_final_point(position) from None
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
                self.step = Step.REVEAL
                return [MoveMade(self.number, seat, move)]
            raise blame(seat, str(error), entry.seq) from None
        self.played.add(position)
        self.mine.pop(position, None)
        return self._moved(seat, move, entry.seq)

    def _moved(self, seat: int, move: Move, seq: int, drawn: Tile | None = None) -> list[Event]:
        assert self.public is not None
        self.moves.append((seat, move, seq))
        if not isinstance(move, Draw):
            self.draw = None
            self.drawn = None
        if self.public.is_over:
            self.step = Step.REVEAL
        return [MoveMade(self.number, seat, move, drawn)]

    def _bad_final_point(self, position: int) -> Blame:
        last = self.players - 1
        return blame(
            last,
            f"position {position} of its final deck is not a point of the group",
            self.b_seqs[last],
            position,
        )

    def _on_draw(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        self._public_move(entry, DRAW)
        position = self.next_yard
        self.next_yard += 1
        self.owner[position] = seat
        waiting = [(seat + i) % self.players for i in range(1, self.players)]
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
            check_seed(body["seed"], self.seed_commits[seat], self.table_id, self.number, seat)
        except DeckError as error:
            raise blame(seat, error.reason, entry.seq) from None
        self.seeds.append(body["seed"])
        self.reveal_seqs.append(entry.seq)
        self.head = entry.hash
        return []

    def _on_certify(self, entry: Entry, seat: int, body: dict[str, Any]) -> list[Event]:
        expected = {"head": self.head, "scores": list(self.scores), "totals": list(self.totals)}
        for name, value in expected.items():
            if body[name] != value:
                raise blame(
                    seat, f"its certificate's {name} differs from the audited round", entry.seq
                )
        self.certs += 1
        if self.certs == self.players:
            self.step = Step.DONE
        return []

    # -- the local seat's openings (a failure here is seen by this seat alone)

    def open_hand(self) -> list[Event]:
        """Open the local seat's dealt tiles once every other seat released its keys."""
        assert self.me is not None and self.secrets is not None
        positions = list(self.dealt_positions(self.me))
        self.mine = dict(zip(positions, self._open_own(positions), strict=True))
        return [HandDealt(self.number, tuple(self.mine.values()))]

    def open_drawn(self) -> list[Event]:
        """Open the yard tile the local seat just drew (every other key has arrived)."""
        assert self.draw is not None and self.me is not None
        position = self.draw.position
        tile = self._open_own([position])[0]
        self.mine[position] = tile
        self.drawn = position
        return [MoveMade(self.number, self.me, DRAW, tile)]

    def _open_own(self, positions: list[int]) -> list[Tile | None]:
        assert self.me is not None and self.secrets is not None
        own = self.secrets.position_keys
        points = [self.final_deck[p] for p in positions]
        try:
            opened = open_points(points, [self._keys_for(p, own[p], self.me) for p in positions])
        except DeckError:
            raise self._bad_final_point(positions[first_invalid(points)]) from None
        tiles: list[Tile | None] = []
        for point in opened:
            try:
                tiles.append(tile_for_point(point))
            except DeckError:
                tiles.append(None)  # a bad shuffle: the audit at the reveal names its author
        return tiles

    # -- what the local seat posts

    def hand_tiles(self) -> tuple[Tile, ...]:
        """The local seat's known, unplayed tiles."""
        return tuple(t for t in self.mine.values() if t is not None)

    def drawn_tile(self) -> Tile | None:
        return None if self.drawn is None else self.mine.get(self.drawn)

    def local_body(self, kind: str, move: Move | None) -> dict[str, Any]:
        """The body of the local seat's next entry of `kind` (Blame if an input is bad)."""
        secrets, me, r = self.secrets, self.me, self.number
        assert secrets is not None and me is not None
        body: dict[str, Any] = {"round": r}
        where = context(self.table_id, r, me)
        if kind == SHUFFLE_A:
            body["seed_commitment"] = seed_commitment(secrets.seed, self.table_id, r, me)
            body["nonce_commitment"] = nonce_commitment(secrets.starter_nonce, self.table_id, r, me)
            source = self.hop_input(Step.SHUFFLE_A, me)
            if me == 0:
                deck = shuffle_phase_a(source, secrets)
            else:
                deck = self._hop(shuffle_phase_a, self.a_decks, self.a_seqs, me - 1)
            mask = secrets.mask_commitment()
            proof = prove_shuffle(
                where, source, deck, mask, secrets.permutation, secrets.masking_key, secrets.seed
            )
            body.update(deck=pack(deck), mask_commitment=mask, proof=proof.to_bytes())
        elif kind == SHUFFLE_B:
            source = self.hop_input(Step.SHUFFLE_B, me)
            if me == 0:
                deck = self._hop(shuffle_phase_b, self.a_decks, self.a_seqs, self.players - 1)
            else:
                deck = self._hop(shuffle_phase_b, self.b_decks, self.b_seqs, me - 1)
            key_points = secrets.key_commitments()
            rekey = prove_rekey(
                where,
                source,
                deck,
                self.masks[me],
                key_points,
                secrets.masking_key,
                secrets.position_keys,
                secrets.seed,
            )
            body.update(
                deck=pack(deck),
                key_commitments=pack(key_points),
                nonce=secrets.starter_nonce,
                proof=rekey.to_bytes(),
            )
        elif kind == DEAL:
            body["keys"] = pack([secrets.position_keys[p] for p in self.others_positions(me)])
        elif kind == YARD_KEY:
            assert self.draw is not None
            body["position"] = self.draw.position
            body["key"] = secrets.position_keys[self.draw.position]
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
        elif kind == "certify":
            body.update(head=self.head, scores=list(self.scores), totals=list(self.totals))
        return body

    def position_of(self, tile: Tile) -> int:
        """The local seat's unplayed position holding `tile`."""
        for position, held in self.mine.items():
            if held == tile:
                return position
        raise LocalProtocolError(f"you do not hold {tile.label}: play a tile from your hand")

    def _hop(self, step: Any, decks: list[list[bytes]], seqs: list[int], source: int) -> list[Any]:
        assert self.secrets is not None
        deck = decks[source]
        try:
            out: list[Any] = step(deck, self.secrets)
        except DeckError:
            index = first_invalid(deck)
            raise blame(
                source,
                f"position {index} of its deck is not a point of the group",
                seqs[source],
                index,
            ) from None
        return out
