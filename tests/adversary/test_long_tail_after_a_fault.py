"""Attack: hide a proven fault behind a long tail. After a seat's bad entry, colluding seats
append many validly signed entries (and maybe an abort naming someone else), so that the
verdict would depend on the tail's length. The first proven fault decides, whatever follows."""

from __future__ import annotations

from typing import Any

import pytest
from cheaters import Cheater, run

from adversary.forged import extend
from cfnet.protocol.testing import sim_identity
from cfnet.protocol.verify import verify_entries
from cfnet.record.entry import Entry

PLAYERS, SEED, CHEAT = 3, 6, 1


def _plays_a_wrong_tile(
    c: Cheater, kind: str, body: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    return (kind, {**body, "tile": (body["tile"] + 1) % 55}) if kind == "play" else None


def _up_to_the_fault() -> list[Entry]:
    network, cheater = run(PLAYERS, SEED, CHEAT, _plays_a_wrong_tile)
    assert cheater is not None and cheater.cheated_at is not None
    return list(network.tables[0].entries[: cheater.cheated_at + 1])


@pytest.mark.parametrize("tail", [0, 1, 2 * PLAYERS + 9, 5 * PLAYERS + 20])
def test_the_first_fault_decides_however_long_the_tail(tail: int) -> None:
    log = _up_to_the_fault()
    bad = log[-1].seq
    for k in range(tail):
        seat = (bad + 1 + k) % PLAYERS
        log = extend(log, sim_identity(SEED, seat), seat, "pass", {"round": 1})
    verdict = verify_entries(log)
    assert verdict.blamed == CHEAT and verdict.seq == bad, verdict.problem
    assert verdict.problem.startswith(f"entry {bad} (seat {CHEAT}, play): ")
    assert verdict.entries == bad + 1 + tail
    if tail:
        assert verdict.after.startswith(f"{tail} more entr")


def test_an_abort_after_the_tail_does_not_move_the_blame() -> None:
    log = _up_to_the_fault()
    bad = log[-1].seq
    for k in range(2 * PLAYERS + 9):
        seat = (bad + 1 + k) % PLAYERS
        log = extend(log, sim_identity(SEED, seat), seat, "pass", {"round": 1})
    body = {"blamed": 0, "code": "timeout", "detail": "late", "evidence": {"seq": log[-1].seq + 1}}
    log = extend(log, sim_identity(SEED, 2), 2, "abort", body)
    verdict = verify_entries(log)
    assert verdict.blamed == CHEAT and verdict.seq == bad
    assert verdict.claim is None
