"""The log file: frozen bytes, write/read/append, a torn tail told apart from damage in the middle,
and recovery that drops only a torn tail."""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

import pytest

from cfnet.errors import LocalProtocolError
from cfnet.record.entry import GENESIS_PREV, Entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import (
    MAGIC,
    CorruptLog,
    LogFileError,
    TornTail,
    append_entry,
    count_records,
    encode_record,
    iter_log,
    open_for_append,
    read_log,
    recover_log,
    scan_log,
    write_log,
)

ADA = Identity.from_seed(bytes(32))
BO = Identity.from_seed(bytes([1]) * 32)
TABLE = bytes(range(16))

# protocol.md: the file holding test vectors 1 and 2 (tests/test_log.py).
VECTOR_FILE_SIZE = 339
VECTOR_FILE_SHA256 = "449be39ba9672ba18fc4a57c75f6a5d4f76455cab7ac261b7814f515b20b7439"


def vector_entries() -> list[Entry]:
    one = sign_entry(
        ADA,
        TABLE,
        0,
        GENESIS_PREV,
        0,
        "genesis",
        {"name": "Ada", "protocol": 1, "key": b"\x01\x02"},
    )
    two = sign_entry(BO, TABLE, 1, one.hash, 1, "join", {"name": "Bo", "round": 0})
    return [one, two]


def chain_of(n: int) -> list[Entry]:
    entries: list[Entry] = []
    prev = GENESIS_PREV
    for seq in range(n):
        seat = seq % 2
        entry = sign_entry(
            (ADA, BO)[seat], TABLE, seq, prev, seat, "move", {"n": seq, "pad": bytes(seq)}
        )
        entries.append(entry)
        prev = entry.hash
    return entries


def test_file_bytes_are_frozen(tmp_path: Path) -> None:
    path = tmp_path / "game.cflog"
    write_log(path, vector_entries())
    data = path.read_bytes()
    assert data.startswith(MAGIC) and len(data) == VECTOR_FILE_SIZE
    assert hashlib.sha256(data).hexdigest() == VECTOR_FILE_SHA256
    first = vector_entries()[0].wire
    size = len(first).to_bytes(4, "big")
    assert data[8:12] == size and data[16 : 16 + len(first)] == first
    assert data[8:16].hex() == "000000a180954c62"
    assert data[16 + len(first) : 20 + len(first)].hex() == "2b79e8b4"


def test_write_read_and_append_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "game.cflog"
    entries = chain_of(6)
    write_log(path, entries[:3])
    assert read_log(path) == entries[:3]
    with open_for_append(path) as f:
        for entry in entries[3:]:
            append_entry(f, entry)
    assert read_log(path) == entries
    with path.open("rb") as f:
        stream = iter_log(f)
        assert next(stream) == entries[0]  # streaming: one record at a time


def test_a_stream_refuses_a_record_over_its_limit_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "game.cflog"
    entries = chain_of(6)
    write_log(path, entries)
    with path.open("rb") as f:
        stream = iter_log(f, "game", max_entry=len(entries[0].wire))
        assert next(stream) == entries[0]
        assert count_records(f) == 5  # the bodies are skipped, not read
    longest = max(len(e.wire) for e in entries[1:])
    with path.open("rb") as f, pytest.raises(CorruptLog, match="out of range"):
        list(iter_log(f, "game", max_entry=longest - 1))
    data = path.read_bytes()
    path.write_bytes(data[:-3])  # a torn last record is not counted
    with path.open("rb") as f:
        next(iter_log(f))
        assert count_records(f) == 4


def test_open_for_append_creates_a_new_log(tmp_path: Path) -> None:
    path = tmp_path / "new.cflog"
    with open_for_append(path) as f:
        append_entry(f, chain_of(1)[0])
    assert read_log(path) == chain_of(1)
    assert path.read_bytes().startswith(MAGIC)


def test_write_log_refuses_entries_that_do_not_link(tmp_path: Path) -> None:
    entries = chain_of(3)
    with pytest.raises(LocalProtocolError, match="do not link"):
        write_log(tmp_path / "x.cflog", [entries[0], entries[2]])
    with pytest.raises(LocalProtocolError, match="do not link"):
        write_log(tmp_path / "x.cflog", entries[1:])


def _file_with(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "log.cflog"
    path.write_bytes(data)
    return path


def _read_error(path: Path) -> LogFileError:
    with pytest.raises(LogFileError) as info:
        read_log(path)
    return info.value


def test_every_cut_inside_the_last_record_is_a_torn_tail_that_recovery_drops(
    tmp_path: Path,
) -> None:
    entries = chain_of(3)
    path = tmp_path / "whole.cflog"
    write_log(path, entries)
    whole = path.read_bytes()
    last_start = len(whole) - len(encode_record(entries[2].wire))
    for cut in range(last_start + 1, len(whole)):
        torn = _file_with(tmp_path, whole[:cut])
        error = _read_error(torn)
        assert isinstance(error, TornTail), cut
        assert (error.offset, error.index) == (last_start, 2)
        scan = scan_log(torn)
        assert scan.entries == entries[:2] and scan.good_size == last_start
    assert recover_log(torn) == entries[:2]
    assert torn.read_bytes() == whole[:last_start]
    with open_for_append(torn) as f:
        append_entry(f, entries[2])
    assert read_log(torn) == entries


@pytest.mark.parametrize("data", [b"", MAGIC[:1], MAGIC[:7]])
def test_a_cut_inside_the_header_is_torn_and_recovers_to_an_empty_log(
    tmp_path: Path, data: bytes
) -> None:
    path = _file_with(tmp_path, data)
    error = _read_error(path)
    assert isinstance(error, TornTail) and error.offset == 0
    with pytest.raises(LocalProtocolError, match="recover_log"):
        open_for_append(path)
    assert recover_log(path) == []
    assert path.read_bytes() == MAGIC


def test_zero_fill_after_a_crash_is_a_torn_tail(tmp_path: Path) -> None:
    entries = chain_of(2)
    good = MAGIC + b"".join(encode_record(e.wire) for e in entries)
    zero_tail = _file_with(tmp_path, good + bytes(300))
    assert isinstance(_read_error(zero_tail), TornTail)
    assert recover_log(zero_tail) == entries and zero_tail.read_bytes() == good
    last = encode_record(entries[1].wire)
    zeroed_body = good[: len(good) - len(last)] + last[:8] + bytes(len(last) - 8)
    error = _read_error(_file_with(tmp_path, zeroed_body))
    assert isinstance(error, TornTail) and error.index == 1


def test_every_bit_flip_in_a_middle_record_is_corruption_reported_where(tmp_path: Path) -> None:
    entries = chain_of(3)
    whole = MAGIC + b"".join(encode_record(e.wire) for e in entries)
    second = len(MAGIC) + len(encode_record(entries[0].wire))
    second_end = second + len(encode_record(entries[1].wire))
    for bit in range(second * 8, second_end * 8):
        damaged = bytearray(whole)
        damaged[bit // 8] ^= 1 << (bit % 8)
        path = _file_with(tmp_path, bytes(damaged))
        error = _read_error(path)
        assert isinstance(error, CorruptLog), bit
        assert (error.offset, error.index) == (second, 1)
        assert f"byte {second} (entry 1)" in str(error)
        with pytest.raises(CorruptLog):
            recover_log(path)
        assert path.read_bytes() == bytes(damaged)  # recovery never drops a damaged middle


def test_a_record_written_whole_but_invalid_is_corruption_even_at_the_end(tmp_path: Path) -> None:
    entries = chain_of(2)
    good = MAGIC + b"".join(encode_record(e.wire) for e in entries)
    error = _read_error(_file_with(tmp_path, good + encode_record(b"\x92junk")))
    assert isinstance(error, CorruptLog) and "not a valid entry" in error.reason
    assert error.index == 2


@pytest.mark.parametrize(
    ("order", "reason"),
    [((0, 2), "seq 2 does not follow seq 0"), ((1,), "first entry"), ((0, 0), "seq 0")],
)
def test_records_that_do_not_link_are_corruption(
    tmp_path: Path, order: tuple[int, ...], reason: str
) -> None:
    entries = chain_of(3)
    data = MAGIC + b"".join(encode_record(entries[i].wire) for i in order)
    error = _read_error(_file_with(tmp_path, data))
    assert isinstance(error, CorruptLog) and reason in error.reason


def test_a_link_to_another_table_or_a_wrong_prev_is_corruption(tmp_path: Path) -> None:
    first = chain_of(1)[0]
    other = sign_entry(BO, bytes(16), 1, first.hash, 1, "move", {})
    wrong_prev = sign_entry(BO, TABLE, 1, bytes(32), 1, "move", {})
    for bad, reason in ((other, "table id"), (wrong_prev, "prev")):
        data = MAGIC + encode_record(first.wire) + encode_record(bad.wire)
        error = _read_error(_file_with(tmp_path, data))
        assert isinstance(error, CorruptLog) and reason in error.reason


def test_other_files_and_impossible_lengths_are_corruption(tmp_path: Path) -> None:
    error = _read_error(_file_with(tmp_path, b"PK\x03\x04 not a log at all"))
    assert isinstance(error, CorruptLog) and "not a cfnet log" in error.reason
    size = (1 << 30).to_bytes(4, "big")
    huge = size + _crc(size) + b"x" + _crc(b"x")
    error = _read_error(_file_with(tmp_path, MAGIC + huge))
    assert isinstance(error, CorruptLog) and "out of range" in error.reason


def _crc(data: bytes) -> bytes:
    return zlib.crc32(data).to_bytes(4, "big")
