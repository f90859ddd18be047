"""What the game screen plays through: a `GameSession` (offline, protocol or network backed).

The screen reads the session's state whenever it redraws and consumes its events one by one;
a move goes in through `submit`. Sessions run on the asyncio loop the screen runs on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cfnet.game.moves import Move
from cfnet.game.round import Game, PlayerView
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the player should know that is not a move, e.g. 'waiting for Bob';
    `fault`: a seat's fault the table found."""

    text: str
    fault: bool = False


@dataclass(frozen=True, slots=True)
class GameAborted:
    """The game stopped before its end, e.g. a peer was caught cheating or left: `reason` in
    words, with the seats' names; `failure`: this seat's own failure that stopped it (None:
    the table's abort)."""

    reason: str
    failure: str | None = None


@dataclass(frozen=True, slots=True)
class GameLeft:
    """The local seat left a game that goes on without it: `reason` in words (the departure as
    every log tells it), `how` it left as a sentence goes on from "you" ("resigned from",
    "were timed out of"), and `comeback`, how to be dealt in again (None: never, it was
    removed for cheating); `waits`: only this process's own computer players were left, and
    they stop with it, so the game waits for the comeback (it does not go on)."""

    reason: str
    how: str
    comeback: str | None
    waits: bool = False


@dataclass(frozen=True, slots=True)
class Wait:
    """Whom the table waits for, and how long it still gives them: `left` seconds before the
    seat may be blamed; `link_down`: seconds since the link to that seat broke (None: linked,
    or the local seat)."""

    seat: int
    left: float
    link_down: float | None = None


SessionEvent = RoundStarted | MoveMade | RoundScored | GameOver | Notice | GameAborted | GameLeft
"""The protocol's own events of play (`MoveMade.drawn` only for the local seat's draws), plus
what only a session says: notices, how its game stopped early, and that the local seat left
a game that goes on."""


class GameSession(Protocol):
    """One seat's connection to a game, as the screen sees it."""

    @property
    def seat(self) -> int:
        """The local player's seat."""
        ...

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's display name, by seat."""
        ...

    @property
    def game(self) -> Game:
        """Options, scores of the rounds played so far and totals."""
        ...

    @property
    def view(self) -> PlayerView | None:
        """The local seat's view of the current (or just finished) round; None before a deal."""
        ...

    @property
    def audited(self) -> bool:
        """Whether each round is audited (every shuffle, key and move checked) when it ends."""
        ...

    @property
    def log_path(self) -> Path | None:
        """Where the game's log is saved (None: a game with no log)."""
        ...

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """The seats the table is waiting for now (the player to move, or slow peers)."""
        ...

    @property
    def wait(self) -> Wait | None:
        """The seat the table waits for under a deadline, and how that stands; None: no
        deadline runs (nobody is due, or a game without deadlines)."""
        ...

    def start(self) -> None:
        """Begin the game; call once, on the running event loop."""
        ...

    async def next_event(self) -> SessionEvent:
        """The next thing that happened, in order (waits until there is one)."""
        ...

    def submit(self, move: Move) -> None:
        """Make the local seat's move; `IllegalMoveError` (and nothing changes) if illegal."""
        ...

    def ready(self) -> None:
        """After `RoundScored`: the local player has seen the result and wants the next round."""
        ...

    def resign(self) -> bool:
        """The local player leaves, for good in this process. True: the session's end follows
        by itself (wait for it), once the others are told by a signed resignation at the
        seat's next turn if it is dealt in; False: leave now."""
        ...

    async def close(self) -> None:
        """Leave the game and release everything the session holds."""
        ...
