"""The state directory: where it is, file modes, durable idempotent appends, torn-tail recovery,
atomic secrets, table locking and listing; a process SIGKILLed while writing loses nothing."""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cfnet.disk.home import default_home
from cfnet.disk.store import (
    LOCK_FILE,
    LOG_FILE,
    META_FILE,
    SECRETS_FILE,
    StoreError,
    TableMeta,
    TableStore,
    list_tables,
    load_identity,
    prepare_home,
    table_dir,
)
from cfnet.game.rules import RuleOptions
from cfnet.record.codec import encode_canonical
from cfnet.record.entry import GENESIS_PREV, Entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import encode_record, read_log

TABLE = bytes(range(16))
OTHER = bytes(range(16, 32))
KEYS = [Identity.from_seed(bytes([seat]) * 32) for seat in range(4)]


def chain(n: int, table_id: bytes = TABLE) -> list[Entry]:
    """n linked entries of a 4-seat table, signed in turn by seats 0..3."""
    entries: list[Entry] = []
    prev = GENESIS_PREV
    for seq in range(n):
        entry = sign_entry(KEYS[seq % 4], table_id, seq, prev, seq % 4, "move", {"n": seq})
        entries.append(entry)
        prev = entry.hash
    return entries


def meta(table_id: bytes = TABLE, name: str = "Kitchen", finished: bool = False) -> TableMeta:
    return TableMeta(
        table_id,
        name,
        seat=2,
        seats=4,
        rules=RuleOptions(rounds=3),
        addresses={0: ("10.0.0.1", 4000), 2: ("10.0.0.3", 4002)},
        finished=finished,
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_default_home_follows_the_platform_and_the_override() -> None:
    env = {"HOME": "/home/ada"}
    assert default_home(env, "linux") == Path("/home/ada/.local/share/cfnet")
    assert default_home(env | {"XDG_DATA_HOME": "/data"}, "linux") == Path("/data/cfnet")
    # The XDG spec says a relative path is invalid and must be ignored.
    assert default_home(env | {"XDG_DATA_HOME": "rel"}, "linux") == Path(
        "/home/ada/.local/share/cfnet"
    )
    assert default_home(env, "darwin") == Path("/home/ada/Library/Application Support/cfnet")
    assert default_home(env | {"CFNET_HOME": "/srv/cf"}, "darwin") == Path("/srv/cf")
    local = {"LOCALAPPDATA": "/users/ada/appdata/local"}
    assert default_home(env | local, "win32") == Path("/users/ada/appdata/local/cfnet")
    assert default_home(env, "win32") == Path("/home/ada/AppData/Local/cfnet")


def test_home_and_identity_are_private(tmp_path: Path) -> None:
    home = prepare_home(tmp_path / "a" / "cfnet")
    assert mode(home) == 0o700 and mode(home.parent) == 0o700
    identity = load_identity(home)
    assert mode(home / "identity.key") == 0o600
    assert load_identity(home).public == identity.public
    assert prepare_home(home) == home  # an existing directory is kept as it is


def test_table_files_are_private_and_reopen_gives_what_was_stored(tmp_path: Path) -> None:
    entries = chain(5)
    with TableStore.create(tmp_path, meta()) as store:
        assert all(store.append(e) for e in entries)
        store.save_secrets({"round": 1, "seed": b"\x09" * 32})
    path = table_dir(tmp_path, TABLE)
    assert mode(path) == 0o700 and mode(path.parent) == 0o700
    for name in (LOG_FILE, META_FILE, SECRETS_FILE, LOCK_FILE):
        assert mode(path / name) == 0o600, name
    with TableStore.open(tmp_path, TABLE) as store:
        saved = store.load()
    assert saved.entries == entries
    assert saved.meta == meta()
    assert saved.secrets == {"round": 1, "seed": b"\x09" * 32}
    assert read_log(path / LOG_FILE) == entries


def test_a_new_table_has_no_entries_and_no_secrets(tmp_path: Path) -> None:
    with TableStore.create(tmp_path, meta()) as store:
        saved = store.load()
    assert (saved.entries, saved.secrets) == ([], None)


def test_appending_again_after_a_restart_doubles_nothing(tmp_path: Path) -> None:
    entries = chain(4)
    with TableStore.create(tmp_path, meta()) as store:
        for e in entries[:3]:
            store.append(e)
    log = table_dir(tmp_path, TABLE) / LOG_FILE
    before = log.read_bytes()
    with TableStore.open(tmp_path, TABLE) as store:
        store.load()
        assert not store.append(entries[2])  # the last one, sent again after the restart
        assert not store.append(entries[0])
        assert log.read_bytes() == before
        assert store.append(entries[3])
        assert not store.append(entries[3])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().entries == entries


def test_append_refuses_what_does_not_belong(tmp_path: Path) -> None:
    entries = chain(3)
    forked = sign_entry(KEYS[1], TABLE, 1, entries[0].hash, 1, "move", {"n": "other"})
    with TableStore.create(tmp_path, meta()) as store:
        store.append(entries[0])
        store.append(entries[1])
        with pytest.raises(StoreError, match="different entry is already stored at seq 1"):
            store.append(forked)
        with pytest.raises(StoreError, match="seq 3 does not follow seq 1"):
            store.append(chain(4)[3])
        with pytest.raises(StoreError, match="entry of table"):
            store.append(chain(3, OTHER)[2])
        assert store.load().entries == entries[:2]


def test_append_needs_load_on_an_opened_table(tmp_path: Path) -> None:
    TableStore.create(tmp_path, meta()).close()
    with TableStore.open(tmp_path, TABLE) as store, pytest.raises(StoreError, match="load"):
        store.append(chain(1)[0])


def test_a_torn_log_tail_is_dropped_and_appending_goes_on(tmp_path: Path) -> None:
    entries = chain(4)
    with TableStore.create(tmp_path, meta()) as store:
        for e in entries[:3]:
            store.append(e)
    log = table_dir(tmp_path, TABLE) / LOG_FILE
    whole = log.stat().st_size
    with log.open("ab") as f:  # a crash half way through writing the fourth record
        f.write(encode_record(entries[3].wire)[:-7])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().entries == entries[:3]
        assert log.stat().st_size == whole
        assert store.append(entries[3])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().entries == entries


def test_a_crash_before_the_rename_leaves_the_old_secrets(tmp_path: Path) -> None:
    with TableStore.create(tmp_path, meta()) as store:
        store.save_secrets({"round": 1})
    path = table_dir(tmp_path, TABLE)
    # What write_atomically leaves when killed after writing its temporary file: that file.
    (path / (SECRETS_FILE + ".tmp")).write_bytes(encode_canonical({"round": 2})[:-1])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().secrets == {"round": 1}
        store.save_secrets({"round": 2})
        assert store.load().secrets == {"round": 2}
    assert mode(path / SECRETS_FILE) == 0o600
    assert not (path / (SECRETS_FILE + ".tmp")).exists()


def test_metadata_is_replaced_and_finished_tables_are_not_offered(tmp_path: Path) -> None:
    with TableStore.create(tmp_path, meta(name="kitchen")) as store:
        store.save_meta(meta(name="kitchen", finished=True))
        assert store.meta.finished
        with pytest.raises(StoreError, match="another table"):
            store.save_meta(meta(OTHER))
    TableStore.create(tmp_path, meta(OTHER, name="Attic")).close()
    assert [m.name for m in list_tables(tmp_path)] == ["Attic"]
    listed = list_tables(tmp_path, include_finished=True)
    assert [m.name for m in listed] == ["Attic", "kitchen"]
    with pytest.raises(StoreError, match="already exists"):
        TableStore.create(tmp_path, meta())


def test_listing_skips_what_is_not_a_whole_table(tmp_path: Path) -> None:
    assert list_tables(tmp_path) == []
    TableStore.create(tmp_path, meta()).close()
    tables = tmp_path / "tables"
    (tables / (OTHER.hex() + ".new")).mkdir()  # a crash while creating a table
    damaged = tables / bytes(16).hex()
    damaged.mkdir()
    (damaged / META_FILE).write_bytes(encode_canonical({"v": 1, "name": "x"}))
    assert [m.table_id for m in list_tables(tmp_path)] == [TABLE]
    with (
        TableStore.open(tmp_path, bytes(16)) as store,
        pytest.raises(StoreError, match="malformed table metadata: no field 'table_id'"),
    ):
        store.load()
    with pytest.raises(StoreError, match="no table"):
        TableStore.open(tmp_path, bytes(range(1, 17)))
    TableStore.create(tmp_path, meta(OTHER)).close()  # the leftover did not get in the way
    assert len(list_tables(tmp_path)) == 2


@pytest.mark.parametrize(
    "bad",
    [
        {"v": 2},
        meta().to_plain() | {"seat": 4},
        meta().to_plain() | {"table_id": b"short"},
        meta().to_plain() | {"addresses": [[0, "h", 70000]]},
        meta().to_plain() | {"addresses": [["0", "h", 1]]},
        meta().to_plain() | {"rules": {"rounds": "x"}},
        meta().to_plain() | {"strategy": "clever"},
        [],
    ],
)
def test_malformed_metadata_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="table metadata"):
        TableMeta.from_plain(bad)


def test_the_seat_strategy_is_kept_and_older_metadata_has_none() -> None:
    computer = TableMeta(TABLE, "Kitchen", 1, 3, RuleOptions(), strategy="random")
    assert TableMeta.from_plain(computer.to_plain()) == computer
    older = meta().to_plain()
    del older["strategy"]
    assert TableMeta.from_plain(older).strategy is None


def test_truncating_drops_superseded_entries_durably(tmp_path: Path) -> None:
    entries = chain(6)
    abort = sign_entry(KEYS[1], TABLE, 3, entries[2].hash, 1, "abort", {"n": 99})
    with TableStore.create(tmp_path, meta()) as store:
        for entry in entries[:5]:
            assert store.append(entry)
        store.append(entries[5], durable=False)
        store.truncate(7)  # nothing beyond what is stored: nothing to do
        with pytest.raises(StoreError, match="genesis"):
            store.truncate(0)
        store.truncate(3)
        path = table_dir(tmp_path, TABLE) / LOG_FILE
        assert read_log(path) == entries[:3]
        assert mode(path) == 0o600
        assert store.append(abort)  # what supersedes goes where the dropped entries were
        assert not store.append(abort)
        with pytest.raises(StoreError, match="different entry"):
            store.append(entries[3])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().entries == [*entries[:3], abort]
    # A crash in the middle of a truncation leaves its temporary file: the log is still whole.
    (path.with_name(LOG_FILE + ".tmp")).write_bytes(path.read_bytes()[:30])
    with TableStore.open(tmp_path, TABLE) as store:
        assert store.load().entries == [*entries[:3], abort]
        store.truncate(2)
        assert store.append(entries[2])
    assert read_log(path) == entries[:3]


def test_one_process_at_a_time_holds_a_table(tmp_path: Path) -> None:
    with (
        TableStore.create(tmp_path, meta()),
        pytest.raises(StoreError, match="in use by another cfnet process"),
    ):
        TableStore.open(tmp_path, TABLE)
    TableStore.open(tmp_path, TABLE).close()


_WRITER = textwrap.dedent(
    """
    import itertools, sys
    from pathlib import Path
    from cfnet.record.entry import sign_entry
    from cfnet.disk.store import TableStore
    from tests.test_store import KEYS, TABLE

    with TableStore.open(Path(sys.argv[1]), TABLE) as store:
        entries = store.load().entries
        prev = entries[-1].hash
        for i in itertools.count(len(entries)):  # the same entries as chain(), until killed
            entry = sign_entry(KEYS[i % 4], TABLE, i, prev, i % 4, "move", {"n": i})
            store.save_secrets({"i": i, "pad": bytes(2000)})
            store.append(entry)
            prev = entry.hash
            print("ready", flush=True)
    """
)


def test_a_writer_killed_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    with TableStore.create(tmp_path, meta()) as store:
        store.append(chain(1)[0])
    rng = random.Random(4)
    for _ in range(3):
        child = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        time.sleep(rng.random() * 0.02)  # the fault: SIGKILL at some moment of the writing
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        with TableStore.open(tmp_path, TABLE) as store:
            saved = store.load()
        n = len(saved.entries)
        assert saved.entries == chain(n)
        # Secrets i are saved before entry i is appended.
        assert saved.secrets["i"] in (n - 1, n)
