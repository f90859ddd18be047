"""`cfnet import-check RECORD`: replay a JSON game record through the engine."""

from __future__ import annotations

import argparse

from cfnet.lang import N_, _, digits, ngettext

HELP = N_("Replay a JSON game record (from cfnet export) through the engine: is every move legal?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help=_("a record file, or - for stdin"))


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
        print(
            f"cfnet import-check: {escaped(describe(error), SENTENCE_CHARS, isolates=True)}",
            file=sys.stderr,
        )
        return 1
    problems = list(check_record(record))
    for problem in problems:
        print(
            f"cfnet import-check: {escaped(problem, SENTENCE_CHARS, isolates=True)}",
            file=sys.stderr,
        )
    if problems:
        return 1
    rounds = record["rounds"]
    played = len({r["round"] for r in rounds})
    again = len(rounds) - played
    moves = sum(len(r["moves"]) for r in rounds)
    values = {
        "rounds": ngettext("{count} round", "{count} rounds", played).format(count=digits(played)),
        "moves": ngettext("{count} move", "{count} moves", moves).format(count=digits(moves)),
        "totals": record["totals"],
        "winners": record["winners"],
    }
    if again:
        ok = ngettext(
            "record ok: {rounds} ({count} dealt again), {moves}, all legal; totals {totals},"
            " winners {winners}",
            "record ok: {rounds} ({count} dealt again), {moves}, all legal; totals {totals},"
            " winners {winners}",
            again,
        ).format(count=digits(again), **values)
    else:
        ok = _("record ok: {rounds}, {moves}, all legal; totals {totals}, winners {winners}")
        ok = ok.format(**values)
    print(ok)
    return 0
