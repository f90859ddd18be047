"""`cfnet play` (also plain `cfnet`): the table browser, the lobby and the game screen for a LAN
game; `--offline` plays computer players at once, on this machine alone."""

from __future__ import annotations

import argparse

from cfnet.cli.options import add_rule_argument, add_think_arguments, ipv4, seconds_type
from cfnet.lang import N_, _

HELP = N_("Play at the keyboard: find, host or join a LAN table (--offline: practise alone).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument

    parser.add_argument(
        "--offline", action="store_true", help=_("practise alone against computer players")
    )
    parser.add_argument(
        "--players", type=int, default=4, help=_("seats at the table, 2..8 (offline)")
    )
    parser.add_argument(
        "--player",
        metavar="NAME",
        default=None,
        help=_("your name at the table (default: your login; offline: You)"),
    )
    parser.add_argument(
        "--interface",
        type=ipv4,
        default=None,
        metavar="ADDR",
        help=_("IPv4 address of the interface for mDNS and TCP (default: the LAN one)"),
    )
    add_home_argument(parser)
    parser.add_argument("--seed", type=int, default=None, help=_("seed of the shuffle (offline)"))
    parser.add_argument(
        "--bots",
        default="greedy",
        help=_("computer players' strategies (expert, greedy, random), comma-separated (offline)"),
    )
    parser.add_argument(
        "--delay",
        type=seconds_type(0, 10, zero_ok=True),
        default=0.5,
        metavar="SECONDS",
        help=_("how long each computer player takes to move (offline; default 0.5)"),
    )
    add_think_arguments(parser, _("(offline)"))
    add_rule_argument(parser, _("(offline)"))


def run(args: argparse.Namespace) -> int:
    import asyncio
    import secrets
    import sys

    from cfnet.errors import describe
    from cfnet.game.bots import BOT_STRATEGIES
    from cfnet.game.rules import RuleOptionError, rule_options
    from cfnet.game.text import rounds_text, score_lines, your_name
    from cfnet.seat.offline import OfflineSession
    from cfnet.ui.game_screen import GameScreen

    if not args.offline:
        return _play_lan(args)
    try:
        options = rule_options(args.rule, args.players)
    except RuleOptionError as error:
        print(f"cfnet play: {describe(error)}", file=sys.stderr)
        return 2
    bots = [name.strip() for name in args.bots.split(",") if name.strip()]
    if not bots or any(name not in BOT_STRATEGIES for name in bots):
        use = _("cfnet play: --bots {bots}: use {strategies}")
        print(use.format(bots=args.bots, strategies=", ".join(BOT_STRATEGIES)), file=sys.stderr)
        return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(_("cfnet play: the game screen needs a terminal"), file=sys.stderr)
        return 2
    seed = secrets.randbelow(10**6) if args.seed is None else args.seed
    others = ["Ada", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus"]
    names = [args.player or your_name(), *others[: args.players - 1]]
    session = OfflineSession(
        names, 0, options, seed, bots, args.delay, think=args.think, rollouts=args.rollouts
    )
    screen = GameScreen(session)
    code = asyncio.run(screen.run())
    game = session.game
    played = rounds_text(len(game.round_scores))
    print(_("cfnet play --offline --seed {seed}: {rounds} played").format(seed=seed, rounds=played))
    if game.round_scores:
        print("\n".join(score_lines(game, names)))
    return code


def _play_lan(args: argparse.Namespace) -> int:
    import sys

    from cfnet.disk.store import prepare_home
    from cfnet.errors import LocalProtocolError, describe
    from cfnet.net.lobby import check_player
    from cfnet.seat.process import log_file, run_loop
    from cfnet.ui.lan_client import LanClient, Settings

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(_("cfnet play: the table browser needs a terminal"), file=sys.stderr)
        return 2
    try:
        name = None if args.player is None else check_player(args.player)
        home = prepare_home(args.home)
        with log_file(home):  # warnings to a file: the screens own the terminal
            return run_loop(LanClient(Settings(args.interface, home, name)).run())
    except (LocalProtocolError, OSError) as error:
        print(f"cfnet play: {describe(error)}", file=sys.stderr)
        return 1
