"""`cfnet host`: open a table on the LAN, seat the players who join, then play it."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Open a table on the LAN and play it when every seat is taken.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.seat_options import add_host_arguments

    add_host_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from cfnet.cli.seat_options import front, host_config
    from cfnet.seat.host import run_host

    config = host_config(args)
    return run_host(config, partial(front, table=config.name, timeout=config.timeout))
