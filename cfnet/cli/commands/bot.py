"""`cfnet bot NAME | --connect HOST:PORT --strategy S`: a computer player that joins a table as
a peer, named as `cfnet join` and `cfnet watch` name it."""

from __future__ import annotations

import argparse

from cfnet.lang import N_, _

HELP = N_("Seat a computer player, a peer of its own, at a table on the LAN.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.seat_options import add_join_arguments

    parser.add_argument(
        "table", nargs="?", default=None, metavar="NAME", help=_("the table's name")
    )
    parser.add_argument(
        "--table",
        dest="table_option",
        default=None,
        metavar="NAME",
        help=_("the same, as an option"),
    )
    add_join_arguments(parser, "greedy")


def table_name(args: argparse.Namespace) -> str | None:
    """The table named by NAME or --table NAME; UsageError if both name different tables."""
    from cfnet.errors import UsageError

    given = {name for name in (args.table, args.table_option) if name is not None}
    if len(given) > 1:
        raise UsageError(
            _("NAME {name!r} and --table {option!r} differ: name one table").format(
                name=args.table, option=args.table_option
            )
        )
    return next(iter(given), None)


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from cfnet.cli.seat_options import front, join_config
    from cfnet.seat.join_start import run_join

    config = join_config(args, table_name(args))
    return run_join(config, partial(front, table=config.table), "bot")
