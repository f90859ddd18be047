"""`cfnet resume`: start again a peer that stopped mid-game; it rejoins and plays on."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Rejoin an unfinished game kept in the state directory and play on.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.seat_options import add_resume_arguments

    add_resume_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from cfnet.cli.seat_options import front, resume_config
    from cfnet.seat.resume import run_resume

    config = resume_config(args)
    return run_resume(config, partial(front, table=config.table))
