"""Logs an adversary builds from honest ones with the library's own classes: records appended,
cut or forged, for the `cfnet verify` attacks in this folder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity


def extend(
    log: Sequence[Entry], identity: Identity, seat: int, kind: str, body: dict[str, Any]
) -> list[Entry]:
    """`log` with one more entry linked to its end, claiming `seat`, signed by `identity` (a
    key that is not the seat's makes it a forgery anyone can write)."""
    last = log[-1]
    return [*log, sign_entry(identity, last.table_id, last.seq + 1, last.hash, seat, kind, body)]
