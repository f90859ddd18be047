"""`cfnet verify` on hostile logs: time and peak memory (RSS of the child process) for a huge
file of records that no seat signed, against an honest game's log. Reads are streamed, so the
peak should not grow with the file (protocol.md 4.7)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from adversary.test_huge_log import VECTOR, hostile_log, verify_peak


def measure(path: Path) -> tuple[float, int, int]:
    """Seconds, peak RSS (KiB) and exit code of `cfnet verify path`."""
    start = time.perf_counter()
    code, peak, _ = verify_peak(path)
    return time.perf_counter() - start, peak, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=256, help="size of the hostile logs (MiB)")
    args = parser.parse_args()
    print(f"{'log':<44} {'MiB':>5} {'exit':>4} {'seconds':>8} {'peak MiB':>9}")
    seconds, peak, code = measure(VECTOR)
    size = VECTOR.stat().st_size / (1 << 20)
    print(
        f"{'honest 2-seat game (the test vector)':<44} {size:>5.2f} {code:>4} {seconds:>8.2f} "
        f"{peak / 1024:>9.1f}"
    )
    cases = [("hostile: 1 MB records (over the entry limit)", 1_040_000),
             ("hostile: 8 KB unsigned records", 8000)]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for label, body in cases:
            path = Path(tmp) / "hostile.cflog"
            hostile_log(path, body, args.mib << 20)
            seconds, peak, code = measure(path)
            size = path.stat().st_size / (1 << 20)
            print(f"{label:<44} {size:>5.0f} {code:>4} {seconds:>8.2f} {peak / 1024:>9.1f}")
            path.unlink()


if __name__ == "__main__":
    main()
