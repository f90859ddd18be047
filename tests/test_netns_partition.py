"""scripts/netns_partition.sh: real processes in 4 network namespaces, a partition mid-game.
One host cut off past the timeout is timed out by the 3 others' votes and never times them out:
one result, its log a prefix of theirs. Split 2 and 2, nobody is timed out and the game goes on
after the heal (a seat that voted plays on as soon as the entry it waited for comes, so the game
does not crawl from deadline to deadline). Skips without root."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "netns_partition.sh"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to build network namespaces"),
    pytest.mark.skipif(shutil.which("ip") is None, reason="needs `ip` (iproute2) for ip netns"),
]


def run_partition(mode: str) -> str:
    """Run the script in `mode`; its output (it must succeed, and remove what it made)."""
    proc = subprocess.run(
        ["bash", str(SCRIPT), mode],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=420,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    if "SKIP: needs root and ip netns" in output:
        pytest.skip(output.strip())
    lines = output.splitlines()
    assert lines[-2] == "OK" and lines[-1].startswith("cleaned up: "), output
    prefix = lines[-1].split()[2].rsplit("-", 1)[0]
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    assert prefix not in left.stdout
    return output


def test_one_host_cut_off_is_timed_out_by_the_majority_and_takes_its_chain() -> None:
    output = run_partition("one")
    assert "timed out by the votes of" in output and "cannot reach a majority" in output
    assert "host 4's log is a prefix of the majority's" in output
    (line,) = [ln for ln in output.splitlines() if ln.startswith("verify, the majority's log")]
    majority, cut_off = line.split(": ", 1)[1].split("; host 4's log: ")
    assert majority.startswith("True ") and cut_off in (majority, "False - -"), line


def test_two_and_two_nobody_is_timed_out_and_the_game_goes_on() -> None:
    output = run_partition("two")
    assert "the bridge is split" in output and "the bridge is whole again" in output
    assert "nobody timed out; the game went on: True " in output
    assert "after the heal: the game ended in " in output
