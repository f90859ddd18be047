"""The full-screen replay viewer (`cfnet replay` on a terminal) and spectator (`cfnet watch`).

It shows one position of a `Timeline` at a time, in the game screen's style: the status bar,
the players with their hand counts and totals, the board, every hand of a revealed round (H
toggles), the move list with the current move highlighted. Left/Right step one move,
PageUp/PageDown jump by round, Home/End to the start and the end, q leaves. Live (`follow`), it
stays on the newest position as the timeline grows, until the viewer steps back; End follows
again.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window, WindowAlign
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import DynamicStyle, Style

from cfnet.game.text import WIDTH, describe_end, render_hand, score_table, who_plays
from cfnet.review.timeline import Position, Timeline
from cfnet.ui.styles import COLOUR, MONOCHROME, Line, Pane, board_lines

MOVE_ROWS = 5
KEYS = "←→ move · PgUp/PgDn round · Home/End · h hands · q quit "


class Viewer:
    """The viewer over `timeline`; `await run()` until the user leaves (exit code 0).

    `status` is a line shown under the board (e.g. the watcher's link, or the verdict)."""

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
        self.cursor = at
        self.show_hands = False
        self.status = ""
        self._scroll = 0
        self.app: Application[int] = Application(
            layout=Layout(self._layout()),
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

    def _layout(self) -> HSplit:
        def text(get: Callable[[], Line], align: WindowAlign = WindowAlign.LEFT) -> Window:
            control = FormattedTextControl(get)
            return Window(control, dont_extend_height=True, wrap_lines=True, align=align)

        status = VSplit([text(self._status_bar)], style="class:status")
        return HSplit(
            [
                status,
                text(self._players),
                Window(
                    Pane(self._main_lines, self._clamp, "↑↓"), height=Dimension(min=3, weight=1)
                ),
                text(self._banner),
                text(self._rule),
                Window(FormattedTextControl(self._moves), height=MOVE_ROWS),
                text(self._footer),
                text(lambda: [("class:toolbar", KEYS)], WindowAlign.RIGHT),
            ]
        )

    def _clamp(self, total: int, rows: int) -> int:
        self._scroll = max(0, min(self._scroll, total - rows))
        return self._scroll

    def _status_bar(self) -> Line:
        position = self.position
        rounds = self.timeline.table.options.rounds
        if position is None:
            return [("", f" {self.title} · waiting for the first deal")]
        public = position.public
        live = " · live" if self.follow else ""
        return [
            (
                "",
                f" {self.title} · round {position.round_number}/{rounds}"
                f" · move {position.index} · yard {public.yard_count}"
                f" ({public.drawable} drawable){live}",
            )
        ]

    def _players(self) -> Line:
        position = self.position
        names = self.timeline.names
        totals = self._totals(position)
        heads: Line = []
        for seat, name in enumerate(names):
            count = "" if position is None else f" {position.public.hand_counts[seat]}t"
            if position is not None and seat not in position.public.seated:
                count = " left"
            turn = position is not None and not position.public.is_over
            mine = turn and position is not None and position.public.turn == seat
            style = "class:status.turn" if mine else ""
            heads.append((style, f"{'▶' if mine else ' '}{name}{count} ({totals[seat]})"))
            heads.append(("", "  "))
        return heads[:-1]

    def _totals(self, position: Position | None) -> tuple[int, ...]:
        """The game totals before the round of `position` is scored (after it, at its end)."""
        rounds = self.timeline.rounds
        done = [r for r in rounds if position is None or r.round_number < position.round_number]
        if position is not None and position.public.is_over:
            done = [r for r in rounds if r.round_number <= position.round_number]
        return done[-1].totals if done else (0,) * len(self.timeline.names)

    def _main_lines(self) -> list[Line]:
        position = self.position
        if position is None:
            return [[("", "No round has been dealt yet.")]]
        lines = [*self._hand_lines(position), []] if self.show_hands else []
        lines += board_lines(position.public)
        scored = self.timeline.scored(position)
        if position.public.is_over and scored is not None:
            games = [r for r in self.timeline.rounds if r.round_number <= position.round_number]
            rows = [(r.round_number, r.scores, r.seated) for r in games]
            lines.append([])
            lines += [[("", row)] for row in score_table(self.timeline.names, rows, scored.totals)]
            lines.append([("class:title", "Hands as revealed (kept at the end):")])
            names = self.timeline.names
            for name, left, points in zip(names, scored.left, scored.scores, strict=True):
                kept = render_hand(left).replace("\n", " ")
                lines.append([("", f"  {name[:12]:<12} {points:>3} pts  {kept}")])
        return lines

    def _banner(self) -> Line:
        """How the round ended, or who is to play and what the board needs."""
        position = self.position
        if position is None:
            return []
        public = position.public
        names = self.timeline.names
        if public.end_reason is not None:
            end = describe_end(public.end_reason, public.went_out, names)
            hidden = self.timeline.scored(position) is None
            more = " The hands are not revealed yet." if hidden else ""
            text = f"Round {position.round_number} over: {end}.{more}"
        else:
            text = who_plays(public, names)
        return [("class:banner", textwrap.fill(text, WIDTH))]

    def _hand_lines(self, position: Position) -> list[Line]:
        hands = self.timeline.hands(position)
        if hands is None:
            return [[("class:more", "Hands: hidden (this round is not revealed)")]]
        lines: list[Line] = [[("class:title", "Hands at this move:")]]
        for name, hand in zip(self.timeline.names, hands, strict=True):
            text = textwrap.indent(render_hand(hand), "  ").splitlines()
            lines.append([("", f"{name[:12]:<12}{text[0]}")])
            lines += [[("", " " * 12 + row)] for row in text[1:]]
        return lines

    def _rule(self) -> Line:
        return [("class:rule", "── moves " + "─" * (WIDTH - 9))]

    def _moves(self) -> Line:
        position = self.position
        if position is None:
            return []
        positions = self.timeline.positions
        top = max(0, min(self.cursor - MOVE_ROWS // 2, len(positions) - MOVE_ROWS))
        out: Line = []
        for i in range(top, min(len(positions), top + MOVE_ROWS)):
            shown = positions[i]
            mark = f"{shown.number:>4}. " if shown.move is not None else "   · "
            style = "class:selected" if i == self.cursor else ""
            if out:
                out.append(("", "\n"))
            out.append((style, mark + self.timeline.describe(shown)))
        return out

    def _footer(self) -> Line:
        return [("class:info", self.status)] if self.status else []

    # -- for tests

    def text(self) -> str:
        """The viewer's content as plain text (the main pane unscrolled), top to bottom."""
        parts = [
            self._status_bar(),
            self._players(),
            [t for row in self._main_lines() for t in [*row, ("", "\n")]],
            self._banner(),
            self._moves(),
            self._footer(),
        ]
        return "\n".join("".join(t[1] for t in part) for part in parts if part)
