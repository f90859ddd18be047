"""A player who leaves says so: a signed `resign` entry in its turn ends the game at once for
every seat (nobody waits out its deadline), blames nobody, and `verify` shows the departure.
What a resignation cannot be used for: posting out of turn, hiding a fault, framing. And when a
departure leaves fewer than 2 players, the game is over with the rounds scored (RULES.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cheaters import Cheater, assert_caught, run

from cfnet.cli.main import main
from cfnet.errors import LocalProtocolError
from cfnet.game.moves import Draw
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Aborted, GameOver
from cfnet.protocol.schedule import Step
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import BAD_ENTRY, EQUIVOCATION, OUT_OF_TURN, RESIGN
from cfnet.record.logfile import write_log


def _table(rounds: int = 2) -> Network:
    return start_tables(3, 21, RuleOptions(rounds=rounds), timeout=60)


def _in_turns(network: Network) -> None:
    """Play until the first round's turns have begun and a few moves are made."""
    network.run(until=lambda: len(_moves(network)) >= 4)


def test_a_seat_that_resigns_in_its_turn_ends_the_game_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = _table()
    _in_turns(network)
    seat = network.tables[0].due()
    assert seat is not None
    leaver = seat[0]
    before = network.now
    network.tables[leaver].resign()
    network.run()
    assert network.now == before  # no deadline was waited for
    for table in network.tables:
        assert table.aborted is not None and table.finished and not table.over
        assert (table.aborted.code, table.aborted.seat, table.aborted_by) == (
            RESIGN,
            leaver,
            leaver,
        )
        assert table.entries[-1].kind == RESIGN and table.entries[-1].seat == leaver
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    assert not network.errors
    for seat_events in network.events:
        assert [e for e in seat_events if isinstance(e, Aborted)][-1].fault.seat == leaver
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.valid and verdict.blamed is None and not verdict.finished
    path = tmp_path / "left.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 1  # the game did not finish
    out = capsys.readouterr().out
    name = network.tables[0].seats[leaver].name
    seq = len(network.tables[0].entries) - 1
    assert f"unfinished: seat {leaver} ({name}) resigned at entry {seq}" in out
    assert "no seat is proven at fault" in out and "INVALID" not in out


def test_a_seat_that_resigns_out_of_turn_posts_at_its_turn_and_not_before() -> None:
    network = _table()
    _in_turns(network)
    due = network.tables[0].due()
    assert due is not None
    leaver = (due[0] + 1) % 3  # not due now
    network.tables[leaver].resign()
    assert not network.tables[leaver].awaiting_local_move
    seen = len(network.tables[0].entries)
    network.run()
    resigned = network.tables[0].entries[-1]
    assert resigned.kind == RESIGN and resigned.seat == leaver
    assert resigned.seq > seen  # the seat due went first
    assert all(e.seat != leaver for e in network.tables[0].entries[seen:-1])


def test_a_resignation_at_the_last_certificates_leaves_the_result_standing() -> None:
    network = _table(rounds=1)
    last = network.tables[2]

    def certifying() -> bool:
        table = network.tables[0]
        return table.step is Step.CERTIFY and table.due() == (2, frozenset({"certify"}))

    network.run(until=certifying)
    last.resign()
    network.run()
    for table in network.tables:
        assert table.over and table.finished and table.aborted is not None
    assert any(isinstance(e, GameOver) for e in network.events[0])
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and "seat 2 (bot2) resigned" in verdict.note


def test_an_observer_cannot_resign() -> None:
    network = _table()
    observer = type(network.tables[0])(network.tables[0].entries[0].wire)
    with pytest.raises(LocalProtocolError, match="observer"):
        observer.resign()


def _as_resign(when: int) -> Any:
    """A rewrite that turns the cheater's `when`-th entry (counting from 1) into a resign."""
    count = iter(range(1, 1 << 30))

    def rewrite(c: Cheater, kind: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        return (RESIGN, {"why": "bad hand"}) if next(count) == when else None

    return rewrite


def test_a_resign_with_a_body_is_a_bad_entry() -> None:
    network, cheater = run(3, 5, cheat=1, rewrite=_as_resign(3))
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at


def test_a_resign_posted_out_of_turn_is_blamed_on_its_author() -> None:
    """A seat cannot jump the queue with a resignation (to cut a round short while another
    seat is due): it is an entry out of turn like any other, and the seat due is not blamed."""

    def tamper(network: Network) -> Any:
        def deliver(entry: Any) -> list[tuple[bytes, frozenset[int] | None]]:
            table = network.tables[1]
            if entry.kind == "deal":
                assert table.local is not None
                early = table.local.sign(table.table_id, entry.seq + 1, entry.hash, RESIGN, {})
                return [(entry.wire, None), (early.wire, None)]
            return [(entry.wire, None)]

        return deliver

    network, _ = run(3, 6, cheat=1, tamper=tamper)
    assert_caught(network, 1, OUT_OF_TURN)


@pytest.mark.parametrize("seed", [7, 8, 9, 10])
def test_a_seat_that_resigns_to_some_and_moves_for_others_is_named(seed: int) -> None:
    """Seat 1 sends its play to seat 0 and a resignation for the same seq to seat 2: two signed
    entries for one place. Both honest seats name it (equivocation) and hold one log."""

    def tamper(network: Network) -> Any:
        def deliver(entry: Any) -> list[tuple[bytes, frozenset[int] | None]]:
            table = network.tables[1]
            if entry.kind == "play":
                assert table.local is not None
                other = table.local.sign(table.table_id, entry.seq, entry.prev, RESIGN, {})
                return [(entry.wire, frozenset({0})), (other.wire, frozenset({2}))]
            return [(entry.wire, None)]

        return deliver

    network, _ = run(3, seed, cheat=1, tamper=tamper)
    assert_caught(network, 1, EQUIVOCATION)


def test_replay_shows_the_resignation_and_keeps_unrevealed_draws_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A round cut short by a resignation is never revealed: `replay` prints its moves, a draw
    without its tile, and who left."""
    network = _table()
    network.run(until=lambda: any(isinstance(m, Draw) for m in _moves(network)))
    due = network.tables[0].due()
    assert due is not None
    network.tables[due[0]].resign()
    network.run()
    path = tmp_path / "left.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    name = network.tables[0].seats[due[0]].name
    assert f"seat {due[0]} ({name}) resigned: the game ends here" in out
    assert re.search(r"^\d+\. seat \d \(bot\d\): draw \(never revealed\)$", out, re.M), out


def _moves(network: Network) -> tuple[Any, ...]:
    public = network.tables[0].public
    return () if public is None else tuple(public.moves)


def _two_seats(rounds: int = 3) -> Network:
    return start_tables(2, 31, RuleOptions(rounds=rounds), timeout=60)


def _in_round(network: Network, number: int) -> None:
    """Play until round `number`'s turns have begun."""
    network.run(
        until=lambda: network.tables[0].game.round_number == number and bool(_moves(network))
    )


def test_two_seats_one_resigns_and_the_game_is_over_with_the_rounds_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = _two_seats()
    _in_round(network, 2)
    first = network.tables[0].game.round_scores[0]
    network.tables[1].resign()
    network.run()
    for table, events in zip(network.tables, network.events, strict=True):
        assert table.over and table.finished and table.aborted is not None
        assert table.game.round_scores == [first]
        (over,) = [e for e in events if isinstance(e, GameOver)]
        assert over.totals == first and over.winners == table.game.winners()
    path = tmp_path / "two.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "valid: a game ended early (note)" in out
    assert re.search(
        r"note: seat 1 \(bot1\) resigned at entry \d+: fewer than 2 players are left, so the"
        r" game ends with the 1 round scored",
        out,
    ), out
    assert main(["verify", "--json", str(path)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert (verdict["finished"], verdict["totals"]) == (True, list(first))
    assert [r["round"] for r in verdict["rounds"]] == [1]


def test_two_seats_one_stalls_and_the_others_claim_ends_the_game_with_the_rounds_scored() -> None:
    network = _two_seats()
    _in_round(network, 2)
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody from now on
    network.run()
    table = network.tables[0]
    assert table.aborted is not None and table.aborted.code == "timeout" and table.over
    verdict = verify_entries(table.entries)
    assert verdict.ok and "claims seat 1 (bot1)" in verdict.note and len(verdict.rounds) == 1


def test_two_seats_with_no_round_scored_a_departure_leaves_no_result() -> None:
    network = _two_seats()
    _in_round(network, 1)
    network.tables[0].resign()
    network.run()
    assert all(t.finished and not t.over for t in network.tables)
    assert not verify_entries(network.tables[0].entries).finished


def test_three_seats_one_resigns_and_the_game_stops_without_a_result() -> None:
    """Re-dealing among the seats left is not built yet: with 3 or more seats a departure ends
    the game unfinished, whatever was scored."""
    network = _table(rounds=3)
    network.run(until=lambda: network.tables[0].game.round_number == 2 and bool(_moves(network)))
    network.tables[2].resign()
    network.run()
    assert all(t.finished and not t.over for t in network.tables)


def test_a_resignation_right_after_a_bad_entry_does_not_hide_it() -> None:
    """Seat 1 posts a bad deal and at once its resignation: the fault is found first, so the
    resignation is not taken, and every honest seat and `verify` name the bad entry."""

    def bad_deal(c: Cheater, kind: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        return (kind, {**body, "keys": body["keys"][:-32]}) if kind == "deal" else None

    def tamper(network: Network) -> Any:
        def deliver(entry: Any) -> list[tuple[bytes, frozenset[int] | None]]:
            if entry.kind != "deal":
                return [(entry.wire, None)]
            local = network.tables[1].local
            assert local is not None
            leave = local.sign(entry.table_id, entry.seq + 1, entry.hash, RESIGN, {})
            return [(entry.wire, None), (leave.wire, None)]

        return deliver

    network, cheater = run(3, 11, cheat=1, rewrite=bad_deal, tamper=tamper)
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at
    assert all(e.kind != RESIGN for t in network.tables for e in t.entries if t.me != 1)


def test_an_abort_that_supersedes_an_audit_gives_every_peer_the_same_result() -> None:
    """2 seats, round 2: seat 1 posts its reveal only after seat 0's deadline for it, so by
    both clocks it is late. Seat 0 times it out at that seq; seat 1 had already audited round
    2 with its own reveal, and takes the claim, which drops that reveal. Both peers, and
    `verify`, end with round 1 only: the rounds counted are those audited before the abort."""
    network = _two_seats(rounds=3)
    host, late = network.tables
    network.run(
        until=lambda: host.game.round_number == 2 and host.due() == (1, frozenset({"reveal"}))
    )
    after = network.now + 61  # the table's timeout is 60 s
    (reveal,) = late.entries_to_send(after)
    assert late.game.round_number == 3  # it audited round 2 with its own reveal
    host.handle_timer(after)
    (abort,) = host.entries_to_send(after)
    assert abort.seq == reveal.seq and abort.body["code"] == "timeout"
    late.receive(abort.wire, after)
    host.receive(reveal.wire, after)  # too late: the game is over here
    for table in network.tables:
        assert table.over and table.entries[-1].wire == abort.wire
        assert len(table.game.round_scores) == 1
    verdict = verify_entries(host.entries)
    assert verdict.ok and len(verdict.rounds) == 1
    assert tuple(host.game.totals) == tuple(late.game.totals) == verdict.rounds[0].totals
