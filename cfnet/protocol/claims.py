"""Whether an abort's claim holds (protocol.md 4.6): each fault code and the evidence that proves
it, checked against the chain as this peer holds it. Pure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cfnet.deck.sra import is_valid_point
from cfnet.protocol.chain import Chain
from cfnet.protocol.round_checks import DECK_SIZE
from cfnet.protocol.votes import votes_problem
from cfnet.protocol.wire import (
    ABORT,
    BAD_ENTRY,
    BAD_POINT,
    BAD_PROOF,
    OUT_OF_TURN,
    SHUFFLE_A,
    SHUFFLE_B,
    TIMEOUT,
    Fault,
    packed,
    unpack,
)
from cfnet.record.entry import Entry, Equivocation, MalformedEntry, decode_entry

PREMATURE = "premature"


@dataclass(frozen=True, slots=True)
class Judged:
    """What a claim is checked against: the chain, the seat due at any seq (`due_at`), the
    fault this peer found itself (if any), the table's id and timeout, when the step now open
    began here, and the seat (this peer's own, just restarted) whose timeout claims no clock
    here can judge (`unclocked`: its entries' arrival times are those of the replay), and from
    protocol version 4 the seats dealt in at a seq (`seated_at`): a timeout is then proven by
    the stall votes of a majority of them, alike live and offline, with no clock."""

    chain: Chain
    due_at: Callable[[int], int]
    known: Fault | None
    table_id: bytes
    timeout: int
    step_started: float
    unclocked: int | None = None
    seated_at: Callable[[int], tuple[int, ...]] | None = None
    linked: bool = False
    """Version 4: an equivocation proof must be of a place of this chain: at the abort's own
    seq, the pair linked where the abort links; below it, one of the pair the entry there."""


def claim_problem(claim: Fault, abort: Entry, now: float, at: Judged) -> str | None:
    """Why an abort's claim does not hold (None if it does; PREMATURE for a timeout that this
    peer's own clock has not seen yet)."""
    evidence, chain = claim.evidence, at.chain
    if claim.code in (BAD_ENTRY, BAD_PROOF):
        mine = at.known
        if mine is None or (mine.code, mine.seat, mine.seq) != (claim.code, claim.seat, claim.seq):
            return (
                f"this table finds no {claim.code} fault of seat {claim.seat} at entry {claim.seq}"
            )
        return None
    if claim.code == TIMEOUT:
        seq = abort.seq
        if evidence["seq"] != seq or at.due_at(seq) != claim.seat:
            return f"seat {claim.seat} was not the seat due at entry {seq}"
        if at.seated_at is not None:
            return votes_problem(claim, abort, at.table_id, chain.keys, at.seated_at(seq))
        if claim.seat == at.unclocked:
            return None
        if seq < len(chain):
            if chain.times[seq] - chain.times[seq - 1] < at.timeout:
                return f"seat {claim.seat}'s entry {seq} arrived here in time"
        elif now < at.step_started + at.timeout:
            return PREMATURE
        return None
    if claim.code == BAD_POINT:
        return _bad_point_problem(claim, abort, chain)
    if claim.code == OUT_OF_TURN:
        return _out_of_turn_problem(claim, evidence["entry"], abort.seq, at)
    try:
        proof = Equivocation.from_plain(evidence["entries"])
    except MalformedEntry as error:
        return error.reason
    if proof.a.seat != claim.seat or proof.a.table_id != at.table_id:
        return "the two entries are not the blamed seat's at this table"
    if not proof.check(chain.keys[claim.seat]):
        return "the two entries are not two signed entries for one place"
    if at.linked and not _linked(proof, abort, chain):
        return "the two entries are not for a place of this chain"
    return None


def _linked(proof: Equivocation, abort: Entry, chain: Chain) -> bool:
    """The proof is of a place of `chain` that the abort may report: its own place (the pair
    follows the abort's `prev`), or an earlier one whose entry in the chain is one of them."""
    seq = proof.a.seq
    if seq == abort.seq:
        return proof.a.prev == abort.prev
    return seq < min(abort.seq, len(chain)) and chain.entries[seq].wire in (
        proof.a.wire,
        proof.b.wire,
    )


def _bad_point_problem(claim: Fault, abort: Entry, chain: Chain) -> str | None:
    seq, index = claim.evidence["seq"], claim.evidence["index"]
    if seq >= abort.seq or index >= DECK_SIZE:
        return "the evidence names no earlier deck position"
    target = chain.entries[seq]
    if (
        target.kind not in (SHUFFLE_A, SHUFFLE_B)
        or target.seat != claim.seat
        or not packed(DECK_SIZE)(target.body.get("deck"))
    ):
        return f"entry {seq} is not a deck posted by seat {claim.seat}"
    if is_valid_point(unpack(target.body["deck"])[index]):
        return f"position {index} of entry {seq} is a valid point"
    return None


def _out_of_turn_problem(claim: Fault, wire: bytes, limit: int, at: Judged) -> str | None:
    try:
        other = decode_entry(wire)
    except MalformedEntry as error:
        return error.reason
    seq, chain = other.seq, at.chain
    if (
        other.seat != claim.seat
        or other.table_id != at.table_id
        or other.kind == ABORT
        or not 0 < seq <= min(limit, len(chain))
        or other.prev != chain.entries[seq - 1].hash
        or not other.verify(chain.keys[claim.seat])
    ):
        return "the evidence is not the blamed seat's entry linked into this chain"
    if at.due_at(seq) == other.seat:
        return f"seat {other.seat} was due at entry {seq}"
    return None
