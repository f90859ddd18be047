"""Games between computer players (self-play, and the deals of an offline practice table),
shuffled by a seeded `random.Random`: reproducible from the seed, never secret."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cfnet.game.board import EndReason
from cfnet.game.bots import Player, make_bot
from cfnet.game.expert_bot import DEFAULT_THINK
from cfnet.game.round import Game, Round, starting_seat
from cfnet.game.rules import RuleOptions, round_double
from cfnet.game.tiles import ALL_TILES, double


def play_round(game_round: Round, players: Sequence[Player]) -> Round:
    """Let each seat's player move until the round ends; returns the finished round."""
    while game_round.public.end_reason is None:
        seat = game_round.public.turn
        game_round.apply(players[seat].choose(game_round.view(seat)))
    return game_round


def dealer(seed: int) -> random.Random:
    """The seeded generator that deals games played with computer players (self-play, the
    offline practice table): the same seed, the same deals; never a secret."""
    return random.Random(seed)


def deal_round(game: Game, rng: random.Random) -> Round:
    """The game's next round: a random starter (as the tile draw gives) and a shuffled deck."""
    centre = double(round_double(game.round_number))
    starter = starting_seat(game.round_number, game.players, rng.randrange(len(ALL_TILES)))
    deck = [t for t in ALL_TILES if t != centre]
    rng.shuffle(deck)
    return game.new_round(starter, deck)


Watcher = Callable[[Game, Round], None]


def play_game(
    players: Sequence[Player],
    options: RuleOptions,
    rng: random.Random,
    watch: Watcher | None = None,
) -> Game:
    """A complete game; `watch(game, round)` is called after each round is scored."""
    game = Game(len(players), options)
    while not game.is_over:
        finished = play_round(deal_round(game, rng), players)
        game.finish_round(finished)
        if watch is not None:
            watch(game, finished)
    return game


@dataclass
class SelfplayStats:
    """Results of many games: per seat wins (a shared win counts for each) and total scores."""

    bots: tuple[str, ...]
    games: int = 0
    wins: list[int] = field(default_factory=list)
    score_sums: list[int] = field(default_factory=list)
    rounds: int = 0
    ends: dict[EndReason, int] = field(default_factory=lambda: dict.fromkeys(EndReason, 0))

    def mean_scores(self) -> list[float]:
        return [s / self.games if self.games else 0.0 for s in self.score_sums]

    def blocked_share(self) -> float:
        """Share of rounds that ended blocked (by passes or a dead foot)."""
        blocked = self.ends[EndReason.BLOCKED] + self.ends[EndReason.DEAD_FOOT]
        return blocked / self.rounds if self.rounds else 0.0


def selfplay(
    bots: Sequence[str],
    games: int,
    seed: int,
    options: RuleOptions | None = None,
    watch: Watcher | None = None,
    think: float = DEFAULT_THINK,
    rollouts: int | None = None,
) -> SelfplayStats:
    """Play `games` games between bots named by strategy (one per seat), all from `seed`;
    `think`/`rollouts` budget the expert's decisions."""
    options = RuleOptions() if options is None else options
    players = [
        make_bot(name, seed * 1009 + seat, think, rollouts) for seat, name in enumerate(bots)
    ]
    rng = dealer(seed)
    stats = SelfplayStats(tuple(bots), wins=[0] * len(bots), score_sums=[0] * len(bots))

    def count(game: Game, finished: Round) -> None:
        reason = finished.public.end_reason
        assert reason is not None
        stats.rounds += 1
        stats.ends[reason] += 1
        if watch is not None:
            watch(game, finished)

    for _ in range(games):
        game = play_game(players, options, rng, count)
        stats.games += 1
        for seat in game.winners():
            stats.wins[seat] += 1
        for seat, total in enumerate(game.totals):
            stats.score_sums[seat] += total
    return stats
