"""Benchmark of the table protocol: for 2, 4 and 8 seats, the compute time of one round's set-up
(commitments to the end of the deal, with every hop proof made and checked) for all seats
together, the time of just the scalar multiplications that set-up needs (counted while it ran),
one hop proof's prove and verify times, one peer's proof work per round, the set-up's critical
path per round (what a LAN of one machine per peer waits for: the sum, over the hops in order,
of making a hop and the next seat checking it), and the time `cfnet verify` takes on a complete
game; the proofs, the critical path and verify with the deck's threads (one per core) and
without them (CFNET_THREADS=1).

Run: .venv/bin/python scripts/bench_protocol.py [--rounds 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import nacl.bindings as sodium

from cfnet.deck.derive import context
from cfnet.deck.pool import default_threads, use_threads
from cfnet.deck.proofs import (
    check_rekey,
    check_shuffle,
    prove_rekey,
    prove_shuffle,
    remember_proofs,
)
from cfnet.deck.sra import TILE_POINTS, SeatSecrets, round_deck, shuffle_phase_a, shuffle_phase_b
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import double
from cfnet.protocol.schedule import Step
from cfnet.protocol.testing import play_protocol_game, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.record.logfile import read_log, write_log

VARIABLE = "crypto_scalarmult_ed25519_noclamp"
BASE = "crypto_scalarmult_ed25519_base_noclamp"


def setup_time(players: int, seed: int) -> tuple[float, dict[str, int]]:
    """Seconds from the first round entry to every seat holding its hand, all peers together,
    and how many variable- and base-point multiplications that took."""
    network = start_tables(players, seed, RuleOptions(rounds=1))
    network.run(until=lambda: all(t.round is not None for t in network.tables))
    counts = {VARIABLE: 0, BASE: 0}
    originals = {name: getattr(sodium, name) for name in counts}

    def counted(name: str) -> object:
        def call(*args: bytes) -> bytes:
            counts[name] += 1
            result: bytes = originals[name](*args)
            return result

        return call

    for name in counts:
        setattr(sodium, name, counted(name))
    try:
        start = time.perf_counter()
        network.run(until=lambda: all(t.step is Step.TURNS for t in network.tables))
        elapsed = time.perf_counter() - start
    finally:
        for name, original in originals.items():
            setattr(sodium, name, original)
    assert all(t.rounds.seat and t.rounds.seat.mine for t in network.tables)
    return elapsed, counts


def scalarmult_time(variable: int, base: int) -> float:
    """Seconds for that many noclamp variable-point and base-point scalar multiplications."""
    scalars = [sodium.crypto_core_ed25519_scalar_reduce(os.urandom(64)) for _ in range(64)]
    points = list(TILE_POINTS)
    start = time.perf_counter()
    for i in range(variable):
        sodium.crypto_scalarmult_ed25519_noclamp(scalars[i % 64], points[i % len(points)])
    for i in range(base):
        sodium.crypto_scalarmult_ed25519_base_noclamp(scalars[i % 64])
    return time.perf_counter() - start


HOP_RUNS = 20
"""Runs of each hop step in each setting, of which the best is taken: a step takes 7-40 ms,
and anything else the machine does moves one run's figure by a few milliseconds (the games'
--repeat, 3, is too few for that)."""


def proof_times(settings: Mapping[str, int], runs: int = HOP_RUNS) -> dict[str, dict[str, float]]:
    """For each of `settings` (a label: the deck's thread count), best-of-`runs` seconds to
    prove and to verify one phase-A and one phase-B hop, and to make each hop whole (its
    shuffle, commitments and proof: "make A", "make B"). The settings take turns at every run,
    so that a change in the machine's load falls on them alike."""
    secrets = SeatSecrets.derive(os.urandom(32), bytes(16), 1, 0)
    where, mask, keys = (
        context(bytes(16), 1, 0),
        secrets.mask_commitment(),
        secrets.key_commitments(),
    )
    deck = round_deck(double(9))
    masked = shuffle_phase_a(deck, secrets)
    rekeyed = shuffle_phase_b(masked, secrets)
    steps: dict[str, Callable[[], object]] = {
        "prove A": lambda: prove_shuffle(
            where, deck, masked, mask, secrets.permutation, secrets.masking_key, secrets.seed
        ),
        "prove B": lambda: prove_rekey(
            where, masked, rekeyed, mask, keys, secrets.masking_key, secrets.position_keys,
            secrets.seed,
        ),
    }  # fmt: skip
    a = prove_shuffle(
        where, deck, masked, mask, secrets.permutation, secrets.masking_key, secrets.seed
    )
    b = prove_rekey(
        where, masked, rekeyed, mask, keys, secrets.masking_key, secrets.position_keys, secrets.seed
    )
    steps["verify A"] = lambda: check_shuffle(where, deck, masked, mask, a)
    steps["verify B"] = lambda: check_rekey(where, masked, rekeyed, mask, keys, b)
    steps["make A"] = lambda: prove_shuffle(
        where, deck, shuffle_phase_a(deck, secrets), secrets.mask_commitment(),
        secrets.permutation, secrets.masking_key, secrets.seed,
    )  # fmt: skip
    steps["make B"] = lambda: prove_rekey(
        where, masked, shuffle_phase_b(masked, secrets), mask, secrets.key_commitments(),
        secrets.masking_key, secrets.position_keys, secrets.seed,
    )  # fmt: skip
    times: dict[str, dict[str, float]] = {label: {} for label in settings}
    for name, step in steps.items():
        for label in settings:
            times[label][name] = float("inf")
        for _ in range(runs):
            for label, threads in settings.items():
                use_threads(threads)
                start = time.perf_counter()
                step()
                times[label][name] = min(times[label][name], time.perf_counter() - start)
    use_threads(None)
    return times


def critical_path(times: dict[str, float], seats: int) -> float:
    """Seconds of one round's set-up on a LAN of one machine per peer: every hop in order (each
    seat's phase A, then each seat's phase B), made by its seat and checked by the next."""
    return seats * (times["make A"] + times["verify A"] + times["make B"] + times["verify B"])


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
    remember_proofs(0)  # every peer (and `cfnet verify`) checks each proof itself, as on a LAN
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the verified game")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} ({default_threads()} cores)")
    settings = {"pool": default_threads(), "1 thread": 1}
    proofs = proof_times(settings)
    for label, times in proofs.items():
        print(f"one hop (54 points), {label}: " + ", ".join(
            f"{name} {t * 1e3:.1f} ms" for name, t in times.items()
        ))  # fmt: skip
    print(
        f"{'seats':>5} {'set-up ms':>10} {'mults':>11} {'mults ms':>9} {'ratio':>6}"
        f" {'peer proofs ms':>15} {'critical ms':>12} {'1 thread':>9} {'ratio':>6}"
        f" {'verify ms':>10} {'1 thread':>9} {'entries':>8}"
    )
    for players in (2, 4, 8):
        setups = [setup_time(players, seed) for seed in range(1, args.repeat + 1)]
        setup, counts = min(setups, key=lambda run: run[0])
        mults = f"{counts[VARIABLE]}+{counts[BASE]}G"
        pure = min(scalarmult_time(counts[VARIABLE], counts[BASE]) for _ in range(args.repeat))
        pool = proofs["pool"]
        checks = (players - 1) * (pool["verify A"] + pool["verify B"])
        peer = pool["prove A"] + pool["prove B"] + checks
        critical = {label: critical_path(times, players) for label, times in proofs.items()}
        verify: dict[str, float] = {}
        for label, threads in settings.items():
            use_threads(threads)
            runs = [verify_time(players, args.rounds, seed) for seed in range(1, args.repeat + 1)]
            verify[label] = min(r[0] for r in runs)
        use_threads(None)
        print(
            f"{players:>5} {setup * 1e3:>10.1f} {mults:>11} {pure * 1e3:>9.1f}"
            f" {setup / pure:>6.2f} {peer * 1e3:>15.1f} {critical['pool'] * 1e3:>12.1f}"
            f" {critical['1 thread'] * 1e3:>9.1f} {critical['pool'] / critical['1 thread']:>6.2f}"
            f" {verify['pool'] * 1e3:>10.1f} {verify['1 thread'] * 1e3:>9.1f} {runs[0][1]:>8}"
        )
    print("set-up: every seat's shuffle_a, shuffle_b and deal (with the commitments, the hop")
    print("proofs and the nonces), each checked by every peer (signatures, decks, proofs, keys),")
    print("the joint draw, and each seat opening its hand; all peers together.")
    print("mults: the variable-point + base-point (G) multiplications that set-up made, timed")
    print("on their own; ratio: set-up / mults (target at most 1.5).")
    print("peer proofs: one peer's proof work per round (prove its two hops, verify the other")
    print("seats' 2(N-1)); targets 0.25 s with 4 seats, 0.5 s with 8.")
    print("critical: one round's set-up on a LAN of one machine per peer (every hop made, then")
    print("checked by the next seat, in order), with the deck's threads and on 1 thread;")
    print("ratio: with / without (target at most 0.6).")
    print(f"verify: read the log of a complete {args.rounds}-round game and check all of it.")


if __name__ == "__main__":
    main()
