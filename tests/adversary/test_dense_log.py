"""Attack: make whoever runs `cfnet verify` decode megabytes of dense records (each just under
the largest record `verify` reads, packed with the smallest msgpack items: about 1 s of CPU per
MiB to decode) after a record that already decides the verdict. `verify` reads and judges one
record at a time, and reads ahead (to learn whether a round's hop proofs need a check) only
past records signed by their seats: it decodes nothing after the first forged record, and the
junk after it costs only a count of its framing."""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfnet.protocol.table import MAX_ABORT_ENTRY
from cfnet.protocol.verify import verify_entries
from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import MAGIC, count_records, encode_record, iter_log, read_log
from cfnet.review.timeline import read_timeline

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"
DENSE_ROWS = 8  # 8 arrays of 4000 small integers: 32 KB, under MAX_ABORT_ENTRY


def dense_log(path: Path, prefix: int, size: int) -> int:
    """The vector's first `prefix` entries, then dense records linked to them, claiming seat 1
    and signed by a key that holds no seat, up to `size` bytes; how many records it holds."""
    entries = read_log(VECTOR)[:prefix]
    forger = Identity.generate()
    last, written, count = entries[-1], 0, len(entries)
    with path.open("wb") as f:
        f.write(MAGIC + b"".join(encode_record(entry.wire) for entry in entries))
        while written < size:
            body = {"round": 1, "junk": [[0] * 4000] * DENSE_ROWS}
            last = sign_entry(forger, last.table_id, last.seq + 1, last.hash, 1, "play", body)
            record = encode_record(last.wire)
            assert len(last.wire) < MAX_ABORT_ENTRY
            f.write(record)
            written, count = written + len(record), count + 1
    return count


def counted(stream: Iterator[Entry], pulled: list[int]) -> Iterator[Entry]:
    """`stream`, counting in `pulled[0]` the records decoded from it."""
    for entry in stream:
        pulled[0] += 1
        yield entry


@pytest.mark.parametrize("prefix", [2, 3, 5, 9])  # at the deal's start, in its hops, its keys
def test_verify_decodes_nothing_after_the_first_forged_record(prefix: int, tmp_path: Path) -> None:
    path = tmp_path / "dense.cflog"
    total = dense_log(path, prefix, 1 << 20)
    with path.open("rb") as f:
        pulled = [0]
        stream = counted(iter_log(f, str(path), MAX_ABORT_ENTRY), pulled)
        verdict = verify_entries(stream, lambda: count_records(f))
    assert pulled[0] == prefix + 1  # the honest records and the first forged one
    assert verdict.problem.startswith(f"entry {prefix} (claims seat 1, play) is refused")
    assert verdict.blamed is None and verdict.entries == total
    with path.open("rb") as f:  # the viewer reads a file as verify does
        timeline = read_timeline(f, str(path))
        assert f.tell() < 2 * MAX_ABORT_ENTRY + VECTOR.stat().st_size
    assert timeline.judge.verdict.problem == verdict.problem


def _verify_cpu(path: Path) -> float:
    """CPU seconds of `cfnet verify path` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cfnet", "verify", str(path)], capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def test_a_dense_file_costs_no_more_than_an_honest_game(tmp_path: Path) -> None:
    """8 MiB of dense junk after the set-up of a 2-seat game: `cfnet verify` takes no more CPU
    than on the whole honest game (decoding the junk first took about 8 s)."""
    path = tmp_path / "dense.cflog"
    dense_log(path, 5, 8 << 20)
    honest = min(_verify_cpu(VECTOR) for _ in range(2))
    crafted = min(_verify_cpu(path) for _ in range(2))
    assert crafted <= 3 * honest, (crafted, honest)
