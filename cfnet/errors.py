"""The two kinds of protocol error, as in h11: our own misuse, and a peer breaking the rules.

`LocalProtocolError`: this program (or its user) asked for something the protocol does not
allow; nothing was sent. `PeerProtocolError`: something received breaks the protocol; when the
culprit is known (a signed entry), `seat` names it and it is evidence for a signed abort.
"""

from __future__ import annotations

import errno
from pathlib import PurePath

from cfnet.lang.sentence import Sentence, said


class LocalProtocolError(ValueError):
    """We tried to do something the protocol does not allow here; nothing changed."""


class PeerProtocolError(ValueError):
    """Received data breaks the protocol; `seat` is the seat to blame when one is provable."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason if seat is None else f"seat {seat}: {reason}")
        self.reason = reason
        self.seat = seat


class UsageError(LocalProtocolError):
    """The command line asks for what cannot be done as asked (exit status 2, as argparse's)."""

    exit_status = 2


def exit_status(error: BaseException) -> int:
    """The exit status for an expected error: its class's `exit_status` (2 for a usage error or a
    rule option), else 1."""
    status = getattr(type(error), "exit_status", 1)
    return status if isinstance(status, int) else 1


def describe(error: BaseException) -> str:
    """`error` as one line for a person, in the language in effect where its reason is a
    `Sentence`; an OSError as `FILE: reason`, without `[Errno N]`."""
    if isinstance(error, OSError) and error.strerror:
        reason = error.strerror[:1].lower() + error.strerror[1:]
        return f"{error.filename}: {reason}" if error.filename else reason
    sentence = error.args[0] if len(error.args) == 1 else None
    text = said(sentence) if isinstance(sentence, Sentence) else str(error)
    return " ".join(text.split()) or type(error).__name__


def cannot_write(path: PurePath, error: OSError) -> str:
    """Why the file `path` could not be written, as one line for a person (a missing folder
    named as such)."""
    if error.errno == errno.ENOENT:
        return f"cannot write {path}: there is no folder {path.parent}"
    reason = (error.strerror or type(error).__name__).lower()
    return f"cannot write {path}: {reason}"
