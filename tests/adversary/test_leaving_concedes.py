"""Attack: a 2-seat leader locks in its win (issue 23). It resigns when it dislikes its hand,
and the game ends with the rounds already scored: in version 3 that turned losses into wins
that `verify` confirmed. In version 4 leaving concedes (RULES.md): a player who left ranks
below every player still seated, whatever the totals, live, in `verify` (text and --json), in
`games` and in `export`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cfnet.cli.main import main
from cfnet.disk.saved_games import saved_games
from cfnet.disk.store import LOG_FILE, TableMeta, TableStore, table_dir
from cfnet.game.rules import RuleOptions
from cfnet.protocol.schedule import Step
from cfnet.protocol.testing import Network, play_protocol_game, start_tables
from cfnet.record.logfile import write_log

ROUNDS = 3


def _leader_resigns_in_round_2(seed: int, version: int) -> tuple[Network, int]:
    """A 2-seat game in which the seat ahead after round 1 (the lower total) resigns as soon
    as round 2's hands are dealt; the leader's seat."""
    network = start_tables(2, seed, RuleOptions(rounds=ROUNDS), timeout=60, version=version)
    host = network.tables[0]
    network.run(
        until=lambda: host.round is not None and host.round.number == 2 and host.step is Step.TURNS
    )
    totals = host.game.totals
    assert totals[0] != totals[1], "a seed with a leader"
    leader = totals.index(min(totals))
    network.tables[leader].resign()
    network.run()
    return network, leader


@pytest.mark.parametrize("seed", [3, 5, 8])
def test_a_two_seat_leader_who_resigns_concedes(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network, leader = _leader_resigns_in_round_2(seed, 4)
    other = 1 - leader
    for table in network.tables:
        game = table.game
        assert table.over and len(game.round_scores) == 1
        assert game.totals[leader] < game.totals[other]  # ahead on points, and yet
        assert game.winners() == (other,) and game.conceded == {leader}
        assert game.ranking() == ((other,), (leader,))
    log = tmp_path / "left.cfnlog"
    write_log(log, network.tables[0].entries)
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"game over: seat {other} (bot{other}) wins" in out, out
    assert f"seat {leader} (bot{leader}) conceded" in out
    assert main(["verify", "--json", str(log)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["winners"] == [other] and verdict["conceded"] == [leader]
    record_path = tmp_path / "left.json"
    assert main(["export", str(log), "--output", str(record_path)]) == 0
    record = json.loads(record_path.read_text())
    assert record["winners"] == [other] and record["conceded"] == [leader]
    home = tmp_path / "state"
    entries = network.tables[0].entries
    meta = TableMeta(entries[0].table_id, "left", 0, 2, RuleOptions(ROUNDS))
    with TableStore.create(home, meta) as store:
        for entry in entries:
            store.append(entry)
    os.utime(table_dir(home, meta.table_id) / LOG_FILE, (1_764_500_000.0,) * 2)
    (saved,) = saved_games(home)
    assert saved.result().startswith(f"won by bot{other}, "), saved.result()


def test_in_version_3_the_leader_locked_in_a_game_it_would_have_lost() -> None:
    """What the attack did to version 3 (seed 3: one of the losses that became wins)."""
    full = play_protocol_game(2, 3, RuleOptions(rounds=ROUNDS), version=3)
    network, leader = _leader_resigns_in_round_2(3, 3)
    assert leader not in full.tables[0].game.winners()
    assert network.tables[0].game.winners() == (leader,)
