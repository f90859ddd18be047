"""The options of the commands that seat a peer (`cfnet host`, `join`, `bot`, `resume`), read
into the typed configs of `cfnet.seat.config`, and the front each seat shows itself through."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cfnet.cli.options import (
    add_home_argument,
    add_rule_argument,
    add_think_arguments,
    host_port,
    ipv4,
    port_number,
    seconds_type,
)
from cfnet.lang import _

if TYPE_CHECKING:
    from cfnet.seat.config import HostConfig, JoinConfig, PeerConfig, ResumeConfig
    from cfnet.seat.seating import Front

JOIN_LOOK = 5.0  # how long `cfnet join NAME` looks for the table on the LAN without --wait
BOT_LOOK = 30.0  # ... and `cfnet bot NAME`


def add_peer_arguments(parser: argparse.ArgumentParser, strategy_default: str | None) -> None:
    """Options every seated peer has: --home, --interface, --strategy, --player, --verbose."""
    from cfnet.game.bots import BOT_STRATEGIES

    add_home_argument(parser)
    parser.add_argument(
        "--interface",
        type=ipv4,
        default=None,
        metavar="ADDR",
        help=_("IPv4 address of the interface to use for mDNS and TCP (default: the LAN one)"),
    )
    parser.add_argument(
        "--strategy",
        choices=BOT_STRATEGIES,
        default=strategy_default,
        help=_("a computer plays this seat with this strategy (plain line output)")
        if strategy_default
        else _(
            "a computer plays this seat with this strategy (plain line output); default: you play"
            " it in the game screen"
        ),
    )
    add_think_arguments(parser, _("(with --strategy expert; host: its --bots too)"))
    parser.add_argument("--player", default=None, metavar="NAME", help=_("your name at the table"))
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=_("log every link event (to stderr; for a person's seat to HOME/client.log)"),
    )


def add_code_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--code", default=None, metavar="CODE", help=_("the table's join code (never sent)")
    )


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.game.bots import BOT_STRATEGIES
    from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS
    from cfnet.protocol.wire import DEFAULT_TIMEOUT

    parser.add_argument("--name", required=True, help=_("the table's name, as others see it"))
    parser.add_argument(
        "--seats",
        type=int,
        default=4,
        help=_("seats at the table, {least}..{most}").format(least=MIN_PLAYERS, most=MAX_PLAYERS),
    )
    add_rule_argument(parser)
    add_code_argument(parser)
    parser.add_argument(
        "--bots", type=int, default=0, metavar="K", help=_("start K computer players that join")
    )
    parser.add_argument(
        "--bot-strategy",
        choices=BOT_STRATEGIES,
        default="greedy",
        help=_("strategy of the --bots players (default greedy)"),
    )
    parser.add_argument(
        "--port", type=port_number, default=0, help=_("TCP port of the lobby (default: any)")
    )
    parser.add_argument(
        "--no-watchers",
        action="store_true",
        help=_("refuse spectators (by default anyone who may join may watch: `cfnet watch`)"),
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=_("how long a seat may take to answer before it forfeits (default {seconds})").format(
            seconds=DEFAULT_TIMEOUT
        ),
    )
    add_peer_arguments(parser, None)


def add_join_arguments(parser: argparse.ArgumentParser, strategy_default: str | None) -> None:
    parser.add_argument(
        "--connect",
        type=host_port,
        default=None,
        metavar="HOST:PORT",
        help=_("join the table at this address directly (where multicast does not reach)"),
    )
    look = JOIN_LOOK if strategy_default is None else BOT_LOOK
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 3600),
        default=look,
        metavar="SECONDS",
        help=_(
            "how long to look for the table and to dial it again while it cannot be reached"
            " (default {seconds})"
        ).format(seconds=f"{look:g}"),
    )
    parser.add_argument(
        "--host",
        type=host_port,
        default=None,
        metavar="ADDR:PORT",
        help=_("of the tables of that name, the one listed at this address"),
    )
    parser.add_argument(
        "--fingerprint",
        default=None,
        metavar="KEY",
        help=_(
            "of the tables of that name, the one whose host key has this fingerprint (or its"
            " start, e.g. its first group)"
        ),
    )
    add_code_argument(parser)
    add_peer_arguments(parser, strategy_default)


def add_resume_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table",
        default=None,
        metavar="NAME|ID",
        help=_("which unfinished table (default: the only one)"),
    )
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 3600),
        default=120.0,
        metavar="SECONDS",
        help=_(
            "how long to wait for a peer that gives us the chain as it stands now; nothing is"
            " posted before (default: 120)"
        ),
    )
    add_peer_arguments(parser, None)


def peer_config(args: argparse.Namespace) -> PeerConfig:
    from cfnet.seat.config import PeerConfig

    return PeerConfig(
        home=args.home,
        interface=args.interface,
        strategy=args.strategy,
        think=args.think,
        rollouts=args.rollouts,
        player=args.player,
        verbose=args.verbose,
    )


def host_config(args: argparse.Namespace) -> HostConfig:
    from cfnet.seat.config import HostConfig

    return HostConfig(
        args.name,
        peer_config(args),
        seats=args.seats,
        rules=tuple(args.rule),
        code=args.code,
        bots=args.bots,
        bot_strategy=args.bot_strategy,
        port=args.port,
        watchers=not args.no_watchers,
        timeout=args.timeout,
    )


def join_config(args: argparse.Namespace, table: str | None) -> JoinConfig:
    from cfnet.seat.config import JoinConfig

    return JoinConfig(
        peer_config(args),
        table=table,
        connect=args.connect,
        wait=args.wait,
        host=args.host,
        fingerprint=args.fingerprint,
        code=args.code,
    )


def resume_config(args: argparse.Namespace) -> ResumeConfig:
    from cfnet.seat.config import ResumeConfig

    return ResumeConfig(peer_config(args), table=args.table, wait=args.wait)


def front(peer: PeerConfig, table: str | None = None, timeout: int | None = None) -> Front:
    """How the seat shows itself: plain lines for a computer seat (--strategy), else the
    person's lobby and game screens on this terminal (`table`: its name, for the title;
    `timeout`: the table's, if known)."""
    if peer.strategy is not None:
        from cfnet.ui.lines import PlainLines

        return PlainLines()
    from cfnet.ui.lobby_screen import SeatScreens

    return SeatScreens(title=f"table {table!r}" if table else "", timeout=timeout)
