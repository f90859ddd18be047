"""`cfnet verify` and `cfnet replay` on valid, cheated, truncated and damaged logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cheaters import Cheater, resign, run

from cfnet.cli import main
from cfnet.logfile import write_log
from cfnet.rules import RuleOptions
from cfnet.table_sim import play_protocol_game, start_tables

VECTOR = Path(__file__).parent / "vectors" / "game-2p-seed1.cfnlog"


def test_valid_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(VECTOR)]) == 0
    out = capsys.readouterr().out
    assert "round 1: scores [0, 4]" in out
    assert "winner: seat 0 (bot0)" in out
    assert "the log is valid" in out


def test_cheated_log_names_the_cheater(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def rewrite(c: Cheater, kind: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        return (kind, {**body, "tile": (body["tile"] + 1) % 55}) if kind == "play" else None

    network, cheater = run(3, 6, 1, rewrite)
    assert cheater is not None and cheater.cheated_at is not None
    path = tmp_path / "cheat.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"INVALID: entry {cheater.cheated_at} (seat 1, play)" in out
    assert "to blame: seat 1 (bot1)" in out
    assert "abort: seat 1" in out


def test_truncated_log_names_the_seat_due(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = play_protocol_game(2, 3, RuleOptions(rounds=1)).tables[0].entries
    path = tmp_path / "short.cfnlog"
    write_log(path, entries[:5])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "the log ends after entry 4: seat 1 was due to post shuffle_b" in out
    assert "to blame: seat 1" in out


def test_a_timeout_abort_is_a_claim_not_a_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = start_tables(2, 5, RuleOptions(rounds=1), timeout=30)
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody
    network.run()
    entries = network.tables[0].entries
    assert entries[-1].kind == "abort" and entries[-1].body["code"] == "timeout"
    path = tmp_path / "timeout.cfnlog"
    write_log(path, entries)
    assert main(["verify", str(path)]) == 1  # the game did not finish
    out = capsys.readouterr().out
    assert "INVALID: seat 0 claims seat 1 did not post its accept within 30 s (timeout)" in out
    assert "seat 0 (bot0) claims seat 1 (bot1) did not post in time; this cannot be" in out
    assert "blame" not in out


def test_forged_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cfnet.table_sim import sim_identity

    entries = list(play_protocol_game(2, 3, RuleOptions(rounds=1)).tables[0].entries)
    forged = resign(sim_identity(3, 0), entries[3])  # seat 1's entry signed with seat 0's key
    path = tmp_path / "forged.cfnlog"
    write_log(path, [*entries[:3], forged])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "entry 3 (seat 1, shuffle_a): entry 3: the signature is not seat 1's" in out
    assert "no seat can be proven at fault" in out


def test_damaged_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(VECTOR.read_bytes())
    data[500] ^= 0xFF
    path = tmp_path / "damaged.cfnlog"
    path.write_bytes(bytes(data))
    assert main(["verify", str(path)]) == 1
    assert "record damaged" in capsys.readouterr().err


def test_replay(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(VECTOR), "--round", "1", "--to", "3"]) == 0
    out = capsys.readouterr().out
    assert "== round 1: centre [9|9]; seat 0 (bot0) starts" in out
    assert "3. seat 0 (bot0):" in out and "4. " not in out
    assert main(["replay", str(VECTOR)]) == 0
    out = capsys.readouterr().out
    assert "hands as revealed" in out and "game over: totals [0, 4]" in out


def test_selfplay_protocol_writes_a_valid_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.cfnlog"
    args = ["selfplay", "--protocol", "--players", "3", "--seed", "2", "--rule", "rounds=1"]
    assert main([*args, "--bots", "random", "--log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "every peer's log identical: yes" in out and f"log written to {path}" in out
    assert main(["verify", str(path)]) == 0
    assert main(["selfplay", "--log", str(path)]) == 2
