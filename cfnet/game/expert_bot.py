"""The `expert` computer player: determinized Monte Carlo search from its own `PlayerView` only.

Each decision samples deals of the unseen tiles consistent with everything public (hand sizes;
a seat that drew or passed held no tile matching the ends open then), plays every candidate move
in each sampled deal to the end of the round on the fast engine
(`cfnet.game.bot_rollouts`), and picks
the move with the best mean score difference (the others' mean points minus its own).
Its randomness is a `random.Random` seeded per decision from its seed and the position (bots
are not secret), so the same seed and rollout count give the same move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from cfnet.game.bot_rollouts import FAST_TILES, PLAYABLE, FastRound, to_fast
from cfnet.game.moves import Draw, Move, Pass, Play
from cfnet.game.round import PlayerView
from cfnet.lang import _, decimal, digits, isolate

DEFAULT_THINK = 1.0
MAX_THINK = 60.0
HINT_THINK = 0.5  # the game screen's hint: quick enough not to make the player wait
GREED = 0.75  # rollout policy: the heaviest playable tile with this probability, else any


@dataclass(frozen=True, slots=True)
class Slots:
    """`count` unknown tiles of one seat, none of them showing a number in `void` (bitmask)."""

    seat: int
    count: int
    void: int


@dataclass(frozen=True, slots=True)
class Advice:
    """A chosen move, why (a few words), and what the search saw (mean margins per move)."""

    move: Move
    reason: str
    margins: tuple[tuple[Move, float], ...]
    deals: int


def hidden_slots(view: PlayerView) -> list[Slots]:
    """What the public record says about the other seats' hands, as groups of constrained tiles.

    A seat that drew or passed held no tile matching the ends open at that moment; a tile it
    drew and kept (it passed after drawing) also avoids them. Tiles drawn later are freer, so
    each seat's hand is its newest kept draws (constrained by the voids since each) and the
    rest from the deal (constrained by every void it showed). This relaxes nothing that is
    certain: the real hands always fit.
    """
    public = view.public
    replay = public.at_start()
    events: list[list[tuple[int, int]]] = [[] for _ in range(public.players)]  # (void, kept)
    for move in public.moves:
        seat = replay.turn
        opened = 0
        for number in replay.ends.values():
            opened |= 1 << number
        if isinstance(move, Draw):
            events[seat].append((opened, 0))
        elif isinstance(move, Pass):
            if replay.drawn_pending:
                events[seat][-1] = (events[seat][-1][0], 1)
            else:
                events[seat].append((opened, 0))
        replay.apply_public(move)
    slots: list[Slots] = []
    for seat in range(public.players):
        if seat == view.seat:
            continue
        left = public.hand_counts[seat]
        void = 0
        for opened, kept in reversed(events[seat]):
            void |= opened
            take = min(kept, left)
            if take:
                slots.append(Slots(seat, take, void))
                left -= take
        if left:
            slots.append(Slots(seat, left, void))
    return slots


def sample_deal(
    unseen: list[int], slots: list[Slots], rng: random.Random
) -> tuple[list[tuple[int, int]], list[int]]:
    """A random deal of the `unseen` fast tiles consistent with `slots`, filled in the order
    given (put the tightest first).

    Returns (seat, hand bitmask) pairs and the yard (top last). A group that cannot be filled
    within its constraint (only when the sample drifted) takes any unseen tiles instead.
    """
    pool = unseen[:]
    rng.shuffle(pool)
    hands: list[tuple[int, int]] = []
    for group in slots:
        banned = PLAYABLE[group.void]
        mask = 0
        need = group.count
        rest: list[int] = []
        for tile in pool:
            if need and not banned >> tile & 1:
                mask |= 1 << tile
                need -= 1
            else:
                rest.append(tile)
        while need:
            tile = rest.pop()
            mask |= 1 << tile
            need -= 1
        hands.append((group.seat, mask))
        pool = rest
    return hands, pool


class ExpertBot:
    """Search player: `think` seconds per decision, or exactly `rollouts` rollouts if given."""

    name = "expert"

    def __init__(
        self, seed: int, think: float = DEFAULT_THINK, rollouts: int | None = None
    ) -> None:
        if think <= 0 or (rollouts is not None and rollouts < 1):
            raise ValueError("the expert needs a positive think time or rollout count")
        self.seed = seed
        self.think = think
        self.rollouts = rollouts

    def choose(self, view: PlayerView) -> Move:
        return self.advise(view).move

    def advise(self, view: PlayerView) -> Advice:
        """The move to play in `view` and why."""
        start = time.perf_counter()
        moves = view.legal_moves()
        if not moves:
            raise ValueError("it is not this seat's turn")
        public = view.public
        candidates: dict[int, Move] = {}
        for move in moves:
            candidates.setdefault(to_fast(move, public), move)
        if len(candidates) == 1:
            return Advice(moves[0], _forced(moves[0]), ((moves[0], 0.0),), 0)
        rng = random.Random(
            f"expert:{self.seed}:{public.round_number}:{len(public.moves)}:{view.seat}"
        )
        fast_moves = list(candidates)
        totals = [0.0] * len(fast_moves)
        template = FastRound.build(
            public,
            [view.hand if s == view.seat else () for s in range(public.players)],
            (),
            view.drawn,
        )
        unseen = [
            i
            for i, tile in enumerate(FAST_TILES)
            if not public.on_board(tile) and tile not in view.hand
        ]
        slots = hidden_slots(view)
        slots.sort(key=lambda s: sum(1 for t in unseen if not PLAYABLE[s.void] >> t & 1) - s.count)
        me, others = view.seat, len(public.seated) - 1
        deadline = start + self.think * 0.92
        deals = done = 0
        while True:
            hands, yard = sample_deal(unseen, slots, rng)
            base = template.copy()
            for seat, mask in hands:
                base.hands[seat] |= mask
            base.yard = yard
            for i, fast in enumerate(fast_moves):
                state = base.copy()
                state.apply(fast)
                scores = state.rollout(rng, GREED)
                totals[i] += (sum(scores) - scores[me]) / others - scores[me]
            deals += 1
            done += len(fast_moves)
            if self.rollouts is not None:
                if done >= self.rollouts:
                    break
            elif time.perf_counter() >= deadline:
                break
        margins = sorted(
            ((candidates[f], total / deals) for f, total in zip(fast_moves, totals, strict=True)),
            key=lambda pair: -pair[1],
        )
        best = margins[0][0]
        return Advice(best, explain(view, best, margins, deals), tuple(margins), deals)


def _forced(move: Move) -> str:
    if isinstance(move, Draw):
        return _("nothing fits: draw")
    if isinstance(move, Pass):
        return _("nothing fits and nothing may be drawn: pass")
    return _("the only play there is")


def explain(view: PlayerView, move: Move, margins: list[tuple[Move, float]], deals: int) -> str:
    """A few words on why `move` is the pick, e.g. 'keeps the 6s for your foot; 9-6 is the
    heaviest that fits (+3.1 points a round over 8-2, 400 deals)'."""
    if not isinstance(move, Play):
        return _forced(move)
    tile = move.tile
    hand = [t for t in view.hand if t != tile]
    if not hand:
        return _("{tile} goes out").format(tile=isolate(tile.label))
    playable = {m.tile for m in view.legal_moves() if isinstance(m, Play)}
    heaviest = max(playable, key=lambda t: t.value)
    parts: list[str] = []
    doubles = [t.low for t in hand if t.is_double and not tile.has(t.low)]
    kept = [n for n in doubles if sum(t.has(n) for t in hand) > 1]
    if kept:
        parts.append(_("keeps the {number}s for your foot").format(number=kept[0]))
    elif tile.value < heaviest.value:
        parts.append(_("keeps {tile} for later").format(tile=isolate(heaviest.label)))
    if tile.is_double:
        answers = sum(t.has(tile.low) for t in hand)
        opens = (
            _("opens a foot on {number}s you can answer ({count} more)")
            if answers
            else _("opens a foot on {number}s nobody may have")
        )
        parts.append(opens.format(number=tile.low, count=digits(answers)))  # pips stay Latin
    elif tile.value == heaviest.value:
        parts.append(_("{tile} is the heaviest that fits").format(tile=isolate(tile.label)))
    else:
        free = tile.other(view.public.ends[move.end])
        held = sum(t.has(free) for t in hand)
        leaves = (
            _("{tile} leaves a {number} open and you hold {count} more")
            if held
            else _("{tile} leaves a {number} open that the others may lack")
        )
        parts.append(leaves.format(tile=isolate(tile.label), number=free, count=digits(held)))
    text = _("; ").join(parts)
    if len(margins) > 1:
        gap = margins[0][1] - margins[1][1]
        runner = margins[1][0]
        what = str(runner).rsplit(" ", 1)[0] if isinstance(runner, Play) else str(runner)
        text += " " + _("(+{gap} points a round over {move}, {deals} deals)").format(
            gap=decimal(gap, 1), move=isolate(what), deals=digits(deals)
        )
    return text
