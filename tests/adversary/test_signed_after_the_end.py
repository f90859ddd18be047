"""Attack: a seat signs an entry after the game has ended (to reopen a finished game, or to
spoil its result). A live table ignores it, so `cfnet verify` does too: the game's verdict and
result stand, nobody is blamed, and the file is reported as holding more than the game."""

from __future__ import annotations

from pathlib import Path

from adversary.forged import extend
from cfnet.protocol.table import OFFLINE, Table
from cfnet.protocol.testing import sim_identity
from cfnet.protocol.verify import verify_entries
from cfnet.record.logfile import read_log

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"


def test_an_entry_signed_after_the_end_changes_nothing() -> None:
    log = read_log(VECTOR)  # play_protocol_game(2, 1, ...): seat s holds sim_identity(1, s)
    honest = verify_entries(log)
    for seat in range(2):
        forged = extend(log, sim_identity(1, seat), seat, "play", {"round": 1})
        verdict = verify_entries(forged)
        assert verdict.blamed is None and verdict.valid and verdict.finished
        assert [r.totals for r in verdict.rounds] == [r.totals for r in honest.rounds]
        assert not verdict.ok, "the file holds more than the game"
        assert verdict.problem == (
            f"entry 53 (seat {seat}, play): seat {seat} (bot{seat}) signed an entry after the"
            " game had ended; it is not part of the game"
        )
        live = Table(log[0].wire, None, OFFLINE)
        for entry in forged[1:]:
            live.receive(entry.wire, OFFLINE)
        assert live.over and live.fault is None and live.entries == log


def test_another_seats_key_does_not_name_the_seat() -> None:
    log = read_log(VECTOR)
    verdict = verify_entries(extend(log, sim_identity(1, 0), 1, "play", {"round": 1}))
    assert verdict.blamed is None and verdict.finished
