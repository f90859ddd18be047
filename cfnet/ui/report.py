"""A game's record told as plain lines: each round's end with the hands revealed, and what
`cfnet verify` proves (what `cfnet replay`, `cfnet verify` and `cfnet watch` print).

The verdict's sentences are made by the observer table and quote what the log holds (names,
an abort's detail, the fields of a refused body): each line is `escaped` here, where it is
printed, so that nothing in a log can move the cursor, hide a line or fake the verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cfnet.game.text import (
    SENTENCE_CHARS,
    count,
    describe_end,
    escaped,
    kept_text,
    render_hand,
    score_lines,
    score_table,
    shown_names,
    winner_text,
)
from cfnet.protocol.events import RoundScored
from cfnet.protocol.table import Table
from cfnet.protocol.verify import Verdict


def scored_lines(scored: RoundScored, names: Sequence[str], table: Table) -> list[str]:
    """A round's end: how it ended, the hands as revealed, and the scores so far (`names`: as
    shown, escaped)."""
    end = describe_end(scored.end_reason, scored.went_out, names)
    lines = [f"-- round {scored.round_number} over: {end}; hands as revealed:"]
    for seat, (dealt, left) in enumerate(zip(scored.dealt, scored.left, strict=True)):
        if seat not in scored.seated:
            points = count(scored.scores[seat], "point")
            lines.append(f"{names[seat]} sat this round out: {points}, the highest score")
            continue
        lines.append(f"{names[seat]} was dealt {render_hand(dealt)}")
        kept = kept_text(left, True)
        lines.append(f"   and kept {kept}: {count(scored.scores[seat], 'point')}")
    return lines + score_lines(table.game, [seat.name for seat in table.seats])


def verdict_line(verdict: Verdict) -> str:
    """`cfnet verify`'s verdict in one line, escaped."""
    if verdict.ok:
        assert verdict.table is not None
        game = "a complete game" if verdict.table.game.is_over else "a game ended early (note)"
        return f"valid: {game}; every signature, shuffle, key and move checked"
    problem = escaped(verdict.problem, SENTENCE_CHARS)
    if verdict.blamed is not None:
        return f"INVALID: {problem}"
    if verdict.damaged:
        return f"DAMAGED: {problem}"
    return ("unfinished: " if not verdict.finished else "") + problem


def verify_report(verdict: Verdict) -> list[str]:
    """The verdict for a person: the table, a score table with names, the winner, the verdict;
    every line escaped."""
    table = verdict.table
    assert table is not None
    names = shown_names([seat.name for seat in table.seats])

    def named(seat: int) -> str:
        return f"seat {seat} ({names[seat]})"

    lines = [
        f"table {table.name!r} ({table.table_id.hex()}): "
        + ", ".join(named(s) for s in range(len(names))),
        f"rules: {table.options.describe()}; {verdict.entries} entries",
    ]
    lines += verdict.departures
    for scored in verdict.rounds:
        end = describe_end(scored.end_reason, scored.went_out, names)
        lines.append(f"round {scored.round_number}: {end}")
    if verdict.rounds:
        rows = [(s.round_number, s.scores, s.seated) for s in verdict.rounds]
        lines += score_table(names, rows, table.game.totals)
    if verdict.finished:
        game = table.game
        seats = [named(s) for s in range(len(names))]
        lines.append(f"game over: {winner_text(game.winners(), game.totals, seats)}")
        lines += [f"{seats[s]} is disqualified: removed for cheating" for s in verdict.removed]
    if verdict.finished and not verdict.ok and verdict.blamed is None:
        lines.append(f"the game is complete and valid, but {verdict.problem}")
    else:
        lines.append(verdict_line(verdict))
    if verdict.note:
        lines.append(f"note: {verdict.note}")
    if not verdict.ok:
        lines += _fault_lines(verdict, named)
    if verdict.after:
        lines.append(f"after that: {verdict.after}")
    return [escaped(line, SENTENCE_CHARS) for line in lines]


def _fault_lines(verdict: Verdict, named: Callable[[int], str]) -> list[str]:
    """Who is to blame for a game that is not valid and complete, or why no one is."""
    if verdict.blamed is not None:
        lines = [f"to blame: {named(verdict.blamed)}"]
        if verdict.abort is not None and verdict.abort_by is not None:
            claim = verdict.abort
            lines.append(
                f"the game ends with seat {verdict.abort_by}'s abort: seat {claim.seat},"
                f" {claim.code}"
            )
        return lines
    if verdict.claim is not None and not verdict.finished:
        return [
            f"that is only seat {verdict.claimed_by}'s word: time cannot be proven offline,"
            " so no seat is proven at fault"
        ]
    return ["no seat is proven at fault"]
