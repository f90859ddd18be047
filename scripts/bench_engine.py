"""Engine speed: complete 10-round 4-player games between greedy bots per second, on one core."""

from __future__ import annotations

import argparse
import time

from cfnet.simulate import selfplay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    stats = selfplay(["greedy"] * 4, args.games, args.seed)
    elapsed = time.perf_counter() - start
    print(
        f"{stats.games} games, {stats.rounds} rounds, 4 greedy players: "
        f"{stats.games / elapsed:.1f} games/s (target >= 100)"
    )


if __name__ == "__main__":
    main()
