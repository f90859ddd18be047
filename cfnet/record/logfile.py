"""The log file: MAGIC, then one record per entry, streamable and appendable.

record = u32 L || u32 crc32(L) || wire (L bytes) || u32 crc32(wire), integers big-endian.
A crash while appending leaves a torn tail (`TornTail`, safe to drop with `recover_log`);
damage anywhere else, or a record that was written whole but is wrong, is `CorruptLog`.
"""

from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cfnet.errors import LocalProtocolError
from cfnet.lang import N_, Sentence
from cfnet.record.binary_open import O_BINARY
from cfnet.record.entry import GENESIS_PREV, MAX_ENTRY_BYTES, Entry, MalformedEntry, decode_entry

MAGIC = b"CFNLOG\x00\x01"
RECORD_HEADER_BYTES = 8
RECORD_TRAILER_BYTES = 4
_CHUNK = 1 << 16


class LogFileError(ValueError):
    """A log file that cannot be read to its end: where (`offset`, entry `index`) and why (a
    `Sentence`, said in the reader's language)."""

    def __init__(self, name: str, offset: int, index: int, reason: str) -> None:
        where = N_("{name}: byte {offset} (entry {index}): {reason}")
        super().__init__(Sentence(where, name=name, offset=offset, index=index, reason=reason))
        self.name = name
        self.offset = offset
        self.index = index
        self.reason = reason


class TornTail(LogFileError):
    """The file ends inside its last record, as a crash while appending leaves it: everything
    before `offset` is whole and valid, and the tail may be dropped (`recover_log`)."""


class CorruptLog(LogFileError):
    """Damage that no crash explains (a bad record with data after it, a record written whole but
    invalid, a broken link): do not drop anything, the file needs a person or a peer's copy."""


def encode_record(wire: bytes) -> bytes:
    """The file record of an entry's wire bytes."""
    size = len(wire).to_bytes(4, "big")
    return size + _crc(size) + wire + _crc(wire)


def _crc(data: bytes) -> bytes:
    return zlib.crc32(data).to_bytes(4, "big")


def link_problem(previous: Entry | None, entry: Entry) -> str | None:
    """Why `entry` cannot follow `previous` in one table's log (None if it can). No signatures."""
    if previous is None:
        if entry.seq != 0 or entry.prev != GENESIS_PREV:
            return Sentence(
                N_("the first entry must be seq 0 with zero prev, not seq {seq}"), seq=entry.seq
            )
        return None
    if entry.table_id != previous.table_id:
        return Sentence(
            N_("table id {id} differs from {previous}"),
            id=entry.table_id.hex(),
            previous=previous.table_id.hex(),
        )
    if entry.seq != previous.seq + 1:
        return Sentence(
            N_("seq {seq} does not follow seq {previous}"), seq=entry.seq, previous=previous.seq
        )
    if entry.prev != previous.hash:
        return Sentence(N_("prev does not match the hash of entry {seq}"), seq=previous.seq)
    return None


def iter_log(f: BinaryIO, name: str = "log", max_entry: int = MAX_ENTRY_BYTES) -> Iterator[Entry]:
    """The entries of an open log file, read from its start in streaming fashion, links checked:
    memory holds one record at a time, and a record over `max_entry` bytes is refused before
    its body is read.

    Raises TornTail or CorruptLog at the first record that cannot be read whole."""
    head = f.read(len(MAGIC))
    if head != MAGIC:
        if MAGIC.startswith(head):
            torn = Sentence(N_("the file ends inside its {size}-byte header"), size=len(MAGIC))
            raise TornTail(name, 0, 0, torn)
        raise CorruptLog(name, 0, 0, not_a_log(head))
    yield from iter_log_from(f, len(MAGIC), None, 0, name, max_entry)


def not_a_log(head: bytes) -> str:
    """Why a file that begins with `head` is not a log, saying what it looks like instead."""
    if head.lstrip()[:1] in (b"{", b"["):
        return Sentence(
            N_(
                "not a cfnet log file but JSON text (a record from cfnet export? cfnet"
                " import-check reads those)"
            )
        )
    return Sentence(N_("not a cfnet log file (it does not begin with the log header, CFNLOG)"))


def iter_log_from(
    f: BinaryIO,
    offset: int,
    previous: Entry | None,
    index: int,
    name: str = "log",
    max_entry: int = MAX_ENTRY_BYTES,
) -> Iterator[Entry]:
    """As `iter_log`, from the record at byte `offset` (where `f` stands), entry `index`, whose
    predecessor is `previous`: how a reader follows a log that is being written."""
    while True:
        header = f.read(RECORD_HEADER_BYTES)
        if not header:
            return
        if len(header) < RECORD_HEADER_BYTES:
            torn = Sentence(N_("the file ends inside a record header"))
            raise TornTail(name, offset, index, torn)
        size_bytes, check = header[:4], header[4:]
        if _crc(size_bytes) != check:
            if not header.strip(b"\0") and _rest_is_zero(f):
                zeros = Sentence(N_("zero bytes after the last record"))
                raise TornTail(name, offset, index, zeros)
            damaged = Sentence(N_("record header damaged (length check fails)"))
            raise CorruptLog(name, offset, index, damaged)
        size = int.from_bytes(size_bytes, "big")
        if not 0 < size <= max_entry:
            raise CorruptLog(
                name,
                offset,
                index,
                Sentence(
                    N_("record length {size} is out of range (1 to {limit} bytes)"),
                    size=size,
                    limit=max_entry,
                ),
            )
        body = f.read(size + RECORD_TRAILER_BYTES)
        missing = size + RECORD_TRAILER_BYTES - len(body)
        if missing > 0:
            raise TornTail(
                name,
                offset,
                index,
                Sentence.counted(
                    "the file ends {count} byte before the end of the last record",
                    "the file ends {count} bytes before the end of the last record",
                    missing,
                    count=missing,
                ),
            )
        wire = body[:size]
        if _crc(wire) != body[size:]:
            if not f.read(1):
                torn = Sentence(N_("the last record is damaged (check fails)"))
                raise TornTail(name, offset, index, torn)
            raise CorruptLog(name, offset, index, Sentence(N_("record damaged (check fails)")))
        try:
            entry = decode_entry(wire)
        except MalformedEntry as exc:
            invalid = Sentence(N_("not a valid entry: {reason}"), reason=exc.reason)
            raise CorruptLog(name, offset, index, invalid) from exc
        problem = link_problem(previous, entry)
        if problem is not None:
            raise CorruptLog(name, offset, index, problem)
        yield entry
        previous = entry
        index += 1
        offset += RECORD_HEADER_BYTES + size + RECORD_TRAILER_BYTES


def count_records(f: BinaryIO) -> int:
    """How many whole records follow in an open log file from its position, by their framing
    alone: bodies are skipped (not read, decoded or checked), for a report rather than a read.
    Counting stops at the first record header that fails its check or the end of the file."""
    size = os.fstat(f.fileno()).st_size
    count = 0
    while True:
        header = f.read(RECORD_HEADER_BYTES)
        if len(header) < RECORD_HEADER_BYTES or _crc(header[:4]) != header[4:]:
            return count
        if f.seek(int.from_bytes(header[:4], "big") + RECORD_TRAILER_BYTES, os.SEEK_CUR) > size:
            return count
        count += 1


def _rest_is_zero(f: BinaryIO) -> bool:
    while chunk := f.read(_CHUNK):
        if chunk.strip(b"\0"):
            return False
    return True


def read_log(path: Path) -> list[Entry]:
    """All entries of the log file at `path`; TornTail or CorruptLog if it is not whole."""
    with path.open("rb") as f:
        return list(iter_log(f, str(path)))


@dataclass(frozen=True, slots=True)
class LogScan:
    """A log file read as far as it is whole: `good_size` bytes hold `entries`; `torn` tells
    what lies beyond (None if nothing)."""

    entries: list[Entry]
    good_size: int
    torn: TornTail | None


def scan_log(path: Path) -> LogScan:
    """Read the log at `path` up to a torn tail, if any; CorruptLog for any other damage."""
    entries: list[Entry] = []
    with path.open("rb") as f:
        try:
            entries.extend(iter_log(f, str(path)))
        except TornTail as torn:
            return LogScan(entries, torn.offset, torn)
        return LogScan(entries, f.tell(), None)


def recover_log(path: Path) -> list[Entry]:
    """The entries of the log at `path` after dropping a torn tail from the file (fsynced), as
    a restart after a crash needs; CorruptLog for any other damage. Creates a missing file."""
    if not path.exists():
        _create(path)
        return []
    scan = scan_log(path)
    if scan.torn is not None:
        with path.open("r+b") as f:
            if scan.good_size < len(MAGIC):
                f.seek(0)
                f.write(MAGIC)
            f.truncate(max(scan.good_size, len(MAGIC)))
            f.flush()
            os.fsync(f.fileno())
    return scan.entries


def open_for_append(path: Path) -> BinaryIO:
    """`path` opened to append entries (see `append_entry`); creates it with its header if
    missing. Call `recover_log` first after a crash."""
    if not path.exists():
        _create(path)
    f = path.open("ab")
    if f.tell() < len(MAGIC):
        f.close()
        raise LocalProtocolError(  # untranslated: a caller's bug
            f"{path} has no complete log header: run recover_log first"
        )
    return f


def append_entry(f: BinaryIO, entry: Entry) -> None:
    """Append one entry's record to an open log file and make it durable (flush + fsync)."""
    f.write(encode_record(entry.wire))
    f.flush()
    os.fsync(f.fileno())


def write_log(path: Path, entries: Iterable[Entry]) -> None:
    """Write a whole log to `path` atomically (temporary file, fsync, rename); the entries must
    link (LocalProtocolError if not)."""
    records = [MAGIC]
    previous: Entry | None = None
    for entry in entries:
        problem = link_problem(previous, entry)
        if problem is not None:
            raise LocalProtocolError(  # untranslated: a caller's bug
                f"cannot write a log whose entries do not link: {problem}"
            )
        records.append(encode_record(entry.wire))
        previous = entry
    write_atomically(path, b"".join(records))


def _create(path: Path) -> None:
    write_atomically(path, MAGIC)


def write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace `path` by a file holding `data` (created with `mode`), so that a crash at any
    moment leaves either the old file or the new one: temporary file, fsync, rename, fsync dir."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)  # a crash's leftover: O_EXCL below then creates it with `mode`
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make the creation, renaming or removal of names in directory `path` durable (POSIX;
    Windows cannot open a directory as a file, and its file system journals names itself)."""
    if sys.platform == "win32":
        return
    dir_fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
