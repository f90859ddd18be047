"""`cfnet verify FILE`: check a game log offline and print the rounds, scores and winner."""

from __future__ import annotations

import argparse

HELP = "check a saved game log offline: every signature, shuffle, key and move"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the game log to check")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cfnet.logfile import LogFileError, read_log
    from cfnet.table_verify import verify_entries

    try:
        entries = read_log(Path(args.file))
    except (OSError, LogFileError) as error:
        print(f"cfnet verify: {error}")
        return 1
    verdict = verify_entries(entries)
    table = verdict.table
    if table is not None:
        names = ", ".join(f"{s}={info.name}" for s, info in enumerate(table.seats))
        print(f"table {table.name!r} ({table.table_id.hex()}), seats {names}")
        print(f"rules: {table.options.describe()}; {len(entries)} entries")
    for scored in verdict.rounds:
        print(f"round {scored.round_number}: scores {list(scored.scores)}")
    if verdict.ok:
        assert table is not None
        winners = table.game.winners()
        print(f"totals: {list(table.game.totals)}")
        who = " and ".join(f"seat {s} ({table.seats[s].name})" for s in winners)
        print(f"winner: {who}")
        print("the log is valid")
        return 0
    print(f"INVALID: {verdict.problem}")
    if verdict.blamed is not None:
        name = table.seats[verdict.blamed].name if table is not None else "?"
        print(f"to blame: seat {verdict.blamed} ({name})")
    else:
        print("to blame: no seat can be proven at fault")
    if verdict.abort is not None and verdict.abort_by is not None:
        claim = verdict.abort
        print(
            f"the game ends with seat {verdict.abort_by}'s abort: seat {claim.seat}, {claim.code}"
        )
    return 1
