"""`cfnet import-check RECORD`: replay a JSON game record through the engine."""

from __future__ import annotations

import argparse

HELP = "Replay a JSON game record (from cfnet export) through the engine: is every move legal?"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="a record file, or - for stdin")


def run(args: argparse.Namespace) -> int:
    import sys

    from cfnet.errors import describe
    from cfnet.game.text import SENTENCE_CHARS, escaped
    from cfnet.review.export import RecordError, check_record, parse_record

    name = "stdin" if args.record == "-" else args.record
    try:
        if args.record == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                data = f.read()
        record = parse_record(data, name)
    except (OSError, RecordError) as error:
        print(f"cfnet import-check: {escaped(describe(error), SENTENCE_CHARS)}", file=sys.stderr)
        return 1
    problems = list(check_record(record))
    for problem in problems:
        print(f"cfnet import-check: {escaped(problem, SENTENCE_CHARS)}", file=sys.stderr)
    if problems:
        return 1
    rounds = record["rounds"]
    played = len({r["round"] for r in rounds})
    again = len(rounds) - played
    redealt = f" ({again} dealt again)" if again else ""
    moves = sum(len(r["moves"]) for r in rounds)
    print(
        f"record ok: {played} rounds{redealt}, {moves} moves, all legal; totals "
        f"{record['totals']}, winners {record['winners']}"
    )
    return 0
