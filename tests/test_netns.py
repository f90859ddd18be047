"""scripts/netns_game.sh: hosts in network namespaces find a table by real mDNS across a bridge
(and play a full game once `cfnet host` exists); it cleans up, and skips cleanly without root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "netns_game.sh"
NOBODY = 65534


def run_script(*prefix: str) -> tuple[int, int, str]:
    """Run the script (after `prefix`, e.g. a privilege drop): (its pid, exit status, output).

    With a prefix, bash reads the script from stdin, so the user need not be able to open it,
    and runs in the temporary directory, which every user may enter (the clone may sit in a
    private folder, as a home directory is)."""
    with (
        SCRIPT.open() as script,
        subprocess.Popen(
            [*prefix, "bash", "-s"] if prefix else ["bash", str(SCRIPT)],
            cwd=tempfile.gettempdir() if prefix else None,
            stdin=script if prefix else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as proc,
    ):
        output, _ = proc.communicate(timeout=600)
    return proc.pid, proc.returncode, output


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to build network namespaces")
@pytest.mark.skipif(shutil.which("ip") is None, reason="needs `ip` (iproute2) for ip netns")
def test_hosts_in_namespaces_find_the_table_and_everything_is_removed() -> None:
    pid, status, output = run_script()
    assert status == 0, output
    if "SKIP: needs root and ip netns" in output:
        pytest.skip(output.strip())
    assert "cfnet tables lists the table in hosts 2..4" in output, output
    assert "discovery across the bridge:" in output
    assert output.splitlines()[-2:] == [
        "OK",
        f"cleaned up: cfn-{pid}-sw " + " ".join(f"cfn-{pid}-h{i}" for i in range(1, 5)),
    ], output
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    assert f"cfn-{pid}-" not in left.stdout
    assert not list(Path(tempfile.gettempdir()).glob(f"cfn-{pid}.*"))


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="as root, needs setpriv to run the script as an unprivileged user",
)
def test_without_root_it_says_skip_and_succeeds() -> None:
    drop = (
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        if os.geteuid() == 0
        else []
    )
    _, status, output = run_script(*drop)
    assert (status, output) == (0, "SKIP: needs root and ip netns (not root)\n")
