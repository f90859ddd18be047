"""`cfnet replay FILE`: a saved game move by move, as a person reads it."""

from __future__ import annotations

import argparse

HELP = "Show a saved game move by move: the board after each play, hands and scores."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the game log to show")
    parser.add_argument("--round", type=int, metavar="R", help="show only round R")
    parser.add_argument(
        "--to",
        type=int,
        metavar="N",
        help="stop after move N (of round R with --round, else of the whole game)",
    )


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from cfnet.engine import Play
    from cfnet.errors import PeerProtocolError, describe
    from cfnet.logfile import LogFileError, read_log
    from cfnet.render import render_board, render_hand
    from cfnet.table import OFFLINE, Table
    from cfnet.table_events import (
        Aborted,
        FaultFound,
        GameOver,
        MoveMade,
        RoundScored,
        RoundStarted,
    )

    try:
        entries = read_log(Path(args.file))
        table = Table(entries[0].wire, None, OFFLINE) if entries else None
    except (OSError, LogFileError, PeerProtocolError) as error:
        print(f"cfnet replay: {describe(error)}", file=sys.stderr)
        return 1
    if table is None:
        print(f"cfnet replay: {args.file} holds no entries", file=sys.stderr)
        return 1
    rounds = table.options.rounds
    if args.round is not None and not 1 <= args.round <= rounds:
        return _no_round(args, rounds)
    names = [f"seat {s} ({info.name})" for s, info in enumerate(table.seats)]
    print(f"table {table.name!r}: {', '.join(names)}; {table.options.describe()}")
    moves = 0
    played = 0

    def shown(round_number: int) -> bool:
        return args.round is None or args.round == round_number

    for entry in entries[1:]:
        try:
            events = table.receive(entry.wire, OFFLINE)
        except PeerProtocolError as error:
            print(f"entry {entry.seq}: {error} (run cfnet verify for the details)")
            return 1
        for event in events:
            if isinstance(event, RoundStarted):
                played = event.round_number
            if isinstance(event, RoundStarted) and shown(event.round_number):
                public = table.public
                centre = public.centre if public is not None else "?"
                print(
                    f"\n== round {event.round_number}: centre {centre}; "
                    f"{names[event.starter]} starts (joint draw)"
                )
                if args.round is not None:
                    moves = 0
            elif isinstance(event, MoveMade) and shown(event.round_number):
                moves += 1
                if args.to is not None and moves > args.to:
                    return 0
                print(f"{moves}. {names[event.seat]}: {event.move}")
                if isinstance(event.move, Play) and table.public is not None:
                    print(render_board(table.public))
            elif isinstance(event, RoundScored) and shown(event.round_number):
                print(f"-- round {event.round_number} over; hands as revealed:")
                for seat, (dealt, left) in enumerate(zip(event.dealt, event.left, strict=True)):
                    print(f"{names[seat]} was dealt {render_hand(dealt)}")
                    print(f"   and kept {render_hand(left)}: {event.scores[seat]} points")
                print(f"scores {list(event.scores)}, totals {list(event.totals)}")
            elif isinstance(event, GameOver):
                winners = " and ".join(names[s] for s in event.winners)
                print(f"\ngame over: totals {list(event.totals)}; winner {winners}")
            elif isinstance(event, FaultFound):
                print(f"entry {entry.seq}: seat {event.fault.seat} {event.fault.detail}")
            elif isinstance(event, Aborted):
                print(f"aborted by seat {event.by}: seat {event.fault.seat}, {event.fault.detail}")
    if args.round is not None and args.round > played:
        return _no_round(args, played)
    return 0


def _no_round(args: argparse.Namespace, rounds: int) -> int:
    """--round names a round the log does not hold: say how many it has (exit 1)."""
    import sys

    if rounds == 0:
        told = f"{args.file} holds no round yet"
    else:
        told = f"{args.file} has only {rounds} round{'' if rounds == 1 else 's'}: "
        told += "give --round 1" + ("" if rounds == 1 else f" to {rounds}")
    print(f"cfnet replay: {told}", file=sys.stderr)
    return 1
