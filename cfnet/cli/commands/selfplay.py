"""`cfnet selfplay`: complete games between computer players, offline, from a seed."""

from __future__ import annotations

import argparse

from cfnet.cli.options import add_rule_argument, add_think_arguments
from cfnet.game.rules import RuleOptions

HELP = "Play complete games between computer players offline and print the results."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, help="seats at the table, 2..8")
    parser.add_argument("--games", type=int, default=3, help="games to play")
    parser.add_argument("--seed", type=int, default=1, help="seed: same seed, same games")
    parser.add_argument(
        "--bots",
        default="greedy",
        help="comma-separated strategies (expert, greedy, random), repeated round the table",
    )
    add_think_arguments(parser)
    add_rule_argument(parser)
    parser.add_argument(
        "--show", action="store_true", help="print every round's final board and the scores"
    )
    parser.add_argument(
        "--protocol",
        action="store_true",
        help="play one game between in-memory peers through the full table protocol",
    )
    parser.add_argument(
        "--log", metavar="FILE", help="with --protocol: write the game's signed log to FILE"
    )


def run(args: argparse.Namespace) -> int:
    import sys
    import time

    from cfnet.game.bot_games import selfplay
    from cfnet.game.bots import BOT_STRATEGIES
    from cfnet.game.round import Game, Round
    from cfnet.game.rules import RuleOptionError, rule_options
    from cfnet.game.text import (
        count,
        describe_end,
        render_board,
        render_hand,
        score_lines,
        winner_text,
    )

    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    unknown = [name for name in names if name not in BOT_STRATEGIES]
    try:
        options = rule_options(args.rule, args.players)
    except RuleOptionError as error:
        print(f"cfnet selfplay: {error}", file=sys.stderr)
        return 2
    if unknown or not names:
        bad = ", ".join(unknown) or "(none)"
        print(f"cfnet selfplay: no bot {bad}: use {', '.join(BOT_STRATEGIES)}", file=sys.stderr)
        return 2
    if args.games < 1:
        print(f"cfnet selfplay: --games {args.games}: play at least 1 game", file=sys.stderr)
        return 2
    bots = [names[seat % len(names)] for seat in range(args.players)]
    if args.log and not args.protocol:
        print("cfnet selfplay: --log needs --protocol (only protocol games have a log)")
        return 2
    if args.protocol:
        return _protocol_game(args.players, args.seed, options, bots, args.log)

    def show(game: Game, finished: Round) -> None:
        public = finished.public
        assert public.end_reason is not None
        print(f"== round {public.round_number}: {describe_end(public.end_reason, public.went_out)}")
        print(render_board(public))
        for seat, hand in enumerate(finished.hands):
            print(f"seat {seat} ({bots[seat]}): {render_hand(hand)}")
        if game.is_over:
            seats = [f"seat {s}" for s in range(game.players)]
            print("\n".join(score_lines(game, seats)))
            print(f"game over: {winner_text(game.winners(), game.totals, seats)}")
        print()

    start = time.perf_counter()
    watch = show if args.show else None
    stats = selfplay(bots, args.games, args.seed, options, watch, args.think, args.rollouts)
    elapsed = time.perf_counter() - start
    games = count(args.games, "game")
    print(f"{games}, {args.players} players, seed {args.seed}, {options.describe()}")
    print(f"{'seat':>4}  {'bot':<8}{'wins':>6}  {'mean score':>10}")
    rows = zip(stats.bots, stats.wins, stats.mean_scores(), strict=True)
    for seat, (bot, wins, mean) in enumerate(rows):
        print(f"{seat:>4}  {bot:<8}{wins:>6}  {mean:>10.1f}")
    print("(a shared win counts for every winner)")
    ends = ", ".join(f"{reason.value} {count}" for reason, count in stats.ends.items())
    print(f"blocked rounds: {stats.blocked_share():.1%} of {stats.rounds} ({ends})")
    print(f"speed: {stats.games / elapsed:.1f} games/s")
    return 0


def _protocol_game(
    players: int, seed: int, options: RuleOptions, bots: list[str], log: str | None
) -> int:
    """One game between in-memory peers exchanging only signed entries; prints its summary."""
    import sys
    import time
    from pathlib import Path

    from cfnet.errors import cannot_write
    from cfnet.protocol.testing import play_protocol_game
    from cfnet.record.logfile import write_log

    start = time.perf_counter()
    network = play_protocol_game(players, seed, options, bots)
    elapsed = time.perf_counter() - start
    table = network.tables[0]
    identical = len({b"".join(e.wire for e in t.entries) for t in network.tables}) == 1
    print(f"protocol game: {players} peers, seed {seed}, {options.describe()}")
    for number, scores in enumerate(table.game.round_scores, start=1):
        print(f"round {number}: scores {list(scores)}")
    if table.aborted is not None:
        print(f"ABORTED: seat {table.aborted.seat}: {table.aborted.detail}")
    else:
        print(
            f"totals: {list(table.game.totals)}; winner: seat "
            + " and seat ".join(str(s) for s in table.game.winners())
        )
    print(
        f"{len(table.entries)} entries, head {table.head.hex()}; every peer's log identical:"
        f" {'yes' if identical else 'NO'}; {elapsed:.2f} s"
    )
    if log:
        try:
            write_log(Path(log), table.entries)
        except OSError as error:
            print(f"cfnet selfplay: {cannot_write(Path(log), error)}", file=sys.stderr)
            return 1
        print(f"log written to {log}")
    return 0 if identical and table.over else 1
