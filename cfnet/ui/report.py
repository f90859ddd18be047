"""A game's record told as plain lines: each round's end with the hands revealed, and what
`cfnet verify` proves (what `cfnet replay`, `cfnet verify` and `cfnet watch` print).

The verdict's sentences are made by the observer table and quote what the log holds (names,
an abort's detail, the fields of a refused body): each line is `escaped` here, where it is
printed, so that nothing in a log can move the cursor, hide a line or fake the verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cfnet.game.text import (
    describe_end,
    kept_text,
    points,
    render_hand,
    score_lines,
    score_table,
    shown_names,
    shown_sentence,
    winner_text,
)
from cfnet.lang import _, digits, ngettext, said
from cfnet.protocol.events import RoundScored
from cfnet.protocol.table import Table
from cfnet.protocol.verify import Verdict


def scored_lines(scored: RoundScored, names: Sequence[str], table: Table) -> list[str]:
    """A round's end: how it ended, the hands as revealed, and the scores so far (`names`: as
    shown, escaped)."""
    end = describe_end(scored.end_reason, scored.went_out, names)
    head = _("-- round {number} over: {why}; hands as revealed:")
    lines = [head.format(number=digits(scored.round_number), why=end)]
    for seat, (dealt, left) in enumerate(zip(scored.dealt, scored.left, strict=True)):
        score = points(scored.scores[seat])
        if seat not in scored.seated:
            sat = _("{name} sat this round out: {points}, the highest score")
            lines.append(sat.format(name=names[seat], points=score))
            continue
        dealt_text = _("{name} was dealt {tiles}")
        lines.append(dealt_text.format(name=names[seat], tiles=render_hand(dealt)))
        kept = kept_text(left, True)
        lines.append("   " + _("and kept {tiles}: {points}").format(tiles=kept, points=score))
    return lines + score_lines(table.game, [seat.name for seat in table.seats])


def verdict_line(verdict: Verdict) -> str:
    """`cfnet verify`'s verdict in one line, escaped."""
    if verdict.ok:
        assert verdict.table is not None
        if verdict.table.game.is_over:
            return _("valid: a complete game; every signature, shuffle, key and move checked")
        return _("valid: a game ended early (note); every signature, shuffle, key and move checked")
    problem = shown_sentence(said(verdict.problem))
    if verdict.blamed is not None:
        return _("INVALID: {problem}").format(problem=problem)
    if verdict.damaged:
        return _("DAMAGED: {problem}").format(problem=problem)
    if not verdict.finished:
        return _("unfinished: {problem}").format(problem=problem)
    return problem


def verify_report(verdict: Verdict) -> list[str]:
    """The verdict for a person: the table, a score table with names, the winner, the verdict;
    every line escaped."""
    table = verdict.table
    assert table is not None
    names = shown_names([seat.name for seat in table.seats])

    def named(seat: int) -> str:
        return _("seat {number} ({name})").format(number=digits(seat), name=names[seat])

    entries = ngettext(
        "rules: {rules}; {count} entry", "rules: {rules}; {count} entries", verdict.entries
    )
    lines = [
        _("table {name!r} ({id}): {seats}").format(
            name=table.name,
            id=table.table_id.hex(),
            seats=", ".join(named(s) for s in range(len(names))),
        ),
        entries.format(rules=table.options.describe(), count=digits(verdict.entries)),
    ]
    lines += [said(line) for line in verdict.departures]
    for scored in verdict.rounds:
        end = describe_end(scored.end_reason, scored.went_out, names)
        lines.append(_("round {number}: {why}").format(number=digits(scored.round_number), why=end))
    if verdict.rounds:
        rows = [(s.round_number, s.scores, s.seated) for s in verdict.rounds]
        lines += score_table(names, rows, table.game.totals)
    if verdict.finished:
        game = table.game
        seats = [named(s) for s in range(len(names))]
        winner = winner_text(game.winners(), game.totals, seats)
        lines.append(_("game over: {winner}").format(winner=winner))
        conceded = _("{name} conceded: left a game ended early")
        lines += [conceded.format(name=seats[s]) for s in sorted(game.conceded)]
        removed = _("{name} is disqualified: removed for cheating")
        lines += [removed.format(name=seats[s]) for s in verdict.removed]
    if verdict.finished and not verdict.ok and verdict.blamed is None:
        but = _("the game is complete and valid, but {problem}")
        lines.append(but.format(problem=said(verdict.problem)))
    else:
        lines.append(verdict_line(verdict))
    if verdict.note:
        lines.append(_("note: {note}").format(note=said(verdict.note)))
    lines += [_("note: {note}").format(note=said(late)) for late in verdict.late]
    if not verdict.ok:
        lines += _fault_lines(verdict, named)
    if verdict.after:
        lines.append(_("after that: {what}").format(what=said(verdict.after)))
    return [shown_sentence(line) for line in lines]


def _fault_lines(verdict: Verdict, named: Callable[[int], str]) -> list[str]:
    """Who is to blame for a game that is not valid and complete, or why no one is."""
    if verdict.blamed is not None:
        lines = [_("to blame: {name}").format(name=named(verdict.blamed))]
        if verdict.abort is not None and verdict.abort_by is not None:
            claim = verdict.abort
            ends = _("the game ends with seat {by}'s abort: seat {seat}, {code}")
            lines.append(
                ends.format(by=digits(verdict.abort_by), seat=digits(claim.seat), code=claim.code)
            )
        return lines
    if verdict.claim is not None and not verdict.finished:
        word = _(
            "that is only seat {seat}'s word: time cannot be proven offline, so no seat is"
            " proven at fault"
        )
        return [word.format(seat=digits(verdict.claimed_by or 0))]
    return [_("no seat is proven at fault")]
