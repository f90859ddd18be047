"""The offline practice session: the GameSession contract on the engine, bots on the other seats."""

from __future__ import annotations

import asyncio

import pytest

from cfnet.game.bots import GreedyBot
from cfnet.game.moves import DRAW, IllegalMoveError, Play
from cfnet.game.rules import RuleOptions
from cfnet.seat.offline import OfflineSession
from cfnet.seat.session import GameEnded, GameSession, Moved, RoundBegan, RoundEnded, SessionEvent

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
        if session.waiting_for == (1,) and isinstance(event, RoundEnded):
            session.ready()
        elif session.waiting_for == (1,) and not view.public.is_over:
            session.submit(me.choose(view))
    events += await drain(session)
    await session.close()
    return session, events


def test_a_whole_game_through_the_session() -> None:
    session, events = asyncio.run(play_game(2, 5))
    kinds = [type(e) for e in events]
    assert kinds.count(RoundBegan) == 2
    assert kinds.count(RoundEnded) == 2
    assert kinds[-1] is GameEnded
    ends = [e for e in events if isinstance(e, RoundEnded)]
    assert ends[-1].totals == session.game.totals
    assert [e.scores for e in ends] == session.game.round_scores
    assert all(sum(len(h) for h in e.hands) > 0 for e in ends)
    final = events[-1]
    assert isinstance(final, GameEnded)
    assert final.winners == session.game.winners()
    assert final.log_path is None
    # other seats' draws are announced without the tile; the person's own draws show it
    for event in events:
        if isinstance(event, Moved) and event.move == DRAW:
            assert (event.drawn is not None) == (event.seat == 1)


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
