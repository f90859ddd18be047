"""`cfnet host`: open a table on the LAN, seat the players who join, then play it."""

from __future__ import annotations

import argparse

HELP = "Open a table on the LAN and play it when every seat is taken."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.seat.peer import add_host_arguments

    add_host_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from cfnet.seat.peer import run_host

    return run_host(args)
