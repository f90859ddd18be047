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

from cfnet.game.board import TOES, EndReason, Line, Phase, PublicRound
from cfnet.game.moves import Draw, Move, Play
from cfnet.game.round import Game, PlayerView
from cfnet.game.tiles import Tile, a_number
from cfnet.lang import (
    N_,
    Sentence,
    _,
    digits,
    isolate,
    isolate_name,
    language,
    ngettext,
    npgettext,
    pgettext,
    said,
    word_list,
)
from cfnet.lang.bidi_marks import ISOLATES, PDI
from cfnet.lang.formatting import native_digits
from cfnet.lang.sentence import listed
from cfnet.lang.width import width as cells

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


def escaped(text: str, limit: int = TEXT_CHARS, isolates: bool = False) -> str:
    """`text` from a peer or a file, safe to show: every character that is not printable (C0
    and C1 controls, DEL, ESC, the bidi overrides, isolates and marks, line separators) written
    as its escape (`\\x1b`, `\\u202e`), the whole cut to `limit` characters, '…' marking a cut.
    `isolates`: a sentence of cfnet's own (its peer text escaped already), whose balanced bidi
    isolates are kept (each ends where it opened, so none reorders what follows it), and its
    zero-width joiners and non-joiners (Persian words carry them; they only join letters)."""
    head = text[: limit + 1]  # each character gives at least one: enough to know
    balanced = _balanced_isolates(head) if isolates else set()
    pieces = [
        char
        if char.isprintable() or i in balanced or (isolates and char in JOINERS)
        else char.encode("unicode_escape").decode("ascii")
        for i, char in enumerate(head)
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


JOINERS = "\u200c\u200d"
"""Zero-width non-joiner and joiner: part of how Persian is spelled."""


def shown_sentence(text: str) -> str:
    """A sentence of cfnet's own that may quote a peer or a file, as it is shown: `escaped`
    whole, its balanced isolates kept when the language in effect is right to left."""
    return escaped(text, SENTENCE_CHARS, isolates=language().rtl)


def _balanced_isolates(text: str) -> set[int]:
    """Where in `text` an isolate opens that a PDI closes, and those PDIs."""
    opened: list[int] = []
    kept: set[int] = set()
    for i, char in enumerate(text):
        if char in ISOLATES:
            opened.append(i)
        elif char == PDI and opened:
            kept.update((opened.pop(), i))
    return kept


def columns(text: str) -> int:
    """The columns `text` (printable: see `escaped`) takes on a terminal."""
    return cells(text)


def fit(text: str, width: int) -> str:
    """`text` cut to `width` columns, '…' marking a cut (whole if it fits)."""
    if columns(text) <= width:
        return text
    import wcwidth

    return str(wcwidth.clip(text, 0, max(0, width - 1))).rstrip() + "…"


def pad(text: str, width: int, right: bool = False) -> str:
    """`text` filled with spaces to `width` columns, on the right (or the left: `right`)."""
    fill = " " * max(0, width - columns(text))
    return fill + text if right else text + fill


def wrapped(text: str, width: int, indent: str = "") -> list[str]:
    """`text` wrapped into rows of `width` columns at spaces (never inside a tile like 9-3),
    rows after the first indented by `indent`."""
    import wcwidth

    rows = wcwidth.wrap(text, max(1, width), subsequent_indent=indent, break_on_hyphens=False)
    return [str(row) for row in rows] or [""]


def fit_widths(sizes: Sequence[int], room: int, least: int) -> list[int]:
    """Widths for columns that want `sizes` columns each, all together within `room`: each
    whole if they fit, else the widest cut first, none below `least` (nor below its size)."""
    widest = max(sizes, default=0)
    while widest > least and sum(min(size, widest) for size in sizes) > room:
        widest -= 1
    return [min(size, max(widest, least)) for size in sizes]


def points(number: int) -> str:
    """A score with its noun, in the language in effect: `1 point`, `3 points`."""
    return ngettext("{count} point", "{count} points", number).format(count=digits(number))


def points_won_with(number: int) -> str:
    """A score as "with ..." takes it ('wins with 3 points'): a language whose nouns change
    after "with" (Greek: με 3 πόντους) says it so."""
    return npgettext("after 'with'", "{count} point", "{count} points", number).format(
        count=digits(number)
    )


def rounds_text(number: int) -> str:
    """A number of rounds, in the language in effect: `1 round`, `3 rounds`."""
    return ngettext("{count} round", "{count} rounds", number).format(count=digits(number))


def result_after_departure(game: Game) -> Sentence:
    """Why a game that a player left (not proven to cheat) still has a result (RULES.md)."""
    if game.is_over:
        return Sentence(N_("the result of the audited rounds stands"))
    scored = len(game.round_scores)
    if game.conceded:
        return Sentence.counted(
            "fewer than 2 players are left, so the game ends with the {count} round scored,"
            " and a player who left concedes",
            "fewer than 2 players are left, so the game ends with the {count} rounds scored,"
            " and a player who left concedes",
            scored,
            count=scored,
        )
    return Sentence.counted(
        "fewer than 2 players are left, so the game ends with the {count} round scored",
        "fewer than 2 players are left, so the game ends with the {count} rounds scored",
        scored,
        count=scored,
    )


def goes_on_text(
    round_number: int, redealt: bool, seated: Sequence[int], names: Sequence[str]
) -> Sentence:
    """What a departure leaves: the round dealt again, or the next round, among the seats left."""
    among = listed([seat_name(names, s) for s in seated])
    if redealt:
        return Sentence(
            N_("round {number} is dealt again among {players}"), number=round_number, players=among
        )
    return Sentence(N_("round {number} starts among {players}"), number=round_number, players=among)


def comeback_text(table: str) -> str:
    """How a player who left a game that goes on is dealt in again (`table`: its name, quoted
    for a shell when it must be)."""
    command = f"cfnet resume --table {shlex.quote(table)}"
    return _("`{command}` deals you in again at the next round that starts").format(
        command=isolate(command)
    )


LEFT_GAME = {
    "left": N_("You left the game."),
    "resigned from": N_("You resigned from the game."),
    "were timed out of": N_("You were timed out of the game."),
    "were removed from": N_("You were removed from the game."),
}
"""What the game screen says once the local seat left, by how it left (`GameLeft.how`)."""
LEFT_TABLE = {
    "left": N_("cfnet: you left table {table!r}"),
    "resigned from": N_("cfnet: you resigned from table {table!r}"),
    "were timed out of": N_("cfnet: you were timed out of table {table!r}"),
    "were removed from": N_("cfnet: you were removed from table {table!r}"),
}
"""The line cfnet ends with once the player left a table, by how it left (`GameLeft.how`)."""


def left_line(table: str, how: str, comeback: str | None, waits: bool = False) -> str:
    """The line cfnet ends with when the player `how` table `table` ("resigned from", "were
    timed out of"): how to come back (`comeback`; None: never) to a game that goes on, or that
    `waits` (only the player's own computer players were left, and they stopped too)."""
    line = _(LEFT_TABLE[how]).format(table=table)
    if comeback is None:
        return line
    if waits:
        paused = _("{line}; your computer players stopped with you, and the game waits: {comeback}")
        return paused.format(line=line, comeback=comeback)
    return _("{line}; the game goes on without you: {comeback}").format(
        line=line, comeback=comeback
    )


def after_leaving(comeback: str, waits: bool) -> str:
    """The game screen's sentence on what happens to a game the player left, and how to come
    back (`waits`: only the player's own computer players were left, and they stop too)."""
    if waits:
        return _("Your computer players stop with you, and the game waits: {comeback}.").format(
            comeback=comeback
        )
    return _("The game goes on without you: {comeback}.").format(comeback=comeback)


def seat_name(names: Sequence[str], seat: int) -> str:
    """The name of `seat` as shown (`escaped`; `seat N` when `names` does not have it). A name
    that is a `Sentence` (`seat 1 (ann)`, as `cfnet verify` names a seat) is kept one, to be
    said in the reader's language; the line that holds it is escaped where it is printed."""
    if 0 <= seat < len(names) and isinstance(names[seat], Sentence):
        return names[seat]
    if 0 <= seat < len(names):
        return isolate_name(escaped(names[seat], NAME_CHARS))
    return _("seat {number}").format(number=digits(seat))


def shown_names(names: Sequence[str]) -> tuple[str, ...]:
    """Every seat's name as shown in a table or a list (`escaped`); `seat_name` of them is the
    name as a sentence holds it (isolated in right-to-left text), as of the names themselves."""
    return tuple(escaped(name, NAME_CHARS) for name in names)


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
        return _("(no tiles)")
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
    trains = _("{count} of {needed} trains").format(
        count=digits(public.trains), needed=digits(public.trains_needed)
    )
    centre = _("centre {tile}").format(tile=isolate(str(public.centre)))
    rows: list[Row] = [[("", f"{centre}  ({trains})")]]

    def spawn(root: Tile) -> str | None:
        """The row offering a new line on `root`, if `root` takes one now."""
        label = public.next_label
        if label not in public.ends:
            return None
        if root == public.centre and phase is Phase.OPENING:
            return _("{end}: new train, needs {a_number}").format(
                end=isolate(label), a_number=said(a_number(root.low))
            )
        if root == public.foot:
            return _("{end}: new toe, needs {a_number}").format(
                end=isolate(label), a_number=said(a_number(root.low))
            )
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
            toes = _("foot: {count} of {toes} toes").format(count=digits(down), toes=digits(TOES))
            words.append([("", f"  {toes}")])
        else:
            words.append([("", "  " + _("foot"))])
    elif line.label in public.ends:
        words.append([("", "  "), (OPEN, _("-> {number} open").format(number=line.end))])
    elif public.is_over:
        words.append([("", f"  -> {line.end}")])
    elif public.phase is Phase.OPENING:
        words.append([("", "  " + _("-> {number} (after the opening)").format(number=line.end))])
    else:
        words.append([("", "  " + _("-> {number} (after the foot)").format(number=line.end))])
    return words


def clock(seconds: float) -> str:
    """Seconds as minutes and seconds, rounded up, in the reader's digits: '1:45', '0:09'."""
    whole = math.ceil(max(0.0, seconds))
    return native_digits(f"{whole // 60}:{whole % 60:02d}")


def wait_state(left: float, link_down: float | None) -> str:
    """How a wait stands: 'thinking, 1:45 left' or 'link down 12 s, 1:48 left'."""
    if link_down is None:
        return _("thinking, {clock} left").format(clock=clock(left))
    return _("link down {seconds} s, {clock} left").format(
        seconds=digits(int(link_down)), clock=clock(left)
    )


def waiting_text(name: str, left: float, link_down: float | None) -> str:
    """Whom the table waits for and how that stands: 'waiting for bob: thinking, 1:45 left'."""
    return _("waiting for {name}: {state}").format(name=name, state=wait_state(left, link_down))


def round_start(number: int, starter: str, centre: Tile | None = None, rounds: int = 0) -> str:
    """A round's start, with what is known of it: 'round 3 of 10: centre [7|7], Ann starts'."""
    values = {
        "number": digits(number),
        "rounds": digits(rounds),
        "tile": isolate(str(centre)),
        "name": starter,
    }
    if rounds and centre is not None:
        return _("round {number} of {rounds}: centre {tile}, {name} starts").format(**values)
    if rounds:
        return _("round {number} of {rounds}: {name} starts").format(**values)
    if centre is not None:
        return _("round {number}: centre {tile}, {name} starts").format(**values)
    return _("round {number}: {name} starts").format(**values)


YOU = "You"
"""What `move_text` is given as `who` for the local seat's own moves (said as the language says
it: 'You played ...')."""


def your_name() -> str:
    """The name of a person who gave none, in the language in effect when the name is chosen
    (then it is the name, whatever language is read later): 'You', 'Ikaw', 'شما'."""
    return pgettext("player name", "You")


def move_text(who: str, move: Move, drawn: Tile | None = None) -> str:
    """A move as an event: 'Ann played 9-3 on a', 'You drew [5|3]' (`who` YOU: the local seat;
    `drawn`: the tile it gave, if known), 'Ann drew a tile', 'Ann passed'."""
    you = who == YOU
    if isinstance(move, Play):
        played = _("You played {tile} on {end}") if you else _("{name} played {tile} on {end}")
        return played.format(name=who, tile=isolate(move.tile.label), end=isolate(move.end))
    if isinstance(move, Draw) and drawn is None:
        return _("You drew a tile") if you else _("{name} drew a tile").format(name=who)
    if isinstance(move, Draw):
        drew = _("You drew {tile}") if you else _("{name} drew {tile}")
        return drew.format(name=who, tile=isolate(str(drawn)))
    return _("You passed") if you else _("{name} passed").format(name=who)


def describe_end(reason: EndReason, went_out: int | None, names: Sequence[str] = ()) -> str:
    """Why a round ended, naming the seat that went out (`seat N` without `names`)."""
    if reason is EndReason.WENT_OUT and went_out is not None:
        return _("{name} went out").format(name=seat_name(names, went_out))
    if reason is EndReason.DEAD_FOOT:
        return _("dead foot: no tile is left that could go on the open foot")
    return _("blocked: nobody could play or draw")


WENT_OUT = N_("went out")
"""What a seat that played its last tile did (said of its empty hand at a round's end)."""
SAT_OUT = N_("left the game: not dealt in")
"""What a seat that had left did in a round: it sat it out, with the round's highest score."""
SAT_OUT_NOTE = N_("sat the round out (the player had left the game): the round's highest score")
"""What `*` marks in a score table."""


def kept_text(tiles: Sequence[Tile], seated: bool, width: int = WIDTH) -> str:
    """What a seat held at a round's end, in one phrase: its tiles (wrapped by tile within
    `width`), that it went out, or that it had left the game and was not dealt in."""
    if not seated:
        return f"({_(SAT_OUT)})"
    return render_hand(tiles, width) if tiles else f"({_(WENT_OUT)})"


ROUND_AUDIT = N_("every shuffle, key and move checked")
"""What the audit of a round checked (said after each round of a game whose rounds are audited)."""


def audit_note(audited: bool) -> str | None:
    """What a screen says of a scored round's check (None: the game's rounds are not audited)."""
    return _("audited: {what}").format(what=_(ROUND_AUDIT)) if audited else None


def instruction(view: PlayerView, names: Sequence[str], ready: bool = True) -> str:
    """What the local player must do now, or who is to play (e.g. 'Foot on 5-5: 1 of 3 ...').

    `ready`: the table waits for the local player (False while, say, a hand is being opened)."""
    public = view.public
    if public.end_reason is not None:
        why = describe_end(public.end_reason, public.went_out, names)
        return _("Round over: {why}.").format(why=why)
    if public.turn != view.seat:
        return who_plays(public, names)
    if not ready:
        return _("Your turn, as soon as the table has opened your tiles…")
    need = _need(public, None)
    moves = view.legal_moves()
    plays = [m for m in moves if isinstance(m, Play)]
    if view.drawn is not None:
        tile = isolate(str(view.drawn))
        if plays:
            places = ", ".join(isolate(m.end) for m in plays)
            return _("You drew {tile}: it fits {ends}, so you must play it.").format(
                tile=tile, ends=places
            )
        return _("You drew {tile}: it fits nowhere; pass.").format(tile=tile)
    if plays:
        return _("Your turn. {need}").format(need=need or _("Play a tile on an open end.")).rstrip()
    if isinstance(moves[0], Draw):
        return _("Your turn. {need}No tile of yours fits: draw.").format(need=need)
    return _("Your turn. {need}Nothing fits and the yard is at its floor: pass.").format(need=need)


def who_plays(public: PublicRound, names: Sequence[str]) -> str:
    """Who is to play, and what the opening or an open foot asks of them."""
    who = seat_name(names, public.turn)
    return _("{name} to play. {need}").format(name=who, need=_need(public, who)).rstrip()


def _need(public: PublicRound, who: str | None) -> str:
    """What the opening or an open foot asks of `who` (None: the local player; '' in main
    play), as a sentence."""
    if public.phase is Phase.FOOT and public.foot is not None:
        foot = public.foot
        values = {
            "tile": isolate(foot.label),
            "count": digits(TOES - public.toes_left),
            "toes": digits(TOES),
            "name": who,
            "a_number": said(a_number(foot.low)),
        }
        if who is None:
            return _("Foot on {tile}: {count} of {toes} toes; you must play {a_number}. ").format(
                **values
            )
        return _("Foot on {tile}: {count} of {toes} toes; {name} must play {a_number}. ").format(
            **values
        )
    if public.phase is Phase.OPENING:
        need = said(public.requirement())
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

    round_head, total_head = _round_and_total(width)
    rows = [row(round_head, [fit(name, size) for name, size in zip(shown, sizes, strict=True)])]
    absent = False
    for number, scores, seated in rounds:
        marked = [f"{digits(score)}{'' if s in seated else '*'}" for s, score in enumerate(scores)]
        absent = absent or len(seated) < len(scores)
        rows.append(row(pad(digits(number), columns(round_head) - 1, True) + " ", marked))
    rows.append(row(total_head, [digits(total) for total in totals]))
    if absent:
        rows += wrapped(f"* {_(SAT_OUT_NOTE)}", width, "  ")
    return rows


def _round_and_total(width: int) -> tuple[str, str]:
    """The score table's first column: its head (round) and its last row's (total), padded to
    the wider of the two words in the language in effect."""
    heads = (_("round"), _("total"))
    size = max(5, *(columns(head) for head in heads))
    return pad(heads[0], size) + " ", pad(heads[1], size) + " "


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
    score = points_won_with(totals[winners[0]])
    if me is not None and tuple(winners) == (me,):
        return _("You win with {points}").format(points=score)
    if len(winners) == 1:
        return _("{name} wins with {points}").format(
            name=seat_name(names, winners[0]), points=score
        )
    who = word_list([seat_name(names, s) for s in winners])
    return _("{names} win with {points}").format(names=who, points=score)
