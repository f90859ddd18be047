"""The deck's helper process (cfnet.deck.pool.helper_process): work started ahead is done in a
forked process and gives the results done in place would; work it has not begun is withdrawn
and done by the caller; work that fails in it is done again by the caller; it exits on leaving.
A process of its own, as `cfnet verify` is: the helper is forked only from a single thread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cheaters import plays_the_next_tile, run

from cfnet.deck.pool import THREADS_VARIABLE
from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import play_protocol_game
from cfnet.record.logfile import write_log

HELPER = """
import os, time
from cfnet.deck import pool
from cfnet.deck.sra import _shuffle_a, _shuffle_b, _shuffled, SeatSecrets, round_deck
from cfnet.game.tiles import ALL_TILES

def begun(slot):
    while not helper.flags[slot]:  # the flag the helper sets as it begins a piece of work
        time.sleep(0.001)

pool.use_threads(2)
secrets = [SeatSecrets.derive(bytes([seat]) * 32, bytes(16), 1, seat) for seat in range(12)]
deck = tuple(round_deck(ALL_TILES[-1]))
with pool.helper_process():
    (helper,) = pool._helper
    for seat, own in enumerate(secrets):
        for phase in "AB":
            pool.ahead([(phase, seat)], _shuffled, phase, deck, own)
    print("withdrawn", pool.taken(("B", 11)) is None)  # 23 pieces of work before it
    begun(22)
    made = [pool.taken((phase, seat)) for seat in range(12) for phase in "AB"][:-1]
    expected = [f(list(deck), own) for own in secrets for f in (_shuffle_a, _shuffle_b)][:-1]
    print("same", made == expected)
    pool.ahead([("bad",)], _shuffled, "A", deck[:3], secrets[0])  # raises in the helper
    begun(24)
    print("failed", pool.taken(("bad",)) is None)
print("left", pool._helper == [])
try:
    os.kill(helper.pid, 0)
    print("still running")
except ProcessLookupError:
    print("exited")
"""


def test_the_helper_process_makes_what_the_caller_would_and_exits_on_leaving() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HELPER], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = ["withdrawn True", "same True", "failed True", "left True", "exited"]
    assert done.stdout.splitlines() == lines, done.stdout


def test_verify_with_its_helper_says_what_verify_on_one_thread_says(tmp_path: Path) -> None:
    """`cfnet verify` (its audits begun in the helper) of a valid 4-seat game and of a game in
    which a cheater was removed: the same output and exit status as on one thread."""
    valid, cheated = tmp_path / "valid.cflog", tmp_path / "cheated.cflog"
    write_log(valid, play_protocol_game(4, 3, RuleOptions(rounds=3)).tables[0].entries)
    network, cheater = run(3, 6, 1, plays_the_next_tile, rounds=2)
    assert cheater is not None and cheater.cheated_at is not None
    write_log(cheated, network.tables[0].entries)
    for log in (valid, cheated):
        said = [
            subprocess.run(
                [sys.executable, "-m", "cfnet", "verify", str(log)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
                env={**os.environ, THREADS_VARIABLE: threads},
            )
            for threads in ("2", "1")
        ]
        assert said[0].returncode == said[1].returncode == 0, said[0].stderr + said[1].stderr
        assert said[0].stdout == said[1].stdout and "valid: a complete game" in said[0].stdout
