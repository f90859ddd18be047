"""Benchmark of `cfnet verify` on every core against one: for a complete game of 4 and of 8
seats (10 rounds, played in process by computer players), the wall time of the command as a
person runs it (`cfnet verify LOG`, a process of its own, its start-up included) on the whole
machine and pinned to one core (`taskset -c 0`, where cfnet uses one thread), the two taken
in turn in the same run; and the ratio of the best times (target at least 1.6 on 2 cores).
The start-up alone (`cfnet verify` of a log of one entry) is timed too. The package's bytecode
is compiled first, as installing it does (bytecode.py): the commands are timed as installed.

Run: .venv/bin/python scripts/bench_verify_cores.py [--rounds 10] [--repeat 5] [--seats 4 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bytecode import compile_package

from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import play_protocol_game
from cfnet.record.logfile import write_log

PINNED = ["taskset", "-c", "0"]


def make_log(directory: Path, players: int, rounds: int) -> tuple[Path, Path]:
    """A complete game's log, and a log of its first entry only (the table: for the start-up)."""
    entries = play_protocol_game(players, 1, RuleOptions(rounds=rounds)).tables[0].entries
    game, table = directory / f"game{players}.cflog", directory / f"table{players}.cflog"
    write_log(game, entries)
    write_log(table, entries[:1])
    return game, table


def verify_seconds(log: Path, pinned: bool, finished: bool) -> float:
    """Wall seconds of `cfnet verify LOG` (pinned to core 0 or not); its verdict checked."""
    command = [*(PINNED if pinned else []), sys.executable, "-m", "cfnet", "verify", str(log)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if (done.returncode == 0) != finished:
        raise SystemExit(f"verify of {log} exited {done.returncode}: {done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="rounds of each game")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, taken in turn")
    parser.add_argument("--seats", type=int, nargs="+", default=[4, 8], help="table sizes")
    args = parser.parse_args()
    if shutil.which("taskset") is None:
        raise SystemExit("taskset (util-linux) is needed to pin a run to one core")
    cores = len(os.sched_getaffinity(0))
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        logs = {players: make_log(Path(tmp), players, args.rounds) for players in args.seats}
        print(f"load average before: {os.getloadavg()[0]:.2f} ({cores} cores)")
        print(
            f"{'seats':>5} {'all cores s':>12} {'1 core s':>9} {'ratio':>6}"
            f" {'median ratio':>13} {'start-up s':>11} {'1 core':>7} {'load':>5}"
        )
        for players, (game, table) in logs.items():
            runs: dict[bool, list[float]] = {False: [], True: []}
            starts: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(args.repeat):
                for pinned in (False, True):
                    runs[pinned].append(verify_seconds(game, pinned, True))
                    starts[pinned].append(verify_seconds(table, pinned, False))
            best = {pinned: min(times) for pinned, times in runs.items()}
            middle = {pinned: statistics.median(times) for pinned, times in runs.items()}
            print(
                f"{players:>5} {best[False]:>12.2f} {best[True]:>9.2f}"
                f" {best[True] / best[False]:>6.2f} {middle[True] / middle[False]:>13.2f}"
                f" {min(starts[False]):>11.2f} {min(starts[True]):>7.2f}"
                f" {os.getloadavg()[0]:>5.2f}"
            )
    print(f"ratio: the best time pinned to one core over the best on all {cores}, each of")
    print(f"{args.repeat} runs taken in turn; median ratio: the same of the medians.")
    print("start-up: `cfnet verify` of a log holding only the table entry (unfinished).")


if __name__ == "__main__":
    main()
