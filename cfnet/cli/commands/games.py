"""`cfnet games`: the games kept in the state directory, newest first, in 80 columns."""

from __future__ import annotations

import argparse

from cfnet.lang import N_, _, pgettext

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
    from cfnet.game.text import SENTENCE_CHARS, columns, escaped, fit, pad

    def row(text: str) -> str:
        """A row of the list within WIDTH columns; what the log holds in it escaped."""
        return fit(escaped(text, SENTENCE_CHARS), WIDTH)

    home = (args.home or default_home()).expanduser()
    games = saved_games(home)
    if not games:
        print(_("no saved games in {home}: host or join a table to play one").format(home=home))
        return 0
    heads = [
        pgettext("heading", "DATE"),
        pgettext("heading", "ID"),
        pgettext("heading", "TABLE"),
        pgettext("heading", "ROUNDS"),
        pgettext("heading", "RESULT"),
    ]
    wide = [max(columns(head), least) for head, least in zip(heads, (16, 8, 16, 6, 0), strict=True)]

    def cells(*texts: str) -> str:
        """One row of the list: each column as wide as its widest, the rounds on the right."""
        row_cells = zip(texts[:4], wide[:4], strict=True)
        padded = [pad(fit(text, w), w, right=i == 3) for i, (text, w) in enumerate(row_cells)]
        return "  ".join([*padded, texts[4]])

    print(cells(*heads))
    for game in games:
        rounds = f"{game.rounds}/{game.meta.rules.rounds}"
        name = escaped(shown(game.meta.name))
        print(row(cells(game.date, game.short_id, name, rounds, game.result())))
        players = ", ".join(game.players) if game.players else _("(the game had not begun)")
        print(row("  " + _("players: {names}").format(names=players)))
        log = escaped(_home_relative(str(game.log)), SENTENCE_CHARS)
        print("  " + _("log: {file}").format(file=log))
    return 0
