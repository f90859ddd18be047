"""Computer players: they see only a `PlayerView`, exactly what a person in that seat could see."""

from __future__ import annotations

import random
from typing import Protocol

from cfnet.game.moves import Move, Play
from cfnet.game.round import PlayerView
from cfnet.game.tiles import Tile
from cfnet.lang import N_, Sentence

BOT_STRATEGIES = ("expert", "greedy", "random")


class Player(Protocol):
    """Anything that picks a legal move for its seat from that seat's view."""

    name: str

    def choose(self, view: PlayerView) -> Move: ...


class RandomBot:
    """Any legal move, uniformly, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        return moves[0] if len(moves) == 1 else self._random.choice(moves)


class GreedyBot:
    """Heavy tiles first; opens a foot only when it can answer it; keeps lines it can follow."""

    name = "greedy"

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        held = [0] * 10  # how many of our tiles show each number
        for tile in view.hand:
            held[tile.low] += 1
            if not tile.is_double:
                held[tile.high] += 1
        ends = view.public.ends
        return max(moves, key=lambda move: _worth(move, ends, held))


def _worth(move: Move, ends: dict[str, int], held: list[int]) -> int:
    """How much the greedy player likes `move` (only plays are compared)."""
    if not isinstance(move, Play):
        return -1
    tile: Tile = move.tile
    if tile.is_double:
        # held counts the double once: others of its number answer the foot we open
        return 2 * tile.value + (12 if held[tile.low] > 1 else -12)
    free = tile.other(ends[move.end])
    return 2 * tile.value + (3 if held[free] > 1 else 0)


def make_bot(
    strategy: str, seed: int, think: float | None = None, rollouts: int | None = None
) -> Player:
    """A bot by strategy name (one of `BOT_STRATEGIES`); `think` (default: the expert's own)
    and `rollouts` budget the expert, whose search is loaded only when one plays."""
    if strategy == "expert":
        from cfnet.game.expert_bot import DEFAULT_THINK, ExpertBot

        return ExpertBot(seed, DEFAULT_THINK if think is None else think, rollouts)
    if strategy == "greedy":
        return GreedyBot()
    if strategy == "random":
        return RandomBot(seed)
    raise ValueError(
        Sentence(
            N_("no bot {strategy}: choose one of {strategies}"),
            strategy=repr(strategy),
            strategies=", ".join(BOT_STRATEGIES),
        )
    )
