"""Run scripts/tmux_sizes.sh: the real game screen and replay viewer drawn in tmux panes of
60x20, 80x24 and 120x40 (no tile split, the input line or key reminder on the last row, hands
and moves wrapped by item, the help whole), and panes of 40x12 and 50x20 told what they need."""

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
@pytest.mark.parametrize("scenario", ["game", "viewer", "small"])
def test_the_screens_at_three_sizes_and_a_small_one(scenario: str) -> None:
    if not CFNET.exists():
        pytest.fail(f"no cfnet executable next to {sys.executable}: pip install -e . first")
    result = subprocess.run(
        [str(ROOT / "scripts" / "tmux_sizes.sh"), scenario],
        env={**{k: v for k, v in os.environ.items() if k != "TMUX"}, "CFNET": str(CFNET)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tmux_sizes: OK" in result.stdout
    if scenario != "small":
        for size in ("60x20", "80x24", "120x40"):
            assert f"at {size}: " in result.stdout, result.stdout
