"""Write tests/vectors/public-rounds.json: whole rounds (deal, every move, the public state after
each move, the end and the scores) that protocol.md 4.3 describes in words. Each round is found
by playing seeded random legal moves until one ends the way wanted (blocked with draws and
passes, a dead foot, going out with options); tests/test_protocol_vectors.py replays them."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfnet.game.board import EndReason
from cfnet.game.moves import Draw, Pass, move_to_plain
from cfnet.game.round import Round
from cfnet.game.rules import RuleOptions
from cfnet.game.text import describe_end
from cfnet.game.tiles import ALL_TILES, double

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "public-rounds.json"


def played_round(players: int, number: int, options: RuleOptions, seed: int) -> Round:
    """A round dealt from a seeded shuffle and played to its end with seeded random legal moves
    (not secret: a reproducible test position)."""
    chooser = random.Random(seed)
    centre = double(10 - number)
    deck = [t for t in ALL_TILES if t != centre]
    chooser.shuffle(deck)
    game_round = Round.deal(players, number, chooser.randrange(players), deck, options)
    while not game_round.is_over:
        game_round.apply(chooser.choice(game_round.legal_moves()))
    return game_round


def trace(game_round: Round) -> dict[str, Any]:
    """The round as plain data with the public state after every move."""
    plain = game_round.to_plain()
    replay = Round.from_plain({**plain, "moves": []})
    steps = []
    for move in game_round.public.moves:
        seat = replay.turn
        replay.apply(move)
        public = replay.public
        steps.append(
            {
                "seat": seat,
                "move": move_to_plain(move),
                "ends": dict(public.ends),
                "hand_counts": list(public.hand_counts),
                "yard": public.yard_count,
                "passes": public.passes_in_row,
            }
        )
    public = game_round.public
    assert public.end_reason is not None
    return {
        "round": plain,
        "trace": steps,
        "end": public.end_reason.value,
        "went_out": public.went_out,
        "scores": list(game_round.scores()),
    }


def kinds(game_round: Round) -> list[str]:
    """'draw', 'pass' or 'play' for each move, a pass right after a draw as 'draw-pass'."""
    out: list[str] = []
    for move in game_round.public.moves:
        if isinstance(move, Pass) and out and out[-1] == "draw":
            out[-1] = "draw-pass"
        else:
            out.append(
                "draw" if isinstance(move, Draw) else "pass" if isinstance(move, Pass) else "play"
            )
    return out


def first(
    wanted: Callable[[Round], bool], players: int, number: int, options: RuleOptions
) -> Round:
    """The round of the lowest seed that is `wanted`."""
    for seed in range(100_000):
        game_round = played_round(players, number, options, seed)
        if wanted(game_round):
            return game_round
    raise RuntimeError("no seed gives such a round")


def blocked_with_draws_and_passes(game_round: Round) -> bool:
    seen = kinds(game_round)
    return (
        game_round.public.end_reason is EndReason.BLOCKED
        and "draw-pass" in seen
        and "pass" in seen
        and len(game_round.public.moves) < 60
    )


def dead_foot(game_round: Round) -> bool:
    return game_round.public.end_reason is EndReason.DEAD_FOOT


def went_out_with_blank_left(game_round: Round) -> bool:
    public = game_round.public
    return public.end_reason is EndReason.WENT_OUT and any(
        ALL_TILES[0] in hand for hand in game_round.hands
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=VECTORS)
    args = parser.parse_args()
    rounds = {
        "blocked": first(blocked_with_draws_and_passes, 3, 2, RuleOptions()),
        "dead-foot": first(dead_foot, 4, 1, RuleOptions()),
        "went-out": first(
            went_out_with_blank_left, 2, 3, RuleOptions(start_trains=4, double_blank_50=True)
        ),
    }
    data = {name: trace(game_round) for name, game_round in rounds.items()}
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    for name, game_round in rounds.items():
        public = game_round.public
        assert public.end_reason is not None
        why = describe_end(public.end_reason, public.went_out)
        print(f"{name}: {len(public.moves)} moves, {why}")


if __name__ == "__main__":
    main()
