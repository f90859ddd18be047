"""Engine speed, on one core: complete 10-round 4-player games between greedy bots per second,
and the fast engine's rollouts (a dealt round played to its end) per second, 2 and 4 players."""

from __future__ import annotations

import argparse
import random
import time

from cfnet.game.bot_games import selfplay
from cfnet.game.bot_rollouts import FastRound
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, double


def rollouts_per_second(players: int, seconds: float, seed: int) -> float:
    """Rollouts from fresh deals of round 1 (copy + play out + score) per second."""
    rng = random.Random(seed)
    deck = [t for t in ALL_TILES if t != double(9)]
    deals = []
    for _ in range(50):
        rng.shuffle(deck)
        dealt = Round.deal(players, 1, rng.randrange(players), deck, RuleOptions())
        deals.append(FastRound.build(dealt.public, dealt.hands, dealt.yard))
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for deal in deals:
            deal.copy().rollout(rng, 0.75)
        count += len(deals)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=2.0, help="per rollout measure")
    args = parser.parse_args()
    start = time.perf_counter()
    stats = selfplay(["greedy"] * 4, args.games, args.seed)
    elapsed = time.perf_counter() - start
    print(
        f"{stats.games} games, {stats.rounds} rounds, 4 greedy players: "
        f"{stats.games / elapsed:.1f} games/s (target >= 100)"
    )
    for players in (2, 4):
        rate = rollouts_per_second(players, args.seconds, args.seed)
        print(f"fast engine, {players} players: {rate:,.0f} rollouts/s from a fresh deal")


if __name__ == "__main__":
    main()
