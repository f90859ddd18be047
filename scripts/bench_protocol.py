"""Benchmark of the table protocol: for 2, 4 and 8 seats, the compute time of one round's set-up
(commitments to the end of the deal) for all seats together, the time of just the scalar
multiplications that set-up needs, and the time `cfnet verify` takes on a complete game.

Run: .venv/bin/python scripts/bench_protocol.py [--rounds 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import nacl.bindings as sodium

from cfnet.deck import TILE_POINTS
from cfnet.logfile import read_log, write_log
from cfnet.rules import RuleOptions, hand_size
from cfnet.table_round import Step
from cfnet.table_sim import play_protocol_game, start_tables
from cfnet.table_verify import verify_entries


def setup_time(players: int, seed: int) -> float:
    """Seconds from the first round entry to every seat holding its hand, all peers together."""
    network = start_tables(players, seed, RuleOptions(rounds=1))
    network.run(until=lambda: all(t.round is not None for t in network.tables))
    start = time.perf_counter()
    network.run(until=lambda: all(t.round and t.round.step is Step.TURNS for t in network.tables))
    elapsed = time.perf_counter() - start
    assert all(t.round and t.round.mine for t in network.tables)
    return elapsed


def scalarmult_time(count: int) -> float:
    """Seconds for `count` noclamp scalar multiplications of group points."""
    scalars = [sodium.crypto_core_ed25519_scalar_reduce(os.urandom(64)) for _ in range(64)]
    points = list(TILE_POINTS)
    start = time.perf_counter()
    for i in range(count):
        sodium.crypto_scalarmult_ed25519_noclamp(scalars[i % 64], points[i % len(points)])
    return time.perf_counter() - start


def verify_time(players: int, rounds: int, seed: int) -> tuple[float, int]:
    """Seconds to read and verify the log of a complete game (in process), and its entries."""
    network = play_protocol_game(players, seed, RuleOptions(rounds=rounds))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.cfnlog"
        write_log(path, network.tables[0].entries)
        start = time.perf_counter()
        verdict = verify_entries(read_log(path))
        elapsed = time.perf_counter() - start
    assert verdict.ok, verdict.problem
    return elapsed, len(network.tables[0].entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the verified game")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    print(
        f"{'seats':>5} {'set-up ms':>10} {'mults':>6} {'mults ms':>9} {'ratio':>6}"
        f" {'verify ms':>10} {'entries':>8}"
    )
    for players in (2, 4, 8):
        mults = players * (2 * 54 + hand_size(players))
        setup = min(setup_time(players, seed) for seed in range(1, args.repeat + 1))
        pure = min(scalarmult_time(mults) for _ in range(args.repeat))
        runs = [verify_time(players, args.rounds, seed) for seed in range(1, args.repeat + 1)]
        verify = min(r[0] for r in runs)
        print(
            f"{players:>5} {setup * 1e3:>10.1f} {mults:>6} {pure * 1e3:>9.1f}"
            f" {setup / pure:>6.2f} {verify * 1e3:>10.1f} {runs[0][1]:>8}"
        )
    print("set-up: every seat's shuffle_a, shuffle_b and deal (with the seed, nonce and key")
    print("commitments and the nonces), each checked by every peer (signatures, decks, keys),")
    print("the joint draw, and each seat opening its hand.")
    print("mults: N*(2*54 + hand) scalar multiplications, timed on their own.")
    print(f"verify: read the log of a complete {args.rounds}-round game and check all of it.")


if __name__ == "__main__":
    main()
