"""protocol.md section 5: the complete 2-seat game log from fixed seeds, byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cfnet.identity import Identity
from cfnet.logfile import read_log, write_log
from cfnet.rules import RuleOptions
from cfnet.table_sim import play_protocol_game
from cfnet.table_verify import verify_entries

VECTOR = Path(__file__).parent / "vectors" / "game-2p-seed1.cfnlog"
TABLE_ID = "c136822e9040a9cebc01c6d7344dacfd"
GENESIS_HASH = "419f1b6ed96184f2116a6c9ae9ce3ed58895ddcc79a3cf8250c753869258c83a"
HEAD = "a85afa53128d18e244e18fb76e6ee5c6ba281733498d768dacee905ce6748722"
FILE_SHA256 = "e667c1cc62ea0cbb7a9988bcdf342e0994f7d64deafb505c831d984f231442e7"


def _shake(label: str, *parts: int, size: int) -> bytes:
    """The simulated peers' derivation, re-implemented from protocol.md's words."""
    data = label.encode() + b"".join(p.to_bytes(8, "big") for p in parts)
    return hashlib.shake_256(data).digest(size)


def test_vector_file() -> None:
    data = VECTOR.read_bytes()
    assert len(data) == 22946
    assert hashlib.sha256(data).hexdigest() == FILE_SHA256
    entries = read_log(VECTOR)
    assert len(entries) == 53
    assert entries[0].table_id.hex() == TABLE_ID
    assert entries[0].hash.hex() == GENESIS_HASH
    assert entries[-1].hash.hex() == HEAD
    verdict = verify_entries(entries)
    assert verdict.ok, verdict.problem
    assert [list(r.scores) for r in verdict.rounds] == [[0, 4]]
    assert verdict.rounds[0].starter == 0


def test_regenerated_from_the_seeds(tmp_path: Path) -> None:
    network = play_protocol_game(2, 1, RuleOptions(rounds=1), ("greedy",))
    path = tmp_path / "game.cfnlog"
    write_log(path, network.tables[0].entries)
    assert path.read_bytes() == VECTOR.read_bytes()


def test_sim_derivations_as_written() -> None:
    entries = read_log(VECTOR)
    assert entries[0].table_id == _shake("cfnet/v1/sim-table", 1, size=16)
    keys = [seat["key"] for seat in entries[0].body["seats"]]
    for s, key in enumerate(keys):
        assert Identity.from_seed(_shake("cfnet/v1/sim-identity", 1, s, size=32)).public == key
    reveals = [e for e in entries if e.kind == "reveal"]
    for entry in reveals:
        assert entry.body["seed"] == _shake("cfnet/v1/sim-entropy", 1, entry.seat, 0, size=32)
