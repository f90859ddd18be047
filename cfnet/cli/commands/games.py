"""`cfnet games`: the games kept in the state directory, newest first, in 80 columns."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_(
    "List your saved games, newest first: date, table, players, rounds, result and log; "
    "`cfnet verify` and `cfnet replay` take a table name or id from this list."
)
WIDTH = 80


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument

    add_home_argument(parser)


def _home_relative(path: str) -> str:
    """`path` with the user's home directory written `~`."""
    from pathlib import Path

    home = str(Path.home())
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path


def run(args: argparse.Namespace) -> int:
    from cfnet.disk.home import default_home
    from cfnet.disk.saved_games import saved_games, shown
    from cfnet.game.text import SENTENCE_CHARS, escaped, fit, pad

    def row(text: str) -> str:
        """A row of the list within WIDTH columns; what the log holds in it escaped."""
        return fit(escaped(text, SENTENCE_CHARS), WIDTH)

    home = (args.home or default_home()).expanduser()
    games = saved_games(home)
    if not games:
        print(f"no saved games in {home}: host or join a table to play one")
        return 0
    print(f"{'DATE':<16}  {'ID':<8}  {'TABLE':<16}  {'ROUNDS':>6}  RESULT")
    for game in games:
        rounds = f"{game.rounds}/{game.meta.rules.rounds}"
        name = pad(fit(escaped(shown(game.meta.name)), 16), 16)
        print(row(f"{game.date:<16}  {game.short_id:<8}  {name}  {rounds:>6}  {game.result()}"))
        players = ", ".join(game.players) if game.players else "(the game had not begun)"
        print(row(f"  players: {players}"))
        print(f"  log: {escaped(_home_relative(str(game.log)), SENTENCE_CHARS)}")
    return 0
