"""The audit at the end of a round (protocol.md, "The audit"): from the revealed seeds, re-derive
every seat's secrets, recompute every shuffle step, check the key commitments, find the tile at
every position and replay every move with full information. Pure; raises Blame."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cfnet.deck.derive import SEED_BYTES
from cfnet.deck.pool import spread
from cfnet.deck.sra import (
    DeckError,
    SeatSecrets,
    first_invalid,
    open_points,
    round_deck,
    shuffle_phase_a,
    shuffle_phase_b,
    shuffles_ahead,
    tile_for_point,
)
from cfnet.game.moves import Draw, IllegalMoveError, Pass, Play
from cfnet.game.round import Round
from cfnet.game.rules import round_double
from cfnet.game.tiles import ALL_TILES, Tile, double
from cfnet.protocol.round_checks import AuditResult, HopA, HopB, RoundChecks
from cfnet.protocol.wire import REVEAL, SHUFFLE_A, SHUFFLE_B, Blame, blame, unpack
from cfnet.record.entry import Entry


def audit_round(state: RoundChecks, skip: int | None = None) -> AuditResult:
    """Check a revealed round; `skip` is a seat whose shuffle steps need no recomputation (the
    local seat's own). Blames the first offending entry in chain order."""
    seated, tag, table_id = state.seated, state.tag, state.table_id
    secrets = [SeatSecrets.derive(state.seeds[s], table_id, tag, s) for s in seated]
    for place, derived in enumerate(secrets):
        if derived.starter_nonce != state.b[place].nonce:
            raise blame(
                seated[place], "its starter nonce is not the one its seed gives", state.b[place].seq
            )
    previous, previous_seq, previous_seat = round_deck(state.centre), -1, -1
    phases: tuple[tuple[str, Sequence[HopA | HopB]], ...] = (("A", state.a), ("B", state.b))
    made = _recomputed(state, secrets, skip)
    for phase, hops in phases:
        for place, seat in enumerate(seated):
            hop = hops[place]
            if seat != skip:
                expected = made[phase, place]
                if isinstance(expected, DeckError):
                    raise _bad_point(previous_seat, previous_seq, previous)
                if expected != hop.deck:
                    where = next(
                        i for i, (a, b) in enumerate(zip(expected, hop.deck, strict=True)) if a != b
                    )
                    raise blame(
                        seat,
                        f"its phase-{phase} deck is not the one its revealed seed gives "
                        f"(first difference at position {where})",
                        hop.seq,
                    )
                if isinstance(hop, HopA) and secrets[place].mask_commitment() != hop.mask:
                    raise blame(seat, "its mask commitment is not that of its seed's key", hop.seq)
                if isinstance(hop, HopB) and made["K", place] != hop.key_commitments:
                    raise blame(
                        seat, "its key commitments are not those of its seed's keys", hop.seq
                    )
            previous, previous_seq, previous_seat = hop.deck, hop.seq, seat
    sources = list(range(len(previous)))
    for derived in reversed(secrets):
        sources = [derived.permutation[i] for i in sources]
    unshuffled = [t for t in ALL_TILES if t != state.centre]
    tiles = tuple(unshuffled[i] for i in sources)
    replayed = Round.deal(state.players, state.number, state.starter, tiles, state.options, seated)
    for seat, move, seq in state.moves:
        try:
            replayed.apply(move, seat)
        except IllegalMoveError as error:
            raise blame(seat, str(error), seq) from None
    if state.suspect is not None:
        seat, seq = state.suspect
        raise blame(seat, "played a tile that is already on the board", seq)
    return AuditResult(tiles, replayed)


Made = dict[tuple[str, int], "list[bytes] | DeckError"]


def _recomputed(state: RoundChecks, secrets: Sequence[SeatSecrets], skip: int | None) -> Made:
    """Every seat's (but `skip`'s) shuffles of the decks it was given (phase and place: its
    deck, or the DeckError of a point refused) and its key commitments ("K"), each an
    independent job shared among the deck's threads: the key commitments first, then the
    shuffles in the reverse of the order `audit_ahead` begins them (those begun ahead last:
    their work is the likeliest to be done, or under way, by then)."""
    firsts = (round_deck(state.centre), state.a[-1].deck)
    places = [place for place, seat in enumerate(state.seated) if seat != skip]
    jobs = [("K", place) for place in places]
    jobs += [(phase, place) for place in reversed(places) for phase in ("B", "A")]

    def job(key: tuple[str, int]) -> list[bytes] | DeckError:
        phase, place = key
        if phase == "K":
            return list(secrets[place].key_commitments())
        hops: Sequence[HopA | HopB] = state.a if phase == "A" else state.b
        given = firsts[phase == "B"] if place == 0 else hops[place - 1].deck
        try:
            return (shuffle_phase_a if phase == "A" else shuffle_phase_b)(given, secrets[place])
        except DeckError as error:
            return error

    return dict(zip(jobs, spread(job, jobs, min_share=1), strict=True))


def audit_ahead(table_id: bytes, number: int, entries: Iterable[Entry]) -> None:
    """Start, on the deck's threads, what `audit_round` of round `number`'s first deal will
    recompute, from its entries read ahead and not yet checked (its hops in chain order, its
    reveals): each seat's shuffles and key commitments (sra.shuffles_ahead). Only the time
    changes: the audit takes what was made from the same inputs and does the rest itself."""
    decks: dict[str, list[tuple[int, list[bytes]]]] = {SHUFFLE_A: [], SHUFFLE_B: []}
    seeds: dict[int, bytes] = {}
    for entry in entries:
        body = entry.body
        if body.get("round") != number:
            continue
        if entry.kind in decks and isinstance(body.get("deck"), bytes):
            decks[entry.kind].append((entry.seat, unpack(body["deck"])))
        elif entry.kind == REVEAL and isinstance(body.get("seed"), bytes):
            seeds[entry.seat] = body["seed"]
    a, b = decks[SHUFFLE_A], decks[SHUFFLE_B]
    previous = round_deck(double(round_double(number)))
    for place, (seat, deck) in enumerate(a):
        inputs = [previous]
        if place < len(b) and b[place][0] == seat:
            inputs.append(a[-1][1] if place == 0 else b[place - 1][1])
        if len(seeds.get(seat, b"")) == SEED_BYTES:
            shuffles_ahead(seeds[seat], table_id, number, seat, inputs)
        previous = deck


def _bad_point(seat: int, seq: int, deck: list[bytes]) -> Blame:
    index = first_invalid(deck)
    return blame(seat, f"position {index} of its deck is not a point of the group", seq, index)


def audit_abandoned(state: RoundChecks, present: tuple[int, ...]) -> None:
    """Check a deal abandoned when a seat left, as far as the seeds revealed allow: each
    revealing seat still `present` has its hops and commitments recomputed and, once the hands
    were dealt, its passes replayed on its own hand (a pass while holding a tile that fits, or
    after drawing one, is a fault). Blames the first offending entry in chain order."""
    faults: list[Blame] = []
    for place, seat in enumerate(state.seated):
        if seat in state.seeds and seat in present:
            try:
                _audit_seat(state, place, seat)
            except Blame as error:
                faults.append(error)
    if faults:
        raise min(faults, key=lambda error: error.fault.seq or 0)


def _audit_seat(state: RoundChecks, place: int, seat: int) -> None:
    secrets = SeatSecrets.derive(state.seeds[seat], state.table_id, state.tag, seat)
    hop_a = state.a[place]
    source = round_deck(state.centre) if place == 0 else state.a[place - 1].deck
    if shuffle_phase_a(source, secrets) != hop_a.deck:
        raise blame(seat, "its phase-A deck is not the one its revealed seed gives", hop_a.seq)
    if secrets.mask_commitment() != hop_a.mask:
        raise blame(seat, "its mask commitment is not that of its seed's key", hop_a.seq)
    if place >= len(state.b):
        return
    hop_b = state.b[place]
    if secrets.starter_nonce != hop_b.nonce:
        raise blame(seat, "its starter nonce is not the one its seed gives", hop_b.seq)
    source = state.a[-1].deck if place == 0 else state.b[place - 1].deck
    if shuffle_phase_b(source, secrets) != hop_b.deck:
        raise blame(seat, "its phase-B deck is not the one its revealed seed gives", hop_b.seq)
    if list(secrets.key_commitments()) != hop_b.key_commitments:
        raise blame(seat, "its key commitments are not those of its seed's keys", hop_b.seq)
    _replay_passes(state, seat, secrets)


def _replay_passes(state: RoundChecks, seat: int, secrets: SeatSecrets) -> None:
    """Replay the deal's moves with `seat`'s hand known (its dealt tiles and draws, opened
    with every key released and its own); blame a pass it made holding a tile that fits."""
    public = state.public
    others = [t for t in state.seated if t != seat]
    dealt = list(state.dealt_positions(seat))
    if public is None or any(p not in state.keys[t] for t in others for p in dealt):
        return  # the hands were never dealt
    hand = set(_opened(state, seat, secrets, dealt))
    replay = public.at_start()
    draws, drawn = 0, None
    yard = len(state.seated) * state.hand
    for mover, move, seq in state.moves:
        if mover == seat and isinstance(move, Pass):
            offered = [*hand] if drawn is None else []
            fits = [m for m in replay.legal_moves_for(offered, drawn) if isinstance(m, Play)]
            if fits:
                raise blame(seat, f"passed holding {fits[0].tile.label}, which fits", seq)
        if isinstance(move, Draw):
            position, draws = yard + draws, draws + 1
            if mover == seat:
                if any(position not in state.keys[t] for t in others):
                    return  # its draw was never opened: nothing after it can be checked
                (drawn,) = _opened(state, seat, secrets, [position])
                hand.add(drawn)
        elif mover == seat:
            drawn = None
            if isinstance(move, Play):
                hand.discard(move.tile)
        replay.apply_public(move, mover)


def _opened(
    state: RoundChecks, seat: int, secrets: SeatSecrets, positions: list[int]
) -> list[Tile]:
    """The tiles at `seat`'s `positions`, opened with every key (its own from its seed)."""
    own = secrets.position_keys
    keys = [state.keys_for(p, own[p], seat) for p in positions]
    return [
        tile_for_point(point)
        for point in open_points([state.final_deck[p] for p in positions], keys)
    ]
