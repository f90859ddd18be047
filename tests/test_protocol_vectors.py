"""protocol.md sections 3-5 checked against the code: the complete 2-seat game log from fixed
seeds and its move list, the open-end labels and turn rules (re-implemented here from the
text alone and compared with the engine), the abort body, the entry size limits a verifier
applies, and which seed each round uses."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nacl.bindings as sodium
import nacl.exceptions
import pytest
from cheaters import plays_the_next_tile, run
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.cli.main import main
from cfnet.game.board import EndReason, line_label
from cfnet.game.moves import (
    IllegalMoveError,
    Move,
    Play,
    move_from_plain,
    move_to_plain,
    parse_move,
)
from cfnet.game.round import PlayerView, Round
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import ALL_TILES, Tile
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.schedule import Step
from cfnet.protocol.testing import Network, play_protocol_game, sim_identity, start_tables
from cfnet.protocol.verify import Verdict, verify_entries
from cfnet.record.codec import encode_canonical
from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log, write_log

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "protocol.md").read_text()
VECTOR = ROOT / "tests" / "vectors" / "game-2p-seed1.cfnlog"
PUBLIC_ROUNDS = ROOT / "tests" / "vectors" / "public-rounds.json"
TABLE_ID = "c136822e9040a9cebc01c6d7344dacfd"
GENESIS_HASH = "c08d466c7a525541d3feba5026e7e641ebd2136d5f1d26fa0fe7c57abc378ab5"
HEAD = "1cc899719099b7866339458bd4d6db34311cff51edf859170c7f0b6ac4c55d90"
FILE_SHA256 = "eefc639db1c792e896aa3291228900ddc76654be4459677fa979efbdb58f2352"


def _shake(label: str, *parts: int, size: int) -> bytes:
    """The simulated peers' derivation, re-implemented from protocol.md's words."""
    data = label.encode() + b"".join(p.to_bytes(8, "big") for p in parts)
    return hashlib.shake_256(data).digest(size)


def _block(marker: str) -> str:
    """The indented block that follows the line `marker` in protocol.md."""
    start = SPEC.index(marker + "\n") + len(marker) + 1
    lines = []
    for line in SPEC[start:].splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line.strip())
    return "\n".join(lines).strip()


def _hex_after(name: str) -> bytes:
    """The hex value named `name` in protocol.md (`name   <hex, maybe over several lines>`)."""
    match = re.search(rf"^    {re.escape(name)} +([0-9a-f]+(?:\n {{10,}}[0-9a-f]+)*)$", SPEC, re.M)
    assert match is not None, f"protocol.md names no {name}"
    return bytes.fromhex("".join(match.group(1).split()))


# ------------------------------------------------------------------- section 5: the game


def test_vector_file() -> None:
    data = VECTOR.read_bytes()
    assert len(data) == 40810
    assert hashlib.sha256(data).hexdigest() == FILE_SHA256
    entries = read_log(VECTOR)
    assert len(entries) == 53
    assert entries[0].table_id.hex() == TABLE_ID
    assert entries[0].hash.hex() == GENESIS_HASH
    assert entries[-1].hash.hex() == HEAD
    verdict = verify_entries(entries)
    assert verdict.ok, verdict.problem
    assert [list(r.scores) for r in verdict.rounds] == [[0, 4]]
    assert verdict.rounds[0].starter == 0


def test_the_command_in_version_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Section 5: what section 5's command writes in version 4 (a version-4 table: other deal
    seeds, so another game than the kept version-3 file)."""
    path = tmp_path / "v4.cfnlog"
    args = ["--players", "2", "--seed", "1", "--bots", "greedy", "--rule", "rounds=1"]
    assert main(["selfplay", "--protocol", *args, "--log", str(path)]) == 0
    capsys.readouterr()
    data = path.read_bytes()
    table = " ".join(SPEC[SPEC.index("**The same command in version 4.**") :].split()[:400])
    digest = hashlib.sha256(data).hexdigest()
    assert len(data) == 44570 and f"44570 bytes, `{digest}`" in table
    entries = read_log(path)
    assert entries[0].body["version"] == 4 and entries[0].table_id.hex() == TABLE_ID
    assert len(entries) == 77 and "| entries | 77 (" in table
    assert entries[0].hash.hex() in table and entries[-1].hash.hex() in table
    verdict = verify_entries(entries)
    assert verdict.ok, verdict.problem
    (scored,) = verdict.rounds
    assert list(scored.scores) == [47, 71] and scored.starter == 0 and scored.went_out is None
    assert scored.end_reason is EndReason.BLOCKED and "`[47, 71]`: seat 0 wins" in table


def test_regenerated_from_the_seeds(tmp_path: Path) -> None:
    network = play_protocol_game(2, 1, RuleOptions(rounds=1), ("greedy",), version=3)
    path = tmp_path / "game.cfnlog"
    write_log(path, network.tables[0].entries)
    assert path.read_bytes() == VECTOR.read_bytes()


def test_sim_derivations_as_written() -> None:
    entries = read_log(VECTOR)
    assert entries[0].table_id == _shake("cfnet/v1/sim-table", 1, size=16)
    keys = [seat["key"] for seat in entries[0].body["seats"]]
    for s, key in enumerate(keys):
        assert Identity.from_seed(_shake("cfnet/v1/sim-identity", 1, s, size=32)).public == key
    reveals = [e for e in entries if e.kind == "reveal"]
    for entry in reveals:
        assert entry.body["seed"] == _shake("cfnet/v1/sim-entropy", 1, entry.seat, 0, size=32)


def test_round_r_uses_seed_output_r_minus_1() -> None:
    """Section 5: seat s's round-r seed is output i = r - 1 of its entropy stream."""
    network = play_protocol_game(2, 3, RuleOptions(rounds=2), ("random",), version=3)
    reveals = [e for e in network.tables[0].entries if e.kind == "reveal"]
    assert sorted((e.body["round"], e.seat) for e in reveals) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    for entry in reveals:
        i = entry.body["round"] - 1
        assert entry.body["seed"] == _shake("cfnet/v1/sim-entropy", 3, entry.seat, i, size=32)


def _listed_moves(marker: str = "The moves of the game, round by round:") -> dict[int, list[Move]]:
    """A move list of protocol.md (section 5's by default), round by round: the block after
    the line ending in `marker`."""
    text = " ".join(_block(marker).split())
    rounds: dict[int, list[Move]] = {}
    for number, moves in re.findall(r"round (\d+): (.*?)(?= round \d+:|$)", text):
        rounds[int(number)] = [parse_move(m) for m in moves.strip().split(", ")]
    return rounds


class ScriptedPlayer:
    """Plays the listed moves in order (only the seat due is ever asked)."""

    name = "scripted"

    def __init__(self, moves: list[Move]) -> None:
        self.moves = moves

    def choose(self, view: PlayerView) -> Move:
        move = self.moves.pop(0)
        assert move in view.legal_moves(), f"seat {view.seat} cannot play {move}"
        return move


def test_the_listed_moves_reproduce_the_vector(tmp_path: Path) -> None:
    moves = _listed_moves()
    assert list(moves) == [1]
    network = start_tables(2, 1, RuleOptions(rounds=1), version=3)
    shared = ScriptedPlayer(list(moves[1]))
    network.players = [shared, shared]
    network.run()
    assert shared.moves == []
    path = tmp_path / "game.cfnlog"
    write_log(path, network.tables[0].entries)
    assert path.read_bytes() == VECTOR.read_bytes()
    played = [e for e in network.tables[0].entries if e.kind in ("play", "draw", "pass")]
    assert [move_from_plain(_plain_move(e)) for e in played] == moves[1]


def _plain_move(entry: Entry) -> list[Any]:
    if entry.kind == "play":
        return ["play", entry.body["tile"], entry.body["end"]]
    return [entry.kind]


# ----------------------------------------- section 4.3, re-implemented from the text alone


def spec_label(i: int) -> str:
    """4.3: the label of line i (0-based): i + 1 in bijective base 26 with the digits a..z."""
    n, text = i + 1, ""
    while n > 0:
        n, c = divmod(n - 1, 26)
        text = chr(ord("a") + c) + text
    return text


def spec_index(low: int, high: int) -> int:
    """4.3: the tile index of low-high (low <= high)."""
    return low * (21 - low) // 2 + (high - low)


Pair = tuple[int, int]
SpecMove = tuple[Any, ...]  # ("play", (low, high), end), ("draw",), ("pass",)


def _fits(tile: Pair, number: int) -> bool:
    return number in tile


class SpecRound:
    """A round as protocol.md 4.3 and 4.4 describe it: lines, open ends, turns, the public
    checks, the full-information checks of the audit, the end and the scores."""

    def __init__(
        self,
        players: int,
        number: int,
        starter: int,
        trains: int,
        hands: Sequence[Sequence[Pair]],
        yard: Sequence[Pair],
        blank_50: bool,
    ) -> None:
        d = 10 - number
        self.players, self.d, self.needed, self.blank_50 = players, d, trains, blank_50
        self.lines: list[list[Any]] = []  # [label, number, closed]
        self.trains, self.toes_left = 0, 0
        self.foot_number: int | None = None  # the open foot's number
        self.turn = starter
        self.hands = [list(h) for h in hands]
        self.counts = [len(h) for h in hands]
        self.yard = list(yard)
        self.floor = 2 if players == 2 else 1
        self.passes = 0
        self.drawn: Pair | None = None  # the tile drawn this turn
        self.has_drawn = False
        self.over: str | None = None
        self.went_out: int | None = None
        self.board = {(d, d)}

    def ends(self) -> dict[str, int]:
        if self.over is not None:
            return {}
        if self.trains < self.needed:
            return {spec_label(len(self.lines)): self.d}
        if self.foot_number is not None:
            return {spec_label(len(self.lines)): self.foot_number}
        return {label: n for label, n, closed in self.lines if not closed}

    def public_ok(self, move: SpecMove) -> bool:
        if self.over is not None:
            return False
        if move[0] == "play":
            tile, end = move[1], move[2]
            ends = self.ends()
            return tile not in self.board and end in ends and _fits(tile, ends[end])
        if move[0] == "draw":
            return not self.has_drawn and len(self.yard) > self.floor
        return self.has_drawn or len(self.yard) <= self.floor

    def fits_somewhere(self, tile: Pair) -> bool:
        return any(_fits(tile, n) for n in self.ends().values())

    def full_ok(self, move: SpecMove) -> bool:
        if not self.public_ok(move):
            return False
        hand = self.hands[self.turn]
        if move[0] == "play":
            return move[1] in hand and (self.drawn is None or move[1] == self.drawn)
        if self.drawn is not None:
            return not self.fits_somewhere(self.drawn)
        return not any(self.fits_somewhere(t) for t in hand)

    def apply(self, move: SpecMove) -> None:
        s = self.turn
        if move[0] == "draw":
            self.drawn = self.yard.pop(0)
            self.hands[s].append(self.drawn)
            self.counts[s] += 1
            self.has_drawn = True
            return
        if move[0] == "pass":
            self.passes += 1
            self.has_drawn, self.drawn = False, None
            if self.passes >= self.players and len(self.yard) <= self.floor:
                self.over = "blocked"
            else:
                self.turn = (s + 1) % self.players
            return
        tile, end = move[1], move[2]
        number = self.ends()[end]
        free = tile[1] if tile[0] == number else tile[0]
        line = next((x for x in self.lines if x[0] == end), None)
        if line is None:  # a fresh label: a new train, or a new toe
            self.lines.append([end, free, False])
            if self.foot_number is None:
                self.trains += 1
            else:
                self.toes_left -= 1
                if self.toes_left == 0:
                    self.foot_number = None
        else:
            line[1] = free
            if tile[0] == tile[1]:
                line[2] = True
                self.foot_number, self.toes_left = tile[0], 3
        self.board.add(tile)
        self.hands[s].remove(tile)
        self.counts[s] -= 1
        self.passes = 0
        self.has_drawn, self.drawn = False, None
        showing = sum(1 for t in self.board if self.foot_number in t)
        if self.counts[s] == 0:
            self.over, self.went_out = "went out", s
        elif self.foot_number is not None and showing == 10:
            self.over = "dead foot"
        else:
            self.turn = (s + 1) % self.players

    def scores(self) -> list[int]:
        def points(t: Pair) -> int:
            return 50 if t == (0, 0) and self.blank_50 else t[0] + t[1]

        return [
            0 if s == self.went_out else sum(points(t) for t in hand)
            for s, hand in enumerate(self.hands)
        ]


def _pair(tile: Tile) -> Pair:
    return (tile.low, tile.high)


def _spec_move(move: Move) -> SpecMove:
    plain = move_to_plain(move)
    if plain[0] == "play":
        return ("play", _pair(ALL_TILES[plain[1]]), plain[2])
    return (plain[0],)


def _spec_of(game_round: Round) -> SpecRound:
    plain = game_round.to_plain()
    public = game_round.public
    return SpecRound(
        public.players,
        public.round_number,
        public.starter,
        public.options.start_trains or public.players,
        [[_pair(ALL_TILES[i]) for i in hand] for hand in plain["hands"]],
        [_pair(ALL_TILES[i]) for i in plain["yard"]],
        public.options.double_blank_50,
    )


def test_label_sequence_and_tile_index_as_written() -> None:
    assert [spec_label(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa",
    ]  # fmt: skip
    assert all(spec_label(i) == line_label(i) for i in range(2000))
    assert [spec_index(t.low, t.high) for t in ALL_TILES] == list(range(55))
    examples = {(0, 0): 0, (0, 9): 9, (1, 1): 10, (3, 5): 29, (9, 9): 54}
    assert {pair: spec_index(*pair) for pair in examples} == examples


def test_the_worked_example_of_labels() -> None:
    """The table in 4.3 ("Worked example") is the first moves of section 5's game."""
    rows = re.findall(
        r"^\| (\d+) \| (\d) \| (\d-\d) on (\w+) \| (\w+) \| ([a-z0-9: ]+) \|$", SPEC, re.M
    )
    assert len(rows) >= 12
    entries = [e for e in read_log(VECTOR) if e.kind == "play"]
    start = read_log(VECTOR)[0].body
    assert len(start["seats"]) == 2
    spec = SpecRound(2, 1, 0, 2, [[], []], [], False)
    spec.counts = [21, 21]
    for (number, seat, tile, end, phase, ends), entry in zip(rows, entries, strict=False):
        played = Tile.parse(tile)
        assert (entry.seat, entry.body["tile"], entry.body["end"]) == (
            int(seat),
            played.index,
            end,
        ), f"move {number}"
        assert spec.turn == int(seat)
        spec.hands[spec.turn].append(_pair(played))
        spec.apply(("play", _pair(played), end))
        phase_now = (
            "opening"
            if spec.trains < spec.needed
            else "foot"
            if spec.foot_number is not None
            else "main"
        )
        assert phase_now == phase, f"move {number}"
        assert " ".join(f"{k}:{v}" for k, v in spec.ends().items()) == ends, f"move {number}"


@pytest.mark.parametrize("name", ["blocked", "dead-foot", "went-out"])
def test_public_round_vectors(name: str) -> None:
    """tests/vectors/public-rounds.json: the engine and the written rules give every state."""
    data = json.loads(PUBLIC_ROUNDS.read_text())[name]
    engine = Round.from_plain({**data["round"], "moves": []})
    spec = _spec_of(engine)
    for step in data["trace"]:
        move = move_from_plain(step["move"])
        assert engine.turn == spec.turn == step["seat"]
        assert spec.full_ok(_spec_move(move))
        engine.apply(move)
        spec.apply(_spec_move(move))
        for state in (
            (engine.public.ends, list(engine.public.hand_counts), engine.public.yard_count),
            (spec.ends(), spec.counts, len(spec.yard)),
        ):
            assert state == (step["ends"], step["hand_counts"], step["yard"])
        assert engine.public.passes_in_row == spec.passes == step["passes"]
    assert engine.public.end_reason is not None
    assert engine.public.end_reason.value == spec.over == data["end"]
    assert engine.public.went_out == spec.went_out == data["went_out"]
    assert list(engine.scores()) == spec.scores() == data["scores"]


def test_the_worked_example_of_draws_and_passes() -> None:
    """The table in 4.3 ("The end of the turns") is the end of the "blocked" vector round."""
    row = r"""^\|\ (\d+)\ \|\ (\d)\ \|\ (draw|pass|\d-\d\ on\ \w+)\ \|   # move, seat, move made
        \ ([^|]+)\ \|\ ([\d\ ]+)\ \|\ (\d+)\ \|\ (\d+)\ \|$"""  # ends, hands, Y, passes
    rows = re.findall(row, SPEC, re.M | re.X)
    assert len(rows) == 10
    trace = json.loads(PUBLIC_ROUNDS.read_text())["blocked"]["trace"]
    for number, seat, made, ends, hands, yard, passes in rows:
        step = trace[int(number) - 1]
        move = move_from_plain(step["move"])
        assert str(move).replace(" ", " on ") == made, f"move {number}"
        shown = " ".join(f"{k}:{v}" for k, v in step["ends"].items()) or "(none: blocked)"
        assert (int(seat), shown, hands.split(), int(yard), int(passes)) == (
            step["seat"],
            ends.strip(),
            [str(c) for c in step["hand_counts"]],
            step["yard"],
            step["passes"],
        ), f"move {number}"
    assert int(rows[-1][0]) == len(trace)


def test_the_vectors_cover_every_end_and_every_kind_of_move() -> None:
    data = json.loads(PUBLIC_ROUNDS.read_text())
    assert {v["end"] for v in data.values()} == {e.value for e in EndReason}
    kinds = [step["move"][0] for v in data.values() for step in v["trace"]]
    assert {"play", "draw", "pass"} <= set(kinds)


def _accepts(game_round: Round, move: Move, public_only: bool) -> bool:
    other = game_round.copy()
    try:
        if public_only:
            other.public.apply_public(move, other.turn)
        else:
            other.apply(move, other.turn)
    except IllegalMoveError:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 8),
    number=st.integers(1, 10),
    extra_trains=st.integers(0, 6),
    blank_50=st.booleans(),
    chooser=st.randoms(use_true_random=False),
)
def test_the_written_rules_are_the_engines(
    players: int, number: int, extra_trains: int, blank_50: bool, chooser: random.Random
) -> None:
    """Random rounds: after every move the open ends, turn, counts and end agree, and every
    candidate move (legal or not) is accepted by the text's checks exactly when the engine
    accepts it, publicly and with full information."""
    trains = min(8, players + extra_trains)
    options = RuleOptions(start_trains=trains, double_blank_50=blank_50)
    centre = Tile.of(10 - number, 10 - number)
    deck = [t for t in ALL_TILES if t != centre]
    chooser.shuffle(deck)
    game_round = Round.deal(players, number, chooser.randrange(players), deck, options)
    spec = _spec_of(game_round)
    labels = [spec_label(i) for i in range(40)] + ["", "A", "zz"]
    while not game_round.is_over:
        public = game_round.public
        assert (spec.ends(), spec.turn, spec.counts) == (
            public.ends,
            public.turn,
            list(public.hand_counts),
        )
        candidates = [move_from_plain(["draw"]), move_from_plain(["pass"])]
        candidates += game_round.legal_moves()
        for _ in range(6):
            tile = chooser.choice(ALL_TILES)
            label = chooser.choice([*public.ends, *labels])
            candidates.append(Play(tile, label))
        for tile in game_round.hands[game_round.turn]:
            for label in public.ends:
                candidates.append(move_from_plain(["play", tile.index, label]))
        for move in candidates:
            ours = _spec_move(move)
            assert spec.public_ok(ours) == _accepts(game_round, move, True), move
            assert spec.full_ok(ours) == _accepts(game_round, move, False), move
        move = chooser.choice(game_round.legal_moves())
        game_round.apply(move)
        spec.apply(_spec_move(move))
    assert game_round.public.end_reason is not None
    assert spec.over == game_round.public.end_reason.value
    assert spec.ends() == game_round.public.ends == {}
    assert spec.scores() == list(game_round.scores())


# ----------------------------------------------------------- section 3: the off-curve point


def test_the_off_curve_encoding() -> None:
    """Section 3's off-curve vector: y = 2 gives x^2 = 3 / (4d + 1), not a square mod p."""
    point = _hex_after("off-curve")
    assert point == (2).to_bytes(32, "little")
    p = 2**255 - 19
    d = -121665 * pow(121666, -1, p) % p
    x2 = (2 * 2 - 1) * pow(d * 2 * 2 + 1, -1, p) % p
    assert pow(x2, (p - 1) // 2, p) == p - 1  # Euler's criterion: a non-residue
    assert not sodium.crypto_core_ed25519_is_valid_point(point)
    with pytest.raises(nacl.exceptions.RuntimeError):
        sodium.crypto_scalarmult_ed25519_noclamp((1).to_bytes(32, "little"), point)


# -------------------------------------------------- section 4.6: the abort body; size limits


def _prefix(count: int = 8) -> list[Entry]:
    """Section 5's log up to the last deal: seat 0 is due to move at seq 8."""
    return read_log(VECTOR)[:count]


def _post(entries: list[Entry], seat: int, kind: str, body: dict[str, Any], seed: int = 1) -> Entry:
    """Seat `seat`'s entry at the next seq of `entries` (simulated identities of `seed`)."""
    head = entries[-1]
    return sign_entry(
        sim_identity(seed, seat), head.table_id, head.seq + 1, head.hash, seat, kind, body
    )


TIMEOUT_BODY = {
    "blamed": 0,
    "code": "timeout",
    "detail": "did not post its draw/pass/play within 120 s",
    "evidence": {"seq": 8},
}


def test_the_abort_vector() -> None:
    entries = _prefix()
    assert encode_canonical(TIMEOUT_BODY) == _hex_after("abort body")
    abort = _post(entries, 1, "abort", TIMEOUT_BODY)
    assert abort.hash == _hex_after("abort hash")
    verdict = verify_entries([*entries, abort])
    assert verdict.claim is not None and not verdict.ok
    assert (verdict.blamed, verdict.claim.seat, verdict.claimed_by) == (None, 0, 1)


def test_the_resign_vector() -> None:
    """4.2, "Resigning": the seat due leaves by its own signed entry; nobody is blamed."""
    entries = _prefix()
    assert encode_canonical({}) == _hex_after("resign body")
    resign = _post(entries, 0, "resign", {})
    assert resign.hash == _hex_after("resign hash") and len(resign.wire) == 133
    verdict = verify_entries([*entries, resign])
    assert (verdict.valid, verdict.finished, verdict.blamed, verdict.claim) == (
        True,
        False,
        None,
        None,
    )
    assert verdict.problem == "seat 0 (bot0) resigned at entry 8"
    assert verify_entries([*entries, _post(entries, 1, "resign", {})]).blamed == 1  # not due


@pytest.mark.parametrize(
    "change",
    [
        {"round": 1},
        {"evidence": {"seq": 8, "round": 1}},
        {"blamed": -1},
        {"detail": "x" * 401},
        {"code": "late"},
        {"evidence": {"seq": 8, "index": 0}},
    ],
)
def test_a_malformed_abort_is_refused_and_its_author_named(change: dict[str, Any]) -> None:
    """4.6: exactly four fields (no `round`), each evidence map exactly as listed."""
    entries = _prefix()
    abort = _post(entries, 1, "abort", {**TIMEOUT_BODY, **change})
    verdict = verify_entries([*entries, abort])
    assert (verdict.ok, verdict.seq, verdict.blamed, verdict.abort) == (False, 8, 1, None)
    assert "malformed abort" in verdict.problem


def _three_seats() -> list[Entry]:
    """A 3-seat table just after both accepts: seat 0 is due to post its shuffle_a at seq 3."""
    network: Network = start_tables(3, 1, RuleOptions(rounds=1), version=3)
    network.run(until=lambda: len(network.tables[0].entries) >= 3)
    return list(network.tables[0].entries[:3])


@pytest.mark.parametrize("poster", [1, 2])
def test_in_a_file_any_seat_but_the_blamed_one_may_post_the_abort(poster: int) -> None:
    entries = _three_seats()
    body = {"blamed": 0, "code": "timeout", "detail": "late", "evidence": {"seq": 3}}
    verdict = verify_entries([*entries, _post(entries, poster, "abort", body)])
    (departure,) = verdict.departures  # a departure: seat 0 leaves, the round is dealt again
    assert departure.startswith(
        f"departure: entry 3: seat {poster} (bot{poster}) claims seat 0 (bot0) late"
    )
    assert verdict.blamed is None and verdict.due == 1  # seat 1 now shuffles first


def test_an_abort_blaming_its_author_is_refused() -> None:
    entries = _three_seats()
    body = {"blamed": 0, "code": "timeout", "detail": "late", "evidence": {"seq": 3}}
    verdict = verify_entries([*entries, _post(entries, 0, "abort", body)])
    assert (verdict.seq, verdict.blamed, verdict.abort) == (3, 0, None)


def _verdict_with(seat: int, kind: str, body: dict[str, Any]) -> Verdict:
    entries = _prefix()
    return verify_entries([*entries, _post(entries, seat, kind, body)])


def test_verify_applies_the_entry_size_limits() -> None:
    """4.2: an ordinary entry over 9 KiB and an abort over 34 KiB are refused unread (nobody
    is blamed); under the limits the same entries are judged on their content."""
    small = _verdict_with(0, "pass", {"round": 1, "pad": bytes(7000)})
    assert (small.seq, small.blamed) == (8, 0)  # appended, then a bad entry of seat 0
    large = _verdict_with(0, "pass", {"round": 1, "pad": bytes(9300)})
    assert (large.seq, large.blamed) == (8, None)
    assert "over 9216 bytes" in large.problem
    junk = {"blamed": 0, "code": "out-of-turn", "detail": "", "evidence": {"entry": bytes(20000)}}
    held = _verdict_with(1, "abort", junk)
    assert (held.seq, held.blamed) == (8, 1)  # appended: its claim fails, its author is blamed
    too_big = _verdict_with(1, "abort", {**junk, "evidence": {"entry": bytes(35000)}})
    assert (too_big.seq, too_big.blamed) == (8, None)
    assert "over 34816 bytes" in too_big.problem


# ------------------------------------------------------------------- section 5: a re-deal

REDEAL = ROOT / "tests" / "vectors" / "redeal-3p-seed21.cfnlog"


def test_the_redeal_vector_is_what_section_5_says(tmp_path: Path) -> None:
    data = REDEAL.read_bytes()
    assert len(data) == 130974
    assert hashlib.sha256(data).hexdigest() == (
        "fcf29ff15639903d4041dd085f8251db23d9902d0b37eeeb4b479c2774d32904"
    )
    entries = read_log(REDEAL)
    assert len(entries) == 129 and entries[18].kind == "resign" and entries[18].seat == 1
    assert [(e.kind, e.seat) for e in entries[19:21]] == [("reveal", 0), ("reveal", 2)]
    assert entries[-1].hash.hex() == (
        "f83c9701c4f23b1371ec76dc903fc292d1b3beb76dfa108ab19fdb1f651307f8"
    )
    verdict = verify_entries(entries)
    assert verdict.ok, verdict.problem
    assert [list(r.scores) for r in verdict.rounds] == [[8, 8, 0], [0, 5, 5]]
    assert [r.seated for r in verdict.rounds] == [(0, 2), (0, 2)]
    assert [r.starter for r in verdict.rounds] == [0, 2]
    assert verdict.departures == [
        "departure: entry 18: seat 1 (bot1) resigned: round 1 is dealt again among seat 0 (bot0),"
        " seat 2 (bot2)"
    ]
    # the re-deal's derivations take the round tag 1 + 65536, and seat 0's second seed
    table_id, seed = entries[0].table_id, _shake("cfnet/v1/sim-entropy", 21, 0, 1, size=32)
    ctx = table_id + (1 + 65536).to_bytes(4, "big") + (0).to_bytes(4, "big")
    label = b"cfnet/v1/seed-commitment"
    assert entries[21].kind == "shuffle_a" and entries[21].seat == 0
    assert (
        entries[21].body["seed_commitment"]
        == hashlib.sha256(bytes([len(label)]) + label + ctx + seed).digest()
    )
    # and the log follows from the seeds and the players' moves
    network = start_tables(3, 21, RuleOptions(rounds=2), version=3)
    network.run(
        until=lambda: len(network.tables[0].public.moves if network.tables[0].public else ()) >= 4
    )
    network.tables[1].resign()
    network.run()
    path = tmp_path / "redeal.cfnlog"
    write_log(path, network.tables[0].entries)
    assert path.read_bytes() == data


REMOVAL = ROOT / "tests" / "vectors" / "removal-3p-seed6.cfnlog"


def test_the_removal_vector_is_what_section_5_says(tmp_path: Path) -> None:
    """A seat proven to cheat is removed and disqualified; the two others play the game out."""
    data = REMOVAL.read_bytes()
    assert len(data) == 138167
    assert hashlib.sha256(data).hexdigest() == (
        "bc843d9f4017618f294fb8f0c58e7fc2b3175242266083ff645796ee54776af1"
    )
    entries = read_log(REMOVAL)
    assert len(entries) == 170 and entries[-1].hash.hex() == (
        "925abd26b7e16e33dab141fba27f73b1155fb3e88cd6e3abd24e81cc5f708886"
    )
    play, abort = entries[19], entries[20]
    assert (play.kind, play.seat, play.body["tile"], play.body["position"]) == ("play", 1, 42, 27)
    assert (abort.kind, abort.seat) == ("abort", 0) and abort.body == {
        "blamed": 1,
        "code": "bad-entry",
        "detail": "played 7-5 but its position 27 holds 6-5",
        "evidence": {"seq": 19},
    }
    assert [(e.kind, e.seat) for e in entries[21:24]] == [
        ("reveal", 0),
        ("reveal", 2),
        ("shuffle_a", 0),
    ]
    verdict = verify_entries(entries)
    assert verdict.ok and verdict.removed == [1], verdict.problem
    assert [list(r.scores) for r in verdict.rounds] == [[43, 57, 57], [10, 10, 0]]
    assert [r.seated for r in verdict.rounds] == [(0, 2), (0, 2)]
    assert verdict.table is not None and verdict.table.game.totals == (53, 67, 57)
    assert verdict.table.game.winners() == (0,)
    # and the log follows from the seeds, the players' moves and seat 1's one false play
    network, _ = run(3, 6, 1, plays_the_next_tile, rounds=2, version=3)
    path = tmp_path / "removal.cfnlog"
    write_log(path, network.tables[0].entries)
    assert path.read_bytes() == data


def test_the_return_request_vector() -> None:
    """4.6, "Returns": seat 1's request after its resign in the re-deal vector."""
    entries = read_log(REDEAL)
    resign = entries[18]
    assert resign.hash.hex() == "7ffcb5289ee725c456c9877d4f2123176e50b6e1a61cb3e467e542778a3141ac"
    request = sign_entry(sim_identity(21, 1), resign.table_id, 18, resign.hash, 1, "return", {})
    assert len(request.wire) == 133
    written = re.search(r"^ +return hash +([0-9a-f]{64})$", SPEC, re.M)
    assert written is not None and request.hash.hex() == written[1]


def _version_4_text() -> str:
    """4.9 of protocol.md, its lines joined."""
    text = (ROOT / "protocol.md").read_text()
    start = text.index("### 4.9 Version 4")
    return " ".join(text[start : text.index("## 5. Table test vectors")].split())


def test_the_deal_seed_vector() -> None:
    """4.9, "Secrets bound to the chain": seat 0's deal seed for round 1 of the first vector,
    had it been a version-4 table."""
    entries = read_log(VECTOR)
    stored = _shake("cfnet/v1/sim-entropy", 1, 0, 0, size=32)
    seat = LocalSeat(sim_identity(1, 0), 0, lambda n: stored)
    seed = seat.deal_seed(entries[0].table_id, 1, entries[1].hash)
    text = _version_4_text()
    for value in (stored, entries[1].hash, seed):
        assert value.hex() in text
    assert seed != seat.deal_seed(entries[0].table_id, 1, entries[2].hash)  # another chain


CONCEDE = ROOT / "tests" / "vectors" / "concede-2p-seed3.cfnlog"


def _leader_resigns(players: list[Any] | None) -> Network:
    """4.9's early end: 2 simulated seats, seed 3, timeout 60, 3 rounds; seat 0 resigns when
    round 2's turns begin (`players`: who chooses the moves, else the greedy players)."""
    network = start_tables(2, 3, RuleOptions(rounds=3), timeout=60)
    if players is not None:
        network.players = players
    host = network.tables[0]
    network.run(
        until=lambda: host.round is not None and host.round.number == 2 and host.step is Step.TURNS
    )
    network.tables[0].resign()
    network.run()
    return network


def test_the_early_end_vector(tmp_path: Path) -> None:
    """4.9, "Leaving concedes": the leader of a 2-seat game resigns; the other seat wins. The
    kept file is what 4.9 says, and follows from the seeds and the moves it lists."""
    data = CONCEDE.read_bytes()
    text = _version_4_text()
    digest = hashlib.sha256(data).hexdigest()
    assert len(data) == 77011 and f"77011 bytes, SHA-256 `{digest}`" in text
    entries = read_log(CONCEDE)
    assert len(entries) == 89 and entries[0].body["version"] == 4
    assert entries[0].hash.hex() in text and entries[-1].hash.hex() in text
    assert entries[88].kind == "resign" and entries[88].seat == 0
    verdict = verify_entries(entries)
    assert verdict.ok and verdict.finished and "a player who left concedes" in verdict.note
    assert [list(r.scores) for r in verdict.rounds] == [[0, 9]]
    assert verdict.rounds[0].starter == 1
    assert verdict.table is not None and verdict.table.game.winners() == (1,)
    assert verdict.table.game.conceded == {0}
    # the greedy players chose these moves, and the listed moves give the file byte for byte
    greedy = _leader_resigns(None).tables[0]
    assert [e.wire for e in greedy.entries] == [e.wire for e in entries]
    moves = _listed_moves("they are, as in section 5 (seat 1 starts round 1):")
    assert list(moves) == [1]
    shared = ScriptedPlayer(list(moves[1]))
    scripted = _leader_resigns([shared, shared]).tables[0]
    assert shared.moves == []
    path = tmp_path / "concede.cfnlog"
    write_log(path, scripted.entries)
    assert path.read_bytes() == data


def test_the_stall_vote_vector() -> None:
    """4.6, "Stall votes": a version-4 table of 3 seats (seed 1), seat 0 due at seq 3; seats 1
    and 2 vote that it stalled, and seat 1's timeout carrying both votes holds in `verify`."""
    network = start_tables(3, 1, RuleOptions(rounds=1), version=4)
    network.run(until=lambda: len(network.tables[0].entries) >= 3)
    entries = network.tables[0].entries[:3]
    assert entries[0].hash.hex() == (
        "d7d6080f4611de3f6d6b2eea34a318a95f831dc91cd31c68887153527cecd1a8"
    )
    votes = []
    for seat in (1, 2):
        local = network.tables[seat].local
        assert local is not None
        votes.append(local.sign(entries[0].table_id, 3, entries[2].hash, "stall", {"seat": 0}))
    assert votes[0].wire.hex() == "".join(_block("Seat 1's stall vote, 138 bytes of wire:").split())
    assert votes[0].hash.hex() == (
        "2519f97843b0143fe3853d734f820f5997856380e20f873d299b7082b0eb2660"
    )
    local = network.tables[1].local
    assert local is not None
    body = {
        "blamed": 0,
        "code": "timeout",
        "detail": "did not post its shuffle_a within 120 s",
        "evidence": {"seq": 3, "votes": sorted(v.wire for v in votes)},
    }
    abort = local.sign(entries[0].table_id, 3, entries[2].hash, "abort", body)
    assert (len(abort.wire), abort.hash.hex()) == (
        504,
        "79b9743171df882ab6b81f599e27afeda160df2d38640211abd2c696b12b0c3d",
    )
    verdict = verify_entries([*entries, abort])
    assert verdict.blamed is None and verdict.due == 1
    (departure,) = verdict.departures
    assert "timed out by the votes of seat 1 (bot1), seat 2 (bot2)" in departure
    alone = local.sign(
        entries[0].table_id,
        3,
        entries[2].hash,
        "abort",
        {**body, "evidence": {"seq": 3, "votes": [votes[0].wire]}},
    )
    assert verify_entries([*entries, alone]).blamed == 1  # one vote of 3 seats is no majority
