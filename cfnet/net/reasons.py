"""Why a link is closed, as one side tells the other (the goodbye's `reason`, protocol.md 6.2):
English on the wire whatever language either side reads, and said in the reader's language by
whoever shows it. The side that closes writes one of these templates as a `Sentence`; the side
that is told recognises a reason written from one of them (`heard`) and says it in its own
language, numbers in its digits; a reason it does not know (an older or another program's) is
shown as it came."""

from __future__ import annotations

import re
from typing import Any

from cfnet.lang import N_, Sentence

# the lobby (6.5)
TABLE_STARTED = N_("the table has started: every seat is taken")
TABLE_FULL = N_("the table is full")
LOCKED_OUT = N_(
    "the table refuses every joiner for {wait} s more: too many wrong join codes were tried"
    " (someone may be guessing its code)"
)
BUSY_TABLE = N_("too many join attempts at once at this table: try again in a moment")
BUSY_ADDRESS = N_("too many join attempts at once from {address}: try again in a moment")
WRONG_CODES = N_(
    "too many wrong join codes from {address} (at most {limit} in {window} s): try again in"
    " {wait} s"
)
NO_SEAT = N_("no seat taken: {reason}")
NOT_SIT = N_("expected a 'sit' message, got {kind}")
KEY_SEATED = N_(
    "this identity key already has a seat at the table: every player needs its own state"
    " directory (--home)"
)
NOT_READY = N_("not ready within {seconds} s")
LOBBY_CLOSED = N_("the lobby is closed")
UNEXPECTED = N_("unexpected lobby message {kind}")
EARLY_READY = N_("unexpected lobby message {kind} before 'start'")
NOTHING_RECEIVED = N_("nothing received for {seconds} s")
LEAVING_LOBBY = N_("leaving the lobby")
BAD_TABLE_ENTRY = N_("bad table entry: {reason}")
# watchers (6.11)
NO_WATCHERS = N_("this table takes no watchers")
WATCHERS_FULL = N_("the table has its {count} watchers: try again later")
BAD_WATCH = N_("malformed 'watch' message")
GAME_OVER = N_("the game is over")
WATCHER_POSTS = N_("a watcher posts nothing (it sent {kind})")
WATCHER_SLOW = N_("watcher too slow: {count} frames queued")
LEAVING = N_("leaving")
# a link (6.2) and its handshake (6.3)
HANDSHAKE_FAILED = N_("handshake failed: {reason}")
HANDSHAKE_TIMED_OUT = N_("handshake timed out after {seconds} s")
NO_HELLO = N_("no hello within {seconds} s")
ROOM = N_(
    "{count} connections are being set up: the one that got least far is closed to let a new one in"
)
ROOM_FROM = N_(
    "{count} connections are being set up from {address}: the one that got least far is closed"
    " to let a new one in"
)
BAD_FRAME = N_("bad frame: {kind}: {reason}")
WRONG_CODE = N_("wrong join code")
CODE_NEEDED = N_("the table needs a join code (give it with --code)")
CODE_UNUSED = N_("a join code was given but the table uses none")
OTHER_VERSION = N_("peer speaks network version {theirs}, we speak {ours}")
BAD_HELLO = N_("malformed hello: wrong field types or sizes")
OUT_OF_TURN = N_("unexpected {kind} message during the handshake ({state})")
KEY_REFUSED = N_("peer key {key} is not one we accept here")
NO_TABLE_NAMED = N_("the responder named no table")
HOSTS_OTHER = N_("peer hosts table {theirs}, we want {ours}")
WANTS_OTHER = N_("peer wants table {theirs}, this is {ours}")
DEGENERATE = N_("peer sent a degenerate key share")
BAD_AUTH = N_("malformed auth: no 64-byte signature and 32-byte confirmation")
BAD_SIGNATURE = N_("the peer's handshake signature does not verify")
BAD_CONFIRMATION = N_("the peer's key confirmation is wrong")
FRAME_FORGED = N_(
    "frame {number} of the link fails its authentication tag (altered, replayed, reordered or"
    " sealed under another key)"
)
FRAME_ANNOUNCED = N_("frame announces {size} bytes, the limit is {limit}")
FRAME_SHORT = N_("sealed frame of {size} bytes is shorter than its tag")
FRAME_LARGE = N_("frame of {size} bytes, the limit is {limit}")
FRAME_BODY = N_("frame body: {reason}")
FRAME_NOT_MAP = N_("frame body is not a message map with a str type under key 't'")
FRAME_CUT_HEADER = N_("stream ended after {got} of 4 header bytes")
FRAME_CUT_BODY = N_("stream ended after {got} of {size} body bytes")
LOST_SENDING = N_("connection lost while sending: {error}")
LOST = N_("connection lost: {error}")
PEER_CLOSED = N_("peer closed the connection")
GOODBYE = N_("peer said goodbye: {reason!r}")
"""How a link that the peer closed saying `reason` ended (`heard(reason)`: not sent on)."""

KNOWN = (
    TABLE_STARTED,
    TABLE_FULL,
    LOCKED_OUT,
    BUSY_TABLE,
    BUSY_ADDRESS,
    WRONG_CODES,
    NO_SEAT,
    NOT_SIT,
    KEY_SEATED,
    NOT_READY,
    LOBBY_CLOSED,
    EARLY_READY,
    UNEXPECTED,
    NOTHING_RECEIVED,
    LEAVING_LOBBY,
    BAD_TABLE_ENTRY,
    NO_WATCHERS,
    WATCHERS_FULL,
    BAD_WATCH,
    GAME_OVER,
    WATCHER_POSTS,
    WATCHER_SLOW,
    LEAVING,
    HANDSHAKE_FAILED,
    HANDSHAKE_TIMED_OUT,
    NO_HELLO,
    ROOM_FROM,
    ROOM,
    BAD_FRAME,
    WRONG_CODE,
    CODE_NEEDED,
    CODE_UNUSED,
    OTHER_VERSION,
    BAD_HELLO,
    OUT_OF_TURN,
    KEY_REFUSED,
    NO_TABLE_NAMED,
    HOSTS_OTHER,
    WANTS_OTHER,
    DEGENERATE,
    BAD_AUTH,
    BAD_SIGNATURE,
    BAD_CONFIRMATION,
    FRAME_FORGED,
    FRAME_ANNOUNCED,
    FRAME_SHORT,
    FRAME_LARGE,
    FRAME_BODY,
    FRAME_NOT_MAP,
    FRAME_CUT_HEADER,
    FRAME_CUT_BODY,
)
"""Every reason a peer may be told that `heard` recognises (a longer one before a shorter one
it could be taken for)."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_INT = re.compile(r"[0-9]{1,9}")
_FLOAT = re.compile(r"[0-9]{1,9}\.[0-9]{1,9}")


def _pattern(template: str) -> re.Pattern[str]:
    """A regular expression that matches the English text of `template`, each placeholder a
    named group."""
    parts = _PLACEHOLDER.split(template)  # literal, name, literal, name, ..., literal
    body = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(body, re.DOTALL)


_PATTERNS = [(template, _pattern(template)) for template in KNOWN]


def _value(text: str) -> Any:
    """A value of a recognised reason: a number as a number, a known reason as a Sentence."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return heard(text)


def heard(text: str) -> str:
    """A peer's reason: a `Sentence` (said in the reader's language) if it was written from one
    of `KNOWN`, else `text` as it came."""
    for template, pattern in _PATTERNS:
        found = pattern.fullmatch(text)
        if found is not None:
            values = {name: _value(value) for name, value in found.groupdict().items()}
            sentence = Sentence(template, **values)
            if sentence == text:  # a number written otherwise is the peer's own text
                return sentence
    return text
