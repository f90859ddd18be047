"""`cfnet bot --table NAME --strategy S`: a computer player that joins a table as a peer."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Seat a computer player, a peer of its own, at a table on the LAN.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.seat_options import add_join_arguments

    parser.add_argument("--table", default=None, metavar="NAME", help="the table's name")
    add_join_arguments(parser, "greedy")


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from cfnet.cli.seat_options import front, join_config
    from cfnet.seat.join import run_join

    config = join_config(args, args.table)
    return run_join(config, partial(front, table=config.table), "bot")
