"""Practice offline: a `GameSession` where one person plays computer players on the engine.

Shuffled by a seeded `random.Random` (practice only: nothing here is secret or signed).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

from cfnet.game.bot_games import deal_round
from cfnet.game.bots import Player, make_bot
from cfnet.game.expert_bot import DEFAULT_THINK
from cfnet.game.moves import IllegalMoveError, Move
from cfnet.game.round import Game, PlayerView, Round
from cfnet.game.rules import RuleOptions
from cfnet.seat.session import GameEnded, Moved, RoundBegan, RoundEnded, SessionEvent


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
        self._rng = random.Random(seed)
        self._bots: dict[int, Player] = {
            other: make_bot(bots[other % len(bots)], seed * 1009 + other, think, rollouts)
            for other in range(players)
            if other != seat
        }
        self._delay = delay
        self._round: Round | None = None
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
            raise IllegalMoveError("no round is being played: wait for the next deal")
        drawn = game_round.apply(move, self._seat)
        self._record(Moved(self._seat, move, drawn))

    def ready(self) -> None:
        if not self._awaiting_ready:
            raise IllegalMoveError("the round is not over yet: play on")
        self._awaiting_ready = False
        self._deal()

    async def close(self) -> None:
        if self._driver is not None:
            self._driver.cancel()
            await asyncio.gather(self._driver, return_exceptions=True)
            self._driver = None

    # -- the table

    def _deal(self) -> None:
        self._round = deal_round(self._game, self._rng)
        self._events.put_nowait(RoundBegan(self._round.public.round_number, self._round.turn))
        self._wake_bots()

    def _record(self, event: Moved) -> None:
        """Announce a move, then finish the round or let the bots answer."""
        self._events.put_nowait(event)
        game_round = self._round
        assert game_round is not None
        if not game_round.is_over:
            self._wake_bots()
            return
        public = game_round.public
        assert public.end_reason is not None
        scores = self._game.finish_round(game_round)
        self._events.put_nowait(
            RoundEnded(
                public.round_number,
                public.end_reason,
                public.went_out,
                tuple(tuple(hand) for hand in game_round.hands),
                scores,
                self._game.totals,
            )
        )
        if self._game.is_over:
            self._events.put_nowait(GameEnded(self._game.totals, self._game.winners()))
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
            self._record(Moved(seat, move))
