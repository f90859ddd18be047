"""Session set-up shared by every test."""

from __future__ import annotations

import signal


def pytest_configure() -> None:
    """A suite started in the background of a script inherits Ctrl-C ignored (POSIX), and so
    would every `cfnet` process a test starts, which then could not be stopped as a person
    stops it: give them Ctrl-C back."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
