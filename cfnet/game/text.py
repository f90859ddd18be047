"""Every sentence about the game that a person reads: the board tree, hands, what to do now,
why a round ended, scores and winners, laid out for a given width (80 columns for plain output).

Screens, the line output of computer seats, replay, verify and the viewer all take their words
from here. The board comes as rows of (style, text) fragments: `render_board` joins them into
plain text, a screen styles them by their tag ("label": a line's label, "open": an open end).

Text from a peer or a file (names, table names, abort details, what a rejected entry held) is
data: it enters a sentence only through `escaped` (here, in `seat_name`), which writes every
character a terminal would act on as a visible escape. Widths are display columns (wcwidth):
a wide character takes two, a combining mark none.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence

import wcwidth

from cfnet.game.board import TOES, EndReason, Line, Phase, PublicRound
from cfnet.game.moves import Draw, Move, Play
from cfnet.game.round import Game, PlayerView
from cfnet.game.tiles import Tile, a_number

WIDTH = 80
"""The columns of plain output (a pipe, a log): screens pass their terminal's width instead."""
NAME_CHARS = 40
"""The most characters a name may have (protocol.md): a name is shown whole up to this."""
TEXT_CHARS = 400
"""The most characters shown of any other text from a peer or a file (an abort's detail)."""
SENTENCE_CHARS = 1000
"""The most characters shown of a sentence made elsewhere that may hold such text (a notice,
a verdict): it is `escaped` whole where it is shown."""
LABEL = "label"
OPEN = "open"

Fragment = tuple[str, str]
"""(style, text): style is "" (plain), LABEL or OPEN."""
Row = list[Fragment]


def escaped(text: str, limit: int = TEXT_CHARS) -> str:
    """`text` from a peer or a file, safe to show: every character that is not printable (C0
    and C1 controls, DEL, ESC, the bidi overrides, isolates and marks, line separators) written
    as its escape (`\\x1b`, `\\u202e`), the whole cut to `limit` characters, '…' marking a cut."""
    pieces = [
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text[: limit + 1]  # each character gives at least one: enough to know
    ]
    if sum(map(len, pieces)) <= limit:
        return "".join(pieces)
    kept, size = [], 0
    for piece in pieces:  # cut between escapes, never inside one
        if size + len(piece) > limit - 1:
            break
        kept.append(piece)
        size += len(piece)
    return "".join(kept) + "…"


def columns(text: str) -> int:
    """The columns `text` (printable: see `escaped`) takes on a terminal."""
    return int(wcwidth.width(text))


def fit(text: str, width: int) -> str:
    """`text` cut to `width` columns, '…' marking a cut (whole if it fits)."""
    if columns(text) <= width:
        return text
    return str(wcwidth.clip(text, 0, max(0, width - 1))).rstrip() + "…"


def pad(text: str, width: int, right: bool = False) -> str:
    """`text` filled with spaces to `width` columns, on the right (or the left: `right`)."""
    fill = " " * max(0, width - columns(text))
    return fill + text if right else text + fill


def wrapped(text: str, width: int, indent: str = "") -> list[str]:
    """`text` wrapped into rows of `width` columns at spaces (never inside a tile like 9-3),
    rows after the first indented by `indent`."""
    rows = wcwidth.wrap(text, max(1, width), subsequent_indent=indent, break_on_hyphens=False)
    return [str(row) for row in rows] or [""]


def fit_widths(sizes: Sequence[int], room: int, least: int) -> list[int]:
    """Widths for columns that want `sizes` columns each, all together within `room`: each
    whole if they fit, else the widest cut first, none below `least` (nor below its size)."""
    widest = max(sizes, default=0)
    while widest > least and sum(min(size, widest) for size in sizes) > room:
        widest -= 1
    return [min(size, max(widest, least)) for size in sizes]


def count(number: int, noun: str) -> str:
    """`number` with `noun`, plural unless it is 1: `1 point`, `3 points`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def result_after_departure(game: Game) -> str:
    """Why a game that a player left (not proven to cheat) still has a result (RULES.md)."""
    if game.is_over:
        return "the result of the audited rounds stands"
    scored = count(len(game.round_scores), "round")
    return f"fewer than 2 players are left, so the game ends with the {scored} scored"


def goes_on_text(
    round_number: int, redealt: bool, seated: Sequence[int], names: Sequence[str]
) -> str:
    """What a departure leaves: the round dealt again, or the next round, among the seats left."""
    among = ", ".join(seat_name(names, s) for s in seated)
    if redealt:
        return f"round {round_number} is dealt again among {among}"
    return f"round {round_number} starts among {among}"


def comeback_text(table: str) -> str:
    """How a player who left a game that goes on is dealt in again (`table`: its name, quoted
    for a shell when it must be)."""
    command = f"cfnet resume --table {shlex.quote(table)}"
    return f"`{command}` deals you in again at the next round that starts"


def left_line(table: str, how: str, comeback: str | None) -> str:
    """The line cfnet ends with when the player `how` table `table` ("resigned from", "were
    timed out of") and its game goes on: how to come back (`comeback`; None: never)."""
    line = f"cfnet: you {how} table {table!r}"
    return line if comeback is None else f"{line}; the game goes on without you: {comeback}"


def seat_name(names: Sequence[str], seat: int) -> str:
    """The name of `seat` as shown (`escaped`; `seat N` when `names` does not have it)."""
    return escaped(names[seat], NAME_CHARS) if 0 <= seat < len(names) else f"seat {seat}"


def shown_names(names: Sequence[str]) -> tuple[str, ...]:
    """Every seat's name as shown (`seat_name`)."""
    return tuple(seat_name(names, seat) for seat in range(len(names)))


def plain(row: Row) -> str:
    """A row's text without its styles."""
    return "".join(text for _, text in row)


def wrap_words(
    first: Row, more: Row, words: Sequence[Row], sep: str = "", width: int = WIDTH
) -> list[Row]:
    """`words` after `first`, continued on rows starting with `more`, within `width` columns;
    a word is never split (a row holds at least one)."""
    rows = [list(first)]
    used = columns(plain(first))
    fresh = True  # the row holds only its lead
    for word in words:
        size = columns(plain(word))
        if not fresh and used + len(sep) + size > width:
            rows.append([*more, *word])
            used = columns(plain(more)) + size
        else:
            if not fresh and sep:
                rows[-1].append(("", sep))
                used += len(sep)
            rows[-1].extend(word)
            used += size
        fresh = False
    return rows


def render_hand(tiles: Sequence[Tile], width: int = WIDTH) -> str:
    """A hand as `[9|3] [5|5] ...`, wrapped by tile within `width` columns."""
    if not tiles:
        return "(no tiles)"
    words: list[Row] = [[("", str(t))] for t in tiles]
    return "\n".join(plain(row) for row in wrap_words([], [], words, " ", width))


def render_board(public: PublicRound, width: int = WIDTH) -> str:
    """The board as plain text (the rows of `board_rows`)."""
    return "\n".join(plain(row) for row in board_rows(public, width))


def board_rows(public: PublicRound, width: int = WIDTH) -> list[Row]:
    """The board as a tree within `width` columns (a line wraps by tile): the centre double,
    its trains, their feet and toes, with each line's label tagged LABEL and each open end (or
    new line on offer) tagged OPEN."""
    children: dict[Tile, list[Line]] = {}
    for line in public.lines:
        children.setdefault(line.root, []).append(line)
    phase = public.phase
    trains = f"{public.trains} of {public.trains_needed} trains"
    rows: list[Row] = [[("", f"centre {public.centre}  ({trains})")]]

    def spawn(root: Tile) -> str | None:
        """The row offering a new line on `root`, if `root` takes one now."""
        label = public.next_label
        if label not in public.ends:
            return None
        if root == public.centre and phase is Phase.OPENING:
            return f"{label}: new train, needs {a_number(root.low)}"
        if root == public.foot:
            return f"{label}: new toe, needs {a_number(root.low)}"
        return None

    def branch(root: Tile, indent: str) -> None:
        items: list[Line | str] = list(children.get(root, []))
        offer = spawn(root)
        if offer is not None:
            items.append(offer)
        for i, item in enumerate(items):
            last = i == len(items) - 1
            head = indent + ("└─ " if last else "├─ ")
            deeper = indent + ("   " if last else "│  ")
            if isinstance(item, str):
                rows.append([("", head), (OPEN, item)])
                continue
            first: Row = [("", head), (LABEL, f"{item.label}:"), ("", " ")]
            more: Row = [("", deeper + "   ")]
            rows.extend(wrap_words(first, more, _line_words(public, item), width=width))
            if item.closed:
                branch(item.tiles[-1], deeper)

    branch(public.centre, "")
    return rows


def _line_words(public: PublicRound, line: Line) -> list[Row]:
    """The tiles of `line` as seen from the centre outwards, then what its end offers."""
    words: list[Row] = []
    near = line.root.low
    for tile in line.tiles:
        far = tile.other(near)
        words.append([("", f"[{near}|{far}]")])
        near = far
    if line.closed:
        foot = line.tiles[-1]
        if public.foot == foot:
            down = TOES - public.toes_left
            words.append([("", f"  foot: {down} of {TOES} toes")])
        else:
            words.append([("", "  foot")])
    elif line.label in public.ends:
        words.append([("", "  "), (OPEN, f"-> {line.end} open")])
    elif public.is_over:
        words.append([("", f"  -> {line.end}")])
    else:
        wait = "opening" if public.phase is Phase.OPENING else "foot"
        words.append([("", f"  -> {line.end} (after the {wait})")])
    return words


def clock(seconds: float) -> str:
    """Seconds as minutes and seconds, rounded up: '1:45', '0:09'."""
    whole = math.ceil(max(0.0, seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def wait_state(left: float, link_down: float | None) -> str:
    """How a wait stands: 'thinking, 1:45 left' or 'link down 12 s, 1:48 left'."""
    state = "thinking" if link_down is None else f"link down {int(link_down)} s"
    return f"{state}, {clock(left)} left"


def waiting_text(name: str, left: float, link_down: float | None) -> str:
    """Whom the table waits for and how that stands: 'waiting for bob: thinking, 1:45 left'."""
    return f"waiting for {name}: {wait_state(left, link_down)}"


def round_start(number: int, starter: str, centre: Tile | None = None, rounds: int = 0) -> str:
    """A round's start, with what is known of it: 'round 3 of 10: centre [7|7], Ann starts'."""
    of = f" of {rounds}" if rounds else ""
    on = f"centre {centre}, " if centre is not None else ""
    return f"round {number}{of}: {on}{starter} starts"


def move_text(who: str, move: Move, drawn: Tile | None = None) -> str:
    """A move as an event: 'Ann played 9-3 on a', 'You drew [5|3]' (`drawn`: the tile it gave,
    if known), 'Ann drew a tile', 'Ann passed'."""
    if isinstance(move, Play):
        return f"{who} played {move.tile.label} on {move.end}"
    if isinstance(move, Draw):
        return f"{who} drew {'a tile' if drawn is None else drawn}"
    return f"{who} passed"


def describe_end(reason: EndReason, went_out: int | None, names: Sequence[str] = ()) -> str:
    """Why a round ended, naming the seat that went out (`seat N` without `names`)."""
    if reason is EndReason.WENT_OUT and went_out is not None:
        return f"{seat_name(names, went_out)} went out"
    if reason is EndReason.DEAD_FOOT:
        return "dead foot: no tile is left that could go on the open foot"
    return "blocked: nobody could play or draw"


WENT_OUT = "went out"
"""What a seat that played its last tile did (said of its empty hand at a round's end)."""
SAT_OUT = "left the game: not dealt in"
"""What a seat that had left did in a round: it sat it out, with the round's highest score."""
SAT_OUT_NOTE = "sat the round out (the player had left the game): the round's highest score"
"""What `*` marks in a score table."""


def kept_text(tiles: Sequence[Tile], seated: bool, width: int = WIDTH) -> str:
    """What a seat held at a round's end, in one phrase: its tiles (wrapped by tile within
    `width`), that it went out, or that it had left the game and was not dealt in."""
    if not seated:
        return f"({SAT_OUT})"
    return render_hand(tiles, width) if tiles else f"({WENT_OUT})"


ROUND_AUDIT = "every shuffle, key and move checked"
"""What the audit of a round checked (said after each round of a game whose rounds are audited)."""


def audit_note(audited: bool) -> str | None:
    """What a screen says of a scored round's check (None: the game's rounds are not audited)."""
    return f"audited: {ROUND_AUDIT}" if audited else None


def instruction(view: PlayerView, names: Sequence[str], ready: bool = True) -> str:
    """What the local player must do now, or who is to play (e.g. 'Foot on 5-5: 1 of 3 ...').

    `ready`: the table waits for the local player (False while, say, a hand is being opened)."""
    public = view.public
    if public.end_reason is not None:
        return f"Round over: {describe_end(public.end_reason, public.went_out, names)}."
    if public.turn != view.seat:
        return who_plays(public, names)
    if not ready:
        return "Your turn, as soon as the table has opened your tiles…"
    need = _need(public, "you")
    moves = view.legal_moves()
    plays = [m for m in moves if isinstance(m, Play)]
    if view.drawn is not None:
        if plays:
            places = ", ".join(m.end for m in plays)
            return f"You drew {view.drawn}: it fits {places}, so you must play it."
        return f"You drew {view.drawn}: it fits nowhere; pass."
    if plays:
        return f"Your turn. {need or 'Play a tile on an open end.'}".rstrip()
    if isinstance(moves[0], Draw):
        return f"Your turn. {need}No tile of yours fits: draw."
    return f"Your turn. {need}Nothing fits and the yard is at its floor: pass."


def who_plays(public: PublicRound, names: Sequence[str]) -> str:
    """Who is to play, and what the opening or an open foot asks of them."""
    who = seat_name(names, public.turn)
    return f"{who} to play. {_need(public, who)}".rstrip()


def _need(public: PublicRound, who: str) -> str:
    """What the opening or an open foot asks of `who` ('' in main play), as a sentence."""
    if public.phase is Phase.FOOT and public.foot is not None:
        foot = public.foot
        down = TOES - public.toes_left
        return (
            f"Foot on {foot.label}: {down} of {TOES} toes; {who} must play {a_number(foot.low)}. "
        )
    if public.phase is Phase.OPENING:
        need = public.requirement()
        return f"{need[0].upper()}{need[1:]}. "
    return ""


def score_table(
    names: Sequence[str],
    rounds: Sequence[tuple[int, Sequence[int], Sequence[int]]],
    totals: Sequence[int],
    width: int = WIDTH,
) -> list[str]:
    """Scores under the names as shown, each whole unless `width` columns lack room (then the
    longest are cut first): one row per (round number, scores, seats dealt in), a score of a
    seat that sat the round out marked `*`, then the totals."""
    shown = shown_names(names)
    cells = [f"{score}*" for _, scores, _ in rounds for score in scores]
    least = max(6, *(len(cell) for cell in [*cells, *map(str, totals)]))
    sizes = [max(least, columns(name)) for name in shown]
    sizes = fit_widths(sizes, width - len("round ") - len(shown), least)

    def row(lead: str, cells: Sequence[str]) -> str:
        return lead + "".join(pad(c, size + 1, True) for c, size in zip(cells, sizes, strict=True))

    rows = [row("round ", [fit(name, size) for name, size in zip(shown, sizes, strict=True)])]
    absent = False
    for number, scores, seated in rounds:
        marked = [f"{score}{'' if s in seated else '*'}" for s, score in enumerate(scores)]
        absent = absent or len(seated) < len(scores)
        rows.append(row(f"{number:>5} ", marked))
    rows.append(row("total ", [str(total) for total in totals]))
    if absent:
        rows += wrapped(f"* {SAT_OUT_NOTE}", width, "  ")
    return rows


def score_lines(game: Game, names: Sequence[str], width: int = WIDTH) -> list[str]:
    """The game's score table with names, within `width` columns: one row per round played,
    then the totals."""
    rows = [
        (number, scores, seated)
        for number, (scores, seated) in enumerate(
            zip(game.round_scores, game.round_seated, strict=True), start=1
        )
    ]
    return score_table(names, rows, game.totals, width)


def winner_text(
    winners: Sequence[int], totals: Sequence[int], names: Sequence[str], me: int | None = None
) -> str:
    """Who won and with how many points: 'Ada wins with 3 points', 'You win with 1 point'
    (`me`: the local seat), 'Ada and Bob win with 7 points'."""
    mine = me is not None and tuple(winners) == (me,)
    who = "You" if mine else " and ".join(seat_name(names, s) for s in winners)
    verb = "win" if mine or len(winners) > 1 else "wins"
    return f"{who} {verb} with {count(totals[winners[0]], 'point')}"
