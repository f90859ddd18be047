"""A person's seat in a LAN game, through the `GameSession` the game screen uses: the network
driver in this process (the host), two `cfnet bot` processes joining by address on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref
from pathlib import Path

import pytest
from lan_helpers import LOOPBACK, Peer, same_logs, wait_all

from cfnet.disk.store import TableMeta, TableStore, prepare_home
from cfnet.game.bots import GreedyBot
from cfnet.game.moves import PASS, IllegalMoveError
from cfnet.game.rules import RuleOptions
from cfnet.net.lobby import HostLobby
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.record.identity import Identity
from cfnet.seat.net_game import NetGame, set_aside_survivors
from cfnet.seat.session import GameAborted, SessionEvent


async def _host_and_play(
    home: Path, bots: list[Peer]
) -> tuple[list[SessionEvent], NetGame, list[bool]]:
    """Play seat 0 through the session; the events, the game, and whether play was over (what
    the host's withdrawal from mDNS waits for) as each event was read."""
    identity = Identity.generate()
    lobby = HostLobby(
        identity,
        None,
        name="lan-session",
        player="Me",
        seats=3,
        options=RuleOptions(rounds=1),
        timeout=30,
        code=None,
        interface=LOOPBACK,
        say=lambda text: None,
    )
    port = await lobby.open()
    for bot in bots:
        bot.start(["bot", "--connect", f"{LOOPBACK}:{port}", "--interface", LOOPBACK])
    games: list[NetGame] = []

    async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        table = Table(genesis, LocalSeat(identity, seat), time.monotonic())
        store = TableStore.create(
            home, TableMeta(table.table_id, table.name, seat, table.players, table.options)
        )
        store.append(table.entries[0])
        games.append(NetGame(identity, table, store))
        return await games[0].listen(LOOPBACK)

    seating = await lobby.seat_all(prepare)
    await lobby.close()
    (game,) = games
    game.set_addresses(seating.addresses)
    assert game.names[0] == "Me" and game.seat == 0 and game.view is None
    with pytest.raises(IllegalMoveError):
        game.submit(PASS)
    game.start()
    player = GreedyBot()
    events: list[SessionEvent] = []
    over: list[bool] = []
    frozen: list[int] = []  # objects kept out of full garbage collections, at each event
    async with asyncio.timeout(60):
        while not events or not isinstance(events[-1], GameOver | GameAborted):
            try:
                async with asyncio.timeout(0.1):
                    events.append(await game.next_event())
                    over.append(game.play_over.is_set())
                    frozen.append(gc.get_freeze_count())
            except TimeoutError:
                pass
            view = game.view
            # the view the screen reads may lag the table's thread by a step: play only what
            # it shows as playable, as a person would
            mine = view is not None and game.waiting_for == (0,) and view.public.turn == 0
            if view is not None and mine and view.legal_moves():
                with contextlib.suppress(IllegalMoveError):  # e.g. our shuffle is being posted
                    game.submit(player.choose(view))
    await game.close()
    assert min(frozen) > 0  # kept out of full collections through the game
    return events, game, over


def test_a_person_plays_a_lan_game_through_the_game_session(tmp_path: Path) -> None:
    bots = [Peer(tmp_path / f"bot{i}", []) for i in (1, 2)]
    try:
        events, game, over = asyncio.run(_host_and_play(prepare_home(tmp_path / "me"), bots))
        assert wait_all(bots) == [0, 0]
    finally:
        for bot in bots:
            bot.kill()
    kinds = [type(event) for event in events]
    assert kinds[0] is RoundStarted and kinds[-2:] == [RoundScored, GameOver]
    assert any(isinstance(e, MoveMade) and e.seat == 0 for e in events)
    # play is over from the last move on (the table leaves mDNS then), not before the deal,
    # nor only once the round is audited
    last_move = max(i for i, event in enumerate(events) if isinstance(event, MoveMade))
    assert not over[0] and over[last_move] and all(over[last_move:])
    assert game.audited and game.result == events[-1]
    assert all(bot.log_path().read_bytes() == game.log_path.read_bytes() for bot in bots)
    same_logs(bots)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_what_one_game_set_aside_is_collected_when_the_next_one_starts() -> None:
    """A process that plays game after game (the table browser) keeps no game's leftovers: a
    cycle alive at one game's start, garbage by the next start, is collected then."""
    try:
        leftover = _Cycle()
        gone = weakref.ref(leftover)
        set_aside_survivors()  # one game starts: the cycle is alive, set aside
        del leftover
        gc.collect()
        assert gone() is not None  # set aside: no full collection reaches it
        set_aside_survivors()  # the next game starts
        assert gone() is None
    finally:
        gc.unfreeze()
