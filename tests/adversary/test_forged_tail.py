"""Attack: make `cfnet verify` blame a seat without its key, by appending one record that
claims the seat (linked, framed and encoded like any entry, but not signed by that seat's key)
to a complete, an aborted or a timed-out log. The verdict must not change: nobody is blamed for
a record whose signature does not check, and the junk is reported as such."""

from __future__ import annotations

from pathlib import Path

import pytest
from cheaters import plays_the_next_tile, run

from adversary.forged import extend
from cfnet.cli.main import main
from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.record.entry import Entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log, write_log

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"
FORGER = Identity.from_seed(bytes(range(32)))  # a key that holds no seat


def _cheated_log() -> tuple[list[Entry], int]:
    """2 seats: removing the cheater in round 1 leaves no game, so its log ends with the abort
    that blames it (version 3; in version 4 the seat still seated wins)."""
    network, _ = run(2, 6, 1, plays_the_next_tile, version=3)
    return list(network.tables[0].entries), 1


def _timed_out_log() -> list[Entry]:
    network = start_tables(2, 5, RuleOptions(rounds=1), timeout=30, version=3)  # one's claim
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody
    network.run()
    return list(network.tables[0].entries)


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("kind", ["play", "abort"])
def test_junk_after_a_complete_game_blames_nobody(
    seat: int, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = {"blamed": 1 - seat, "code": "timeout", "detail": "x", "evidence": {"seq": 53}}
    log = extend(read_log(VECTOR), FORGER, seat, kind, body if kind == "abort" else {"round": 1})
    verdict = verify_entries(log)
    assert verdict.blamed is None and verdict.valid and verdict.finished and not verdict.ok
    assert verdict.problem == (
        f"entry 53 (claims seat {seat}, {kind}) after the end is junk: it is not signed by the"
        " seat it names"
    )
    path = tmp_path / "tail.cflog"
    write_log(path, log)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "the game is complete and valid, but entry 53" in out
    assert "game over: seat 0 (bot0) wins" in out and "to blame" not in out


def test_junk_after_an_abort_leaves_the_cheater_blamed() -> None:
    log, cheat = _cheated_log()
    assert log[-1].kind == "abort"
    for seat in range(3):
        verdict = verify_entries(extend(log, FORGER, seat, "play", {"round": 1}))
        assert verdict.blamed == cheat, verdict.problem
        assert verdict.abort is not None and verdict.abort.seat == cheat
        assert verdict.after == "1 more entry follows, not judged"


def test_junk_after_a_timeout_claim_blames_nobody() -> None:
    log = _timed_out_log()
    for seat in range(2):
        verdict = verify_entries(extend(log, FORGER, seat, "accept", {"genesis": log[0].hash}))
        assert verdict.blamed is None and verdict.valid and not verdict.finished
        assert verdict.claim is not None and verdict.claim.seat == 1
        assert "after the end is junk" in verdict.after
