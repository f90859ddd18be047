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
GENESIS_HASH = "e0be1e43f011247e78ea8bd6947018a8f94569ff33e398b49020a7d1da1fc9a3"
HEAD = "473d1ccca052e94f6162a79de1be90096a2d54600b746554921e0e23c5038351"
FILE_SHA256 = "bb9129d71d7242596743bd60af0450cdb085a2171fe44f97084005b98a50dece"


def _shake(label: str, *parts: int, size: int) -> bytes:
    """The simulated peers' derivation, re-implemented from protocol.md's words."""
    data = label.encode() + b"".join(p.to_bytes(8, "big") for p in parts)
    return hashlib.shake_256(data).digest(size)


def test_vector_file() -> None:
    data = VECTOR.read_bytes()
    assert len(data) == 40810
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
