"""Seating a peer: who shows it (`Front`: the person's screens or a computer seat's lines), its
name, and the local game (`Seat`) built when the lobby's genesis arrives."""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from cfnet.disk.store import TableMeta, TableStore
from cfnet.game.bots import Player, make_bot
from cfnet.lang import pgettext
from cfnet.net.faults import chaos_from_env
from cfnet.net.lobby import Addr, LobbyEvent, Seating, check_player
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.record.identity import Identity
from cfnet.seat.config import PeerConfig
from cfnet.seat.net_game import NetGame
from cfnet.seat.process import drain
from cfnet.seat.session import SessionEvent

ANY = "0.0.0.0"
MDNS_GROUP = ("224.0.0.251", 5353)

AddBot = Callable[[], bytes]
"""Seat one more computer player (the host's lobby screen); returns its identity key."""


class Front(Protocol):
    """Where a seat shows itself: the person's lobby and game screens
    (`cfnet.ui.lobby_screen.SeatScreens`), or the plain lines of a computer seat
    (`cfnet.ui.lines.PlainLines`)."""

    def say(self, text: str) -> None:
        """A sentence of the lobby for the person or the output."""

    def lobby(self, event: LobbyEvent) -> None:
        """What the lobby tells besides its sentences (the roster, a seat taken)."""

    async def seat(
        self,
        seating: Awaitable[Seating],
        add_bot: AddBot | None,
        me: bytes,
        bots: Sequence[bytes] = (),
    ) -> Seating:
        """Await the lobby (`bots`: the keys of the computer players started already); a
        person may leave (LeftTable)."""
        ...

    def follow(self, game: NetGame, event: SessionEvent) -> None:
        """Each session event of the game as it happens."""

    async def play(self, game: NetGame) -> int:
        """Play the game to its end (or until the person leaves it); the exit code."""
        ...


MakeFront = Callable[[PeerConfig], Front]
"""The front of a seat of these options, made once the options are checked and the terminal
is known to be one where a person's seat needs it."""


def default_address() -> str:
    """The address of the interface that reaches the LAN (no packet is sent to find it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(MDNS_GROUP)
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def player_name(peer: PeerConfig, identity: Identity) -> str:
    """The name at the table: --player, else the strategy and key of a computer seat, else
    the login (else "player" in the language in effect: the name is data from then on)."""
    if peer.player:
        return check_player(peer.player)
    if peer.strategy:
        return f"{peer.strategy}-{identity.fingerprint[:4]}"
    with contextlib.suppress(Exception):
        return check_player(getpass.getuser())
    return pgettext("player name", "player")


def computer(peer: PeerConfig, seat: int) -> Player | None:
    """The computer player of a --strategy seat (None: a person plays it)."""
    if peer.strategy is None:
        return None
    return make_bot(peer.strategy, seat, peer.think, peer.rollouts)


Entropy = Callable[[int], Callable[[int], bytes]]
"""For a seat number, where that seat's round secrets come from (n -> n random bytes)."""


def urandom(seat: int) -> Callable[[int], bytes]:
    """Every real seat's secrets: the operating system's randomness."""
    return os.urandom


def make_game(
    peer: PeerConfig, identity: Identity, table: Table, store: TableStore, front: Front
) -> NetGame:
    """The seat's game driver: a computer plays it with --strategy; `front` follows it."""
    assert table.me is not None
    return NetGame(
        identity,
        table,
        store,
        player=computer(peer, table.me),
        follow=front.follow,
        chaos=chaos_from_env(),
    )


class Seat:
    """Builds the local game when the genesis arrives (the lobby's `prepare`).

    `entropy` is `urandom` for every real seat; only `cfnet demo --seed` passes another."""

    def __init__(
        self,
        peer: PeerConfig,
        home: Path,
        identity: Identity,
        bind: str,
        front: Front,
        entropy: Entropy = urandom,
    ) -> None:
        self.peer = peer
        self.home = home
        self.identity = identity
        self.bind = bind
        self.front = front
        self.entropy = entropy
        self.game: NetGame | None = None
        self.port = 0

    async def prepare(self, genesis: bytes, seat: int, known: dict[int, Addr]) -> int:
        local = LocalSeat(self.identity, seat, self.entropy(seat))
        table = Table(genesis, local, time.monotonic())
        meta = TableMeta(
            table.table_id,
            table.name,
            seat,
            table.players,
            table.options,
            strategy=self.peer.strategy,
        )
        store = TableStore.create(self.home, meta)
        store.append(table.entries[0])
        self.game = make_game(self.peer, self.identity, table, store, self.front)
        self.port = await self.game.listen(self.bind, 0)
        # before `ready`: resumed before `go`, this seat listens where the others will dial it
        # and knows where the host listens (6.6: it dials the host, whoever's key is smaller)
        store.save_meta(replace(meta, addresses={**known, seat: (self.bind, self.port)}))
        return self.port

    def seated(self, seating: Seating) -> NetGame:
        """Record every seat's address (for resume) and point the mesh at the others."""
        game = self.game
        assert game is not None
        addresses = dict(seating.addresses)
        addresses[seating.seat] = (seating.local_host, self.port)
        game.store.save_meta(replace(game.store.meta, addresses=addresses))
        game.set_addresses(addresses)
        return game

    async def abandon(self) -> None:
        """Close the game prepared, if any (the seating failed or was left)."""
        if self.game is not None:
            await self.game.close()
            self.game.store.close()


async def run_game(game: NetGame, front: Front) -> int:
    """Play to the end as `front` does (the game screen, or plain lines); the exit code."""
    code = await front.play(game)
    await drain()
    return code
