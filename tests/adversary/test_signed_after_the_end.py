"""Attack: a seat signs an entry after the game has ended (to reopen a finished or aborted game).
Its own signature proves it: `cfnet verify` names that seat, and only when the signature checks."""

from __future__ import annotations

from pathlib import Path

from adversary.forged import extend
from cfnet.logfile import read_log
from cfnet.table_sim import sim_identity
from cfnet.table_verify import verify_entries

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"


def test_an_entry_signed_after_the_end_names_its_signer() -> None:
    log = read_log(VECTOR)  # play_protocol_game(2, 1, ...): seat s holds sim_identity(1, s)
    for seat in range(2):
        verdict = verify_entries(extend(log, sim_identity(1, seat), seat, "play", {"round": 1}))
        assert verdict.blamed == seat and not verdict.valid
        assert verdict.problem == (
            f"entry 53 (seat {seat}, play): seat {seat} (bot{seat}) signed an entry after the"
            " game had ended"
        )


def test_another_seats_key_does_not_name_the_seat() -> None:
    log = read_log(VECTOR)
    verdict = verify_entries(extend(log, sim_identity(1, 0), 1, "play", {"round": 1}))
    assert verdict.blamed is None and verdict.finished
