"""Run scripts/tmux_play.sh: the real client played for a whole round in an 80x24 tmux pane, at
a LAN table (`cfnet host` on 127.0.0.1 with computer players as `cfnet bot` processes) and
offline."""

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
def test_rounds_played_through_the_real_terminal() -> None:
    if not CFNET.exists():
        pytest.fail(f"no cfnet executable next to {sys.executable}: pip install -e . first")
    result = subprocess.run(
        [str(ROOT / "scripts" / "tmux_play.sh")],
        env={**{k: v for k, v in os.environ.items() if k != "TMUX"}, "CFNET": str(CFNET)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tmux_play: OK (lan)" in result.stdout
    assert "tmux_play: OK (offline)" in result.stdout
