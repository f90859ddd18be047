"""A computer player of `cfnet demo --seed S`: `cfnet bot` whose round secrets derive from the
public seed S, so that the demo can play the same game again.

Demo only: anyone who knows S recomputes those secrets (every hand, the whole deal), so no real
command offers this; only `cfnet demo` starts it:
python -m cfnet.cli.demo_bot S [cfnet bot options].
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial

from cfnet.cli.commands import bot
from cfnet.cli.seat_options import front, join_config
from cfnet.lang import _
from cfnet.protocol.testing import sim_entropy
from cfnet.seat.join_start import run_join


def main(argv: Sequence[str]) -> int:
    """Run `cfnet bot` with the options after the seed, its secrets derived from the seed."""
    if not argv or not argv[0].isdigit():
        print(_("usage: python -m cfnet.cli.demo_bot SEED [cfnet bot options]"), file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="cfnet demo bot")
    bot.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    config = join_config(args, bot.table_name(args))
    entropy = partial(sim_entropy, int(argv[0]))
    return run_join(config, partial(front, table=config.table), "bot", entropy=entropy)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
