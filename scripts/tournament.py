"""A fair tournament between computer strategies: paired deals, rotated over the seats.

Every deal set (the shuffles of every round of one game, from the seed) is played once per
rotation of the strategies over the seats, so the luck of the deal cancels. Prints, per
strategy: games won (shared wins split), mean total, rounds won, time per decision, each with
a 95% confidence interval over the deal sets, the rule options; the last lines are
`STRATEGY won P% of games ...`, one per strategy.

    scripts/tournament.py --players 4 --games 200 --seed 1 --strategies expert,greedy --rollouts 800

`--strategies` lists the seats in order; a short list is filled with its last name. A budget
for one expert may be given in its name: `expert:300` (300 rollouts) or `expert:0.5s`.
A line on stderr follows each deal set played, so a run of hours shows how far it is; with
`--save FILE` each deal set's results are appended to FILE as it ends, and a run started again
with the same settings and FILE plays only the deal sets FILE lacks (a long run can be stopped
and continued, or grown with a larger --games).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

from cfnet.game.bot_games import play_game
from cfnet.game.bots import BOT_STRATEGIES, Player, make_bot
from cfnet.game.moves import Move
from cfnet.game.round import Game, PlayerView, Round
from cfnet.game.rules import RuleOptionError, RuleOptions, rule_options


@dataclass(frozen=True)
class Budget:
    """The expert's default budget: seconds per decision, or a rollout count if set."""

    think: float
    rollouts: int | None


@dataclass
class Timing:
    """Seconds per decision, summed up: how many, their sum and sum of squares, the worst."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0
    worst: float = 0.0

    def add(self, seconds: float) -> None:
        self.merge(Timing(1, seconds, seconds * seconds, seconds))

    def merge(self, other: Timing) -> None:
        self.count += other.count
        self.total += other.total
        self.squares += other.squares
        self.worst = max(self.worst, other.worst)

    def mean_ci(self) -> tuple[float, float]:
        """The mean and the half-width of its 95% confidence interval (normal approximation)."""
        if self.count == 0:
            return 0.0, math.nan
        mean = self.total / self.count
        if self.count < 2:
            return mean, math.nan
        var = max(0.0, self.squares - self.count * mean * mean) / (self.count - 1)
        return mean, 1.96 * math.sqrt(var / self.count)


class Timed:
    """A player that records how long each real decision (two or more legal moves) took."""

    def __init__(self, inner: Player) -> None:
        self.inner, self.name = inner, inner.name
        self.times = Timing()

    def choose(self, view: PlayerView) -> Move:
        choice = len(view.legal_moves()) > 1
        start = time.perf_counter()
        move = self.inner.choose(view)
        if choice:
            self.times.add(time.perf_counter() - start)
        return move


def make_player(spec: str, seed: int, budget: Budget) -> Player:
    """The player a strategy spec names (`greedy`, `expert`, `expert:300`, `expert:0.5s`)."""
    name, _, arg = spec.partition(":")
    think, rollouts = budget.think, budget.rollouts
    if arg.endswith("s"):
        think, rollouts = float(arg[:-1]), None
    elif arg:
        rollouts = int(arg)
    return make_bot(name, seed, think, rollouts)


@dataclass
class SeatResult:
    """One seat's outcome in one game."""

    spec: str
    total: int
    won: float
    rounds_won: float
    times: Timing


DealSet = tuple[int, list[list[SeatResult]]]  # a deal set's index, and each game's seats


def share_round(round_wins: list[float], game: Game, finished: Round) -> None:
    """Add the round's win (shared by the lowest scores) to `round_wins`."""
    scores = finished.scores()
    best = [seat for seat, points in enumerate(scores) if points == min(scores)]
    for seat in best:
        round_wins[seat] += 1 / len(best)


def play_deal_set(
    job: tuple[int, int, Sequence[str], RuleOptions, Budget],
) -> DealSet:
    """Play deal set `index` once per rotation of the lineup; the results of each game."""
    index, seed, lineup, options, budget = job
    players = len(lineup)
    games: list[list[SeatResult]] = []
    for rotation in range(players):
        specs = [lineup[(seat + rotation) % players] for seat in range(players)]
        timed = [
            Timed(make_player(spec, seed * 7919 + index * 31 + seat, budget))
            for seat, spec in enumerate(specs)
        ]
        round_wins = [0.0] * players
        deals = random.Random(seed * 1_000_003 + index)
        game = play_game(timed, options, deals, partial(share_round, round_wins))
        winners = game.winners()
        games.append(
            [
                SeatResult(
                    specs[s],
                    game.totals[s],
                    1 / len(winners) if s in winners else 0.0,
                    round_wins[s],
                    timed[s].times,
                )
                for s in range(players)
            ]
        )
    return index, games


@dataclass
class Tally:
    """What one strategy did, per deal set (for confidence intervals), and its decisions."""

    seats: int = 0
    won: list[float] = field(default_factory=list)  # per deal set: mean won share per game
    totals: list[float] = field(default_factory=list)
    rounds_won: list[float] = field(default_factory=list)
    times: Timing = field(default_factory=Timing)


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200, help="games (rounded up to rotations)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--strategies", default="expert,greedy", help="seat lineup, e.g. expert,greedy"
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--think", type=float, help="expert seconds per decision (default 1)")
    budget.add_argument("--rollouts", type=int, help="expert rollouts per decision (reproducible)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--save", type=Path, help="append each deal set's results here; resume")
    return parser.parse_args(argv)


def saved_sets(path: Path | None, run: dict[str, object]) -> dict[int, DealSet]:
    """The deal sets of `run` already in the file at `path`; ValueError if it holds another run.
    A last line cut short (the run was killed while writing it) is dropped from the file."""
    if path is None or not path.exists():
        return {}
    text = path.read_text()
    whole = text[: text.rfind("\n") + 1]
    if whole != text:
        path.write_text(whole)
    found: dict[int, DealSet] = {}
    for number, line in enumerate(whole.splitlines(), 1):
        try:
            record = json.loads(line)
            if record["run"] != run:
                raise ValueError(f"{path}:{number} is a run with other settings: {record['run']}")
            games = [
                [SeatResult(**{**seat, "times": Timing(**seat["times"])}) for seat in game]
                for game in record["games"]
            ]
            found[record["set"]] = (record["set"], games)
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{number} is not a saved deal set ({error})") from None
    return found


def save_set(path: Path | None, run: dict[str, object], result: DealSet) -> None:
    if path is not None:
        games = [[asdict(seat) for seat in game] for game in result[1]]
        with path.open("a") as file:
            file.write(json.dumps({"run": run, "set": result[0], "games": games}) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    try:
        options = rule_options(args.rule, args.players)
        if not names or len(names) > args.players:
            raise ValueError(f"--strategies {args.strategies}: give 1..{args.players} names")
        budget = Budget(1.0 if args.think is None else args.think, args.rollouts)
        for spec in names:
            make_player(spec, 0, budget)
    except (ValueError, RuleOptionError) as error:
        print(f"tournament: {error} (strategies: {', '.join(BOT_STRATEGIES)})", file=sys.stderr)
        return 2
    lineup = names + [names[-1]] * (args.players - len(names))
    sets = max(1, math.ceil(args.games / args.players))
    mode = f"{args.rollouts} rollouts" if args.rollouts else f"{budget.think:g} s"
    run = {"seed": args.seed, "lineup": lineup, "rules": options.describe(), "budget": mode}
    try:
        saved = saved_sets(args.save, run)
    except ValueError as error:
        print(f"tournament: {error}; give another --save file", file=sys.stderr)
        return 2
    results = [saved[i] for i in range(sets) if i in saved]
    resumed = f"; {len(results)} deal sets from {args.save}" if results else ""
    if results:
        print(f"{len(results)} deal sets already played, from {args.save}", file=sys.stderr)
    jobs = [(i, args.seed, lineup, options, budget) for i in range(sets) if i not in saved]
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        for result in pool.imap_unordered(play_deal_set, jobs):
            save_set(args.save, run, result)
            results.append(result)
            done = len(results)
            print(
                f"deal set {done}/{sets} played ({done * args.players} games, "
                f"{time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
            )
    results.sort()
    elapsed = time.perf_counter() - start
    tallies: dict[str, Tally] = {spec: Tally() for spec in dict.fromkeys(lineup)}
    for spec in lineup:
        tallies[spec].seats += 1
    for _, games in results:
        for spec, tally in tallies.items():
            seats = [r for game in games for r in game if r.spec == spec]
            tally.won.append(sum(r.won for r in seats) / len(seats))
            tally.totals.append(sum(r.total for r in seats) / len(seats))
            tally.rounds_won.append(sum(r.rounds_won for r in seats) / len(seats))
            for r in seats:
                tally.times.merge(r.times)
    played = sets * args.players
    print(
        f"{played} games ({sets} deal sets x {args.players} seat rotations), {args.players} "
        f"players: {', '.join(lineup)}; expert budget {mode} per decision; seed {args.seed}"
    )
    print(f"rules: {options.describe()}; {elapsed:.0f} s on {args.workers} workers{resumed}")
    print(f"fair share {100 / args.players:.1f}%; ± is a 95% confidence interval over deal sets")
    lines = []
    for spec, tally in tallies.items():
        won, won_ci = mean_ci(tally.won)
        total, total_ci = mean_ci(tally.totals)
        rounds, rounds_ci = mean_ci(tally.rounds_won)
        mean_time, time_ci = tally.times.mean_ci()
        each = f" (each of {tally.seats} seats)" if tally.seats > 1 else ""
        lines.append(
            f"{spec} won {100 * won:.1f}% of games ± {100 * won_ci:.1f}{each}; "
            f"mean total {total:.1f} ± {total_ci:.1f}; rounds won {rounds:.2f} ± {rounds_ci:.2f} "
            f"of {options.rounds}; time per decision mean {mean_time * 1000:.1f} ms "
            f"± {time_ci * 1000:.1f}, worst {tally.times.worst * 1000:.0f} ms"
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
