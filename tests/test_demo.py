"""`cfnet demo` as a newcomer runs it: a real subprocess hosting on loopback, computer players as
`cfnet bot` processes found by mDNS; a complete verified game, its log kept, no process left."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lan_helpers import CFNET, cfnet_verify, wait_until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cfnet.cli.demo_game import Demo, add_arguments
from cfnet.disk.store import prepare_home
from cfnet.game.rules import RuleOptions
from cfnet.record.logfile import read_log

DEMO_TIMEOUT = 60


def demo(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `cfnet demo ARGS` in `tmp` (its temporary state directory under tmp/tmp)."""
    return subprocess.run(
        [*CFNET, "demo", *args],
        cwd=tmp,
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )


def _env(tmp: Path) -> dict[str, str]:
    (tmp / "tmp").mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp / "tmp"), "TERM": "dumb"}


def child_pids(output: str) -> list[int]:
    pids = [int(pid) for pid in re.findall(r"^started \w+ \(process (\d+)\)", output, re.MULTILINE)]
    assert pids, output
    return pids


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def saved_log(output: str) -> Path:
    match = re.search(r"^log saved: (.+)$", output, re.MULTILINE)
    assert match, output
    return Path(match.group(1))


def _demo_until(tmp: Path, text: str) -> tuple[subprocess.Popen[str], list[str]]:
    """A running 3-player demo, read up to its first output line containing `text`."""
    demo_process = subprocess.Popen(
        [*CFNET, "demo", "--players", "3", "--rounds", "10", "--delay", "0.05"],
        cwd=tmp,
        env=_env(tmp),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert demo_process.stdout is not None
    seen = []
    for line in demo_process.stdout:
        seen.append(line)
        if text in line:
            break
    return demo_process, seen


def test_three_players_play_a_verified_round_and_leave_nothing_behind(tmp_path: Path) -> None:
    done = demo(tmp_path, "--players", "3", "--rounds", "1", "--delay", "0")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert re.search(r"^table demo-\w+ open on 127.0.0.1:\d+ \(loopback only\)", out, re.M)
    assert "cfnet bot demo-" in out and "finds it by mDNS" in out
    assert "seat 2:" in out and "(its own process)" in out
    assert "centre [" in out and "├─ a: [" in out  # the board tree
    assert re.search(r"^  \w+ played \d-\d on [a-z]+, \d+ left$", out, re.MULTILINE)
    assert "round 1 over: " in out
    assert "round 1 verified: every shuffle, key and move checked" in out
    assert "verified: the log is a complete, valid game" in out
    assert re.search(r"^winners?: \w+", out, re.MULTILINE)  # a tie has winners
    log = saved_log(out)
    assert log.parent == tmp_path and log.exists()
    assert cfnet_verify(log).returncode == 0
    assert not any(alive(pid) for pid in child_pids(out))
    assert not any((tmp_path / "tmp").iterdir())  # the temporary state directory is gone
    assert "Traceback" not in out + done.stderr


def test_two_players_with_a_home_keep_identical_logs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = demo(tmp_path, "--players", "2", "--rounds", "1", "--delay", "0", "--home", str(home))
    assert done.returncode == 0, done.stdout + done.stderr
    log = saved_log(done.stdout).read_bytes()
    (mine,) = home.glob("tables/*/table.cflog")
    (bots,) = home.glob("bots/Ada/tables/*/table.cflog")
    assert mine.read_bytes() == log == bots.read_bytes()
    assert re.search(r"^winners?: ", done.stdout, re.MULTILINE)  # a tie has winners
    assert not any(alive(pid) for pid in child_pids(done.stdout))


def test_a_seed_plays_the_same_game_again(tmp_path: Path) -> None:
    seed = str(int.from_bytes(os.urandom(6), "big"))  # unique: other runs share loopback mDNS
    runs = [
        demo(tmp_path, "--players", "3", "--rounds", "1", "--delay", "0", "--seed", seed)
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stdout + runs[0].stderr
    moves = [re.findall(r"^  \w+ (?:played|drew|passed).*$", r.stdout, re.MULTILINE) for r in runs]
    assert moves[0] and moves[0] == moves[1]
    logs = [read_log(saved_log(run.stdout)) for run in runs]
    assert logs[0][0].table_id == logs[1][0].table_id
    assert [e.kind for e in logs[0]] == [e.kind for e in logs[1]]


@pytest.mark.parametrize(
    "command", [["bot", "--connect", "127.0.0.1:1", "--interface", "127.0.0.1"], ["resume"]]
)
def test_no_real_seat_takes_secrets_from_a_public_seed(tmp_path: Path, command: list[str]) -> None:
    """Only the demo's own computer players (cfnet.cli.demo_bot) derive secrets from --seed."""
    done = subprocess.run(
        [*CFNET, *command, "--home", str(tmp_path), "--deal-seed", "1"],
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2 and "unrecognized arguments: --deal-seed" in done.stderr


@pytest.mark.parametrize(
    ("when", "sig"),
    [("started Bob", signal.SIGINT), (" played ", signal.SIGINT), (" played ", signal.SIGTERM)],
    ids=["ctrl-c-seating", "ctrl-c-mid-game", "sigterm-mid-game"],
)
def test_a_signal_stops_every_process(tmp_path: Path, when: str, sig: signal.Signals) -> None:
    demo_process, seen = _demo_until(tmp_path, when)
    try:
        demo_process.send_signal(sig)
        rest, errors = demo_process.communicate(timeout=60)
    finally:
        demo_process.kill()
    out = "".join(seen) + rest
    assert demo_process.returncode == 128 + sig, out + errors
    assert ("interrupted" if sig == signal.SIGINT else "terminated") in errors, errors
    assert "Traceback" not in errors and "Exception" not in errors, errors
    assert not any(alive(pid) for pid in child_pids(out))
    assert not any((tmp_path / "tmp").iterdir())


def test_a_computer_player_that_dies_is_named_and_the_demo_fails(tmp_path: Path) -> None:
    demo_process, seen = _demo_until(tmp_path, " played ")
    try:
        victim = child_pids("".join(seen))[0]
        os.kill(victim, signal.SIGKILL)
        rest, errors = demo_process.communicate(timeout=60)
    finally:
        demo_process.kill()
    out = "".join(seen) + rest
    assert demo_process.returncode == 1, out + errors
    assert f"computer player Ada (process {victim}) was killed by signal SIGKILL" in errors
    assert "kept in" in errors
    assert not any(alive(pid) for pid in child_pids(out))


def test_impossible_options_are_refused_before_anything_starts(tmp_path: Path) -> None:
    done = demo(tmp_path, "--players", "9")
    assert done.returncode == 2
    assert "cfnet demo:" in done.stderr
    bad = demo(tmp_path, "--rounds", "11")
    assert bad.returncode == 2 and "rounds" in bad.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_human_seat_plays_in_the_game_screen_and_may_leave(tmp_path: Path) -> None:
    session = f"cfnet-demo-{os.getpid()}"
    command = f"{shlex.join([*CFNET, 'demo', '--human', '--players', '2', '--rounds', '1'])}"
    script = f"cd {shlex.quote(str(tmp_path))} && {command}; echo EXIT=$?; sleep 60"
    tmux = ["tmux", "-L", session]
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}

    def pane() -> str:
        return subprocess.run(
            [*tmux, "capture-pane", "-p", "-J", "-t", session, "-S", "-100"],
            capture_output=True, text=True, check=True, env=env,
        ).stdout  # fmt: skip

    def keys(*typed: str) -> None:
        subprocess.run([*tmux, "send-keys", "-t", session, *typed], check=True, env=env)

    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", script],
        check=True, env=env,
    )  # fmt: skip
    try:
        wait_until(lambda: "Moves 1)" in pane(), 30, "the game screen")
        keys("quit", "Enter")
        wait_until(lambda: "Leave the game?" in pane(), 10, "the quit question")
        keys("y", "Enter")
        wait_until(lambda: "EXIT=" in pane(), 20, "the demo to end")
        text = pane()
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, env=env)
    assert "EXIT=1" in text, text
    assert "you resigned: you concede, and the game ended there for every seat" in text
    assert "winner: Ada with" in text  # the seat that stayed wins, whatever the totals
    assert "verified: the log is a complete, valid game" in text  # a conceded game ends
    assert saved_log(text).exists()
    assert not any(alive(pid) for pid in child_pids(text))


def test_the_game_over_screen_names_the_log_that_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cfnet demo --human`: its state directory goes at the end, so the game-over screen names
    the kept copy of the log (in the current directory), which is there and complete."""
    monkeypatch.chdir(tmp_path)
    home = prepare_home(tmp_path / "state")  # what `cfnet demo` removes at the end
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--human", "--players", "2", "--rounds", "1", "--delay", "0"])
    options = RuleOptions(rounds=1)

    async def play() -> tuple[int, str, Demo]:
        with create_pipe_input() as keys:
            demo = Demo(args, options, home, (keys, DummyOutput()))
            run = asyncio.get_running_loop().create_task(demo.run())
            end = time.monotonic() + DEMO_TIMEOUT
            while demo.screen is None or demo.screen.game_end is None:
                assert time.monotonic() < end and not run.done(), "the game did not end"
                screen = demo.screen
                if screen is not None and screen.round_end is None and screen._ready():
                    typed = screen.lines_typed
                    keys.send_text("1\r")  # the first listed move
                    while screen.lines_typed == typed and time.monotonic() < end:
                        await asyncio.sleep(0.01)
                await asyncio.sleep(0.01)
            shown = demo.screen.text()
            keys.send_text("\r")  # Enter: leave
            return await asyncio.wait_for(run, DEMO_TIMEOUT), shown, demo

    code, shown, demo = asyncio.run(play())
    kept = tmp_path / f"cfnet-{demo.name}.cflog"
    assert code == 0, shown
    assert "The game's log is saved in" in shown
    assert str(kept) in shown.replace("\n  ", "")  # the path may wrap
    assert str(home) not in shown
    assert read_log(kept)
    assert cfnet_verify(kept).returncode == 0


def test_the_verify_hint_works_as_printed_before_the_venv_is_activated(tmp_path: Path) -> None:
    """The README's first line runs `.venv/bin/cfnet demo` with cfnet not on PATH: the hint it
    prints names the program as typed, and runs as printed."""
    script = Path(sys.executable).parent / "cfnet"
    bare = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != script.parent
    )
    env = {**_env(tmp_path), "PATH": bare}
    done = subprocess.run(
        [str(script), "demo", "--players", "2", "--rounds", "1", "--delay", "0"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=DEMO_TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    hint = re.search(r"^check it yourself: (.+)$", done.stdout, re.M)
    assert hint is not None and hint.group(1).startswith(f"{script} verify "), done.stdout
    checked = subprocess.run(
        shlex.split(hint.group(1)), cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=DEMO_TIMEOUT, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
