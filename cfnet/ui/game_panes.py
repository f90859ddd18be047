"""What the game screen shows, pane by pane, from a `GameSession` and the events it sent.

Top to bottom: status bar, players, the board (or a panel: help, scores, log, round result),
what to do now, the hand, the numbered legal moves, the latest events, feedback. The words come
from `cfnet.game.text`; `GameScreen` adds the terminal, the keys and the typed lines.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from cfnet.game.moves import Move, Play
from cfnet.game.text import (
    WIDTH,
    audit_note,
    clock,
    describe_end,
    instruction,
    move_text,
    score_lines,
    seat_name,
    waiting_text,
    winner_text,
)
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.seat.session import GameAborted, GameSession, Notice, SessionEvent
from cfnet.ui.move_input import numbered_moves, sorted_hand
from cfnet.ui.styles import Line, board_lines, join, scroll_to, titled, wrap_items

LOG_ROWS = 4
COUNTDOWN = 30.0  # the local seat sees its time to move in the last this many seconds

HELP_TEXT = (
    "How to play: type a move or a command. Tab completes; Up/Down: earlier lines.",
    "  3            the move numbered 3 in the list of your moves",
    "  9-3 b        tile 9-3 on the open end labelled b on the board",
    "  9-3          the tile alone, when it fits one place only",
    "  draw, pass   only when none of your tiles fits (the banner says which)",
    "  hint         what the computer would play   scores    the score table",
    "  log          every event so far             help      this text",
    "  Enter, next  the next round, after a round  quit, leave  resign and leave (asks)",
    "  Esc          back to the board              PgUp/PgDn scroll this pane",
    "Play when you can; draw only when nothing fits, and play a drawn tile that fits.",
    "A double opens a foot: the next 3 tiles go on it. The lowest total wins.",
)


def newest_row(rows: Sequence[str], moves: Sequence[Move]) -> int:
    """The board row showing the last tile played (0: the centre, before any play)."""
    tile = next((m.tile for m in reversed(moves) if isinstance(m, Play)), None)
    if tile is None:
        return 0
    shown = (f"[{tile.high}|{tile.low}]", f"[{tile.low}|{tile.high}]")
    return next((i for i, row in enumerate(rows) if any(s in row for s in shown)), 0)


class GamePanes:
    """The game screen's state (events seen, the open panel, feedback, scrolling) and the
    formatted lines of each of its panes."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.log: list[tuple[str, str]] = []
        self.feedback: tuple[str, str] = ("class:info", "Type help for the commands.")
        self.panel: str | None = None
        self.round_end: RoundScored | None = None  # set from a round's end to the next deal
        self.results: RoundScored | None = None  # the last round's, for the results panel
        self.game_end: GameOver | GameAborted | None = None
        self.saved_log: Path | None = None  # where the log is, said once the game is over
        self._scroll = 0
        self._board_focus = 0  # the board row with the newest tile
        self._follow = True  # scroll the board to it (until the player scrolls himself)

    def on_event(self, event: SessionEvent) -> None:
        """Record a session event in the log and the screen's state."""
        names = self.session.names
        me = self.session.seat
        if isinstance(event, MoveMade | RoundStarted):
            self._follow = True
        if isinstance(event, MoveMade):
            who = "You" if event.seat == me else seat_name(names, event.seat)
            style = "class:event.mine" if event.seat == me else ""
            self._add(style, move_text(who, event.move, event.drawn))
        elif isinstance(event, RoundStarted):
            self.round_end = None
            if self.panel == "round":  # the table moved on by itself: let the player read on
                self.feedback = ("class:info", "The next round has begun: Enter shows the board")
            view = self.session.view
            centre = f", centre {view.public.centre}" if view is not None else ""
            starter = (
                "you start" if event.starter == me else f"{seat_name(names, event.starter)} starts"
            )
            self._add("class:event.round", f"Round {event.round_number} begins{centre}; {starter}")
        elif isinstance(event, RoundScored):
            self.round_end = self.results = event
            why = describe_end(event.end_reason, event.went_out, names)
            self._add("class:event.round", f"Round {event.round_number} over: {why}")
            scores = ", ".join(f"{seat_name(names, s)} {p}" for s, p in enumerate(event.scores))
            self._add("", f"  points: {scores}")
            audit = audit_note(self.session.audited)
            if audit is not None:
                self._add("class:info", f"  {audit}")
            self._open("round")
        elif isinstance(event, GameOver):
            self.game_end = event
            self.saved_log = self.kept_log()
            self._add("class:event.round", self._winner_text(event))
            if self.saved_log is not None:
                self._add("", f"  log saved to {self.saved_log}")
            self._open("round")
        elif isinstance(event, GameAborted):
            self.game_end = event
            self._add("class:error", f"Game aborted: {event.reason}")
        elif isinstance(event, Notice):
            self._add("class:info", event.text)

    def kept_log(self) -> Path | None:
        """Where the game's log is kept, asked once when the game is over."""
        return self.session.log_path

    def _add(self, style: str, text: str) -> None:
        for row in textwrap.wrap(text, WIDTH, subsequent_indent="    "):
            self.log.append((style, row))

    def _winner_text(self, event: GameOver) -> str:
        names, me = self.session.names, self.session.seat
        return f"Game over: {winner_text(event.winners, event.totals, names, me)}"

    def _close_panel(self) -> None:
        """Back to the board; what the feedback said about the panel is said."""
        self.panel = None
        self.feedback = ("", "")

    def _open(self, panel: str) -> None:
        self.panel = panel
        self._scroll = 1 << 30 if panel == "log" else 0

    def _clamp(self, total: int, rows: int) -> int:
        """The pane's first row: the board follows its newest tile unless scrolled by hand."""
        if self.panel is None and self._follow:
            self._scroll = scroll_to(self._scroll, self._board_focus, total, rows)
        self._scroll = max(0, min(self._scroll, total - rows))
        return self._scroll

    def _status_left(self) -> Line:
        view = self.session.view
        game = self.session.game
        if view is None:
            return [("", " cfnet · dealing…")]
        public = view.public
        return [
            (
                "",
                f" Round {public.round_number}/{game.options.rounds}"
                f" · move {len(public.moves)} · yard {public.yard_count}"
                f" ({public.drawable} drawable)",
            )
        ]

    def _status_right(self) -> Line:
        session = self.session
        if self.game_end is not None:
            return [("", "Game over ")]
        waiting = session.waiting_for
        if not waiting:
            return [("", "")]
        if self.round_end is not None and session.seat in waiting:
            return [("class:status.turn", " ▶ Press Enter ")]
        if self._ready():
            return [("class:status.turn", " ▶ Your turn ")]
        if session.seat in waiting:
            return [("", " Dealing… ")]
        more = f" +{len(waiting) - 1}" if len(waiting) > 1 else ""
        return [("", f"  Waiting for {seat_name(session.names, waiting[0])[:10]}{more} ")]

    def _players(self) -> Line:
        """A small table: each seat's name (the one to move marked), tiles in hand, points."""
        session = self.session
        view = session.view
        totals = session.game.totals
        names = [name[:8] for name in session.names]
        width = max(4, *(len(n) for n in names)) + 2
        heads: Line = [("", "       ")]
        counts, points = "tiles  ", "points "
        for seat, name in enumerate(names):
            turn = view is not None and view.public.turn == seat and not view.public.is_over
            count: int | str = view.public.hand_counts[seat] if view is not None else 0
            if view is not None and seat not in view.public.seated:
                count = "left"  # sits the round out
            mark = "▶" if turn else ""
            style = "class:status.turn" if turn else ("class:title" if seat == session.seat else "")
            heads.append(("", " " * (width - len(name) - len(mark))))
            heads.append((style, mark + name))
            counts += f"{count:>{width}}"
            points += f"{totals[seat]:>{width}}"
        return join([heads, [("", counts)], [("", points)]])

    def _main_lines(self) -> list[Line]:
        view = self.session.view
        if self.panel == "help":
            return [[("class:title" if i == 0 else "", row)] for i, row in enumerate(HELP_TEXT)]
        if self.panel == "scores":
            rows = score_lines(self.session.game, self.session.names)
            return titled("Scores", [("", row) for row in rows])
        if self.panel == "log":
            return titled("Event log", self.log)
        if self.panel == "round" and self.results is not None:
            return self._round_lines(self.results)
        if view is None:
            return [[("", "Waiting for the deal…")]]
        lines = board_lines(view.public)
        self._board_focus = newest_row(
            ["".join(t[1] for t in ln) for ln in lines], view.public.moves
        )
        return lines

    def _round_lines(self, end: RoundScored) -> list[Line]:
        names = self.session.names
        why = describe_end(end.end_reason, end.went_out, names)
        lines: list[Line] = [[("class:title", f"Round {end.round_number} over: {why}")]]
        width = max(len(n) for n in names) + 1
        for seat, hand in enumerate(end.left):
            tiles = " ".join(str(t) for t in sorted_hand(hand)) or "(out)"
            score = end.scores[seat]
            head = f"{names[seat]:<{width}}{score:>4} {'point' if score == 1 else 'points':<6}  "
            for i, row in enumerate(textwrap.wrap(tiles, WIDTH - len(head)) or [""]):
                lines.append([("", (head if i == 0 else " " * len(head)) + row)])
        audit = audit_note(self.session.audited)
        if audit is not None:
            lines.append([("class:info", audit)])
        lines.extend([("", row)] for row in score_lines(self.session.game, names))
        if isinstance(self.game_end, GameOver):
            lines.append([("class:banner", self._winner_text(self.game_end))])
            if self.saved_log is not None:
                lines.append([("", "The game's log is saved in")])
                path = str(self.saved_log)
                lines.extend([("", "  " + row)] for row in textwrap.wrap(path, WIDTH - 2))
            lines.append([("", "Press Enter to leave.")])
        elif end.round_number >= self.session.game.options.rounds:
            lines.append([("", "The last round: the table is checking the game…")])
        else:
            lines.append([("", "Press Enter to go on (Esc: the board).")])
        return lines

    def _banner(self) -> Line:
        view = self.session.view
        if isinstance(self.game_end, GameAborted):
            style, text = "class:error", f"Game aborted: {self.game_end.reason}"
        elif self.game_end is not None:
            style, text = (
                "class:banner",
                self._winner_text(self.game_end) + ". Press Enter to leave.",
            )
        elif view is None:
            style, text = "class:banner", "Waiting for the deal."
        elif self.round_end is not None:
            number = self.round_end.round_number
            then = f"Press Enter for round {number + 1}."
            if number >= self.session.game.options.rounds:
                then = "That was the last round: the table is checking the game…"
            style, text = "class:banner", f"Round {number} is over. {then}"
        else:
            style, text = "class:banner", instruction(view, self.session.names, self._ready())
            text += self._countdown()
        return [(style, textwrap.fill(text, WIDTH))]

    def _countdown(self) -> str:
        """How the wait for another seat stands, or the local seat's time to move once it is
        short; "" if no deadline runs."""
        wait = self.session.wait
        if wait is None:
            return ""
        if wait.seat != self.session.seat:
            name = seat_name(self.session.names, wait.seat)
            text = waiting_text(name, wait.left, wait.link_down)
            return f" {text[0].upper()}{text[1:]}."
        if wait.left <= COUNTDOWN:
            return f" {clock(wait.left)} left to move."
        return ""

    def _hand(self) -> Line:
        view = self.session.view
        if view is None or self.round_end is not None:
            return []
        if not view.hand and not view.public.moves:
            return [("class:title", "Hand  "), ("", "(being dealt…)")]
        moves = view.legal_moves() if self._ready() else []
        playable = {m.tile for m in moves if isinstance(m, Play)}
        items: list[Line] = []
        for tile in sorted_hand(view.hand):
            style = "class:tile.drawn" if tile == view.drawn else ""
            items.append(
                [(style or ("class:tile.playable" if tile in playable else ""), str(tile))]
            )
        return join(wrap_items(items, [("class:title", "Hand  ")], 6, " "))

    def _moves(self) -> Line:
        view = self.session.view
        if view is None or self.round_end is not None:
            return []
        moves = numbered_moves(view) if self._ready() else []
        if not moves:
            return [("class:title", "Moves "), ("", "wait for your turn")]
        items: list[Line] = [
            [("class:number", f"{n})"), ("", f" {m}")] for n, m in enumerate(moves, 1)
        ]
        return join(wrap_items(items, [("class:title", "Moves ")], 6))

    def _ready(self) -> bool:
        """The table waits for the local seat's move, and its tiles are open."""
        view = self.session.view
        return (
            view is not None
            and not view.public.is_over
            and view.public.turn == view.seat
            and self.session.seat in self.session.waiting_for
            and bool(view.hand)
            and not (view.public.drawn_pending and view.drawn is None)
        )

    def _log_title(self) -> Line:
        return [("class:rule", "── events " + "─" * (WIDTH - 11))]

    def _recent(self) -> Line:
        return join([[entry] for entry in self.log[-LOG_ROWS:]])

    def _feedback(self) -> Line:
        style, text = self.feedback
        return [(style, textwrap.fill(text, WIDTH, subsequent_indent="  "))]

    def _toolbar(self) -> Line:
        return [("class:toolbar", "Tab: complete · ↑↓: earlier · PgUp/PgDn · help · quit ")]

    # -- for tests and the final printout

    def text(self) -> str:
        """The screen's content as plain text (the main pane unscrolled), top to bottom."""
        parts = [
            self._status_left(),
            self._status_right(),
            self._players(),
            join(self._main_lines()),
            self._banner(),
            self._hand(),
            self._moves(),
            self._recent(),
            self._feedback(),
        ]
        return "\n".join("".join(t[1] for t in part) for part in parts if part)
