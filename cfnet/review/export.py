"""The plain game record (`cfnet export`, docs/record.md) and its replay through the engine
(`cfnet import-check`). Pure: a timeline in, plain data out; plain data in, problems out.

A record holds only what the log reveals: the hands dealt, the yard order and each drawn tile
only for rounds whose reveal every seat posted (protocol.md 4.4); other rounds have their
public moves only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from cfnet.errors import describe
from cfnet.game.board import PublicRound
from cfnet.game.moves import DRAW, PASS, Draw, IllegalMoveError, Move, Play, play
from cfnet.game.round import Round, absent_scores
from cfnet.game.rules import RuleOptionError, RuleOptions
from cfnet.game.tiles import Tile, TileParseError
from cfnet.lang import _, digits
from cfnet.record.identity import fingerprint
from cfnet.record.logfile import MAGIC
from cfnet.review.timeline import Timeline

FORMAT = "cfnet-record"
VERSION = 1


class RecordError(ValueError):
    """A record that is not of the documented form (the message says where and what)."""


def _tiles(tiles: Any) -> list[str]:
    return [tile.label for tile in tiles]


def export_record(timeline: Timeline, log_sha256: str) -> dict[str, Any]:
    """The record of the game in `timeline` (read from a log whose SHA-256 is `log_sha256`)."""
    table = timeline.table
    verdict = timeline.verdict()
    rounds = []
    for start in timeline.round_starts():
        first = timeline.positions[start]
        number = first.round_number
        scored = timeline.scored(first)
        moves = []
        previous = first
        for position in timeline.positions[start + 1 :]:
            if position.index == 0:
                break
            if position.move is None:
                continue  # a departure, a return or the abort: a note, not a move
            move, seat = position.move, position.seat
            row: dict[str, Any] = {"seat": seat}
            if isinstance(move, Play):
                row |= {"type": "play", "tile": move.tile.label, "end": move.end}
                row["number"] = previous.public.ends[move.end]
            elif isinstance(move, Draw):
                drawn = timeline.drawn(position)
                row |= {"type": "draw", "tile": None if drawn is None else drawn.label}
            else:
                row["type"] = "pass"
            moves.append(row)
            previous = position
        rounds.append(
            {
                "round": number,
                "centre": first.public.centre.label,
                "starter": first.public.starter,
                "seated": list(first.public.seated),
                "revealed": scored is not None,
                "dealt": None if scored is None else [_tiles(hand) for hand in scored.dealt],
                "yard": None if scored is None else _tiles(scored.yard),
                "moves": moves,
                "end": None if scored is None else scored.end_reason.value,
                "went_out": None if scored is None else scored.went_out,
                "left": None if scored is None else [_tiles(hand) for hand in scored.left],
                "scores": None if scored is None else list(scored.scores),
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "log": {
            "sha256": log_sha256,
            "entries": len(table.entries),
            "head": table.head.hex(),
        },
        "table": {"name": table.name, "id": table.table_id.hex()},
        "rules": {"players": table.players, **table.options.to_plain()},
        "players": [
            {"seat": seat, "name": info.name, "fingerprint": fingerprint(info.key)}
            for seat, info in enumerate(table.seats)
        ],
        "rounds": rounds,
        "totals": list(table.game.totals),
        "winners": list(table.game.winners()) if verdict.finished else [],
        "disqualified": sorted(table.game.disqualified),
        "conceded": sorted(table.game.conceded),
        "finished": verdict.finished,
        "valid": verdict.valid,
        "problem": verdict.problem or None,
    }


# ------------------------------------------------------------------ checking a record


def _get(data: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise RecordError(_("{where}: no {key!r}").format(where=where, key=key))
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        wrong = _("{where}: {key!r} is {value!r}, not of the documented type")
        raise RecordError(wrong.format(where=where, key=key, value=value))
    return value


def _tile(text: Any, where: str) -> Tile:
    if not isinstance(text, str):
        raise RecordError(
            _("{where}: tile {text!r} is not a string such as '9-3'").format(where=where, text=text)
        )
    try:
        return Tile.parse(text)
    except TileParseError as error:
        raise RecordError(f"{where}: {describe(error)}") from None


def _hands(data: Any, key: str, where: str) -> list[list[Tile]]:
    rows = _get(data, key, list, where)
    return [[_tile(t, where) for t in _get({"h": row}, "h", list, where)] for row in rows]


def _move(row: Any, where: str) -> tuple[Move, Tile | None, int | None]:
    """(the move, the tile a draw says it gave, the number a play says it matched)."""
    kind = _get(row, "type", str, where)
    if kind == "play":
        tile = _tile(_get(row, "tile", str, where), where)
        return play(tile, _get(row, "end", str, where)), None, _get(row, "number", int, where)
    if kind == "draw":
        drawn = row.get("tile")
        return DRAW, None if drawn is None else _tile(drawn, where), None
    if kind == "pass":
        return PASS, None, None
    raise RecordError(
        _("{where}: move type {kind!r} is not play, draw or pass").format(where=where, kind=kind)
    )


def parse_record(data: bytes, name: str) -> Any:
    """The JSON value in `data` (the file `name`); RecordError saying, in a person's words, why
    it is not a record's text (a cfnet log file, not UTF-8, not JSON)."""
    if data.startswith(MAGIC):
        raise RecordError(
            _(
                "{name} is a cfnet log file, not a record: `cfnet export {name}` writes its record"
            ).format(name=name)
        )
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise RecordError(
            _(
                "{name} is not a record: byte {byte} is not UTF-8 text (a record is JSON text, as"
                " cfnet export writes it)"
            ).format(name=name, byte=digits(error.start))
        ) from None
    except json.JSONDecodeError as error:
        raise RecordError(
            _(
                "{name} is not a record: it is not JSON text ({error} at line {line}, column"
                " {column}); cfnet export writes records"
            ).format(
                name=name,
                error=error.msg.lower(),
                line=digits(error.lineno),
                column=digits(error.colno),
            )
        ) from None


def check_record(record: Any) -> Iterator[str]:
    """Replay `record` through the engine; yields each problem found (none: every move is
    legal and the ends, scores, totals and winners are those the moves give)."""
    try:
        yield from _check(record)
    except RecordError as error:
        yield str(error)


def _check(record: Any) -> Iterator[str]:
    if _get(record, "format", str, "record") != FORMAT:
        raise RecordError(_("record: format is not {format!r}").format(format=FORMAT))
    rules = _get(record, "rules", dict, "record")
    players = _get(rules, "players", int, "rules")
    try:
        options = RuleOptions.from_plain({k: v for k, v in rules.items() if k != "players"})
        options.check(players)
    except RuleOptionError as error:
        raise RecordError(f"rules: {describe(error)}") from None
    if len(_get(record, "players", list, "record")) != players:
        yield f"players: {players} seats in the rules, {len(record['players'])} players listed"
    totals = [0] * players
    complete = 0
    number = 0
    records = _get(record, "rounds", list, "record")
    if not all(isinstance(data, dict) for data in records):
        raise RecordError(_("record: each item of 'rounds' must be an object"))
    for i, data in enumerate(records):
        abandoned = i + 1 < len(records) and records[i + 1].get("round") == data.get("round")
        number += not (i and records[i - 1].get("round") == data.get("round"))
        where = f"round {number}"
        if _get(data, "round", int, where) != number:
            raise RecordError(f"{where}: numbered {data['round']}")
        starter = _get(data, "starter", int, where)
        seated = _get(data, "seated", list, where)
        if abandoned and data.get("revealed"):
            yield f"{where}: a deal dealt again is never revealed"
        try:
            public = PublicRound(players, number, starter, options, seated=seated)
        except ValueError as error:
            raise RecordError(f"{where}: {error}") from None
        if _get(data, "centre", str, where) != public.centre.label:
            yield f"{where}: centre {data['centre']}, the rules give {public.centre.label}"
        moves = [_move(row, f"{where} move {i}") for i, row in enumerate(data["moves"], 1)]
        if _get(data, "revealed", bool, where):
            problems = list(_check_revealed(data, moves, public, where))
            yield from problems
            if not problems:
                totals = [t + s for t, s in zip(totals, data["scores"], strict=True)]
                complete += 1
        else:
            yield from _check_public(public, moves, where)
    if _get(record, "totals", list, "record") != totals:
        yield f"totals: {record['totals']}, the rounds give {totals}"
    finished = complete == options.rounds or record.get("finished") is True  # or ended early
    out = set(_get(record, "disqualified", list, "record"))
    conceded = set(record.get("conceded", []))
    seated = [seat for seat in range(players) if seat not in out | conceded]
    ranked = seated or sorted(conceded - out) or sorted(out)
    low = min((totals[seat] for seat in ranked), default=0)
    winners = [seat for seat in ranked if totals[seat] == low] if finished else []
    if _get(record, "winners", list, "record") != winners:
        yield f"winners: {record['winners']}, the totals give {winners}"


def _matched(public: PublicRound, move: Move, number: int | None, where: str) -> Iterator[str]:
    """A play's recorded number must be what its end needs before the play."""
    if isinstance(move, Play) and public.ends.get(move.end, number) != number:
        yield f"{where}: end {move.end} needs {public.ends[move.end]}, the record says {number}"


def _check_public(public: PublicRound, moves: list[Any], where: str) -> Iterator[str]:
    """A round not revealed: its moves on public facts only."""
    for i, (move, drawn, number) in enumerate(moves, 1):
        if drawn is not None:
            yield f"{where} move {i}: a draw of a round never revealed shows a tile"
        yield from _matched(public, move, number, f"{where} move {i}")
        try:
            public.apply_public(move)
        except IllegalMoveError as error:
            yield f"{where} move {i} ({move}): illegal: {error}"
            return


def _check_revealed(data: Any, moves: list[Any], start: PublicRound, where: str) -> Iterator[str]:
    """A revealed round: the deal is a whole deck, every move legal from it, the end as given."""
    dealt, yard = _hands(data, "dealt", where), [_tile(t, where) for t in data["yard"]]
    deck = _deck([dealt[s] for s in start.seated if s < len(dealt)], yard)
    try:
        replay = Round.deal(
            start.players, start.round_number, start.starter, deck, start.options, start.seated
        )
    except ValueError as error:
        yield f"{where}: the deal is not a whole deck: {error}"
        return
    if [list(hand) for hand in replay.hands] != dealt:
        yield f"{where}: the hands dealt are not of the size the rules give"
        return
    for i, (move, drawn, number) in enumerate(moves, 1):
        yield from _matched(replay.public, move, number, f"{where} move {i}")
        try:
            tile = replay.apply(move)
        except IllegalMoveError as error:
            yield f"{where} move {i} ({move}): illegal: {error}"
            return
        if tile != drawn:
            yield f"{where} move {i}: the draw gave {tile}, the record says {drawn}"
    public = replay.public
    if public.end_reason is None:
        yield f"{where}: the moves do not end the round"
        return
    if _get(data, "end", str, where) != public.end_reason.value:
        yield f"{where}: end {data['end']!r}, the moves give {public.end_reason.value!r}"
    if data.get("went_out") != public.went_out:
        yield f"{where}: went_out {data.get('went_out')}, the moves give {public.went_out}"
    left = [sorted(t.label for t in hand) for hand in replay.hands]
    if [sorted(hand) for hand in _get(data, "left", list, where)] != left:
        yield f"{where}: the hands left are not those the moves leave"
    scores = list(absent_scores(replay.scores(), start.seated))
    if _get(data, "scores", list, where) != scores:
        yield f"{where}: scores {data['scores']}, the hands left give {scores}"


def _deck(dealt: list[list[Tile]], yard: list[Tile]) -> list[Tile]:
    return [t for hand in dealt for t in hand] + yard
