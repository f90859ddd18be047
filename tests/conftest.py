"""Session set-up shared by every test."""

from __future__ import annotations

import os
import signal

from cfnet.net.discovery import SERVICE_ENV

SUITE_SERVICE = "_cfnet-test._tcp.local."
"""The mDNS service type the suite's tables are announced and looked for under (every `cfnet`
process a test starts inherits it): a person's browser, looking under `_cfnet._tcp.local.` on
the same machine, never lists the tables the suite makes up."""

os.environ[SERVICE_ENV] = SUITE_SERVICE


def pytest_configure() -> None:
    """A suite started in the background of a script inherits Ctrl-C ignored (POSIX), and so
    would every `cfnet` process a test starts, which then could not be stopped as a person
    stops it: give them Ctrl-C back."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
