"""Attack: cut a valid log at a record boundary so that `cfnet verify` blames the seat due next.
A log that stops proves nothing against anyone: it is unfinished, with the seat that was due."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfnet.cli.main import main
from cfnet.protocol.table import OFFLINE, Table
from cfnet.protocol.verify import verify_entries
from cfnet.record.logfile import read_log, write_log

VECTOR = Path(__file__).parent.parent / "vectors" / "game-2p-seed1.cfnlog"


def test_every_cut_is_unfinished_and_blames_nobody() -> None:
    log = read_log(VECTOR)
    table = Table(log[0].wire, None, OFFLINE)
    for cut in range(1, len(log)):
        due = table.due()
        assert due is not None
        verdict = verify_entries(log[:cut])
        assert verdict.blamed is None and verdict.valid and not verdict.finished, cut
        assert verdict.due == due[0], cut
        assert f"seat {due[0]} (bot{due[0]}) was due to post" in verdict.problem
        table.receive(log[cut].wire, OFFLINE)


def test_the_command_says_unfinished_with_the_seat_due(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.cflog"
    write_log(path, read_log(VECTOR)[:20])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert (
        "unfinished: the log stops after entry 19: seat 0 (bot0) was due to post draw/pass/play"
        in out
    )
    assert "blame:" not in out and "INVALID" not in out
