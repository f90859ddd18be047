"""`cfnet resume`: start again a peer that stopped mid-game; it rejoins and plays on."""

from __future__ import annotations

import argparse

HELP = "Rejoin an unfinished game kept in the state directory and play on."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.seat.peer import add_resume_arguments

    add_resume_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from cfnet.seat.peer import run_resume

    return run_resume(args)
