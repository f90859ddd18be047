"""The audit at the end of a round (protocol.md, "The audit"): from the revealed seeds, re-derive
every seat's secrets, recompute every shuffle step, check the key commitments, find the tile at
every position and replay every move with full information. Pure; raises Blame."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cfnet.deck.sra import (
    DeckError,
    SeatSecrets,
    first_invalid,
    open_points,
    round_deck,
    shuffle_phase_a,
    shuffle_phase_b,
    tile_for_point,
)
from cfnet.game.moves import Draw, IllegalMoveError, Pass, Play
from cfnet.game.round import Round
from cfnet.game.tiles import ALL_TILES, Tile
from cfnet.protocol.round_checks import AuditResult, HopA, HopB, RoundChecks
from cfnet.protocol.wire import Blame, blame

Shuffle = Callable[[Sequence[bytes], SeatSecrets], list[bytes]]


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
    phases: tuple[tuple[str, Sequence[HopA | HopB], Shuffle], ...] = (
        ("A", state.a, shuffle_phase_a),
        ("B", state.b, shuffle_phase_b),
    )
    for phase, hops, shuffle in phases:
        for place, seat in enumerate(seated):
            hop = hops[place]
            if seat != skip:
                try:
                    expected = shuffle(previous, secrets[place])
                except DeckError:
                    raise _bad_point(previous_seat, previous_seq, previous) from None
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
                if (
                    isinstance(hop, HopB)
                    and list(secrets[place].key_commitments()) != hop.key_commitments
                ):
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
