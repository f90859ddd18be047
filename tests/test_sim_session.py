"""The offline practice session: the GameSession contract on the engine, bots on the other seats."""

from __future__ import annotations

import asyncio

import pytest

from cfnet.game.bots import GreedyBot
from cfnet.game.moves import DRAW, IllegalMoveError, Play
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.seat.offline import OfflineSession
from cfnet.seat.session import GameSession, SessionEvent

NAMES = ("Me", "Ada", "Bob")


async def drain(session: GameSession) -> list[SessionEvent]:
    """The events already queued (without waiting for more)."""
    events = []
    while True:
        try:
            events.append(await asyncio.wait_for(session.next_event(), 0.01))
        except TimeoutError:
            return events


async def play_game(rounds: int, seed: int) -> tuple[OfflineSession, list[SessionEvent]]:
    """The person plays what the greedy bot would; the session runs the others with no delay."""
    session = OfflineSession(NAMES, 1, RuleOptions(rounds=rounds), seed, ("random",), delay=0)
    session.start()
    me, events = GreedyBot(), []
    while not session.game.is_over:
        event = await session.next_event()
        events.append(event)
        view = session.view
        assert view is not None
        if session.waiting_for == (1,) and isinstance(event, RoundScored):
            session.ready()
        elif session.waiting_for == (1,) and not view.public.is_over:
            session.submit(me.choose(view))
    events += await drain(session)
    await session.close()
    return session, events


def test_a_whole_game_through_the_session() -> None:
    session, events = asyncio.run(play_game(2, 5))
    kinds = [type(e) for e in events]
    assert kinds.count(RoundStarted) == 2
    assert kinds.count(RoundScored) == 2
    assert kinds[-1] is GameOver
    ends = [e for e in events if isinstance(e, RoundScored)]
    assert ends[-1].totals == session.game.totals
    assert [e.scores for e in ends] == session.game.round_scores
    assert all(sum(len(h) for h in e.left) > 0 for e in ends)
    final = events[-1]
    assert isinstance(final, GameOver)
    assert final.winners == session.game.winners()
    assert session.log_path is None and not session.audited  # practice: no log, no audit
    # other seats' draws are announced without the tile; the person's own draws show it
    for event in events:
        if isinstance(event, MoveMade) and event.move == DRAW:
            assert (event.drawn is not None) == (event.seat == 1)
    # each round's result tells the whole round: its deal and moves give the hands left
    starts = [e for e in events if isinstance(e, RoundStarted)]
    for start, end in zip(starts, ends, strict=True):
        moves = [
            e.move for e in events if isinstance(e, MoveMade) and e.round_number == end.round_number
        ]
        assert (end.round_number, end.starter) == (start.round_number, start.starter)
        assert list(end.moves) == moves
        replayed = Round(
            3, end.round_number, end.starter, end.dealt, end.yard, session.game.options
        )
        for move in end.moves:
            replayed.apply(move)
        assert tuple(map(tuple, replayed.hands)) == end.left
        assert (replayed.public.end_reason, replayed.public.went_out) == (
            end.end_reason,
            end.went_out,
        )


def test_the_same_seed_gives_the_same_game() -> None:
    first, _ = asyncio.run(play_game(1, 9))
    second, _ = asyncio.run(play_game(1, 9))
    assert first.game == second.game


def test_illegal_moves_and_early_ready_change_nothing() -> None:
    async def scenario() -> None:
        session = OfflineSession(NAMES, 0, RuleOptions(rounds=1), 3, delay=0)
        assert session.view is None
        assert not session.waiting_for
        session.start()
        with pytest.raises(RuntimeError):
            session.start()
        while session.waiting_for != (0,):
            await session.next_event()
        view = session.view
        assert view is not None
        before = view.public.copy()
        with pytest.raises(IllegalMoveError):
            session.submit(
                DRAW if isinstance(view.legal_moves()[0], Play) else Play(view.hand[0], "z")
            )
        with pytest.raises(IllegalMoveError, match="not over yet"):
            session.ready()
        after = session.view
        assert after is not None
        assert after.public == before
        assert after.hand == view.hand
        await session.close()

    asyncio.run(scenario())
