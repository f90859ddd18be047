"""Run scripts/tmux_leave.sh: leaving and coming back as a person meets it, in the real client
in 80x24 tmux panes at a LAN table on 127.0.0.1 (a computer host, a computer player, people).
`resume-quit`: killed, resumed, quits: the client ends within 5 s saying so, and the others'
log has one resignation of hers and no return after it. `timed-out`: an idle person timed out
is told the game goes on without her and how to come back; resumed, she is dealt in at the
next round, and her Ctrl-C twice is final."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CFNET = Path(sys.executable).parent / "cfnet"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("scenario", ["resume-quit", "timed-out"])
def test_leaving_and_coming_back_through_the_real_terminal(scenario: str) -> None:
    if not CFNET.exists():
        pytest.fail(f"no cfnet executable next to {sys.executable}: pip install -e . first")
    result = subprocess.run(
        [str(ROOT / "scripts" / "tmux_leave.sh"), scenario],
        env={**{k: v for k, v in os.environ.items() if k != "TMUX"}, "CFNET": str(CFNET)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"tmux_leave: OK ({scenario})" in result.stdout
