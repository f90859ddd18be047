"""`cfnet play`: a person at the keyboard plays a LAN game: the table browser, the lobby, the game
screen, one after the other, until the person quits or a game is over."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cfnet.disk.store import load_identity, prepare_home
from cfnet.errors import LocalProtocolError, PeerProtocolError, describe
from cfnet.lang import _, digits
from cfnet.net.discovery import Discovery
from cfnet.record.identity import Identity, fingerprint
from cfnet.seat.config import HostConfig, JoinConfig, PeerConfig
from cfnet.seat.host import check_host, host
from cfnet.seat.join import join as join_table
from cfnet.seat.seating import player_name
from cfnet.ui.browser import BrowserScreen, Choice, HostTable, WatchTable
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.lobby_screen import LobbyScreen, SeatScreens
from cfnet.ui.page import LeftTable, Terminal
from cfnet.ui.spectate import Spectator
from cfnet.ui.watching import watch_found


@dataclass(frozen=True, slots=True)
class Settings:
    """`cfnet play` options: the interface, the state directory, the player's name."""

    interface: str | None = None
    home: Path | None = None
    name: str | None = None


class LanClient:
    """Browser, lobby, game: `await run()` until the person quits or a game is over."""

    def __init__(self, settings: Settings, terminal: Terminal | None = None) -> None:
        self.settings = settings
        self.terminal = terminal or Terminal()
        self.browser: BrowserScreen | None = None
        self.seat: SeatScreens | None = None
        self.watching: Spectator | None = None  # the game watched, if the person chose that

    @property
    def screen(self) -> BrowserScreen | LobbyScreen | GameScreen | None:
        """What the person sees now."""
        return self.browser if self.seat is None else self.seat.current

    async def run(self) -> int:
        settings = self.settings
        home = prepare_home(settings.home)
        identity = load_identity(home)
        peer = PeerConfig(home=home, interface=settings.interface, player=settings.name)
        player = player_name(peer, identity)
        note = ("class:info", _("Your key: {key}").format(key=fingerprint(identity.public)))
        while True:
            async with Discovery(settings.interface) as discovery:
                self.browser = BrowserScreen(
                    discovery, player, self.terminal, settings.interface or "", note, home
                )
                choice = await self.browser.run()
            if choice is None:
                return 0
            try:
                return await self._sit(choice, peer, home, identity)
            except LeftTable:
                note = ("class:info", _("You left the table."))
            except (LocalProtocolError, PeerProtocolError, OSError, TimeoutError) as exc:
                note = ("class:error", f"✗ {describe(exc)}")
            finally:
                self.seat = None

    async def _sit(self, choice: Choice, peer: PeerConfig, home: Path, identity: Identity) -> int:
        """Host, join or watch as chosen, through `cfnet host`/`join`/`watch`'s own code."""
        if isinstance(choice, WatchTable):
            self.watching = Spectator()
            found, terminal = choice.found, self.terminal
            return await watch_found(
                identity,
                player_name(peer, identity),
                found,
                choice.code,
                self.watching,
                terminal.input,
                terminal.output,
            )
        if isinstance(choice, HostTable):
            config = HostConfig(
                choice.name,
                peer,
                seats=choice.seats,
                rules=choice.rules,
                code=choice.code,
                bots=choice.bots,
                bot_strategy=choice.bot_strategy,
            )
            config, options = check_host(config)
            title = f"table {config.name!r}"
            self.seat = SeatScreens(self.terminal, title, config.timeout)
            return await host(config, options, home, identity, self.seat)
        join = JoinConfig(peer, connect=choice.address, code=choice.code)
        if choice.found is not None:
            title = _("table {name!r}").format(name=choice.found.name)
        else:
            assert choice.address is not None
            address, port = choice.address
            title = _("table at {host}:{port}").format(host=address, port=port)
        timeout = None if choice.found is None else choice.found.timeout
        self.seat = SeatScreens(self.terminal, title, timeout=timeout)
        if choice.found is not None:
            found = choice.found
            joining = (
                _(
                    "joining {name!r} at {address}:{port}, host {host} ({key}): {seats} seats,"
                    " {rules}, join code given"
                )
                if choice.code
                else _(
                    "joining {name!r} at {address}:{port}, host {host} ({key}): {seats} seats,"
                    " {rules}"
                )
            )
            self.seat.say(
                joining.format(
                    name=found.name,
                    address=found.address,
                    port=found.port,
                    host=found.host,
                    key=found.fingerprint,
                    seats=digits(found.seats),
                    rules=found.rules.describe(),
                )
            )
        return await join_table(join, home, identity, self.seat, choice.found)
