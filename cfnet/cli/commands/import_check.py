"""`cfnet import-check RECORD`: replay a JSON game record through the engine."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Replay a JSON game record (from cfnet export) through the engine: is every move legal?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="a record file, or - for stdin")


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from cfnet.review.export import check_record

    try:
        if args.record == "-":
            record = json.load(sys.stdin)
        else:
            with open(args.record, encoding="utf-8") as f:
                record = json.load(f)
    except (OSError, ValueError) as error:
        print(f"cfnet import-check: {args.record}: {error}", file=sys.stderr)
        return 1
    problems = list(check_record(record))
    for problem in problems:
        print(f"cfnet import-check: {problem}", file=sys.stderr)
    if problems:
        return 1
    rounds = record["rounds"]
    moves = sum(len(r["moves"]) for r in rounds)
    print(
        f"record ok: {len(rounds)} rounds, {moves} moves, all legal; totals {record['totals']}, "
        f"winners {record['winners']}"
    )
    return 0
