"""scripts/tournament.py as a script that reads it would run it: its last lines, one per
strategy, say `STRATEGY won P% of games`; the shares add up; seeds and rollouts reproduce it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent.parent / "scripts" / "tournament.py"
WON = re.compile(r"^(\S+) won (\d+\.\d)% of games ")


def tournament(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def won_lines(out: str, strategies: int) -> list[str]:
    return out.strip().splitlines()[-strategies:]


def test_the_last_lines_give_each_strategys_share_of_the_games_won() -> None:
    args = ["--players", "3", "--games", "6", "--seed", "4", "--rule", "rounds=2"]
    args += ["--strategies", "expert,random", "--rollouts", "20", "--workers", "1"]
    run = tournament(*args)
    assert run.returncode == 0, run.stderr
    lineup = "6 games (2 deal sets x 3 seat rotations), 3 players: expert, random, random"
    assert lineup in run.stdout
    assert "deal set 2/2 played (6 games" in run.stderr
    lines = won_lines(run.stdout, 2)
    shares = {}
    for line in lines:
        match = WON.match(line)
        assert match, line
        shares[match[1]] = float(match[2])
    assert list(shares) == ["expert", "random"]
    # expert holds one seat of 3 in every game, random two: the wins (shared ones split) of
    # every game add up to one game.
    assert abs(shares["expert"] + 2 * shares["random"] - 100) < 0.2
    assert "(each of 2 seats)" in lines[1]
    again = tournament(*args)
    assert [line.split("; time per decision")[0] for line in won_lines(again.stdout, 2)] == [
        line.split("; time per decision")[0] for line in lines
    ]


def test_an_unknown_strategy_is_refused_with_the_known_ones() -> None:
    run = tournament("--players", "2", "--games", "2", "--strategies", "expert,psychic")
    assert run.returncode == 2
    assert "psychic" in run.stderr and "greedy" in run.stderr and "expert" in run.stderr


def test_a_saved_run_continues_where_it_stopped_and_grows(tmp_path: Path) -> None:
    save = tmp_path / "run.jsonl"
    base = ["--players", "2", "--seed", "9", "--rule", "rounds=2", "--strategies", "expert,greedy"]
    base += ["--rollouts", "20", "--workers", "1", "--save", str(save)]
    whole = tournament(*base, "--games", "6")
    assert whole.returncode == 0, whole.stderr
    save.unlink()
    first = tournament(*base, "--games", "2")
    assert first.returncode == 0, first.stderr
    with save.open("a") as file:
        file.write('{"run": {"seed": 9, "lin')  # killed while writing a line
    rest = tournament(*base, "--games", "6")
    assert rest.returncode == 0, rest.stderr
    assert "1 deal sets already played" in rest.stderr
    assert "deal set 2/3 played" in rest.stderr and "deal set 1/3" not in rest.stderr
    assert "1 deal sets from" in rest.stdout
    assert (
        won_lines(rest.stdout, 2)[0].split("; time")[0]
        == (won_lines(whole.stdout, 2)[0].split("; time")[0])
    )
    assert len(save.read_text().splitlines()) == 3
    # The report of the resumed run is made from the file's records: its expert line gives the
    # decision times the file holds (each seat's count, sum and worst, not a list of them).
    seats = [
        seat
        for line in save.read_text().splitlines()
        for game in json.loads(line)["games"]
        for seat in game
        if seat["spec"] == "expert"
    ]
    count = sum(seat["times"]["count"] for seat in seats)
    mean = sum(seat["times"]["total"] for seat in seats) / count
    worst = max(seat["times"]["worst"] for seat in seats)
    assert count > 0
    assert f"time per decision mean {mean * 1000:.1f} ms" in won_lines(rest.stdout, 2)[0]
    assert f"worst {worst * 1000:.0f} ms" in won_lines(rest.stdout, 2)[0]
    other = tournament(*base[:3], "10", *base[4:], "--games", "2")
    assert other.returncode == 2
    assert "other settings" in other.stderr and "another --save file" in other.stderr
