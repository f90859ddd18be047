"""Practice offline: a `GameSession` where one person plays computer players on the engine.

Dealt by `bot_games.dealer`, a seeded generator (practice only: nothing here is secret or signed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from cfnet.game.bot_games import deal_round, dealer
from cfnet.game.bots import Player, make_bot
from cfnet.game.expert_bot import DEFAULT_THINK
from cfnet.game.moves import IllegalMoveError, Move
from cfnet.game.round import Game, PlayerView, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import Tile
from cfnet.lang import _
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.seat.session import SessionEvent, Wait


class OfflineSession:
    """Seat `seat` is the person; every other seat is a bot that moves after `delay` seconds."""

    def __init__(
        self,
        names: Sequence[str],
        seat: int = 0,
        options: RuleOptions | None = None,
        seed: int = 1,
        bots: Sequence[str] = ("greedy",),
        delay: float = 0.5,
        *,
        think: float = DEFAULT_THINK,
        rollouts: int | None = None,
    ) -> None:
        players = len(names)
        self._game = Game(players, RuleOptions() if options is None else options)
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat}: seats are 0..{players - 1}")
        self._seat = seat
        self._names = tuple(names)
        self._rng = dealer(seed)
        self._bots: dict[int, Player] = {
            other: make_bot(bots[other % len(bots)], seed * 1009 + other, think, rollouts)
            for other in range(players)
            if other != seat
        }
        self._delay = delay
        self._round: Round | None = None
        self._dealt: tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]] = ((), ())
        self._events: asyncio.Queue[SessionEvent] = asyncio.Queue()
        self._driver: asyncio.Task[None] | None = None
        self._awaiting_ready = False

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def game(self) -> Game:
        return self._game

    @property
    def view(self) -> PlayerView | None:
        return None if self._round is None else self._round.view(self._seat)

    @property
    def audited(self) -> bool:
        """Never: practice deals are shuffled in the open, there is nothing to audit."""
        return False

    @property
    def log_path(self) -> None:
        """Practice keeps no log."""
        return None

    @property
    def wait(self) -> Wait | None:
        """None: nobody is timed at a practice table."""
        return None

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self._awaiting_ready:
            return (self._seat,)
        if self._round is None or self._round.is_over:
            return ()
        return (self._round.turn,)

    def start(self) -> None:
        if self._round is not None or self._game.is_over:
            raise RuntimeError("this session has already started")
        self._deal()

    async def next_event(self) -> SessionEvent:
        return await self._events.get()

    def submit(self, move: Move) -> None:
        game_round = self._round
        if game_round is None or game_round.is_over:
            raise IllegalMoveError(_("no round is being played: wait for the next deal"))
        drawn = game_round.apply(move, self._seat)
        self._record(self._seat, move, drawn)

    def ready(self) -> None:
        if not self._awaiting_ready:
            raise IllegalMoveError(_("the round is not over yet: play on"))
        self._awaiting_ready = False
        self._deal()

    def resign(self) -> bool:
        """Nobody else is at the table: nothing to tell."""
        return False

    async def close(self) -> None:
        if self._driver is not None:
            self._driver.cancel()
            await asyncio.gather(self._driver, return_exceptions=True)
            self._driver = None

    # -- the table

    def _deal(self) -> None:
        game_round = self._round = deal_round(self._game, self._rng)
        self._dealt = (tuple(tuple(hand) for hand in game_round.hands), tuple(game_round.yard))
        self._events.put_nowait(RoundStarted(game_round.public.round_number, game_round.turn))
        self._wake_bots()

    def _record(self, seat: int, move: Move, drawn: Tile | None = None) -> None:
        """Announce `seat`'s move (`drawn`: the person's drawn tile), then finish the round
        or let the bots answer."""
        game_round = self._round
        assert game_round is not None
        public = game_round.public
        self._events.put_nowait(MoveMade(public.round_number, seat, move, drawn))
        if not game_round.is_over:
            self._wake_bots()
            return
        assert public.end_reason is not None
        scores = self._game.finish_round(game_round)
        dealt, yard = self._dealt
        self._events.put_nowait(
            RoundScored(
                public.round_number,
                public.starter,
                dealt,
                yard,
                tuple(tuple(hand) for hand in game_round.hands),
                tuple(public.moves),
                scores,
                self._game.totals,
                public.end_reason,
                public.went_out,
                public.seated,
            )
        )
        if self._game.is_over:
            self._events.put_nowait(GameOver(self._game.totals, self._game.winners()))
        else:
            self._awaiting_ready = True

    def _wake_bots(self) -> None:
        game_round = self._round
        busy = self._driver is not None and not self._driver.done()
        if game_round is not None and game_round.turn in self._bots and not busy:
            self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        """Let the bots move, one every `delay` seconds, until it is the person's turn."""
        game_round = self._round
        assert game_round is not None
        while not game_round.is_over and game_round.turn in self._bots:
            await asyncio.sleep(self._delay)
            seat = game_round.turn
            # in a thread: a searching bot must not freeze the screen (nothing else moves now)
            move = await asyncio.to_thread(self._bots[seat].choose, game_round.view(seat))
            game_round.apply(move, seat)
            self._record(seat, move)
