"""Attack: a seat signs an entry where another seat was due and puts it in the file (the live
table would take it as out-of-turn evidence). Its own signature proves it: `cfnet verify`
names that seat, and the same entry under a key that is not the seat's names nobody."""

from __future__ import annotations

from pathlib import Path

from adversary.forged import extend
from cfnet.protocol.table import OFFLINE, Table
from cfnet.protocol.testing import sim_identity
from cfnet.protocol.verify import verify_entries
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"


def test_an_entry_signed_out_of_turn_names_its_signer() -> None:
    log = read_log(VECTOR)  # play_protocol_game(2, 1, ...): seat s holds sim_identity(1, s)
    table = Table(log[0].wire, None, OFFLINE)
    for cut in range(1, 30):
        due = table.due()
        assert due is not None
        other = 1 - due[0]
        body = {"round": 1}
        verdict = verify_entries(extend(log[:cut], sim_identity(1, other), other, "pass", body))
        assert verdict.blamed == other, (cut, verdict.problem)
        assert "where seat" in verdict.problem and f"seat {due[0]} was due" in verdict.problem
        forged = verify_entries(extend(log[:cut], Identity.generate(), other, "pass", body))
        assert forged.blamed is None and forged.due == due[0], cut
        table.receive(log[cut].wire, OFFLINE)
