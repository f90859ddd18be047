"""The full-screen replay viewer (`cfnet replay` on a terminal) and spectator (`cfnet watch`).

It shows one position of a `Timeline` at a time, in the game screen's style and laid out for
the terminal's size (from 60x20): the status bar, the players with their hand counts and
totals, the board, every hand of a revealed round (H toggles), the move list with the current
move highlighted (a departure, a return or the game's abort is a step of its own). Left/Right
step one move, PageUp/PageDown jump by deal, Home/End to the start and the end, q leaves.
Opened following (`follow`: a game still being played), it stays on the newest position as the
timeline grows, until the viewer steps back; End follows again.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.game.text import (
    WIDTH,
    columns,
    describe_end,
    fit,
    kept_text,
    pad,
    score_table,
    shown_sentence,
    who_plays,
)
from cfnet.lang import N_, _, digits, pgettext
from cfnet.review.timeline import Position, Timeline
from cfnet.ui.move_input import sorted_hand
from cfnet.ui.styles import (
    COLOUR,
    MIN_COLUMNS,
    MONOCHROME,
    Frame,
    Line,
    board_lines,
    rule,
    scrolled,
    too_small,
    wrap_items,
    wrapped_line,
)

MOVE_ROWS = 5
MIN_ROWS = 20
KEYS = N_("←→ move · PgUp/PgDn deal · Home/End · h hands · q quit ")
SHORT_KEYS = "←→ · PgUp/PgDn · Home/End · h · q "


class Viewer:
    """The viewer over `timeline`; `await run()` until the user leaves (exit code 0).

    `status` is a line shown under the moves (e.g. the watcher's link, or the verdict)."""

    def __init__(
        self,
        timeline: Timeline,
        title: str,
        *,
        follow: bool = False,
        at: int = 0,
        input: Input | None = None,
        output: Output | None = None,
        color_depth: ColorDepth | None = None,
    ) -> None:
        self.timeline = timeline
        self.title = title
        self.follow = follow
        self.live = follow  # the game is being played as it is shown (a watcher)
        self.cursor = at
        self.show_hands = False
        self.status = ""
        self._scroll = 0
        self.app: Application[int] = Application(
            layout=Layout(Window(Frame(self.frame))),
            key_bindings=self._keys(),
            style=DynamicStyle(self._style),
            full_screen=True,
            input=input,
            output=output,
            color_depth=color_depth or ColorDepth.from_env(),
            refresh_interval=0.25,
        )

    async def run(self) -> int:
        """Show the viewer until the user leaves."""
        return await self.app.run_async()

    # -- moving

    @property
    def position(self) -> Position | None:
        """The position shown (None before the first deal)."""
        self._settle()
        positions = self.timeline.positions
        return positions[self.cursor] if positions else None

    def _settle(self) -> None:
        """Keep the cursor on a position (the newest one while following)."""
        last = len(self.timeline.positions) - 1
        self.cursor = last if self.follow else max(0, min(self.cursor, last))

    def step(self, by: int) -> None:
        """Move `by` positions (negative: back); stepping back stops following."""
        self._settle()
        self.cursor += by
        self.follow = self.follow and by >= 0
        self._scroll = 0

    def jump_round(self, by: int) -> None:
        """To the start of the next (`by` = 1) or of this or the previous round (-1)."""
        self._settle()
        starts = self.timeline.round_starts()
        if by > 0:
            later = [s for s in starts if s > self.cursor]
            self.cursor = later[0] if later else len(self.timeline.positions) - 1
        else:
            self.follow = False
            earlier = [s for s in starts if s < self.cursor]
            self.cursor = earlier[-1] if earlier else 0
        self._scroll = 0

    def to_end(self, end: bool) -> None:
        """To the last position (following it live) or to the first."""
        self.follow = end
        self.cursor = len(self.timeline.positions) - 1 if end else 0
        self._scroll = 0

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()
        actions: list[tuple[tuple[str, ...], Callable[[], None]]] = [
            (("right",), lambda: self.step(1)),
            (("left",), lambda: self.step(-1)),
            (("pagedown",), lambda: self.jump_round(1)),
            (("pageup",), lambda: self.jump_round(-1)),
            (("end",), lambda: self.to_end(True)),
            (("home",), lambda: self.to_end(False)),
            (("h",), self._toggle_hands),
            (("down",), lambda: self._scroll_by(3)),
            (("up",), lambda: self._scroll_by(-3)),
        ]
        for names, action in actions:
            keys.add(*names)(lambda event, act=action: act())

        @keys.add("q")
        @keys.add("c-c")
        @keys.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        return keys

    def _toggle_hands(self) -> None:
        self.show_hands = not self.show_hands

    def _scroll_by(self, rows: int) -> None:
        self._scroll = max(0, self._scroll + rows)

    # -- layout

    def _style(self) -> Style:
        return MONOCHROME if self.app.color_depth is ColorDepth.DEPTH_1_BIT else COLOUR

    def frame(self, width: int, height: int) -> list[Line]:
        """The whole viewer within `width` columns and `height` rows: the board and hands get
        what the rest leaves; a terminal too small for that is told what it needs."""
        if width < MIN_COLUMNS or height < MIN_ROWS:
            return too_small(width, height, MIN_COLUMNS, MIN_ROWS)
        top = [self._status_bar(width), *self._players(width)]
        bottom = [*self._banner(width), rule(pgettext("heading", "moves"), width)]
        end = [*self._footer(width), self._keys_line(width)]
        moves = self._moves(width, max(1, min(MOVE_ROWS, height - len(top) - len(bottom) - 6)))
        rows = height - len(top) - len(bottom) - len(moves) - len(end)
        if rows < 3:
            return too_small(width, height, width, height + 3 - rows)
        main, self._scroll = scrolled(self._main_lines(width), rows, self._scroll, "↑↓")
        main += [[] for _ in range(rows - len(main))]
        return [*top, *main, *bottom, *moves, *end]

    def _status_bar(self, width: int) -> Line:
        position = self.position
        rounds = self.timeline.table.options.rounds
        if position is None:
            text = " " + _("{title} · waiting for the first deal").format(title=self.title)
        else:
            public = position.public
            live = self.live and self.follow and not self.timeline.table.finished
            values = {
                "title": self.title,
                "number": digits(position.round_number),
                "rounds": digits(rounds),
                "move": digits(position.index),
                "yard": digits(public.yard_count),
                "drawable": digits(public.drawable),
            }
            long, short = (
                (
                    _(
                        "{title} · round {number}/{rounds} · move {move} · yard {yard}"
                        " ({drawable} drawable) · live"
                    ),
                    _("{title} · round {number}/{rounds} · move {move} · yard {yard} · live"),
                )
                if live
                else (
                    _(
                        "{title} · round {number}/{rounds} · move {move} · yard {yard}"
                        " ({drawable} drawable)"
                    ),
                    _("{title} · round {number}/{rounds} · move {move} · yard {yard}"),
                )
            )
            text = " " + long.format(**values)
            if columns(text) > width:  # the yard in short
                text = " " + short.format(**values)
        return [("class:status", pad(fit(shown_sentence(text), width), width))]

    def _players(self, width: int) -> list[Line]:
        """Each seat's name, tiles in hand and total, as many to a row as fit."""
        position = self.position
        totals = self._totals(position)
        heads: list[Line] = []
        for seat, name in enumerate(self.timeline.names):
            count = ""
            if position is not None:
                tiles = digits(position.public.hand_counts[seat])
                count = " " + pgettext("tiles in hand", "{count}t").format(count=tiles)
            if position is not None and seat not in position.public.seated:
                count = " " + pgettext("a seat that left", "left")
            turn = position is not None and not position.public.is_over and not position.note
            mine = turn and position is not None and position.public.turn == seat
            style = "class:status.turn" if mine else ""
            tail = f"{count} ({digits(totals[seat])})"
            shown = fit(name, width - 1 - columns(tail))
            heads.append([(style, f"{'▶' if mine else ' '}{shown}{tail}")])
        return wrap_items(heads, [], width)

    def _totals(self, position: Position | None) -> tuple[int, ...]:
        """The game totals before the round of `position` is scored (after it, at its end)."""
        rounds = self.timeline.rounds
        done = [r for r in rounds if position is None or r.round_number < position.round_number]
        if position is not None and position.public.is_over:
            done = [r for r in rounds if r.round_number <= position.round_number]
        return done[-1].totals if done else (0,) * len(self.timeline.names)

    def _main_lines(self, width: int = WIDTH) -> list[Line]:
        position = self.position
        if position is None:
            return [[("", _("No round has been dealt yet."))]]
        lines = [*self._hand_lines(position, width), []] if self.show_hands else []
        lines += board_lines(position.public, width)
        scored = self.timeline.scored(position)
        if position.public.is_over and scored is not None:
            names = self.timeline.names
            games = [r for r in self.timeline.rounds if r.round_number <= position.round_number]
            rows = [(r.round_number, r.scores, r.seated) for r in games]
            lines.append([])
            lines += [[("", row)] for row in score_table(names, rows, scored.totals, width)]
            lines.append([("class:title", _("Hands as revealed (kept at the end):"))])
            head = min(max(columns(name) for name in names), width // 3)
            for seat, (name, left, points) in enumerate(
                zip(names, scored.left, scored.scores, strict=True)
            ):
                score = pgettext("points, short", "{points} pts").format(points=digits(points))
                lead = f"  {pad(fit(name, head), head)} {pad(score, 7, right=True)}  "
                room = width - columns(lead)
                kept = kept_text(sorted_hand(left), seat in scored.seated, room).splitlines()
                lines.append([("", lead + kept[0])])
                lines += [[("", " " * columns(lead) + row)] for row in kept[1:]]
        return lines

    def _banner(self, width: int) -> list[Line]:
        """What happened instead of a move, how the round ended, or who is to play and what
        the board needs."""
        position = self.position
        if position is None:
            return []
        public = position.public
        names = self.timeline.names
        if position.note:
            return wrapped_line("class:error", position.note, width, "  ")
        if public.end_reason is not None:
            end = describe_end(public.end_reason, public.went_out, names)
            hidden = self.timeline.scored(position) is None
            over = (
                _("Round {number} over: {end}. The hands are not revealed yet.")
                if hidden
                else _("Round {number} over: {end}.")
            )
            text = over.format(number=digits(position.round_number), end=end)
        else:
            text = who_plays(public, names)
        return wrapped_line("class:banner", text, width)

    def _hand_lines(self, position: Position, width: int) -> list[Line]:
        hands = self.timeline.hands(position)
        if hands is None:
            return [[("class:more", _("Hands: hidden (this round is not revealed)"))]]
        lines: list[Line] = [[("class:title", _("Hands at this move:"))]]
        names = self.timeline.names
        head = min(max(columns(name) for name in names), width // 3)
        for seat, (name, hand) in enumerate(zip(names, hands, strict=True)):
            lead = f"  {pad(fit(name, head), head)}  "
            kept = kept_text(sorted_hand(hand), seat in position.public.seated, width - len(lead))
            rows = kept.splitlines()
            lines.append([("", lead + rows[0])])
            lines += [[("", " " * columns(lead) + row)] for row in rows[1:]]
        return lines

    def _moves(self, width: int, rows: int = MOVE_ROWS) -> list[Line]:
        """`rows` rows of the move list around the position shown (highlighted)."""
        position = self.position
        if position is None:
            return []
        positions = self.timeline.positions
        top = max(0, min(self.cursor - rows // 2, len(positions) - rows))
        out: list[Line] = []
        for i in range(top, min(len(positions), top + rows)):
            shown = positions[i]
            mark = f"{shown.number:>4}. " if shown.move is not None else "   · "
            style = "class:selected" if i == self.cursor else ""
            out.append([(style, fit(mark + self.timeline.describe(shown), width))])
        return out

    def _footer(self, width: int) -> list[Line]:
        if not self.status:
            return []
        return wrapped_line("class:info", shown_sentence(self.status), width, "  ")

    def _keys_line(self, width: int) -> Line:
        keys = _(KEYS) if columns(_(KEYS)) < width else SHORT_KEYS
        return [("class:toolbar", pad(keys, width, right=True))]

    # -- for tests

    def text(self, width: int = WIDTH) -> str:
        """The viewer's content as plain text (the main pane unscrolled), top to bottom."""
        parts = [
            [self._status_bar(width)],
            self._players(width),
            self._main_lines(width),
            self._banner(width),
            self._moves(width),
            self._footer(width),
        ]
        return "\n".join("".join(t[1] for t in row) for part in parts for row in part)
