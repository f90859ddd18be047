"""The two kinds of protocol error, as in h11: our own misuse, and a peer breaking the rules.

`LocalProtocolError`: this program (or its user) asked for something the protocol does not
allow; nothing was sent. `PeerProtocolError`: something received breaks the protocol; when the
culprit is known (a signed entry), `seat` names it and it is evidence for a signed abort.
"""

from __future__ import annotations


class LocalProtocolError(ValueError):
    """We tried to do something the protocol does not allow here; nothing changed."""


class PeerProtocolError(ValueError):
    """Received data breaks the protocol; `seat` is the seat to blame when one is provable."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason if seat is None else f"seat {seat}: {reason}")
        self.reason = reason
        self.seat = seat
