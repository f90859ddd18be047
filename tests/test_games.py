"""`cfnet games` on real state directories (written by the store, as a game writes them), and
`cfnet verify` / `cfnet replay` given a table name or id from that list."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cheaters import plays_the_next_tile, run

from cfnet.cli.main import main
from cfnet.disk.saved_games import saved_games
from cfnet.disk.store import LOG_FILE, TableMeta, TableStore, table_dir
from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import Network, play_protocol_game, start_tables
from cfnet.record.entry import Entry


def save(home: Path, name: str, entries: list[Entry], rounds: int, when: float) -> Path:
    """Keep `entries` in `home` as seat 0's table `name`, last changed at `when`; its log."""
    meta = TableMeta(
        entries[0].table_id, name, 0, len(entries[0].body["seats"]), RuleOptions(rounds)
    )
    with TableStore.create(home, meta) as store:
        for entry in entries:
            store.append(entry)
    log = table_dir(home, meta.table_id) / LOG_FILE
    os.utime(log, (when, when))
    return log


def timed_out() -> Network:
    network = start_tables(2, 5, RuleOptions(rounds=1), timeout=30, version=3)  # one's claim
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody
    network.run()
    return network


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state directory holding four games: finished, unfinished, aborted, and two of the
    same name."""
    home = tmp_path_factory.mktemp("games") / "state"
    day = 1_764_500_000.0
    finished = play_protocol_game(3, 2, RuleOptions(rounds=2)).tables[0].entries
    save(home, "friday", list(finished), 2, day)
    save(
        home,
        "t4",
        list(play_protocol_game(2, 3, RuleOptions(rounds=2)).tables[0].entries[:70]),
        2,
        day + 60,
    )
    save(home, "late", list(timed_out().tables[0].entries), 1, day + 120)
    save(
        home,
        "twin",
        list(play_protocol_game(2, 7, RuleOptions(rounds=1)).tables[0].entries),
        1,
        day + 180,
    )
    save(
        home,
        "twin",
        list(play_protocol_game(2, 8, RuleOptions(rounds=1)).tables[0].entries),
        1,
        day + 240,
    )
    return home


def test_games_lists_newest_first_in_80_columns(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["games", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line[:4].isdigit()]
    assert [row.split()[3] for row in rows] == ["twin", "twin", "late", "t4", "friday"]
    friday = rows[-1].split(None, 5)
    assert friday[4] == "2/2" and friday[5].startswith("won by bot")
    assert rows[-2].endswith("  unfinished")
    assert "aborted: bot1 timed out" in rows[2]
    assert "players: bot0, bot1, bot2" in out
    for line in out.splitlines():
        assert len(line) <= 80 or line.startswith("  log: "), line
    logs = [line.removeprefix("  log: ") for line in out.splitlines() if line.startswith("  log:")]
    assert len(logs) == 5 and all(Path(log).is_file() for log in logs)


def test_an_empty_state_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--home", str(tmp_path)]) == 0
    assert "no saved games in" in capsys.readouterr().out


def table_id(home: Path, name: str) -> list[str]:
    """The ids of the saved tables called `name`, newest first."""
    ids = [(log.stat().st_mtime, log.parent.name) for log in home.glob(f"tables/*/{LOG_FILE}")]
    named = [i for _, i in sorted(ids, reverse=True) if _meta_name(home, i) == name]
    return named


def _meta_name(home: Path, hex_id: str) -> str:
    from cfnet.disk.store import list_tables

    (meta,) = [m for m in list_tables(home, True) if m.table_id.hex() == hex_id]
    return meta.name


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_a_saved_game_by_table_name_or_id(
    home: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (friday,) = table_id(home, "friday")
    assert main([command, "FRIDAY", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "game over:" in out if command == "replay" else friday in out
    newer, _ = table_id(home, "twin")
    assert main([command, newer[:6], "--home", str(home)]) == 0
    if command == "verify":
        assert newer in capsys.readouterr().out


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_an_ambiguous_or_unknown_name_says_so_in_one_line(
    home: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    newer, older = table_id(home, "twin")
    assert main([command, "twin", "--home", str(home)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"cfnet {command}: 2 saved games are named 'twin': ")
    assert newer[:8] in captured.err and older[:8] in captured.err
    assert captured.err.rstrip().endswith("give the id instead")
    assert main([command, "zzz", "--home", str(home)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err == (
        f"cfnet {command}: no file 'zzz', and no saved game with that table name or id"
        " (saved games: friday, late, t4, twin; see cfnet games)\n"
    )


def test_a_game_a_player_resigned_before_a_round_was_scored_is_won_by_the_other(
    tmp_path: Path,
) -> None:
    """Leaving concedes (version 4): the seat still seated wins, with no round scored."""
    network = start_tables(2, 9, RuleOptions(rounds=1))
    network.run(until=lambda: network.tables[0].public is not None)
    network.tables[1].resign()
    network.run()
    save(tmp_path, "left", list(network.tables[0].entries), 1, 1_764_500_000.0)
    (saved,) = saved_games(tmp_path)
    assert saved.finished and saved.result() == "won by bot0, 0 points (bot1 resigned)"


def test_a_version_3_game_a_player_resigned_is_listed_as_ended_by_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = start_tables(2, 9, RuleOptions(rounds=1), version=3)
    network.run(until=lambda: network.tables[0].public is not None)
    network.tables[1].resign()
    network.run()
    save(tmp_path, "left", list(network.tables[0].entries), 1, 1_764_500_000.0)
    assert main(["games", "--home", str(tmp_path)]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line[:4].isdigit()]
    assert row.endswith("ended: bot1 resigned")


def test_a_two_seat_game_a_player_left_after_a_round_is_listed_with_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = start_tables(2, 9, RuleOptions(rounds=3))
    network.run(until=lambda: network.tables[0].game.round_number == 2)
    network.tables[1].resign()
    network.run()
    game = network.tables[0].game
    assert network.tables[0].over and len(game.round_scores) == 1
    save(tmp_path, "left", list(network.tables[0].entries), 3, 1_764_500_000.0)
    (winner,) = game.winners()
    points = game.totals[winner]
    result = f"won by bot{winner}, {points} point{'s' * (points != 1)} (bot1 resigned)"
    (saved,) = saved_games(tmp_path)
    assert saved.finished and saved.result() == result
    assert main(["games", "--home", str(tmp_path)]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line[:4].isdigit()]
    assert f"1/3  {result}"[:30] in row  # the row fits 80 columns: the end may be cut


def test_a_game_that_went_on_without_a_removed_cheater_is_listed_with_its_result(
    tmp_path: Path,
) -> None:
    """3 seats, 2 rounds: seat 1 plays a tile it does not hold in round 1 and is removed; the
    two others play both rounds. The list shows every round played, the winner among them by
    the totals the log proves, and the cheater disqualified."""

    network, _ = run(3, 6, 1, plays_the_next_tile, rounds=2)
    table = network.tables[0]
    assert table.over and table.game.disqualified == {1}
    save(tmp_path, "caught", list(table.entries), 2, 1_764_500_000.0)
    (saved,) = saved_games(tmp_path)
    (winner,) = table.game.winners()
    points = table.game.totals[winner]
    assert (saved.rounds, saved.totals) == (2, table.game.totals)
    assert saved.finished and saved.result() == (
        f"won by bot{winner}, {points} point{'s' * (points != 1)} (bot1 disqualified)"
    )
