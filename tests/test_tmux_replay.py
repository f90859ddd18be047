"""Run scripts/tmux_replay.sh: the real replay viewer in an 80x24 tmux pane on a real log."""

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
def test_the_viewer_in_a_real_terminal() -> None:
    if not CFNET.exists():
        pytest.fail(f"no cfnet executable next to {sys.executable}: pip install -e . first")
    result = subprocess.run(
        [str(ROOT / "scripts" / "tmux_replay.sh")],
        env={**{k: v for k, v in os.environ.items() if k != "TMUX"}, "CFNET": str(CFNET)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tmux_replay: OK" in result.stdout
