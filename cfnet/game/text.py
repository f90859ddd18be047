"""Plain-text rendering for terminals (80 columns): the board tree, a hand, the banner, scores."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from cfnet.game.engine import Draw, Game, Line, Phase, Play, PlayerView, PublicRound
from cfnet.game.tiles import Tile, a_number

WIDTH = 80


def _wrap(first: str, more: str, words: Sequence[str], sep: str = "") -> list[str]:
    """`words` after `first`, continued on lines starting with `more`, within WIDTH columns."""
    rows = [first]
    for word in words:
        row = rows[-1]
        fresh = row in (first, more)
        if not fresh and len(row) + len(sep) + len(word) > WIDTH:
            rows.append(more + word)
        else:
            rows[-1] = row + ("" if fresh else sep) + word
    return rows


def count(number: int, noun: str) -> str:
    """`number` with `noun`, plural unless it is 1: `1 point`, `3 points`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def render_hand(tiles: Sequence[Tile]) -> str:
    """A hand as `[9|3] [5|5] ...`, wrapped at 80 columns."""
    if not tiles:
        return "(no tiles)"
    return "\n".join(_wrap("", "", [str(t) for t in tiles], " "))


def render_board(public: PublicRound) -> str:
    """The board as a tree: the centre double, its trains, their feet and toes, open-end labels."""
    children: dict[Tile, list[Line]] = {}
    for line in public.lines:
        children.setdefault(line.root, []).append(line)
    phase = public.phase
    trains = f"{public.trains} of {public.trains_needed} trains"
    rows = [f"centre {public.centre}  ({trains})"]

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
                rows.append(head + item)
                continue
            rows.extend(_wrap(f"{head}{item.label}: ", deeper + "   ", _line_words(public, item)))
            if item.closed:
                branch(item.tiles[-1], deeper)

    branch(public.centre, "")
    return "\n".join(rows)


def _line_words(public: PublicRound, line: Line) -> list[str]:
    """The tiles of `line` as seen from the centre outwards, then what its end offers."""
    words = []
    near = line.root.low
    for tile in line.tiles:
        far = tile.other(near)
        words.append(f"[{near}|{far}]")
        near = far
    if line.closed:
        foot = line.tiles[-1]
        if public.foot == foot:
            down = 3 - public.toes_left
            words.append(f"  foot: {down} of 3 toes")
        else:
            words.append("  foot")
    elif line.label in public.ends:
        words.append(f"  -> {line.end} open")
    elif public.is_over:
        words.append(f"  -> {line.end}")
    else:
        wait = "opening" if public.phase is Phase.OPENING else "foot"
        words.append(f"  -> {line.end} (after the {wait})")
    return words


def render_banner(view: PlayerView) -> str:
    """The table's state, then what this player must do now (wrapped at 80 columns)."""
    public = view.public
    hands = " ".join(f"{seat}:{count}" for seat, count in enumerate(public.hand_counts))
    status = (
        f"Round {public.round_number}, centre {public.centre} | yard {public.yard_count} "
        f"({public.drawable} drawable) | hands {hands}"
    )
    return f"{status}\n{textwrap.fill(_instruction(view), WIDTH)}"


def _instruction(view: PlayerView) -> str:
    public = view.public
    if public.is_over:
        return f"Round over: {public.describe_end()}."
    if public.turn != view.seat:
        return f"Seat {public.turn} to play; {public.requirement()}."
    moves = view.legal_moves()
    plays = [m for m in moves if isinstance(m, Play)]
    need = public.requirement()
    if public.phase is Phase.FOOT and public.foot is not None:
        foot = public.foot
        toes = 3 - public.toes_left
        need = f"Foot on {foot.label}: {toes} of 3 toes; you must play {a_number(foot.low)}"
    else:
        need = need[0].upper() + need[1:]
    if view.drawn is not None:
        if plays:
            places = ", ".join(m.end for m in plays)
            return f"You drew {view.drawn}: it fits {places}, so you must play it there."
        return f"You drew {view.drawn}: it fits nowhere; pass."
    if plays:
        choices = ", ".join(str(m) for m in plays)
        return f"{need}. You can play: {choices}."
    if isinstance(moves[0], Draw):
        return f"{need}. No tile of yours fits: draw."
    return f"{need}. No tile of yours fits and the yard is at its floor: pass."


def render_scores(game: Game) -> str:
    """The score table: one row per round played, the totals, and the winner(s) once over."""
    seats = range(game.players)
    header = "round " + "".join(f"{'seat ' + str(s):>8}" for s in seats)
    rows = [header]
    for number, scores in enumerate(game.round_scores, start=1):
        rows.append(f"{number:>5} " + "".join(f"{score:>8}" for score in scores))
    rows.append("total " + "".join(f"{total:>8}" for total in game.totals))
    if game.is_over:
        winners = game.winners()
        who = ", ".join(f"seat {s}" for s in winners)
        rows.append(f"{'winners' if len(winners) > 1 else 'winner'}: {who} (lowest total)")
    return "\n".join(rows)


def score_table(
    names: Sequence[str], rounds: Sequence[tuple[int, Sequence[int]]], totals: Sequence[int]
) -> list[str]:
    """Scores with names (cut to 8 characters): one row per (round number, scores), then the
    totals; 8 seats fit 80 columns."""
    shown = [name[:8] for name in names]
    width = max(7, *(len(name) + 1 for name in shown))
    rows = ["round " + "".join(f"{name:>{width}}" for name in shown)]
    for number, scores in rounds:
        rows.append(f"{number:>5} " + "".join(f"{score:>{width}}" for score in scores))
    rows.append("total " + "".join(f"{total:>{width}}" for total in totals))
    return rows
