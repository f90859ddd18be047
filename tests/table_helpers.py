"""Shared helpers for the table tests: simulated games and logs."""

from __future__ import annotations

from cfnet.protocol.testing import Network
from cfnet.record.entry import Entry


def logs(network: Network) -> set[bytes]:
    """The distinct logs (concatenated wire bytes) the peers ended with."""
    return {b"".join(e.wire for e in t.entries) for t in network.tables}


def chain(network: Network, seat: int = 0) -> list[Entry]:
    return list(network.tables[seat].entries)
