"""`cfnet replay LOG`: a saved game move by move, as a person reads it.

A round's moves are shown once its reveal is read, so that each draw shows the tile it gave
(a round cut short by an abort shows bare draws); then how the round ended and its scores."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cfnet.lang import N_, _, digits, said

if TYPE_CHECKING:
    from cfnet.game.rules import RuleOptions
    from cfnet.game.tiles import Tile
    from cfnet.protocol.events import RoundScored
    from cfnet.review.timeline import Timeline

HELP = N_("Show a saved game move by move: the board after each play, hands and scores.")
MAX_MOVE = 10**6  # far beyond any game's moves: --to beyond the last move stops at the end


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument, count_type
    from cfnet.game.rules import MAX_ROUNDS

    parser.add_argument(
        "log", metavar="LOG", help=_("a game log file, or a table name or id from `cfnet games`")
    )
    parser.add_argument(
        "--round", type=count_type(1, MAX_ROUNDS), metavar="R", help=_("show only round R")
    )
    parser.add_argument(
        "--to",
        type=count_type(0, MAX_MOVE),
        metavar="N",
        help=_("stop after move N (of round R with --round, else of the whole game)"),
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help=_("print the game as text (what a pipe gets) instead of the full-screen viewer"),
    )
    add_home_argument(parser)


def drawn_tiles(scored: RoundScored, players: int, options: RuleOptions) -> list[Tile]:
    """The tiles a round's draws gave, in order, from its revealed deal."""
    from cfnet.game.moves import Draw
    from cfnet.game.round import Round

    replayed = Round(
        players,
        scored.round_number,
        scored.starter,
        scored.dealt,
        scored.yard,
        options,
        scored.seated,
    )
    tiles = []
    for move in scored.moves:
        tile = replayed.apply(move)
        if isinstance(move, Draw) and tile is not None:
            tiles.append(tile)
    return tiles


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        return _view(args)
    try:
        code = _replay(args)
        sys.stdout.flush()  # inside the try: a reader that left shows here, not at exit
        return code
    except BrokenPipeError:  # the reader left (`cfnet replay LOG | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _view(args: argparse.Namespace) -> int:
    """The full-screen viewer on the game, at move `--to` (of round `--round`) if given."""
    import asyncio
    import sys

    from cfnet.disk.home import default_home
    from cfnet.disk.saved_games import GameLookupError, find_log
    from cfnet.errors import PeerProtocolError, describe
    from cfnet.game.text import SENTENCE_CHARS, escaped
    from cfnet.record.logfile import LogFileError
    from cfnet.review.timeline import read_timeline
    from cfnet.ui.report import verdict_line
    from cfnet.ui.viewer import Viewer

    try:
        path = find_log(args.log, (args.home or default_home()).expanduser())
        with path.open("rb") as f:
            timeline = read_timeline(f, str(path))
    except (OSError, GameLookupError, LogFileError, PeerProtocolError) as error:
        print(
            f"cfnet replay: {escaped(describe(error), SENTENCE_CHARS, isolates=True)}",
            file=sys.stderr,
        )
        return 1
    try:
        at = start_position(timeline, args.round, args.to)
    except ValueError as error:
        print(f"cfnet replay: {describe(error)}", file=sys.stderr)
        return 1
    viewer = Viewer(timeline, _("replay {name!r}").format(name=timeline.table.name), at=at)
    viewer.status = verdict_line(timeline.verdict())
    return asyncio.run(viewer.run())


def start_position(timeline: Timeline, round_number: int | None, to: int | None) -> int:
    """The index of the position the viewer opens at: after move `to` of round `round_number`
    (of the whole game without a round; the round's start without `to`); ValueError if the
    game has no such round."""
    positions = timeline.positions
    if round_number is not None:
        rounds = timeline.table.options.rounds
        if not 1 <= round_number <= rounds:
            raise ValueError(no_such_round(round_number, rounds))
        found = [i for i, p in enumerate(positions) if p.round_number == round_number]
        if not found:
            raise ValueError(
                _("no round {number}: the log stops before it").format(number=digits(round_number))
            )
        return found[min(to or 0, len(found) - 1)]
    if to is None:
        return 0
    return next((i for i, p in enumerate(positions) if p.number >= to), len(positions) - 1)


def no_such_round(number: int, rounds: int) -> str:
    """Why round `number` cannot be shown of a game of `rounds` rounds."""
    return _("no round {number}: this game has rounds 1 to {rounds}").format(
        number=number, rounds=rounds
    )


def _replay(args: argparse.Namespace) -> int:
    import sys

    from cfnet.disk.home import default_home
    from cfnet.disk.saved_games import GameLookupError, find_log
    from cfnet.errors import PeerProtocolError, describe
    from cfnet.game.moves import Draw, Play
    from cfnet.game.text import SENTENCE_CHARS, escaped, render_board, shown_names, winner_text
    from cfnet.protocol.events import (
        Aborted,
        FaultFound,
        GameOver,
        MoveMade,
        RoundScored,
        RoundStarted,
        SeatLeft,
        SeatReturned,
        drain,
    )
    from cfnet.protocol.table import MAX_ABORT_ENTRY, OFFLINE, Table
    from cfnet.record.logfile import LogFileError, iter_log
    from cfnet.review.timeline import abort_text
    from cfnet.ui.report import scored_lines

    def fail(message: str) -> int:
        """Say why the replay stops (the message may quote what the file holds: escaped)."""
        print(
            f"cfnet replay: {escaped(said(message), SENTENCE_CHARS, isolates=True)}",
            file=sys.stderr,
        )
        return 1

    def told(sentence: str) -> None:
        """Print a sentence made by the table that may hold a peer's words, escaped."""
        print(escaped(said(sentence), SENTENCE_CHARS, isolates=True))

    try:
        path = find_log(args.log, (args.home or default_home()).expanduser())
        f = path.open("rb")
    except (OSError, GameLookupError) as error:
        return fail(describe(error))
    with f:
        entries = iter_log(f, str(path), MAX_ABORT_ENTRY)
        try:
            genesis = next(entries, None)
            table = None if genesis is None else Table(genesis.wire, None, OFFLINE)
        except (LogFileError, PeerProtocolError) as error:
            return fail(describe(error))
        if table is None:
            return fail(_("{file} holds no entries").format(file=path))
        rounds = table.options.rounds
        if args.round is not None and not 1 <= args.round <= rounds:
            return fail(no_such_round(args.round, rounds))
        seats = shown_names([info.name for info in table.seats])
        names = [
            _("seat {number} ({name})").format(number=digits(s), name=n)
            for s, n in enumerate(seats)
        ]
        header = _("table {name!r}: {seats}; {rules}").format(
            name=table.name, seats=", ".join(names), rules=table.options.describe()
        )
        if args.round is None:
            print(header)
        moves = 0
        pending: list[tuple[str, bool]] = []  # this round's move lines; True: a bare draw
        seen = 0  # the last round started

        def shown(round_number: int) -> bool:
            return args.round is None or args.round == round_number

        def flush(scored: RoundScored | None) -> None:
            """Print the round's moves, the draws with their tiles once the reveal is read (a
            round that never reached its reveal keeps its drawn tiles secret)."""
            if scored is None:
                drawn = [_("(never revealed)")] * len(pending)
            else:
                drawn = [t.label for t in drawn_tiles(scored, table.players, table.options)]
            tiles = iter(drawn)
            for line, draw in pending:
                print(f"{line} {next(tiles)}" if draw else line)
            pending.clear()

        def stopped() -> bool:
            return args.to is not None and moves >= args.to

        try:
            for entry in entries:
                table.receive(entry.wire, OFFLINE)
                for event in drain(table.next_event):
                    if isinstance(event, RoundStarted):
                        seen = event.round_number
                        if shown(seen):
                            if args.round is not None:
                                print(header)
                                moves = 0
                            public = table.public
                            centre = public.centre if public is not None else "?"
                            start = _(
                                "== round {number}: centre {tile}; {name} starts (joint draw)"
                            )
                            print()
                            starter = names[event.starter]
                            print(start.format(number=digits(seen), tile=centre, name=starter))
                    elif isinstance(event, MoveMade) and shown(event.round_number):
                        if stopped():
                            continue
                        moves += 1
                        draw = isinstance(event.move, Draw)
                        pending.append((f"{moves}. {names[event.seat]}: {event.move}", draw))
                        if isinstance(event.move, Play) and table.public is not None:
                            pending.append((render_board(table.public), False))
                    elif isinstance(event, RoundScored) and shown(event.round_number):
                        flush(event)
                        if stopped():
                            return 0
                        print("\n".join(scored_lines(event, names, table)))
                    elif isinstance(event, GameOver):
                        won = winner_text(event.winners, event.totals, names)
                        print()
                        print(_("game over: {winner}").format(winner=won))
                    elif isinstance(event, FaultFound):
                        flush(None)
                        fault = event.fault
                        told(
                            _("entry {seq}: seat {seat} {detail}").format(
                                seq=digits(entry.seq), seat=digits(fault.seat), detail=fault.detail
                            )
                        )
                    elif isinstance(event, SeatLeft | SeatReturned):
                        flush(None)
                        told(event.describe(names))
                    elif isinstance(event, Aborted):
                        flush(None)
                        told(abort_text(event.fault, event.by, names))
        except (LogFileError, PeerProtocolError) as error:
            flush(None)
            why = _("{error} (run cfnet verify for the details)")
            return fail(why.format(error=describe(error)))
        flush(None)
        if args.round is not None and seen < args.round:
            stops = _("no round {number}: the log stops in round {last}")
            return fail(stops.format(number=args.round, last=seen or 1))
    return 0
