"""The demo's live view of a game, as plain lines or as a frame redrawn in place on a terminal:
the board, each seat's tiles and total, the last moves, and each round's end with the hands."""

from __future__ import annotations

import contextlib
import shutil
from collections import deque
from collections.abc import Sequence
from typing import TextIO

from cfnet.game.board import PublicRound
from cfnet.game.moves import IllegalMoveError, Play
from cfnet.game.rules import RuleOptions
from cfnet.game.text import (
    ROUND_AUDIT,
    columns,
    describe_end,
    kept_text,
    move_text,
    pad,
    render_board,
    round_start,
)
from cfnet.lang import _, ngettext, pgettext
from cfnet.lang.formatting import native_digits
from cfnet.protocol.events import MoveMade, RoundScored, RoundStarted
from cfnet.seat.session import GameAborted, GameLeft, Notice, SessionEvent

RECENT = 4  # moves shown under the board


def _tiles(count: int) -> str:
    return ngettext("{count} tile", "{count} tiles", count).format(
        count=native_digits(f"{count:>2}")
    )


def _points(count: int) -> str:
    return ngettext("{count} point", "{count} points", count).format(
        count=native_digits(f"{count:>3}")
    )


class LiveView:
    """Shows the game as seat `me` sees it: each move, the board, tiles left, round results.

    It keeps its own copy of the public round, advanced event by event, so what it shows is
    the game as of the event shown even when the network is ahead of the display. `frames`:
    redraw one frame in place (a terminal); else print one line per move (a pipe or file).
    `audited`: the game's rounds are audited (said after each)."""

    def __init__(
        self,
        names: Sequence[str],
        me: int,
        rounds: int,
        out: TextIO,
        frames: bool,
        audited: bool,
    ) -> None:
        self.names = tuple(names)
        self.audited = audited
        self.me = me
        self.rounds = rounds
        self.out = out
        self.frames = frames
        self.public: PublicRound | None = None
        self.totals = tuple(0 for _ in names)
        self.recent: deque[str] = deque(maxlen=RECENT)
        self._drawn = 0  # rows of the frame on screen, to redraw over

    @property
    def my_turn(self) -> bool:
        """Seat `me` is to move in the round as shown (so the display has caught up)."""
        public = self.public
        return public is not None and not public.is_over and public.turn == self.me

    def who(self, seat: int) -> str:
        return self.names[seat]

    def say(self, text: str = "") -> None:
        self._drawn = 0
        print(text, file=self.out, flush=True)

    def show(self, event: SessionEvent, options: RuleOptions) -> None:
        if isinstance(event, RoundStarted):
            self.public = PublicRound(len(self.names), event.round_number, event.starter, options)
            self.recent.clear()
            starter = self.who(event.starter)
            self.say(
                "\n" + round_start(event.round_number, starter, self.public.centre, self.rounds)
            )
            self._frame()
        elif isinstance(event, MoveMade):
            self._moved(event)
        elif isinstance(event, RoundScored):
            self._round_ended(event)
        elif isinstance(event, Notice):
            self._note(event.text)
        elif isinstance(event, GameAborted):
            self.say(_("game aborted: {reason}").format(reason=event.reason))
        elif isinstance(event, GameLeft):
            self.say(event.reason)

    def _note(self, text: str) -> None:
        if self.frames:
            self.recent.append(text)
            self._frame()
        else:
            self.say(f"  {text}")

    def _moved(self, event: MoveMade) -> None:
        public = self.public
        if public is None:
            return
        move = event.move
        with contextlib.suppress(IllegalMoveError):  # the table checked it already
            public.apply_public(move, event.seat)
        text = move_text(self.who(event.seat), move, event.drawn)
        if isinstance(move, Play):
            left = public.hand_counts[event.seat]
            text = _("{move}, {count} left").format(move=text, count=native_digits(str(left)))
        self._note(text)

    def _frame(self) -> None:
        """Redraw the live frame over the previous one (terminal only)."""
        public = self.public
        if not self.frames or public is None:
            return
        size = shutil.get_terminal_size()
        head = _("round {number} of {rounds} | centre {centre} | yard {yard} ({drawable} drawable)")
        rows = [
            head.format(
                number=native_digits(str(public.round_number)),
                rounds=native_digits(str(self.rounds)),
                centre=public.centre,
                yard=native_digits(str(public.yard_count)),
                drawable=native_digits(str(public.drawable)),
            )
        ]
        for seat, name in enumerate(self.names):
            mark = ">" if seat == public.turn and not public.is_over else " "
            held = _tiles(public.hand_counts[seat])
            if seat not in public.seated:
                held = pad(pgettext("a seat that left", "left"), columns(_tiles(0)))
            total = _("total {points}").format(points=native_digits(f"{self.totals[seat]:>3}"))
            row = f" {mark} {pad(name, 6)} {held}   {total}"
            rows.append(row + "  " + _("(this process's seat)") if seat == self.me else row)
        board = render_board(public).splitlines()
        room = max(3, size.lines - 1 - len(rows) - RECENT)
        if len(board) > room:
            more = len(board) - room + 1
            rest = ngettext(
                "... {count} more row of the board", "... {count} more rows of the board", more
            )
            board = [*board[: room - 1], rest.format(count=native_digits(str(more)))]
        rows += board + [f"  {text}" for text in self.recent]
        cut = [row[: size.columns - 1] for row in rows]
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.out.write(up + "".join(f"{row}\x1b[K\n" for row in cut) + "\x1b[J")
        self.out.flush()
        self._drawn = len(cut)

    def _round_ended(self, event: RoundScored) -> None:
        self.totals = event.totals
        public = self.public
        if public is not None and not self.frames:
            at_end = _("the board at the end of round {number}:")
            self.say(at_end.format(number=native_digits(str(event.round_number))))
            self.say(render_board(public))
        self._frame()
        end = describe_end(event.end_reason, event.went_out, self.names)
        over = _("round {number} over: {end}")
        self.say(over.format(number=native_digits(str(event.round_number)), end=end))
        width = max(len(n) for n in self.names)
        for seat, hand in enumerate(event.left):
            shown = kept_text(hand, seat in event.seated, 1 << 16)
            total = _("(total {points})").format(points=native_digits(f"{event.totals[seat]:>3}"))
            name = pad(self.names[seat], width)
            self.say(f"  {name}  {_points(event.scores[seat])} {total}  {shown}")
        if self.audited:
            verified = _("round {number} verified: {how}")
            number = native_digits(str(event.round_number))
            self.say("  " + verified.format(number=number, how=_(ROUND_AUDIT)))
