"""cfnet on a system without POSIX's extras, as Windows is: every module imports, and an offline
game is played, checked and replayed with `fcntl` and `resource` hidden (importing them fails,
as on Windows) and `signal.SIGHUP` gone, in a real `cfnet` process. The loop's signal handlers
as Windows' event loops lack them: the stop signal still reaches the loop (cfnet.seat.signals).
Only Linux runs here; the Windows and macOS branches are written to those systems' documented
calls (README, "Systems")."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cfnet.seat.signals import catch, stop_signals

WITHOUT_POSIX = """
import signal, sys
sys.modules["fcntl"] = None  # `import fcntl` now raises ImportError, as on Windows
sys.modules["resource"] = None
del signal.SIGHUP

import importlib, pkgutil
import cfnet
names = [m.name for m in pkgutil.walk_packages(cfnet.__path__, "cfnet.")]
names.remove("cfnet.__main__")  # `python -m cfnet` itself: importing it runs cfnet
for name in names:
    importlib.import_module(name)
from cfnet.seat.signals import stop_signals
print(f"imported {len(names)} modules; stop signals:",
      " ".join(signal.Signals(s).name for s in stop_signals()), flush=True)
from cfnet.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def without_posix(*args: str) -> subprocess.CompletedProcess[str]:
    """`cfnet ARGS` in a process where fcntl and resource cannot be imported and SIGHUP is
    not defined."""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_POSIX, *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_every_module_imports_and_an_offline_game_plays_without_fcntl_resource_or_sighup(
    tmp_path: Path,
) -> None:
    log = tmp_path / "game.cflog"
    played = without_posix(
        "selfplay", "--protocol", "--players", "3", "--seed", "11", "--rule", "rounds=2",
        "--log", str(log),
    )  # fmt: skip
    shown = f"stdout:\n{played.stdout}\nstderr:\n{played.stderr}"
    assert played.returncode == 0 and "Traceback" not in played.stderr, shown
    first = played.stdout.splitlines()[0]
    assert first.startswith("imported ") and first.endswith("stop signals: SIGTERM"), shown
    assert int(first.split()[1]) > 100  # every module of the package, not a few
    checked = without_posix("verify", str(log))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "valid: a complete game; every signature, shuffle, key and move checked" in (
        checked.stdout
    )
    replayed = without_posix("replay", "--plain", str(log))
    assert replayed.returncode == 0 and "game over:" in replayed.stdout, replayed.stderr
    offline = without_posix("selfplay", "--games", "3", "--players", "4", "--seed", "2")
    assert offline.returncode == 0 and "Traceback" not in offline.stderr, offline.stderr


class WindowsLikeLoop(asyncio.SelectorEventLoop):
    """An event loop without signal handlers, as Windows' are."""

    def add_signal_handler(self, *args: object) -> None:
        raise NotImplementedError

    def remove_signal_handler(self, sig: int) -> bool:
        raise NotImplementedError


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="no SIGTERM")
def test_a_stop_signal_reaches_a_loop_that_has_no_signal_handlers() -> None:
    """SIGTERM sent to this process calls back in the loop's thread, through signal.signal;
    afterwards the handler that was there before is back."""
    before = signal.getsignal(signal.SIGTERM)

    async def scenario() -> int:
        heard: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        release = catch([signal.SIGTERM], heard.set_result)
        try:
            assert signal.getsignal(signal.SIGTERM) is not before
            os.kill(os.getpid(), signal.SIGTERM)
            return await asyncio.wait_for(heard, 60)
        finally:
            release()

    loop = WindowsLikeLoop()
    try:
        assert loop.run_until_complete(scenario()) == signal.SIGTERM
    finally:
        loop.close()
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_stop_signals_are_those_the_system_has() -> None:
    names = {signal.Signals(s).name for s in stop_signals()}
    expected = {"SIGTERM", "SIGHUP"} if sys.platform != "win32" else {"SIGTERM", "SIGBREAK"}
    assert names == expected
