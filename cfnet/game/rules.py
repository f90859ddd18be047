"""Rule constants and the table's rule options (RULES.md), fixed for a whole game."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from cfnet.lang import N_
from cfnet.lang.sentence import Sentence

MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_ROUNDS = 10
MAX_TRAINS = 8
DOUBLE_BLANK_PENALTY = 50
HAND_SIZES = {2: 21, 3: 14, 4: 11, 5: 8, 6: 7, 7: 6, 8: 5}


class RuleOptionError(ValueError):
    """A rule option that does not exist or has a value the rules do not allow."""

    exit_status = 2  # on the command line, a usage error (cfnet.errors.exit_status)


def check_players(players: int) -> None:
    """Raise `RuleOptionError` unless 2..8 players."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleOptionError(
            Sentence.counted(
                "{count} player: Chicken Foot takes {least} to {most} players",
                "{count} players: Chicken Foot takes {least} to {most} players",
                players,
                count=players,
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
            )
        )


def hand_size(players: int) -> int:
    """Tiles dealt to each player."""
    check_players(players)
    return HAND_SIZES[players]


def yard_floor(players: int) -> int:
    """Tiles that always stay in the yard: 2 with two players, 1 with more."""
    check_players(players)
    return 2 if players == 2 else 1


def round_double(round_number: int) -> int:
    """The centre double's number in round 1..10: 9 in round 1 down to 0 in round 10."""
    if not 1 <= round_number <= MAX_ROUNDS:
        raise RuleOptionError(
            Sentence(
                N_("round {number}: rounds are 1..{most}"), number=round_number, most=MAX_ROUNDS
            )
        )
    return MAX_ROUNDS - round_number


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The table's choices: `rounds` 1..10, `start_trains` N..8 (None: N), `double_blank_50`."""

    rounds: int = MAX_ROUNDS
    start_trains: int | None = None
    double_blank_50: bool = False

    def trains_needed(self, players: int) -> int:
        """How many trains the centre needs before main play."""
        return players if self.start_trains is None else self.start_trains

    def check(self, players: int) -> None:
        """Raise `RuleOptionError` if these options cannot be played by `players` players."""
        check_players(players)
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise RuleOptionError(
                Sentence(
                    N_("rounds={rounds}: choose 1..{most}"), rounds=self.rounds, most=MAX_ROUNDS
                )
            )
        trains = self.trains_needed(players)
        if not players <= trains <= MAX_TRAINS:
            raise RuleOptionError(
                Sentence(
                    N_("start_trains={trains}: with {players} players choose {players}..{most}"),
                    trains=trains,
                    players=players,
                    most=MAX_TRAINS,
                )
            )

    def with_assignment(self, text: str) -> RuleOptions:
        """These options with one `NAME=VALUE` applied (as typed on the command line)."""
        name, sep, raw = text.partition("=")
        name = name.strip().replace("-", "_")
        names = [f.name for f in fields(self)]
        if not sep or name not in names:
            raise RuleOptionError(
                Sentence(
                    N_("{text} is not a rule option: use NAME=VALUE with NAME one of {names}"),
                    text=repr(text),
                    names=", ".join(names),
                )
            )
        raw = raw.strip().lower()
        value: Any
        if name == "double_blank_50":
            if raw not in ("on", "off", "true", "false", "1", "0", "yes", "no"):
                raise RuleOptionError(
                    Sentence(N_("double_blank_50={value}: use on or off"), value=raw)
                )
            value = raw in ("on", "true", "1", "yes")
        else:
            try:
                value = int(raw)
            except ValueError:
                raise RuleOptionError(
                    Sentence(N_("{name}={value}: expected a whole number"), name=name, value=raw)
                ) from None
        return replace(self, **{name: value})

    def to_plain(self) -> dict[str, Any]:
        """The options as msgpack-able data."""
        return {
            "rounds": self.rounds,
            "start_trains": self.start_trains,
            "double_blank_50": self.double_blank_50,
        }

    @classmethod
    def from_plain(cls, data: Any) -> RuleOptions:
        """Options from `to_plain` output; raises `RuleOptionError` on anything else."""
        if not isinstance(data, dict) or set(data) != {"rounds", "start_trains", "double_blank_50"}:
            raise RuleOptionError(Sentence(N_("malformed rule options: {data}"), data=repr(data)))
        rounds, trains, blank = data["rounds"], data["start_trains"], data["double_blank_50"]
        if (
            type(rounds) is not int
            or not (trains is None or type(trains) is int)
            or type(blank) is not bool
        ):
            raise RuleOptionError(Sentence(N_("malformed rule options: {data}"), data=repr(data)))
        return cls(rounds=rounds, start_trains=trains, double_blank_50=blank)

    def describe(self) -> str:
        """Short human text, e.g. `rounds=10 start_trains=N double_blank_50=off`."""
        trains = "N" if self.start_trains is None else str(self.start_trains)
        blank = "on" if self.double_blank_50 else "off"
        return f"rounds={self.rounds} start_trains={trains} double_blank_50={blank}"


def rule_options(assignments: Iterable[str], players: int) -> RuleOptions:
    """The default options with each `NAME=VALUE` applied, checked for `players` players."""
    options = RuleOptions()
    for text in assignments:
        options = options.with_assignment(text)
    options.check(players)
    return options
