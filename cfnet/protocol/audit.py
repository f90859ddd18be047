"""The audit at the end of a round (protocol.md, "The audit"): from the revealed seeds, re-derive
every seat's secrets, recompute every shuffle step, check the key commitments, find the tile at
every position and replay every move with full information. Pure; raises Blame."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cfnet.deck.sra import (
    DeckError,
    SeatSecrets,
    first_invalid,
    round_deck,
    shuffle_phase_a,
    shuffle_phase_b,
)
from cfnet.game.moves import IllegalMoveError
from cfnet.game.round import Round
from cfnet.game.tiles import ALL_TILES
from cfnet.protocol.round_checks import AuditResult, HopA, HopB, RoundChecks
from cfnet.protocol.wire import Blame, blame

Shuffle = Callable[[Sequence[bytes], SeatSecrets], list[bytes]]


def audit_round(state: RoundChecks, skip: int | None = None) -> AuditResult:
    """Check a revealed round; `skip` is a seat whose shuffle steps need no recomputation (the
    local seat's own). Blames the first offending entry in chain order."""
    seated, tag, table_id = state.seated, state.tag, state.table_id
    seeds = zip(seated, state.seeds, strict=True)
    secrets = [SeatSecrets.derive(seed, table_id, tag, s) for s, seed in seeds]
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
