"""Who may post which entry, and when (protocol.md, "The schedule"): one table, as data.

The game is a walk through SCHEDULE: in each step but the turns every seat posts one entry of
the step's kind, in seat order from the step's first seat, and the step that follows begins once
the last has posted. In the turns the game decides: the seat to move posts a play, draw or pass;
after a draw each other seat, in order from the drawer's left, posts a yard key. After the last
certificate of a round the next round begins at its first shuffle, or the game is over.
Used by the live table and by `cfnet verify` alike. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from cfnet.errors import LocalProtocolError
from cfnet.protocol.wire import (
    ACCEPT,
    CERTIFY,
    DEAL,
    REVEAL,
    SHUFFLE_A,
    SHUFFLE_B,
    TURN_KINDS,
    YARD_KEY,
)


class Step(Enum):
    """Where the table stands: the acceptance of the table entry, then each round's steps."""

    ACCEPT = ACCEPT
    SHUFFLE_A = SHUFFLE_A
    SHUFFLE_B = SHUFFLE_B
    DEAL = DEAL
    TURNS = "turns"
    REVEAL = REVEAL
    CERTIFY = CERTIFY
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Phase:
    """A step of the schedule: the kinds posted in it; `first`, the seat that posts first when
    the seats post in order (None: the turns, where the game names the seat); `then`, the step
    that follows once every seat from `first` on has posted (or the turns are over)."""

    kinds: frozenset[str]
    first: int | None
    then: Step


SCHEDULE: Mapping[Step, Phase] = MappingProxyType(
    {
        Step.ACCEPT: Phase(frozenset({ACCEPT}), 1, Step.SHUFFLE_A),
        Step.SHUFFLE_A: Phase(frozenset({SHUFFLE_A}), 0, Step.SHUFFLE_B),
        Step.SHUFFLE_B: Phase(frozenset({SHUFFLE_B}), 0, Step.DEAL),
        Step.DEAL: Phase(frozenset({DEAL}), 0, Step.TURNS),
        Step.TURNS: Phase(TURN_KINDS, None, Step.REVEAL),
        Step.REVEAL: Phase(frozenset({REVEAL}), 0, Step.CERTIFY),
        Step.CERTIFY: Phase(frozenset({CERTIFY}), 0, Step.DONE),
    }
)
YARD_KEYS = frozenset({YARD_KEY})
"""What a seat posts in the turns while a draw waits for its key."""
ROUND_START = Step.SHUFFLE_A


@dataclass(slots=True)
class Schedule:
    """Where a table stands in SCHEDULE: its step, how many seats have posted in it, and the
    seats that post in order (every seat; in a round, the seats dealt in)."""

    players: int
    step: Step = Step.ACCEPT
    posted: int = 0
    order: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self.order = self.order or tuple(range(self.players))

    def due(self, turn: tuple[int, frozenset[str]] | None = None) -> tuple[int, frozenset[str]]:
        """The seat entitled to post next and the kinds it may post; in the turns, `turn` is
        the seat the round names and its kinds. LocalProtocolError once the round is done."""
        phase = SCHEDULE.get(self.step)
        if phase is None:
            raise LocalProtocolError("the round is over: nothing more is due")
        if phase.first is None:
            assert turn is not None, "the turns need the round's turn"
            return turn
        place = phase.first + self.posted
        if place == len(self.order):  # all have posted, and what ends the step failed
            return self.players, phase.kinds  # no seat
        return self.order[place], phase.kinds

    def count(self) -> bool:
        """Count the entry just posted in a seat-order step; whether every seat has posted."""
        self.posted += 1
        first = SCHEDULE[self.step].first
        return first is not None and first + self.posted == len(self.order)

    def advance(self) -> Step:
        """Enter the step that follows the current one; returns it."""
        self.step, self.posted = SCHEDULE[self.step].then, 0
        return self.step

    def reveal_abandoned(self, revealing: tuple[int, ...]) -> None:
        """A deal abandoned when a seat left: `revealing` post their reveals, in order."""
        self.step, self.posted, self.order = Step.REVEAL, 0, revealing

    def next_round(self, seated: tuple[int, ...]) -> None:
        """Begin a round (or a deal of it) among `seated` at its first step."""
        self.step, self.posted, self.order = ROUND_START, 0, seated
