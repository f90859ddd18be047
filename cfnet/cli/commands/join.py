"""`cfnet join NAME | --connect HOST:PORT`: take a seat at a table and play it."""

from __future__ import annotations

import argparse

from cfnet.lang import N_, _

HELP = N_("Take a seat at a table on the LAN (by name, or --connect HOST:PORT) and play.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.seat_options import add_join_arguments

    parser.add_argument(
        "table", nargs="?", default=None, metavar="NAME", help=_("the table's name")
    )
    add_join_arguments(parser, None)


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from cfnet.cli.seat_options import front, join_config
    from cfnet.seat.join_start import run_join

    config = join_config(args, args.table)
    return run_join(config, partial(front, table=config.table), "join")
