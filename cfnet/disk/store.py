"""The state directory: identity key, and per table its log, round secrets and metadata.

home/identity.key (0600); home/tables/<table id hex>/ (0700) holds table.cflog, secrets.msgpack,
meta.msgpack and lock (all 0600). Every write is durable before it returns: a log append is
fsynced, secrets and metadata are replaced atomically. One process at a time holds a table
(an exclusive lock on its lock file: cfnet.disk.locking). Plain blocking file I/O: no asyncio,
no network.
Each operation that opens files runs with the descriptors kept in reserve for it freed
(cfnet.disk.limits.keep_spare_descriptors), so that a descriptor table filled by network
connections cannot keep a seat from saving.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, ParamSpec, TypeVar

from cfnet.disk.home import default_home
from cfnet.disk.limits import SPARE
from cfnet.disk.locking import try_lock
from cfnet.errors import LocalProtocolError, describe
from cfnet.game.bots import BOT_STRATEGIES
from cfnet.game.rules import RuleOptionError, RuleOptions
from cfnet.lang import _
from cfnet.record.binary_open import O_BINARY
from cfnet.record.codec import DecodeError, Plain, decode_bounded, encode_canonical
from cfnet.record.entry import TABLE_ID_BYTES, Entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import (
    MAGIC,
    RECORD_HEADER_BYTES,
    RECORD_TRAILER_BYTES,
    encode_record,
    fsync_dir,
    link_problem,
    open_for_append,
    recover_log,
    write_atomically,
)
from cfnet.record.logfile import append_entry as _append_record

log = logging.getLogger("cfnet.disk.store")

IDENTITY_FILE = "identity.key"
TABLES_DIR = "tables"
LOG_FILE = "table.cflog"
SECRETS_FILE = "secrets.msgpack"
META_FILE = "meta.msgpack"
LOCK_FILE = "lock"
META_VERSION = 1
DIR_MODE = 0o700
FILE_MODE = 0o600

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _with_spare(operation: Callable[_P, _R]) -> Callable[_P, _R]:
    """A store operation that opens files: it runs with the spare descriptors freed."""

    @functools.wraps(operation)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with SPARE.freed():
            return operation(*args, **kwargs)

    return run


class StoreError(LocalProtocolError):
    """A state-directory file or table that cannot be used as asked: which one and why."""


def prepare_home(home: Path | None = None) -> Path:
    """The state directory `home` (None: default_home()), created mode 0700 if missing."""
    path = (home or default_home()).expanduser().absolute()
    _make_dir(path, parents=True)
    return path


def load_identity(home: Path) -> Identity:
    """This peer's identity key in `home`, created (mode 0600) on first use."""
    return Identity.load_or_create(home / IDENTITY_FILE)


def _make_dir(path: Path, parents: bool = False) -> None:
    """Create `path` (and missing parents) mode 0700 regardless of the umask; durable."""
    if path.is_dir():
        return
    if parents and not path.parent.is_dir():
        _make_dir(path.parent, parents=True)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise StoreError(_("{path} exists and is not a directory").format(path=path)) from None
        return
    os.chmod(path, DIR_MODE)
    fsync_dir(path.parent)


@dataclass(frozen=True, slots=True)
class TableMeta:
    """What `cfnet resume` needs besides the log: the table, my seat, where the peers were,
    and who plays the seat (`strategy`: a computer strategy, None for a person).

    `addresses` maps every seat (mine too: where I listened) to its last known (host, port)."""

    table_id: bytes
    name: str
    seat: int
    seats: int
    rules: RuleOptions
    addresses: dict[int, tuple[str, int]] = field(default_factory=dict)
    finished: bool = False
    strategy: str | None = None  # the computer strategy playing the seat (None: a person)

    def to_plain(self) -> dict[str, Plain]:
        return {
            "v": META_VERSION,
            "table_id": self.table_id,
            "name": self.name,
            "seat": self.seat,
            "seats": self.seats,
            "rules": self.rules.to_plain(),
            "addresses": [[s, host, port] for s, (host, port) in sorted(self.addresses.items())],
            "finished": self.finished,
            "strategy": self.strategy,
        }

    @classmethod
    def from_plain(cls, plain: Plain) -> TableMeta:
        """The metadata in `to_plain` form; ValueError saying what is wrong otherwise."""
        if type(plain) is not dict or plain.get("v") != META_VERSION:
            raise ValueError(f"not version-{META_VERSION} table metadata")
        try:
            table_id, name, seat, seats = (plain[k] for k in ("table_id", "name", "seat", "seats"))
            rows, finished = plain["addresses"], plain["finished"]
            strategy = plain.get("strategy")  # absent in files written before it was kept
            rules = RuleOptions.from_plain(plain["rules"])
        except KeyError as exc:
            raise ValueError(f"malformed table metadata: no field {exc}") from None
        except RuleOptionError as exc:
            raise ValueError(f"malformed table metadata: {exc}") from None
        if not (
            type(table_id) is bytes
            and len(table_id) == TABLE_ID_BYTES
            and type(name) is str
            and type(seat) is int
            and type(seats) is int
            and 0 <= seat < seats
            and type(finished) is bool
            and (strategy is None or strategy in BOT_STRATEGIES)
            and type(rows) is list
            and all(_is_address_row(row, seats) for row in rows)
        ):
            raise ValueError("malformed table metadata: a field has the wrong type or range")
        addresses = {s: (host, port) for s, host, port in rows}
        assert strategy is None or isinstance(strategy, str)
        return cls(table_id, name, seat, seats, rules, addresses, finished, strategy)


def _is_address_row(row: Plain, seats: int) -> bool:
    """Whether `row` is [seat, host, port] with a seat of the table and a TCP port."""
    return (
        type(row) is list
        and len(row) == 3
        and type(row[0]) is int
        and 0 <= row[0] < seats
        and type(row[1]) is str
        and type(row[2]) is int
        and 0 <= row[2] <= 0xFFFF
    )


@dataclass(frozen=True, slots=True)
class Saved:
    """A table as it stood on disk: its metadata, log entries (linked, signatures not yet
    checked) and the round secrets last saved (None if none were)."""

    meta: TableMeta
    entries: list[Entry]
    secrets: Plain


def table_dir(home: Path, table_id: bytes) -> Path:
    """Where the table `table_id` is kept in `home`."""
    if len(table_id) != TABLE_ID_BYTES:
        raise StoreError(  # untranslated: a caller's bug, never a person's doing
            f"a table id is {TABLE_ID_BYTES} bytes, not {len(table_id)}"
        )
    return home / TABLES_DIR / table_id.hex()


def list_tables(home: Path, include_finished: bool = False) -> list[TableMeta]:
    """The tables kept in `home` (unfinished ones unless `include_finished`), by name then id.
    A table directory whose metadata cannot be read is skipped with a logged warning."""
    found: list[TableMeta] = []
    tables = home / TABLES_DIR
    if not tables.is_dir():
        return found
    for path in tables.iterdir():
        if len(path.name) != 2 * TABLE_ID_BYTES or not path.is_dir():
            continue  # not a table (e.g. one being created)
        try:
            meta = _read_meta(path / META_FILE)
        except StoreError as exc:
            log.warning("skipping %s: %s", path, exc)
            continue
        if include_finished or not meta.finished:
            found.append(meta)
    return sorted(found, key=lambda m: (m.name.casefold(), m.table_id))


def _read_plain(path: Path) -> Plain:
    try:
        return decode_bounded(path.read_bytes())
    except (OSError, DecodeError) as exc:
        unreadable = _("{path}: cannot be read: {error}")
        raise StoreError(unreadable.format(path=path, error=describe(exc))) from exc


def _read_meta(path: Path) -> TableMeta:
    plain = _read_plain(path)
    try:
        return TableMeta.from_plain(plain)
    except ValueError as exc:
        raise StoreError(f"{path}: {exc}") from exc


def _record_size(entry: Entry) -> int:
    """The size of `entry`'s record in a log file."""
    return RECORD_HEADER_BYTES + len(entry.wire) + RECORD_TRAILER_BYTES


class TableStore:
    """One table's directory, held by this process until `close()` (a context manager).

    `create` makes a new table, `open` an existing one; `load()` recovers and reads it (call it
    before `append` on an opened table); `append` writes one entry durably; `truncate` drops
    the entries an abort superseded."""

    def __init__(self, path: Path, table_id: bytes, lock: BinaryIO) -> None:
        self.path = path
        self.table_id = table_id
        self._lock = lock
        self._log: BinaryIO | None = None
        self._entries: list[Entry] = []  # the stored entries, by seq
        self._ends: list[int] = []  # the file offset just after each stored entry's record

    @classmethod
    @_with_spare
    def create(cls, home: Path, meta: TableMeta) -> TableStore:
        """A new table directory for `meta` (empty log, no secrets), ready to append to.

        It is built under a temporary name and renamed into place, so `list_tables` never sees
        half of it; StoreError if the table already exists."""
        final = table_dir(home, meta.table_id)
        if final.exists():
            exists = _("table {id} already exists in {home}")
            raise StoreError(exists.format(id=meta.table_id.hex(), home=home))
        _make_dir(final.parent, parents=True)
        building = final.with_name(final.name + ".new")
        if building.exists():  # a crash while creating left it: it never held anything
            for leftover in building.iterdir():
                leftover.unlink()
            building.rmdir()
        _make_dir(building)
        write_atomically(building / META_FILE, encode_canonical(meta.to_plain()), FILE_MODE)
        write_atomically(building / LOG_FILE, MAGIC, FILE_MODE)
        building.rename(final)
        fsync_dir(final.parent)
        store = cls.open(home, meta.table_id)
        store.load()
        return store

    @classmethod
    @_with_spare
    def open(cls, home: Path, table_id: bytes) -> TableStore:
        """The table `table_id` kept in `home`, locked for this process; StoreError if it is
        not there or another process holds it."""
        path = table_dir(home, table_id)
        if not (path / META_FILE).is_file():
            raise StoreError(_("no table {id} in {home}").format(id=table_id.hex(), home=home))
        flags = os.O_RDWR | os.O_CREAT | O_BINARY
        lock = os.fdopen(os.open(path / LOCK_FILE, flags, FILE_MODE), "r+b")
        if not try_lock(lock):
            lock.close()
            raise StoreError(
                _("table {id} is in use by another cfnet process; stop it first").format(
                    id=table_id.hex()
                )
            ) from None
        return cls(path, table_id, lock)

    @_with_spare
    def load(self) -> Saved:
        """The table as it stands on disk, after dropping a torn log tail (the one a crash
        while appending leaves); logfile.CorruptLog for any other damage to the log."""
        meta = self.meta
        entries = recover_log(self.path / LOG_FILE)
        secrets_path = self.path / SECRETS_FILE
        secrets = _read_plain(secrets_path) if secrets_path.exists() else None
        if entries and entries[0].table_id != self.table_id:
            raise StoreError(
                _("{file} holds another table's log").format(file=self.path / LOG_FILE)
            )
        self._entries = list(entries)
        self._ends = []
        end = len(MAGIC)
        for entry in entries:
            end += _record_size(entry)
            self._ends.append(end)
        if self._log is None:
            self._log = open_for_append(self.path / LOG_FILE)
        return Saved(meta, entries, secrets)

    @property
    @_with_spare
    def meta(self) -> TableMeta:
        """The metadata as last saved."""
        return _read_meta(self.path / META_FILE)

    @_with_spare
    def check_log(self, wires: list[bytes]) -> None:
        """LocalProtocolError unless the log file holds exactly the entries `wires`, in order
        (the chain a table checked as it came)."""
        chain = MAGIC + b"".join(encode_record(wire) for wire in wires)
        path = self.path / LOG_FILE
        if path.read_bytes() != chain:
            raise LocalProtocolError(
                _("{file} differs from the chain checked here").format(file=path)
            )

    def count(self) -> int:
        """How many entries the log holds (stored by `append` or found by `load`)."""
        return len(self._entries)

    def since(self, count: int) -> list[bytes]:
        """The wire bytes of the stored entries from position `count` on, in log order."""
        return [entry.wire for entry in self._entries[count:]]

    @_with_spare
    def save_meta(self, meta: TableMeta) -> None:
        """Replace the metadata atomically (e.g. new peer addresses, or finished=True)."""
        if meta.table_id != self.table_id:
            raise StoreError(  # untranslated: a caller's bug
                "metadata of another table cannot be saved here"
            )
        write_atomically(self.path / META_FILE, encode_canonical(meta.to_plain()), FILE_MODE)

    @_with_spare
    def save_secrets(self, secrets: Plain) -> None:
        """Replace the round secrets (opaque plain data) atomically, mode 0600. Save them
        before appending the entry that commits to them."""
        write_atomically(self.path / SECRETS_FILE, encode_canonical(secrets), FILE_MODE)

    def append(self, entry: Entry, *, durable: bool = True) -> bool:
        """Write `entry` to the log and fsync it; False (nothing written) if this very entry is
        already stored, as after a restart. StoreError if it does not follow the last entry or
        a different entry is stored at its seq. After an OSError, call load() to go on.

        `durable=False` only flushes it to the OS (a peer's entry, which can be fetched again):
        a process crash keeps it, the next durable append makes it durable too."""
        if self._log is None:
            raise StoreError(  # untranslated: a caller's bug
                "call load() before append() (again after a failed append)"
            )
        if entry.table_id != self.table_id:
            raise StoreError(  # untranslated: a caller's bug
                f"entry of table {entry.table_id.hex()} in {self.table_id.hex()}"
            )
        if entry.seq < len(self._entries):
            if self._entries[entry.seq].wire == entry.wire:
                return False
            raise StoreError(  # untranslated: a caller's bug (the table took the entry)
                f"a different entry is already stored at seq {entry.seq}"
            )
        problem = link_problem(self._entries[-1] if self._entries else None, entry)
        if problem is not None:
            raise StoreError(  # untranslated: a caller's bug (the table checked the link)
                f"cannot append: {problem}"
            )
        try:
            if durable:
                _append_record(self._log, entry)
            else:
                self._log.write(encode_record(entry.wire))
                self._log.flush()
        except OSError:  # e.g. a full disk: the record may be torn; load() drops it
            self._close_log()
            raise
        self._entries.append(entry)
        self._ends.append((self._ends[-1] if self._ends else len(MAGIC)) + _record_size(entry))
        return True

    @_with_spare
    def truncate(self, count: int) -> None:
        """Keep only the first `count` stored entries (an abort superseded the rest), durably:
        the kept records go to a temporary file that is fsynced and renamed over the log, so a
        crash at any moment leaves the old log or the new one. Nothing to do if no more are
        stored; StoreError for a count below 1 (the genesis stays)."""
        if self._log is None:
            raise StoreError("call load() before truncate()")  # untranslated: a caller's bug
        if count >= len(self._entries):
            return
        if count < 1:
            raise StoreError(  # untranslated: a caller's bug
                "the genesis cannot be dropped from a table's log"
            )
        path = self.path / LOG_FILE
        self._log.flush()
        with path.open("rb") as f:
            kept = f.read(self._ends[count - 1])
        self._close_log()
        write_atomically(path, kept, FILE_MODE)
        self._log = open_for_append(path)
        del self._entries[count:]
        del self._ends[count:]

    def close(self) -> None:
        """Close the log and release the table for other processes."""
        self._close_log()
        with contextlib.suppress(OSError):
            self._lock.close()

    def _close_log(self) -> None:
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None

    def __enter__(self) -> TableStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
