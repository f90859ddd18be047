"""Benchmark of the command's start-up: the wall time of `cfnet --version`, `cfnet --help` and a
sub-command's `--help`, each a whole process, side by side with a bare `python -c pass`. The
package's bytecode is compiled first, as installing it does (bytecode.py).

Run: .venv/bin/python scripts/bench_startup.py [--runs 20]
Target: `--version` and `--help` well under 0.1 s (each command imports only what it uses).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from bytecode import compile_package

TARGET_S = 0.1
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "cfnet --version": [sys.executable, "-m", "cfnet", "--version"],
    "cfnet --help": [sys.executable, "-m", "cfnet", "--help"],
    "cfnet verify --help": [sys.executable, "-m", "cfnet", "verify", "--help"],
    "cfnet host --help": [sys.executable, "-m", "cfnet", "host", "--help"],
}


def wall(command: list[str]) -> float:
    """Seconds from the start of `command` to its exit."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each command (median kept)")
    runs = parser.parse_args().runs
    compile_package()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):  # interleaved, so that a drift of the machine's speed hits all alike
        for name, command in COMMANDS.items():
            times[name].append(wall(command))
    bare = statistics.median(times["python -c pass"])
    for name, samples in times.items():
        median = statistics.median(samples)
        verdict = "" if name.startswith("python") else "  ✔" if median < TARGET_S else "  ✘"
        print(f"{name:22} median {median * 1000:6.1f} ms  ({median / bare:4.1f}x bare){verdict}")


if __name__ == "__main__":
    main()
