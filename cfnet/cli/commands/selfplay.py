"""`cfnet selfplay`: complete games between computer players, offline, from a seed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cfnet.cli.options import add_rule_argument, add_think_arguments
from cfnet.game.rules import RuleOptions
from cfnet.lang import N_, _, pgettext

if TYPE_CHECKING:
    from cfnet.game.board import EndReason

HELP = N_("Play complete games between computer players offline and print the results.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, help=_("seats at the table, 2..8"))
    parser.add_argument("--games", type=int, default=3, help=_("games to play"))
    parser.add_argument("--seed", type=int, default=1, help=_("seed: same seed, same games"))
    parser.add_argument(
        "--bots",
        default="greedy",
        help=_("comma-separated strategies (expert, greedy, random), repeated round the table"),
    )
    add_think_arguments(parser)
    add_rule_argument(parser)
    parser.add_argument(
        "--show", action="store_true", help=_("print every round's final board and the scores")
    )
    parser.add_argument(
        "--protocol",
        action="store_true",
        help=_("play one game between in-memory peers through the full table protocol"),
    )
    parser.add_argument(
        "--log", metavar="FILE", help=_("with --protocol: write the game's signed log to FILE")
    )


def run(args: argparse.Namespace) -> int:
    import sys
    import time

    from cfnet.errors import describe
    from cfnet.game.bot_games import selfplay
    from cfnet.game.bots import BOT_STRATEGIES
    from cfnet.game.round import Game, Round
    from cfnet.game.rules import RuleOptionError, rule_options
    from cfnet.game.text import (
        describe_end,
        pad,
        render_board,
        render_hand,
        score_lines,
        winner_text,
    )
    from cfnet.lang import decimal, digits, ngettext, percent, said
    from cfnet.lang.sentence import listed

    names = [name.strip() for name in args.bots.split(",") if name.strip()]
    unknown = [name for name in names if name not in BOT_STRATEGIES]
    try:
        options = rule_options(args.rule, args.players)
    except RuleOptionError as error:
        print(f"cfnet selfplay: {describe(error)}", file=sys.stderr)
        return 2
    if unknown or not names:
        bad = ", ".join(unknown) or _("(none)")
        no_bot = _("cfnet selfplay: no bot {bots}: use {strategies}")
        print(no_bot.format(bots=bad, strategies=", ".join(BOT_STRATEGIES)), file=sys.stderr)
        return 2
    if args.games < 1:
        at_least = _("cfnet selfplay: --games {games}: play at least 1 game")
        print(at_least.format(games=args.games), file=sys.stderr)
        return 2
    bots = [names[seat % len(names)] for seat in range(args.players)]
    if args.log and not args.protocol:
        print(_("cfnet selfplay: --log needs --protocol (only protocol games have a log)"))
        return 2
    if args.protocol:
        return _protocol_game(args.players, args.seed, options, bots, args.log)

    def show(game: Game, finished: Round) -> None:
        public = finished.public
        assert public.end_reason is not None
        why = describe_end(public.end_reason, public.went_out)
        print(_("== round {number}: {why}").format(number=digits(public.round_number), why=why))
        print(render_board(public))
        for seat, hand in enumerate(finished.hands):
            held = _("seat {number} ({bot}): {tiles}")
            print(held.format(number=digits(seat), bot=bots[seat], tiles=render_hand(hand)))
        if game.is_over:
            seats = [_("seat {number}").format(number=digits(s)) for s in range(game.players)]
            print("\n".join(score_lines(game, seats)))
            winner = winner_text(game.winners(), game.totals, seats)
            print(_("game over: {winner}").format(winner=winner))
        print()

    start = time.perf_counter()
    watch = show if args.show else None
    stats = selfplay(bots, args.games, args.seed, options, watch, args.think, args.rollouts)
    elapsed = time.perf_counter() - start
    played = ngettext(
        "{count} game, {players} players, seed {seed}, {rules}",
        "{count} games, {players} players, seed {seed}, {rules}",
        args.games,
    )
    print(
        played.format(
            count=digits(args.games),
            players=digits(args.players),
            seed=args.seed,
            rules=options.describe(),
        )
    )
    heads = [
        pgettext("heading", "seat"),
        pgettext("heading", "bot"),
        pgettext("heading", "wins"),
        pgettext("heading", "mean score"),
    ]
    print(
        f"{pad(heads[0], 4, True)}  {pad(heads[1], 8)}{pad(heads[2], 6, True)}"
        f"  {pad(heads[3], 10, True)}"
    )
    rows = zip(stats.bots, stats.wins, stats.mean_scores(), strict=True)
    for seat, (bot, wins, mean) in enumerate(rows):
        row = f"{pad(digits(seat), 4, True)}  {bot:<8}{pad(digits(wins), 6, True)}"
        print(f"{row}  {pad(decimal(mean, 1), 10, True)}")
    print(_("(a shared win counts for every winner)"))
    ends = said(
        listed([f"{_end_name(reason)} {digits(count)}" for reason, count in stats.ends.items()])
    )
    blocked = _("blocked rounds: {share} of {rounds} ({ends})")
    share = percent(stats.blocked_share(), 1)
    print(blocked.format(share=share, rounds=digits(stats.rounds), ends=ends))
    print(_("speed: {rate} games/s").format(rate=decimal(stats.games / elapsed, 1)))
    return 0


def _protocol_game(
    players: int, seed: int, options: RuleOptions, bots: list[str], log: str | None
) -> int:
    """One game between in-memory peers exchanging only signed entries; prints its summary."""
    import sys
    import time
    from pathlib import Path

    from cfnet.errors import cannot_write
    from cfnet.lang import decimal, digits, ngettext, word_list
    from cfnet.lang.formatting import native_digits
    from cfnet.protocol.testing import play_protocol_game
    from cfnet.record.logfile import write_log

    start = time.perf_counter()
    network = play_protocol_game(players, seed, options, bots)
    elapsed = time.perf_counter() - start
    table = network.tables[0]
    identical = len({b"".join(e.wire for e in t.entries) for t in network.tables}) == 1
    game = ngettext(
        "protocol game: {count} peer, seed {seed}, {rules}",
        "protocol game: {count} peers, seed {seed}, {rules}",
        players,
    )
    print(game.format(count=digits(players), seed=seed, rules=options.describe()))
    for number, scores in enumerate(table.game.round_scores, start=1):
        shown = native_digits(str(list(scores)))
        print(_("round {number}: scores {scores}").format(number=digits(number), scores=shown))
    if table.aborted is not None:
        aborted = _("ABORTED: seat {seat}: {detail}")
        print(aborted.format(seat=digits(table.aborted.seat), detail=table.aborted.detail))
    else:
        winners = table.game.winners()
        won = ngettext(
            "totals: {totals}; winner: seat {seats}",
            "totals: {totals}; winners: seats {seats}",
            len(winners),
        )
        seats = word_list([digits(s) for s in winners])
        print(won.format(totals=native_digits(str(list(table.game.totals))), seats=seats))
    count = len(table.entries)
    same = (
        ngettext(
            "{count} entry, head {head}; every peer's log identical: yes; {seconds} s",
            "{count} entries, head {head}; every peer's log identical: yes; {seconds} s",
            count,
        )
        if identical
        else ngettext(
            "{count} entry, head {head}; every peer's log identical: NO; {seconds} s",
            "{count} entries, head {head}; every peer's log identical: NO; {seconds} s",
            count,
        )
    )
    print(same.format(count=digits(count), head=table.head.hex(), seconds=decimal(elapsed, 2)))
    if log:
        try:
            write_log(Path(log), table.entries)
        except OSError as error:
            print(f"cfnet selfplay: {cannot_write(Path(log), error)}", file=sys.stderr)
            return 1
        print(_("log written to {file}").format(file=log))
    return 0 if identical and table.over else 1


def _end_name(reason: EndReason) -> str:
    """How a count of round ends names `reason`, in the language in effect."""
    from cfnet.game.board import EndReason

    names = {
        EndReason.WENT_OUT: pgettext("round end", "went out"),
        EndReason.BLOCKED: pgettext("round end", "blocked"),
        EndReason.DEAD_FOOT: pgettext("round end", "dead foot"),
    }
    return names[reason]
