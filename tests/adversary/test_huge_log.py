"""Attack: exhaust the memory of whoever runs `cfnet verify` with a huge hostile log (64 MiB of
well-framed, linked records that no seat signed). The log is read as a stream, a record over
the largest entry is refused before its body is read, and the peak memory of the process stays
that of checking a small honest log, whatever the file's size."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cfnet.protocol.table import MAX_ABORT_ENTRY
from cfnet.record.entry import sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import MAGIC, encode_record, read_log

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"
HOSTILE_BYTES = 64 << 20
MARGIN_KB = 32 << 10
PEAK = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(code, peak // 1024 if sys.platform == 'darwin' else peak)\n"
)


def hostile_log(path: Path, record_body: int, size: int = HOSTILE_BYTES) -> None:
    """A valid table entry, then linked entries of seat 1 with `record_body` bytes of junk
    each, signed by a key that holds no seat, up to `size` bytes; written as it is made."""
    genesis = read_log(VECTOR)[0]
    forger = Identity.generate()
    last, written = genesis, 0
    with path.open("wb") as f:
        f.write(MAGIC + encode_record(genesis.wire))
        while written < size:
            body = {"round": 1, "junk": bytes(record_body)}
            last = sign_entry(forger, last.table_id, last.seq + 1, last.hash, 1, "play", body)
            record = encode_record(last.wire)
            f.write(record)
            written += len(record)


def verify_peak(path: Path) -> tuple[int, int, str]:
    """`cfnet verify path` in a child process: its exit code, peak RSS (KiB) and output."""
    run = subprocess.run(
        [sys.executable, "-c", PEAK, sys.executable, "-m", "cfnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    *output, last = run.stdout.splitlines()
    code, peak = map(int, last.split())
    return code, peak, "\n".join(output)


@pytest.mark.parametrize(
    ("record_body", "says"),
    [
        (1_040_000, "entry 1): record length 1040"),  # records over the largest entry
        (8000, "is refused: entry 1: the signature is not seat 1's"),
    ],
)
def test_a_huge_hostile_log_is_refused_in_little_memory(
    record_body: int, says: str, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.cflog"
    hostile_log(path, record_body)
    code, honest_peak, _ = verify_peak(VECTOR)
    assert code == 0
    code, peak, out = verify_peak(path)
    assert peak < honest_peak + MARGIN_KB, (peak, honest_peak)
    assert code == 1
    assert says in out and "no seat is proven at fault" in out, out
    if record_body < MAX_ABORT_ENTRY:  # read past, only counted
        assert re.search(r"after that: \d{4,} more entries follow, not judged", out), out
