"""`cfnet demo`: watch a complete verified game between peers on this machine (loopback)."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Watch a complete game between computer players, each a peer, on this machine.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.demo_game import add_arguments as add

    add(parser)


def run(args: argparse.Namespace) -> int:
    from cfnet.cli.demo_game import run as run_demo

    return run_demo(args)
