"""What the game screen shows, pane by pane, from a `GameSession` and the events it sent, laid
out for the terminal's width (from 60 columns; hands, moves and board lines wrap by tile).

Top to bottom: status bar, players, the board (or a panel: help, scores, log, round result),
what to do now, the hand, the numbered legal moves, the latest events, feedback. The words come
from `cfnet.game.text`; `GameScreen` adds the terminal, the keys and the typed lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfnet.game.moves import Move, Play
from cfnet.game.round import PlayerView
from cfnet.game.text import (
    LEFT_GAME,
    SAT_OUT,
    SENTENCE_CHARS,
    WIDTH,
    YOU,
    after_leaving,
    audit_note,
    clock,
    columns,
    describe_end,
    escaped,
    fit,
    fit_widths,
    instruction,
    kept_text,
    move_text,
    pad,
    score_lines,
    seat_name,
    shown_names,
    shown_sentence,
    waiting_text,
    winner_text,
)
from cfnet.lang import N_, _, digits, isolate, isolate_name, language, ngettext, pgettext
from cfnet.lang.typed import translated_commands
from cfnet.protocol.events import GameOver, MoveMade, RoundScored, RoundStarted
from cfnet.seat.session import GameAborted, GameLeft, GameSession, Notice, SessionEvent
from cfnet.ui.move_input import numbered_moves, shown_move, sorted_hand
from cfnet.ui.rule_book import rule_book_lines
from cfnet.ui.styles import (
    MIN_COLUMNS,
    Line,
    board_lines,
    rule,
    scroll_to,
    scrolled,
    too_small,
    wrap_items,
    wrapped_line,
)

LOG_ROWS = 4
MAIN_ROWS = 3  # the board pane's least height
PROMPT_ROWS = 1  # the input line, under what the panes draw
MIN_ROWS = 20  # the screen's least height, the input line included (more with a big hand)
COUNTDOWN = 30.0  # the local seat sees its time to move in the last this many seconds

HELP_INTRO = N_("How to play: type a move or a command. Tab completes; Up/Down: earlier lines.")
HELP_ITEMS = (
    ("3", "", N_("the move numbered 3 in the list of your moves")),
    ("9-3 b", "", N_("tile 9-3 on the open end labelled b on the board")),
    ("9-3", "", N_("the tile alone, when it fits one place only")),
    ("draw, pass", "draw pass", N_("only when none of your tiles fits (the banner says which)")),
    ("hint", "hint", N_("what the computer would play")),
    ("scores", "scores", N_("the score table")),
    ("log", "log", N_("every event so far")),
    ("help", "help", N_("this text")),
    ("rules", "rules", N_("the complete rules of the game")),
    ("Enter, next", "next", N_("the next round, after a round")),
    (
        "quit, leave",
        "quit",
        N_("resign and leave (asks; y or Ctrl-C again leaves); cfnet resume comes back"),
    ),
    ("Esc", "", N_("back to the board")),
    ("PgUp/PgDn", "", N_("scroll this pane")),
)
"""Each line of the help: what is typed (in English), the commands in it (said in the language
in effect as well, when it has its own words for them), and what it does."""
HELP_RULES = (
    N_("Play when you can; draw only when nothing fits, and play a drawn tile that fits."),
    N_("A double opens a foot: the next 3 tiles go on it. The lowest total wins."),
)


def help_lines(width: int) -> list[Line]:
    """How to play, within `width` columns: each command beside what it does (and, in another
    language, the command's own word in it under the English one)."""
    lines = wrapped_line("class:title", _(HELP_INTRO), width)
    words = translated_commands()
    for keys, commands, what in HELP_ITEMS:
        lines += wrapped_line("", f"  {pad(keys, 13)}{_(what)}", width, " " * 15)
        own = [words[name] for name in commands.split() if words[name] != name]
        if own:
            lines.append([("class:more", "  " + ", ".join(own))])
    for text in HELP_RULES:
        lines += wrapped_line("", _(text), width)
    return lines


def _row_heads() -> tuple[str, str]:
    """The heads of the players table's rows (tiles in hand, points), padded alike."""
    heads = (_("tiles"), _("points"))
    size = max(6, *(columns(head) for head in heads)) + 1
    return pad(heads[0], size), pad(heads[1], size)


def _hand_head() -> str:
    """The head of the hand's row, as wide as the moves' head."""
    return pad(_("Hand"), _heads_width())


def _moves_head() -> str:
    """The head of the moves' row, as wide as the hand's head."""
    return pad(_("Moves"), _heads_width())


def _heads_width() -> int:
    """The cells the hand's and the moves' heads take, a space after the longer."""
    return max(5, columns(_("Hand")), columns(_("Moves"))) + 1


def left_banner(left: GameLeft) -> str:
    """What the game screen says once the local seat left a game that goes on."""
    sentences = [_(LEFT_GAME[left.how])]
    if left.comeback is not None:
        sentences.append(after_leaving(left.comeback, left.waits))
    return " ".join([*sentences, _("Press Enter to leave.")])


def newest_row(rows: Sequence[str], moves: Sequence[Move]) -> int:
    """The board row showing the last tile played (0: the centre, before any play)."""
    tile = next((m.tile for m in reversed(moves) if isinstance(m, Play)), None)
    if tile is None:
        return 0
    shown = (f"[{tile.high}|{tile.low}]", f"[{tile.low}|{tile.high}]")
    return next((i for i, row in enumerate(rows) if any(s in row for s in shown)), 0)


class GamePanes:
    """The game screen's state (events seen, the open panel, feedback, scrolling) and the
    formatted lines of each of its panes for a given width."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.log: list[tuple[str, str]] = []  # (style, text): each event whole, escaped
        self.feedback: tuple[str, str] = ("class:info", _("Type help for the commands."))
        self.panel: str | None = None
        self.round_end: RoundScored | None = None  # set from a round's end to the next deal
        self.results: RoundScored | None = None  # the last round's, for the results panel
        self.game_end: GameOver | GameAborted | GameLeft | None = None
        self.saved_log: Path | None = None  # where the log is, said once the game is over
        self._scroll = 0
        self._board_focus = 0  # the board row with the newest tile
        self._follow = True  # scroll the board to it (until the player scrolls himself)

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names as shown (escaped)."""
        return shown_names(self.session.names)

    def on_event(self, event: SessionEvent) -> None:
        """Record a session event in the log and the screen's state."""
        names = self.names
        me = self.session.seat
        if isinstance(event, MoveMade | RoundStarted):
            self._follow = True
        if isinstance(event, MoveMade):
            who = YOU if event.seat == me else seat_name(names, event.seat)
            style = "class:event.mine" if event.seat == me else ""
            self._add(style, move_text(who, event.move, event.drawn))
        elif isinstance(event, RoundStarted):
            self.round_end = None
            if self.panel == "round":  # the table moved on by itself: let the player read on
                self.feedback = (
                    "class:info",
                    _("The next round has begun: Enter shows the board"),
                )
            self._add("class:event.round", self._round_begins(event))
        elif isinstance(event, RoundScored):
            self.round_end = self.results = event
            why = describe_end(event.end_reason, event.went_out, names)
            over = _("Round {number} over: {why}")
            self._add("class:event.round", over.format(number=digits(event.round_number), why=why))
            scores = ", ".join(
                f"{seat_name(names, s)} {digits(p)}" for s, p in enumerate(event.scores)
            )
            self._add("", "  " + _("points: {scores}").format(scores=scores))
            audit = audit_note(self.session.audited)
            if audit is not None:
                self._add("class:info", f"  {audit}")
            self._open("round")
        elif isinstance(event, GameOver):
            self.game_end = event
            self.saved_log = self.kept_log()
            self._add("class:event.round", self._winner_text(event))
            if self.saved_log is not None:
                self._add("", "  " + _("log saved to {path}").format(path=self.saved_log))
            self._open("round")
        elif isinstance(event, GameAborted):
            self.game_end = event
            self._add("class:error", _("Game aborted: {reason}").format(reason=event.reason))
        elif isinstance(event, GameLeft):
            self.game_end = event
            self._add("class:error", f"{event.reason[:1].upper()}{event.reason[1:]}")
            if event.comeback is not None:
                self._add("class:info", after_leaving(event.comeback, event.waits))
        elif isinstance(event, Notice):
            self._add("class:info", event.text)

    def _round_begins(self, event: RoundStarted) -> str:
        """The event of a round's start: its number, the centre once dealt, who starts."""
        view = self.session.view
        values = {
            "number": digits(event.round_number),
            "tile": isolate(str(view.public.centre)) if view is not None else "",
            "name": seat_name(self.names, event.starter),
        }
        if event.starter == self.session.seat:
            if view is None:
                return _("Round {number} begins; you start").format(**values)
            return _("Round {number} begins, centre {tile}; you start").format(**values)
        if view is None:
            return _("Round {number} begins; {name} starts").format(**values)
        return _("Round {number} begins, centre {tile}; {name} starts").format(**values)

    def kept_log(self) -> Path | None:
        """Where the game's log is kept, asked once when the game is over."""
        return self.session.log_path

    def _add(self, style: str, text: str) -> None:
        """An event for the log: the sentence may hold a peer's words, so it is escaped here."""
        self.log.append((style, shown_sentence(text)))

    def _winner_text(self, event: GameOver) -> str:
        winner = winner_text(event.winners, event.totals, self.names, self.session.seat)
        return _("Game over: {winner}").format(winner=winner)

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

    # -- the whole screen

    def frame(self, width: int, height: int) -> list[Line]:
        """Every pane within `width` columns and `height` rows (the input line comes under
        them): the board gets what the others leave, the event log gives way first; a terminal
        too small for that is told what it needs."""
        if width < MIN_COLUMNS:
            return too_small(width, height + PROMPT_ROWS, MIN_COLUMNS, MIN_ROWS)
        top = [self._status(width), *self._players(width)]
        bottom = [*self._banner(width), *self._hand(width), *self._moves(width)]
        feedback = self._feedback(width)
        fixed = len(top) + len(bottom) + len(feedback)
        if fixed + MAIN_ROWS > height:
            need = max(MIN_ROWS, fixed + MAIN_ROWS + PROMPT_ROWS)
            return too_small(width, height + PROMPT_ROWS, width, need)
        spare = height - fixed - MAIN_ROWS
        log: list[Line] = []
        if self.panel is None and spare >= 2:  # a title and at least one event
            log = [
                rule(pgettext("heading", "events"), width),
                *self._recent(width, min(LOG_ROWS, spare - 1)),
            ]
        rows = height - fixed - len(log)
        lines = self._main_lines(width)
        top_row = self._clamp(len(lines), rows - 1) if len(lines) > rows else 0
        main, _ = scrolled(lines, rows, top_row, "PgUp/PgDn")
        main += [[] for _ in range(rows - len(main))]
        return [*top, *main, *bottom, *log, *feedback]

    def _status(self, width: int) -> Line:
        """The status bar across `width` columns: the round and yard; whose turn it is."""
        right = self._status_right(width // 2)
        room = width - sum(columns(t[1]) for t in right)
        left = self._status_left()
        return [("class:status", pad(fit(left, room), room)), *right]

    def _status_left(self) -> str:
        view = self.session.view
        game = self.session.game
        if view is None:
            return " " + _("cfnet · dealing…")
        public = view.public
        return " " + _(
            "Round {number}/{rounds} · move {moves} · yard {yard} ({drawable} drawable)"
        ).format(
            number=digits(public.round_number),
            rounds=digits(game.options.rounds),
            moves=digits(len(public.moves)),
            yard=digits(public.yard_count),
            drawable=digits(public.drawable),
        )

    def _status_right(self, room: int = WIDTH // 2) -> Line:
        """Whose turn it is, within `room` columns."""
        session = self.session
        if isinstance(self.game_end, GameLeft):
            return [("class:status", _("Out of the game") + " ")]
        if self.game_end is not None:
            return [("class:status", _("Game over") + " ")]
        waiting = session.waiting_for
        if not waiting:
            return []
        if self.round_end is not None and session.seat in waiting:
            return [("class:status.turn", " ▶ " + _("Press Enter") + " ")]
        if self._ready():
            return [("class:status.turn", " ▶ " + _("Your turn") + " ")]
        if session.seat in waiting:
            return [("class:status", " " + _("Dealing…") + " ")]
        more = f" +{digits(len(waiting) - 1)}" if len(waiting) > 1 else ""
        waiting_for = _("Waiting for {name}")
        room = room - columns(waiting_for.format(name="")) - 3 - len(more)
        name = fit(seat_name(self.names, waiting[0]), room)
        return [("class:status", "  " + waiting_for.format(name=name) + f"{more} ")]

    def _players(self, width: int = WIDTH) -> list[Line]:
        """A small table: each seat's name (the one to move marked), tiles in hand, points;
        names whole unless the width lacks room. In a right-to-left language the rows' heads
        are at the right with seat 0 beside them, each row one left-to-right span, so that the
        columns stay under their names whichever way the terminal lays a line out."""
        session = self.session
        view = session.view
        totals = session.game.totals
        names = self.names
        rtl = language().rtl
        lead = " " * columns(_row_heads()[0])
        sizes = [max(4, columns(name)) for name in names]
        sizes = fit_widths(sizes, width - len(lead) - 2 * len(names), 4)
        seats = list(enumerate(zip(names, sizes, strict=True)))
        heads: Line = [] if rtl else [("", lead)]
        counts, points = ("", "") if rtl else _row_heads()
        for seat, (name, size) in reversed(seats) if rtl else seats:
            turn = view is not None and view.public.turn == seat and not view.public.is_over
            tiles: int | str = view.public.hand_counts[seat] if view is not None else 0
            if view is not None and seat not in view.public.seated:
                tiles = _("left")  # left the game: sits the round out
            mark = "▶" if turn else ""
            style = "class:status.turn" if turn else ("class:title" if seat == session.seat else "")
            shown = mark + fit(name, size)
            heads.append(("", " " * (size + 2 - columns(shown))))
            heads.append((style, isolate_name(shown)))
            counts += pad(tiles if isinstance(tiles, str) else digits(tiles), size + 2, True)
            points += pad(digits(totals[seat]), size + 2, True)
        if not rtl:
            return [heads, [("", counts)], [("", points)]]
        counts_head, points_head = _row_heads()  # at the right, the table against the right edge
        room = width - columns(counts) - columns(lead) - 1
        return [
            [("", " " * room), *heads, ("", " " + lead)],
            [("", " " * room + isolate(f"{counts} {counts_head}"))],
            [("", " " * room + isolate(f"{points} {points_head}"))],
        ]

    def _main_lines(self, width: int = WIDTH) -> list[Line]:
        view = self.session.view
        if self.panel == "help":
            return help_lines(width)
        if self.panel == "scores":
            rows = score_lines(self.session.game, self.session.names, width)
            scores: list[Line] = [[("", row)] for row in rows]
            return [[("class:title", _("Scores"))], *scores]
        if self.panel == "rules":
            return [[("", line)] for line in rule_book_lines(width)]
        if self.panel == "log":
            lines: list[Line] = [[("class:title", _("Event log"))]]
            for style, text in self.log:
                lines += wrapped_line(style, text, width, "    ")
            return lines
        if self.panel == "round" and self.results is not None:
            return self._round_lines(self.results, width)
        if view is None:
            return [[("", _("Waiting for the deal…"))]]
        lines = board_lines(view.public, width)
        self._board_focus = newest_row(
            ["".join(t[1] for t in ln) for ln in lines], view.public.moves
        )
        return lines

    def _round_lines(self, end: RoundScored, width: int) -> list[Line]:
        names = self.names
        why = describe_end(end.end_reason, end.went_out, names)
        over = _("Round {number} over: {why}").format(number=digits(end.round_number), why=why)
        lines = wrapped_line("class:title", over, width)
        name_width = min(max(columns(n) for n in names), max(8, width - 40))
        for seat, hand in enumerate(end.left):
            score = end.scores[seat]
            head = f"{pad(fit(names[seat], name_width), name_width)} {pad(digits(score), 4, True)} "
            noun = ngettext("point", "points", score)
            head += f"{pad(noun, max(6, columns(ngettext('point', 'points', 2))))}  "
            kept = kept_text(sorted_hand(hand), seat in end.seated, width - columns(head))
            for i, row in enumerate(kept.splitlines()):
                lines.append([("", (head if i == 0 else " " * columns(head)) + row)])
        audit = audit_note(self.session.audited)
        if audit is not None:
            lines += wrapped_line("class:info", audit, width)
        lines.extend([("", row)] for row in score_lines(self.session.game, names, width))
        if isinstance(self.game_end, GameOver):
            lines += wrapped_line("class:banner", self._winner_text(self.game_end), width)
            if self.saved_log is not None:
                lines.append([("", _("The game's log is saved in"))])
                path = escaped(str(self.saved_log), SENTENCE_CHARS)
                lines += wrapped_line("", f"  {path}", width, "  ")
            lines.append([("", _("Press Enter to leave."))])
        elif end.round_number >= self.session.game.options.rounds:
            lines += wrapped_line("", _("The last round: the table is checking the game…"), width)
        else:
            lines += wrapped_line("", _("Press Enter to go on (Esc: the board)."), width)
        return lines

    def _banner(self, width: int = WIDTH) -> list[Line]:
        view = self.session.view
        if isinstance(self.game_end, GameAborted):
            reason = escaped(self.game_end.reason, SENTENCE_CHARS)
            style, text = "class:error", _("Game aborted: {reason}").format(reason=reason)
        elif isinstance(self.game_end, GameLeft):
            style, text = "class:banner", escaped(left_banner(self.game_end), SENTENCE_CHARS)
        elif self.game_end is not None:
            style, text = (
                "class:banner",
                _("{winner}. Press Enter to leave.").format(
                    winner=self._winner_text(self.game_end)
                ),
            )
        elif view is None:
            style, text = "class:banner", _("Waiting for the deal.")
        elif self.round_end is not None:
            number = self.round_end.round_number
            then = _("Round {number} is over. Press Enter for round {next}.")
            if number >= self.session.game.options.rounds:
                then = _(
                    "Round {number} is over. That was the last round: the table is checking the"
                    " game…"
                )
            style, text = (
                "class:banner",
                then.format(number=digits(number), next=digits(number + 1)),
            )
        else:
            style, text = "class:banner", instruction(view, self.names, self._ready())
            text += self._countdown()
        return wrapped_line(style, text, width)

    def _countdown(self) -> str:
        """How the wait for another seat stands, or the local seat's time to move once it is
        short; "" if no deadline runs."""
        wait = self.session.wait
        if wait is None:
            return ""
        if wait.seat != self.session.seat:
            name = seat_name(self.names, wait.seat)
            text = waiting_text(name, wait.left, wait.link_down)
            return f" {text[0].upper()}{text[1:]}."
        if wait.left <= COUNTDOWN:
            return " " + _("{clock} left to move.").format(clock=clock(wait.left))
        return ""

    def _hand(self, width: int = WIDTH) -> list[Line]:
        view = self.session.view
        if view is None or self.round_end is not None:
            return []
        if self._out(view):
            return [[("class:title", _hand_head()), ("", f"({_(SAT_OUT)})")]]
        if not view.hand and not view.public.moves:
            return [[("class:title", _hand_head()), ("", _("(being dealt…)"))]]
        moves = view.legal_moves() if self._ready() else []
        playable = {m.tile for m in moves if isinstance(m, Play)}
        items: list[Line] = []
        for tile in sorted_hand(view.hand):
            style = "class:tile.drawn" if tile == view.drawn else ""
            items.append(
                [(style or ("class:tile.playable" if tile in playable else ""), isolate(str(tile)))]
            )
        return wrap_items(items, [("class:title", _hand_head())], width, " ")

    def _moves(self, width: int = WIDTH) -> list[Line]:
        view = self.session.view
        if view is None or self.round_end is not None or self._out(view):
            return []
        moves = numbered_moves(view) if self._ready() else []
        if not moves:
            return [[("class:title", _moves_head()), ("", _("wait for your turn"))]]
        items: list[Line] = [
            [("class:number", isolate(f"{n})")), ("", f" {shown_move(m)}")]
            for n, m in enumerate(moves, 1)
        ]
        return wrap_items(items, [("class:title", _moves_head())], width)

    def _out(self, view: PlayerView) -> bool:
        """The local seat is not dealt into the round shown: it left the game."""
        return view.seat not in view.public.seated or isinstance(self.game_end, GameLeft)

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

    def _recent(self, width: int = WIDTH, rows: int = LOG_ROWS) -> list[Line]:
        """The newest `rows` rows of the event log, wrapped within `width` columns."""
        lines: list[Line] = []
        for style, text in self.log[-rows:]:
            lines += wrapped_line(style, text, width, "    ")
        return lines[-rows:]

    def _feedback(self, width: int = WIDTH) -> list[Line]:
        style, text = self.feedback
        return wrapped_line(style, shown_sentence(text), width, "  ") if text else []

    def toolbar(self, width: int) -> str:
        """The key reminder beside the empty input line, shorter on a narrow terminal."""
        if width < WIDTH:
            return _("Tab · ↑↓ · help · quit") + " "
        return _("Tab: complete · ↑↓: earlier · PgUp/PgDn · help · quit") + " "

    # -- for tests and the final printout

    def text(self, width: int = WIDTH) -> str:
        """The screen's content as plain text (the main pane unscrolled), top to bottom."""
        parts = [
            [self._status(width)],
            self._players(width),
            self._main_lines(width),
            self._banner(width),
            self._hand(width),
            self._moves(width),
            self._recent(width),
            self._feedback(width),
        ]
        return "\n".join("".join(t[1] for t in row) for part in parts for row in part)
