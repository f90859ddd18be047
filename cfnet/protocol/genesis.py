"""The table entry (seq 0, protocol.md 4.1): the host makes it, every seat parses and accepts it.
It binds the table's name, rule options, timeout and seats (names and keys). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.rules import RuleOptionError, RuleOptions
from cfnet.lang import N_
from cfnet.protocol.wire import (
    DEFAULT_TIMEOUT,
    PROTOCOL_VERSION,
    READ_VERSIONS,
    TABLE,
    check_body,
    check_display_name,
    genesis_spec,
    is_int,
)
from cfnet.record.entry import GENESIS_PREV, Entry, decode_entry, sign_entry
from cfnet.record.identity import Identity


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the genesis lists it: the player's name and Ed25519 public key."""

    name: str
    key: bytes


def make_genesis(
    identity: Identity,
    table_id: bytes,
    name: str,
    options: RuleOptions,
    seats: Sequence[SeatInfo],
    timeout: int = DEFAULT_TIMEOUT,
    version: int = PROTOCOL_VERSION,
) -> Entry:
    """The host's `table` entry (seq 0, seat 0) that every seat then accepts (`version`: one
    of READ_VERSIONS, an older one only to make tables as an older cfnet did)."""
    if not seats or seats[0].key != identity.public:
        raise LocalProtocolError("the host must sit in seat 0 with its own key")
    options.check(len(seats))
    try:
        check_display_name(name, N_("table name"))
        for seat in seats:
            check_display_name(seat.name, N_("player name"))
    except ValueError as error:
        raise LocalProtocolError(error.args[0]) from None
    body = {
        "version": version,
        "name": name,
        "options": options.to_plain(),
        "timeout": timeout,
        "seats": [{"name": s.name, "key": s.key} for s in seats],
    }
    check_body(TABLE, body, genesis_spec())
    return sign_entry(identity, table_id, 0, GENESIS_PREV, 0, TABLE, body)


def parse_genesis(wire: bytes) -> tuple[Entry, str, RuleOptions, int, tuple[SeatInfo, ...]]:
    """The genesis entry and what it binds; PeerProtocolError if it is not a valid one."""
    entry = decode_entry(wire)
    if entry.seq != 0 or entry.kind != TABLE or entry.seat != 0:
        raise PeerProtocolError("the first entry must be the host's table entry (seq 0, seat 0)")
    version = entry.body.get("version")
    if is_int(version) and version not in READ_VERSIONS:
        *older, newest = (str(v) for v in READ_VERSIONS)
        known = f"{', '.join(older)} and {newest}"
        raise PeerProtocolError(
            f"the table is of protocol version {version}; this cfnet knows versions {known}", 0
        )
    check_body(TABLE, entry.body, genesis_spec())
    body = entry.body
    seats = tuple(SeatInfo(s["name"], s["key"]) for s in body["seats"])
    try:
        options = RuleOptions.from_plain(body["options"])
        options.check(len(seats))
    except RuleOptionError as error:
        raise PeerProtocolError(f"the table's rule options: {error}", 0) from None
    if len({s.key for s in seats}) != len(seats):
        raise PeerProtocolError("two seats have the same key", 0)
    if not entry.verify(seats[0].key):
        raise PeerProtocolError("the table entry is not signed by seat 0's key")
    return entry, body["name"], options, body["timeout"], seats
