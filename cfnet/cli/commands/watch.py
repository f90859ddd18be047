"""`cfnet watch TABLE | --connect HOST:PORT | --follow FILE`: watch a game live, read-only.

A watcher links to the table's host as a spectator (protocol.md 6.11) or reads a log file as
it is written, and checks every entry as `cfnet verify` does. It watches only a host whose key
is seat 0's in the table entry it sends, and with --fingerprint only the host with that key; it
shows every seat's key. On a terminal it shows the game in the viewer (following the newest
move); on a pipe, or with --plain, it prints the moves as they come, each round's end with the
hands revealed, then the final board and verify's report."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cfnet.lang import N_, _, pgettext
from cfnet.lang.formatting import quantity

if TYPE_CHECKING:
    from pathlib import Path

    from cfnet.net.discovery import TableInfo
    from cfnet.record.identity import Identity
    from cfnet.ui.spectate import Spectator

HELP = N_("Watch a table's game live, read-only (by name, --connect HOST:PORT, or --follow FILE).")
POLL = 0.2  # how often --follow looks at the file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument, host_port, ipv4, seconds_type

    parser.add_argument("table", nargs="?", default=None, metavar="TABLE", help=_("its name"))
    parser.add_argument(
        "--connect", type=host_port, metavar="HOST:PORT", help=_("the table's host at this address")
    )
    parser.add_argument(
        "--follow", metavar="FILE", help=_("a game log file that is being written, instead")
    )
    parser.add_argument(
        "--code", default=None, metavar="CODE", help=_("the table's join code, if it has one")
    )
    parser.add_argument(
        "--fingerprint",
        type=_fingerprint,
        default=None,
        metavar="KEY",
        help=_(
            "watch only the host whose key has this fingerprint (all of it, as its screen shows)"
        ),
    )
    parser.add_argument(
        "--interface", type=ipv4, default=None, metavar="ADDR", help=_("interface for mDNS and TCP")
    )
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 3600),
        default=30.0,
        metavar="SECONDS",
        help=_(
            "how long to look for the table on the LAN, or with --follow for FILE to appear"
            " (default 30)"
        ),
    )
    parser.add_argument("--player", default=None, metavar="NAME", help=_("your name, as shown"))
    parser.add_argument(
        "--plain", action="store_true", help=_("print lines instead of the full-screen viewer")
    )
    add_home_argument(parser)


def _fingerprint(text: str) -> str:
    """--fingerprint KEY as `fingerprint` writes it (argparse's error names the option)."""
    from cfnet.errors import LocalProtocolError, describe
    from cfnet.net.discovery import fingerprint_text

    try:
        return fingerprint_text(text)
    except LocalProtocolError as error:
        raise argparse.ArgumentTypeError(describe(error)) from None


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from cfnet.disk.store import load_identity, prepare_home
    from cfnet.errors import LocalProtocolError, PeerProtocolError, describe
    from cfnet.game.text import SENTENCE_CHARS, escaped
    from cfnet.record.logfile import LogFileError

    given = [args.table is not None, args.connect is not None, args.follow is not None]
    if sum(given) != 1:
        print(
            _("cfnet watch: give one of TABLE, --connect HOST:PORT or --follow FILE"),
            file=sys.stderr,
        )
        return 2
    screen = not args.plain and sys.stdin.isatty() and sys.stdout.isatty()
    try:
        identity = None if args.follow else load_identity(prepare_home(args.home))
        return asyncio.run(_watch(args, identity, screen))
    except (LocalProtocolError, PeerProtocolError, LogFileError, OSError, TimeoutError) as error:
        print(
            f"cfnet watch: {escaped(describe(error), SENTENCE_CHARS, isolates=True)}",
            file=sys.stderr,
            flush=True,
        )
        return 1
    except KeyboardInterrupt:
        interrupted = _("{command}: interrupted").format(command="cfnet watch")
        print(interrupted, file=sys.stderr, flush=True)
        return 130


def _say(text: str) -> None:
    print(text, flush=True)


async def _watch(args: argparse.Namespace, identity: Identity | None, screen: bool) -> int:
    """Watch to the end (plain lines), or in the viewer until the person leaves."""
    from pathlib import Path

    from cfnet.ui.spectate import Spectator

    spectator = Spectator(None if screen else _say)
    if args.follow is not None:
        await _appeared(Path(args.follow), args.wait)
        source = _follow(Path(args.follow), spectator)
    else:
        assert identity is not None
        source = _network(args, identity, spectator)
    if not screen:
        await source
        _say("\n".join(spectator.final_lines()))
        timeline = spectator.timeline
        return 0 if timeline is not None and timeline.verdict().ok else 1
    from cfnet.ui.watching import view_live

    return await view_live(spectator, source)


async def _network(
    args: argparse.Namespace,
    identity: Identity,
    spectator: Spectator,
) -> None:
    """Watch the table named or at --connect until its host says the game is over."""
    import getpass

    from cfnet.net.lobby import check_player
    from cfnet.net.watch import watch_table

    tell = _say  # before the table entry comes: the viewer is not open yet
    name = check_player(args.player or getpass.getuser() or pgettext("player name", "watcher"))
    if args.connect is not None:
        host, port = args.connect
        info = None
    else:
        info = await _find(args)
        host, port = info.address, info.port
    tell(_("watching the table at {host}:{port}").format(host=host, port=port))
    await watch_table(
        identity,
        name,
        host,
        port,
        spectator.take,
        code=args.code,
        advertised=info,
        pinned=args.fingerprint,
        say=tell,
    )


async def _find(args: argparse.Namespace) -> TableInfo:
    """The table named TABLE on the LAN (with --fingerprint, the one with that host key);
    LobbyError if none is seen within --wait s, or if tables of that name have different
    host keys (the person chooses with --fingerprint)."""
    import asyncio

    from cfnet.net.discovery import Discovery, namesakes
    from cfnet.net.roster import LobbyError

    def chosen(table: TableInfo) -> bool:
        pinned = args.fingerprint
        return table.name == args.table and pinned in (None, table.fingerprint)

    async with Discovery(args.interface) as discovery:
        _say(_("looking for table {name!r} on the LAN...").format(name=args.table))
        browser = discovery.browse()
        try:
            await browser.wait_for(chosen, args.wait)
        except TimeoutError:
            missing = (
                _("no table {name!r} with that --fingerprint was found within {seconds} s")
                if args.fingerprint
                else _("no table {name!r} was found within {seconds} s")
            )
            raise LobbyError(missing.format(name=args.table, seconds=quantity(args.wait))) from None
        if args.fingerprint is None:  # namesakes may still be answering (a pinned key has none)
            await asyncio.sleep(browser.namesake_wait())
        found = sorted((t for t in browser.tables.values() if chosen(t)), key=lambda t: t.where)
    if not found:
        raise LobbyError(
            _("table {name!r} was withdrawn while we looked for namesakes").format(name=args.table)
        )
    if len({table.fingerprint for table in found}) > 1:
        raise LobbyError(
            namesakes(args.table, found, _("--fingerprint KEY or --connect HOST:PORT"))
        )
    return found[0]


async def _appeared(path: Path, wait: float) -> None:
    """Return once `path` is a file (a game about to start may not have written it yet), saying
    that it waits; LocalProtocolError if it is not one within `wait` s."""
    import asyncio
    import time

    from cfnet.errors import LocalProtocolError

    if path.is_file():
        return
    if path.exists():
        raise LocalProtocolError(
            _("{file} is not a file: --follow reads a game log file").format(file=path)
        )
    waiting = _("no file {file} yet: waiting up to {seconds} s (--wait) for a game to write it...")
    _say(waiting.format(file=path, seconds=quantity(wait)))
    until = time.monotonic() + wait
    while not path.is_file():
        if time.monotonic() >= until:
            raise LocalProtocolError(
                _(
                    "no file {file} appeared within {seconds} s: --follow reads a game log as a"
                    " seat writes it (its table.cflog; cfnet games lists the logs kept)"
                ).format(file=path, seconds=quantity(wait))
            )
        await asyncio.sleep(POLL)


async def _follow(path: Path, spectator: Spectator) -> None:
    """Read the log at `path` as it is written until the game in it is over."""
    import asyncio

    from cfnet.ui.spectate import LogFollower

    follower = LogFollower(path)
    while True:
        for entry in follower.poll():
            spectator.take_entry(entry)
        if spectator.finished:
            return
        await asyncio.sleep(POLL)
