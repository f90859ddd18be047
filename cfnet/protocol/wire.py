"""The table protocol's entry kinds and bodies (protocol.md, "Entries"), and faults with their
abort bodies. Pure: shapes and plain data only; what an entry means is the table's business."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from cfnet.errors import PeerProtocolError
from cfnet.lang import N_, Sentence

PROTOCOL_VERSION = 4
"""The version of the tables this cfnet makes: 4, where the chain's final places are never
rewritten, each deal's secrets are bound to the chain it starts on, leaving concedes and a
stall is timed out only by the signed stall votes of a majority of the seats dealt in
(protocol.md, "Version 4")."""
READ_VERSIONS = (2, 3, 4)
"""The versions it joins, resumes and verifies: in a version-2 table a departure ends the game;
in a version-3 table an equivocation may rewind the chain, a leaver keeps its rank and one
seat's clock times out the seat due."""
DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 24 * 3600
MAX_NAME_CHARS = 40
MAX_DETAIL_CHARS = 400
HASH_BYTES = 32
KEY_BYTES = 32

TABLE = "table"
ACCEPT = "accept"
SHUFFLE_A = "shuffle_a"
SHUFFLE_B = "shuffle_b"
DEAL = "deal"
PLAY = "play"
DRAW = "draw"
YARD_KEY = "yard_key"
PASS = "pass"
REVEAL = "reveal"
CERTIFY = "certify"
ABORT = "abort"
RESIGN = "resign"
RETURN = "return"
"""A seat that left asks to be dealt in again: never a chain entry, carried in a `certify`."""
STALL = "stall"
"""A seat's vote that the seat due stalled (version 4): never a chain entry, carried in a
`timeout` abort (votes.py)."""
RETURNS = "returns"
"""The optional `certify` field carrying return requests."""
TURN_KINDS = frozenset({PLAY, DRAW, PASS})

# Fault codes: what an abort's evidence is (protocol.md, "Faults and aborts").
BAD_ENTRY = "bad-entry"
OUT_OF_TURN = "out-of-turn"
EQUIVOCATION = "equivocation"
BAD_POINT = "bad-point"
BAD_PROOF = "bad-proof"
TIMEOUT = "timeout"
FAULT_CODES = (BAD_ENTRY, OUT_OF_TURN, EQUIVOCATION, BAD_POINT, BAD_PROOF, TIMEOUT)
DECK_POINTS = 54
SHUFFLE_PROOF_BYTES = (4 * DECK_POINTS + 5) * HASH_BYTES
"""A phase-A shuffle proof: C, Chat (54 points each), c, s1..s4, shat, sprime (54 each)."""
REKEY_PROOF_BYTES = (DECK_POINTS + 2) * HASH_BYTES
"""A phase-B rekey proof: c, s_m, s_0..s_53."""


class BodyError(PeerProtocolError):
    """An entry body that does not have its kind's fields, types or sizes."""


Check = Callable[[Any], bool]


def is_int(value: Any) -> bool:
    return type(value) is int and value >= 0


def is_b32(value: Any) -> bool:
    return type(value) is bytes and len(value) == HASH_BYTES


def is_str(value: Any) -> bool:
    return type(value) is str


def packed(count: int) -> Check:
    """A check: `count` 32-byte items packed into one byte string."""
    return lambda v: type(v) is bytes and len(v) == count * HASH_BYTES


def sized(size: int) -> Check:
    """A check: a byte string of exactly `size` bytes."""
    return lambda v: type(v) is bytes and len(v) == size


def pack(items: Sequence[bytes]) -> bytes:
    """32-byte items (points, keys, commitments) as one byte string, in order."""
    return b"".join(items)


def unpack(blob: bytes) -> list[bytes]:
    """The 32-byte items of a `pack`ed byte string."""
    return [blob[i : i + HASH_BYTES] for i in range(0, len(blob), HASH_BYTES)]


def int_list(size: int) -> Check:
    """A check: a list of exactly `size` non-negative ints."""
    return lambda v: type(v) is list and len(v) == size and all(is_int(x) for x in v)


@cache
def round_body_spec(kind: str, players: int, hand: int, dealt_in: int) -> dict[str, Check]:
    """The fields of a round entry of `kind` at a table of `players` seats, `dealt_in` of them
    dealt `hand` tiles each."""
    deck = packed(DECK_POINTS)
    specs: dict[str, dict[str, Check]] = {
        SHUFFLE_A: {
            "deck": deck,
            "seed_commitment": is_b32,
            "nonce_commitment": is_b32,
            "mask_commitment": is_b32,
            "proof": sized(SHUFFLE_PROOF_BYTES),
        },
        SHUFFLE_B: {
            "deck": deck,
            "key_commitments": deck,
            "nonce": is_b32,
            "proof": sized(REKEY_PROOF_BYTES),
        },
        DEAL: {"keys": packed((dealt_in - 1) * hand)},
        PLAY: {"position": is_int, "tile": is_int, "end": is_str, "key": is_b32},
        DRAW: {},
        YARD_KEY: {"position": is_int, "key": is_b32},
        PASS: {},
        REVEAL: {"seed": is_b32},
        CERTIFY: {"head": is_b32, "scores": int_list(players), "totals": int_list(players)},
    }
    return {"round": is_int, **specs[kind]}


def request_list(players: int) -> Check:
    """A `returns` field: 1..players-1 return requests (bin each)."""
    return lambda v: type(v) is list and 1 <= len(v) < players and all(type(w) is bytes for w in v)


def check_body(kind: str, body: Mapping[str, Any], spec: Mapping[str, Check]) -> None:
    """Raise BodyError unless `body` has exactly `spec`'s fields, each passing its check."""
    if set(body) != set(spec):
        raise BodyError(
            f"a {kind} body has the fields {', '.join(sorted(spec)) or '(none)'},"
            f" not {', '.join(sorted(body)) or '(none)'}"
        )
    for name, ok in spec.items():
        if not ok(body[name]):
            raise BodyError(f"the {kind} field {name!r} has the wrong type or size")


@dataclass(frozen=True, slots=True)
class Fault:
    """A seat proven to have broken the protocol (or, for a timeout, claimed to have stalled;
    for RESIGN, a seat that left by its own signed `resign` entry: no fault).

    `seq` is the offending entry's place in the chain when it is there; `evidence` is the
    plain data an abort carries; `posters` are the seats that post the abort, in order."""

    seat: int
    code: str
    detail: str
    seq: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    posters: tuple[int, ...] = ()

    def abort_body(self) -> dict[str, Any]:
        """The body of the abort entry that reports this fault."""
        return {
            "blamed": self.seat,
            "code": self.code,
            "detail": self.detail[:MAX_DETAIL_CHARS],
            "evidence": dict(self.evidence),
        }


def parse_abort(body: Mapping[str, Any], players: int, votes: bool = False) -> Fault:
    """The fault an abort body claims (shape only; the table checks the claim). `votes`: a
    `timeout` carries stall votes (protocol version 4)."""
    spec: dict[str, Check] = {
        "blamed": lambda v: is_int(v) and v < players,
        "code": lambda v: v in FAULT_CODES,
        "detail": lambda v: is_str(v) and len(v) <= MAX_DETAIL_CHARS,
        "evidence": lambda v: type(v) is dict,
    }
    check_body(ABORT, body, spec)
    evidence: dict[str, Any] = body["evidence"]
    code: str = body["code"]
    shapes: dict[str, dict[str, Check]] = {
        BAD_ENTRY: {"seq": is_int},
        OUT_OF_TURN: {"entry": lambda v: type(v) is bytes},
        EQUIVOCATION: {"entries": lambda v: type(v) is list},
        BAD_POINT: {"seq": is_int, "index": is_int},
        BAD_PROOF: {"seq": is_int},
        TIMEOUT: {"seq": is_int},
    }
    if votes:
        shapes[TIMEOUT] = {"seq": is_int, "votes": lambda v: type(v) is list}
    check_body(f"{code} evidence", evidence, shapes[code])
    seq = evidence.get("seq")
    return Fault(body["blamed"], code, body["detail"], seq, evidence)


def check_display_name(text: object, what: str) -> str:
    """`text` if it is a name fit to show: 1..MAX_NAME_CHARS printable characters (no control
    characters or escape sequences); ValueError saying so otherwise (a Sentence: `what` is a
    marked noun, `N_("player name")`)."""
    if type(text) is not str or not 0 < len(text) <= MAX_NAME_CHARS or not text.isprintable():
        raise ValueError(
            Sentence(
                N_("{what} {text}: use 1 to {most} printable characters (no control characters)"),
                what=Sentence(what),
                text=repr(text),
                most=str(MAX_NAME_CHARS),
            )
        )
    return text


def is_display_name(value: Any) -> bool:
    """Whether `check_display_name` takes `value`."""
    try:
        check_display_name(value, N_("name"))
    except ValueError:
        return False
    return True


def genesis_spec() -> dict[str, Check]:
    """The fields of the `table` entry (seq 0)."""

    def seats_ok(value: Any) -> bool:
        return (
            type(value) is list
            and 2 <= len(value) <= 8
            and all(
                type(s) is dict
                and set(s) == {"name", "key"}
                and is_display_name(s["name"])
                and is_b32(s["key"])
                for s in value
            )
        )

    return {
        "version": lambda v: v in READ_VERSIONS,
        "name": is_display_name,
        "options": lambda v: type(v) is dict,
        "timeout": lambda v: is_int(v) and 1 <= v <= MAX_TIMEOUT,
        "seats": seats_ok,
    }


class Blame(PeerProtocolError):
    """Raised inside the table when a check fails with a provable culprit; carries the fault."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.detail, fault.seat)
        self.fault = fault


def bad_proof(seat: int, detail: str, seq: int) -> Blame:
    """A Blame for `seat`'s shuffle step `seq`, whose proof does not verify."""
    return Blame(Fault(seat, BAD_PROOF, detail, seq, {"seq": seq}))


def blame(seat: int, detail: str, seq: int, index: int | None = None) -> Blame:
    """A Blame for `seat`'s entry `seq`: a bad-entry fault, or with `index` a bad point at that
    position of the deck entry `seq` posted."""
    if index is None:
        return Blame(Fault(seat, BAD_ENTRY, detail, seq, {"seq": seq}))
    return Blame(Fault(seat, BAD_POINT, detail, seq, {"seq": seq, "index": index}))
