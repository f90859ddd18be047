"""`cfnet selfplay`: complete games, reproducible results, clear errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cfnet.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["selfplay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_selfplay_prints_wins_scores_blocked_share_and_speed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "--players", "3", "--games", "4", "--seed", "9", "--bots", "greedy,random"
    )
    assert code == 0
    rows = out.splitlines()
    assert rows[0] == "4 games, 3 players, seed 9, rounds=10 start_trains=N double_blank_50=off"
    assert rows[1].split() == ["seat", "bot", "wins", "mean", "score"]
    assert [row.split()[1] for row in rows[2:5]] == ["greedy", "random", "greedy"]
    assert sum(int(row.split()[2]) for row in rows[2:5]) >= 4
    assert rows[6].startswith("blocked rounds: ") and "of 40 (" in rows[6]
    assert rows[7].startswith("speed: ") and rows[7].endswith(" games/s")


def test_same_arguments_same_output_apart_from_speed(capsys: pytest.CaptureFixture[str]) -> None:
    args = (
        "--players",
        "5",
        "--games",
        "3",
        "--seed",
        "2",
        "--bots",
        "random",
        "--rule",
        "rounds=4",
    )
    first = run(capsys, *args)[1].splitlines()[:-1]
    second = run(capsys, *args)[1].splitlines()[:-1]
    assert first == second
    other = run(
        capsys,
        "--players",
        "5",
        "--games",
        "3",
        "--seed",
        "3",
        "--bots",
        "random",
        "--rule",
        "rounds=4",
    )[1].splitlines()[:-1]
    assert other != first


def test_rule_options_apply(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--players",
        "2",
        "--games",
        "1",
        "--rule",
        "rounds=2",
        "--rule",
        "start_trains=5",
        "--rule",
        "double_blank_50=on",
        "--show",
    )
    assert code == 0
    assert "rounds=2 start_trains=5 double_blank_50=on" in out
    assert out.count("== round ") == 2 and "centre [9|9]  (5 of 5 trains)" in out
    assert "total " in out and "game over: " in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--players", "9"), "9 players"),
        (("--rule", "speed=3"), "not a rule option"),
        (("--players", "4", "--rule", "start_trains=3"), "choose 4..8"),
        (("--bots", "greedy,clever"), "no bot clever"),
        (("--games", "0"), "at least 1 game"),
    ],
)
def test_bad_arguments_say_what_is_allowed(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and message in err


def test_output_does_not_depend_on_the_process(capsys: pytest.CaptureFixture[str]) -> None:
    """Hash randomisation or a fresh interpreter change nothing but the speed line."""
    args = ["selfplay", "--players", "3", "--games", "2", "--seed", "5", "--bots", "random"]
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-m", "cfnet", *args], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout.rsplit("speed:", 1)[0])
    assert main(args) == 0
    outputs.add(capsys.readouterr().out.rsplit("speed:", 1)[0])
    assert len(outputs) == 1
