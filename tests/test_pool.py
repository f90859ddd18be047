"""The deck's threads (cfnet.deck.pool.spread): the items of one call shared among the threads
give what doing them in order gives, and a thread the machine holds back takes fewer of them.
The deck's helper process (cfnet.deck.pool.helper_process): work started ahead is done in a
forked process and gives the results done in place would; work it has not begun is withdrawn
and done by the caller; work that fails in it is done again by the caller; it exits on leaving.
A process of its own, as `cfnet verify` is: the helper is forked only from a single thread."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from cheaters import plays_the_next_tile, run
from deck_helpers import deck_threads
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.deck.pool import THREADS_VARIABLE, spread
from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import play_protocol_game
from cfnet.record.logfile import write_log


def in_order(work: Callable[[int], int], items: range) -> list[int] | str:
    """What doing the items in order gives: the results, or the first error's text."""
    try:
        return [work(item) for item in items]
    except ValueError as error:
        return str(error)


@settings(max_examples=80, deadline=None)
@given(
    size=st.integers(0, 48),
    threads=st.integers(2, 4),
    failing=st.sets(st.integers(0, 47)),
    pausing=st.sets(st.integers(0, 47)),
)
def test_shared_items_give_what_doing_them_in_order_gives(
    size: int, threads: int, failing: set[int], pausing: set[int]
) -> None:
    """The results in item order, or the error of the first item that fails (never a later
    one's), however the threads happen to take the items."""

    def work(item: int) -> int:
        if item in pausing:
            time.sleep(0.0002)  # another thread takes the next items meanwhile
        if item in failing:
            raise ValueError(f"item {item} failed")
        return item * item

    with deck_threads(threads):
        try:
            shared: list[int] | str = spread(work, range(size), min_share=1)
        except ValueError as error:
            shared = str(error)
    assert shared == in_order(work, range(size))


def test_a_thread_the_machine_holds_back_takes_fewer_items() -> None:
    """Item 0 holds its thread until every other item is done: the other thread does them all,
    where shares fixed in advance would leave half of them to the held one, which waits."""
    size, done, lock = 20, [0], threading.Lock()
    others_done = threading.Event()

    def work(item: int) -> int:
        if item == 0:
            assert others_done.wait(60), f"{done[0]} of the other {size - 1} items were done"
        else:
            with lock:
                done[0] += 1
                if done[0] == size - 1:
                    others_done.set()
        return item

    with deck_threads(2):
        assert spread(work, range(size), min_share=1) == list(range(size))


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
