"""A player who leaves says so: a signed `resign` entry in its turn; a seat that stalls is timed
out. Either way nobody waits any longer, nobody is blamed, and the game goes on among the seats
left: the round under way is dealt again without the leaver, who scores the highest score of
each round it sits out (RULES.md), and `verify` shows the departure. What a departure cannot be
used for: posting out of turn, hiding a fault, framing. With fewer than 2 players left the game
is over with the rounds scored."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cheaters import Cheater, Rewrite, assert_caught, plays_the_next_tile, run

from cfnet.cli.main import main
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.moves import Draw
from cfnet.game.round import Game
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import Aborted, GameOver, SeatLeft, SeatReturned, drain
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.schedule import Step
from cfnet.protocol.table import OFFLINE, Table
from cfnet.protocol.testing import Network, sim_identity, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import (
    ABORT,
    BAD_ENTRY,
    EQUIVOCATION,
    OUT_OF_TURN,
    PROTOCOL_VERSION,
    RESIGN,
    Fault,
)
from cfnet.record.entry import sign_entry
from cfnet.record.logfile import read_log, write_log


def _table(rounds: int = 2, version: int = PROTOCOL_VERSION) -> Network:
    return start_tables(3, 21, RuleOptions(rounds=rounds), timeout=60, version=version)


def _in_turns(network: Network) -> None:
    """Play until the first round's turns have begun and a few moves are made."""
    network.run(until=lambda: len(_moves(network)) >= 4)


def test_a_seat_that_resigns_in_its_turn_leaves_and_the_round_is_dealt_again_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = _table()
    _in_turns(network)
    seat = network.tables[0].due()
    assert seat is not None
    leaver = seat[0]
    stay = [s for s in range(3) if s != leaver]
    before = network.now
    network.tables[leaver].resign()
    network.run()
    assert network.now == before  # no deadline was waited for, in any round
    seq = next(e.seq for e in network.tables[0].entries if e.kind == RESIGN)
    for table in network.tables:
        assert table.aborted is None and table.fault is None
        assert table.entries[seq].kind == RESIGN and table.entries[seq].seat == leaver
        assert table.rounds.seated == tuple(stay)
        assert table.departed == (table.me == leaver)
    for table in (network.tables[s] for s in stay):
        assert table.over and table.finished
        assert len(table.game.round_scores) == 2  # round 1 dealt again, then round 2
        for scores in table.game.round_scores:  # the leaver scores each round's highest
            assert scores[leaver] == max(scores[s] for s in stay)
    assert len({tuple(e.wire for e in network.tables[s].entries) for s in stay}) == 1
    assert not network.errors
    for seat_events in network.events:
        (left,) = [e for e in seat_events if isinstance(e, SeatLeft)]
        assert (left.fault.code, left.fault.seat, left.round_number, left.redealt) == (
            RESIGN,
            leaver,
            1,
            True,
        )
        assert not any(isinstance(e, Aborted) for e in seat_events)
    entries = network.tables[stay[0]].entries
    verdict = verify_entries(entries)
    assert verdict.ok and verdict.blamed is None and verdict.finished
    path = tmp_path / "left.cfnlog"
    write_log(path, entries)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    name = network.tables[0].seats[leaver].name
    among = ", ".join(f"seat {s} (bot{s})" for s in stay)
    assert (
        f"departure: entry {seq}: seat {leaver} ({name}) resigned: round 1 is dealt again"
        f" among {among}"
    ) in out
    assert "valid: a complete game" in out and "* sat the round out" in out
    assert "INVALID" not in out


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
    entries = network.tables[0].entries
    resigned = next(e for e in entries if e.kind == RESIGN)
    assert resigned.seat == leaver
    assert resigned.seq > seen  # the seat due went first
    assert all(e.seat != leaver for e in entries[seen : resigned.seq])
    assert all(e.seat != leaver for e in entries[resigned.seq + 1 :])


def test_a_resignation_at_the_last_certificates_leaves_the_result_standing() -> None:
    network = _table(rounds=1)
    last = network.tables[2]
    assert network.tables[0].options.rounds == 1

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
    assert f"seat {due[0]} ({name}) resigned: round 1 is dealt again among" in out
    assert re.search(r"^\d+\. seat \d \(bot\d\): draw \(never revealed\)$", out, re.M), out


def _moves(network: Network) -> tuple[Any, ...]:
    public = network.tables[0].public
    return () if public is None else tuple(public.moves)


def _two_seats(rounds: int = 3, version: int = PROTOCOL_VERSION) -> Network:
    return start_tables(2, 31, RuleOptions(rounds=rounds), timeout=60, version=version)


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


def test_in_a_version_3_table_of_two_seats_one_seats_timeout_claim_ends_the_game() -> None:
    """Before stall votes (version 4) one seat's claim timed the other out: with the rounds
    scored, the result stands."""
    network = _two_seats(version=3)
    _in_round(network, 2)
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody from now on
    network.run()
    table = network.tables[0]
    assert table.aborted is not None and table.aborted.code == "timeout" and table.over
    verdict = verify_entries(table.entries)
    assert verdict.ok and "claims seat 1 (bot1)" in verdict.note and len(verdict.rounds) == 1


def test_two_seats_with_no_round_scored_the_leaver_concedes() -> None:
    """Leaving concedes (RULES.md): seat 0 resigns in round 1, before any round is scored;
    the game ends with a result, and seat 1, still seated, wins it; `verify` agrees."""
    network = _two_seats()
    _in_round(network, 1)
    network.tables[0].resign()
    network.run()
    for table, events in zip(network.tables, network.events, strict=True):
        assert table.finished and table.over and table.game.round_scores == []
        assert table.game.conceded == {0} and table.game.winners() == (1,)
        (over,) = [e for e in events if isinstance(e, GameOver)]
        assert over.winners == (1,)
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and verdict.finished and "concedes" in verdict.note, verdict.note


def test_in_a_version_3_table_two_seats_with_no_round_scored_end_without_a_result() -> None:
    network = start_tables(2, 31, RuleOptions(rounds=3), timeout=60, version=3)
    _in_round(network, 1)
    network.tables[0].resign()
    network.run()
    assert all(t.finished and not t.over for t in network.tables)
    assert not verify_entries(network.tables[0].entries).finished


def test_three_seats_one_resigns_in_round_2_and_the_two_left_play_every_round() -> None:
    network = _table(rounds=3)
    network.run(until=lambda: network.tables[0].game.round_number == 2 and bool(_moves(network)))
    first = network.tables[0].game.round_scores[0]
    network.tables[2].resign()
    network.run()
    for table in network.tables[:2]:
        game = table.game
        assert table.over and game.round_scores[0] == first  # the round played stands
        assert game.round_seated == [(0, 1, 2), (0, 1), (0, 1)]
        assert [s[2] for s in game.round_scores[1:]] == [max(s[:2]) for s in game.round_scores[1:]]
    gone = network.tables[2]  # it still follows the chain, as an observer would
    assert gone.departed and gone.game.round_scores == network.tables[0].game.round_scores


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
    `verify`, end with round 1 only: the rounds counted are those audited before the abort.
    (A version-3 table: from version 4 a timeout needs a majority's votes.)"""
    network = _two_seats(rounds=3, version=3)
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


def test_a_version_2_log_still_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    """Logs saved by the cfnet before re-deals (protocol version 2) are still proven."""
    path = Path(__file__).parent / "vectors" / "game-2p-seed1-v2.cfnlog"
    assert main(["verify", str(path)]) == 0
    assert "valid: a complete game" in capsys.readouterr().out


def test_in_a_version_2_table_a_departure_still_ends_the_game() -> None:
    """A table made by the cfnet before re-deals keeps its rules when resumed or verified."""
    network = _table(version=2)
    assert network.tables[0].version == 2
    _in_turns(network)
    due = network.tables[0].due()
    assert due is not None
    network.tables[due[0]].resign()
    network.run()
    for table in network.tables:
        assert table.aborted is not None and table.aborted.code == RESIGN
        assert table.finished and not table.over and table.entries[-1].kind == RESIGN


def test_a_table_of_an_unknown_version_is_named_so() -> None:
    from cfnet.errors import PeerProtocolError
    from cfnet.protocol.genesis import parse_genesis
    from cfnet.record.entry import GENESIS_PREV, sign_entry

    network = _table()
    genesis = network.tables[0].entries[0]
    local = network.tables[0].local
    assert local is not None
    body = {**genesis.body, "version": 5}
    forged = sign_entry(local.identity, genesis.table_id, 0, GENESIS_PREV, 0, "table", body)
    with pytest.raises(
        PeerProtocolError, match="protocol version 5; this cfnet knows versions 2, 3 and 4"
    ):
        parse_genesis(forged.wire)


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_two_racing_timeout_claims_converge_on_the_smaller_whatever_the_order(
    order: tuple[int, int],
) -> None:
    """Seat 3 stalls; seats 0 and 1 both sign a timeout claim for the same seq (one did not
    hear the other in time). Every peer, whichever claim it takes first, ends up with the
    bytewise smaller one and one chain, the game going on without seat 3. (Version 3: one
    seat's claim; from version 4 a timeout carries a majority's votes.)"""
    network = start_tables(4, 23, RuleOptions(rounds=1), timeout=60, version=3)
    network.run(until=lambda: network.tables[0].due() == (3, frozenset({"shuffle_a"})))
    network.tampers = {3: lambda entry: []}  # seat 3's entries reach nobody
    tables = network.tables
    late = network.now + 61
    claims = []
    for poster in (0, 1):
        tables[poster].handle_timer(late)
        local = tables[poster].local
        assert local is not None
        seq = len(tables[poster].entries)
        body = {"blamed": 3, "code": "timeout", "detail": "stalled", "evidence": {"seq": seq}}
        claims.append(local.sign(tables[0].table_id, seq, tables[poster].head, "abort", body))
    smaller = min(claims, key=lambda e: e.wire)
    for table in tables[:3]:
        for i in order:
            table.receive(claims[i].wire, late)
    network.now = late
    network.run()
    for table in tables[:3]:
        assert table.entries[smaller.seq].wire == smaller.wire
        assert table.rounds.seated == (0, 1, 2) and table.over
    assert len({tuple(e.wire for e in t.entries) for t in tables[:3]}) == 1


def test_a_smaller_racing_claim_that_comes_late_replaces_the_deal_built_on_the_other() -> None:
    """The larger claim is taken everywhere and the round is dealt again on it; then the
    smaller one arrives: every peer drops what followed the larger, rebuilds the game from the
    chain before it and deals again on the smaller: one chain, and the game finishes. The same
    seats signed the same seqs again on the smaller claim: an entry of the dropped deal that
    comes late (an echo from a slow peer, a resync) links to another chain, so it is not taken
    for an equivocation; nobody is blamed. (Version 3: one seat's claim.)"""
    network = start_tables(4, 24, RuleOptions(rounds=1), timeout=60, version=3)
    network.run(until=lambda: network.tables[0].due() == (3, frozenset({"shuffle_a"})))
    network.tampers = {3: lambda entry: []}
    tables = network.tables
    late = network.now + 61
    claims = []
    for poster in (0, 1):
        local = tables[poster].local
        assert local is not None
        seq = len(tables[poster].entries)
        body = {"blamed": 3, "code": "timeout", "detail": "stalled", "evidence": {"seq": seq}}
        claims.append(local.sign(tables[0].table_id, seq, tables[poster].head, "abort", body))
    larger, smaller = sorted(claims, key=lambda e: e.wire)[::-1]
    for table in tables[:3]:
        table.handle_timer(late)
        table.receive(larger.wire, late)
    network.now = late
    network.run(until=lambda: len(tables[2].entries) > larger.seq + 3)
    assert tables[2].entries[larger.seq].wire == larger.wire
    dropped = tables[2].entries[larger.seq + 1 :]
    for table in tables[:3]:
        table.receive(smaller.wire, late)
    network.run()
    for table in tables[:3]:
        assert table.entries[smaller.seq].wire == smaller.wire and table.over
    again = [old for old in dropped if tables[0].entries[old.seq].seat == old.seat]
    assert again  # the same seats signed those seqs again
    for table in tables[:3]:
        for old in again:
            with contextlib.suppress(PeerProtocolError):
                table.receive(old.wire, network.now)
        assert table.fault is None and not drain(table.next_event)
    assert len({tuple(e.wire for e in t.entries) for t in tables[:3]}) == 1
    assert verify_entries(tables[0].entries).ok


def _resigned_in_round_1(rounds: int = 3) -> tuple[Network, int]:
    network = _table(rounds=rounds)
    _in_turns(network)
    due = network.tables[0].due()
    assert due is not None
    network.tables[due[0]].resign()
    first = network.tables[0]
    network.run(until=lambda: first.rounds.deal == 1 and bool(_moves(network)))  # re-dealt
    return network, due[0]


def test_a_seat_that_left_comes_back_from_the_next_round() -> None:
    network, back = _resigned_in_round_1()
    request = network.tables[back].return_request()
    for table in network.tables:
        if table.me != back:
            table.receive(request.wire, network.now)
    network.run()
    for table in network.tables:
        assert table.over and table.game.round_seated[0] != (0, 1, 2)
        assert table.game.round_seated[1:] == [(0, 1, 2), (0, 1, 2)]
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    carried = [e for e in network.tables[0].entries if e.kind == "certify" and "returns" in e.body]
    assert carried and all(e.body["returns"] == [request.wire] for e in carried)
    for seat_events in network.events:
        (returned,) = [e for e in seat_events if isinstance(e, SeatReturned)]
        assert (returned.seat, returned.round_number) == (back, 2)
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and f"seat {back} (bot{back}) is back: dealt in from round 2" in (
        " ".join(verdict.departures)
    )


def test_a_return_request_that_is_not_valid_is_not_taken_and_not_carried() -> None:
    network, back = _resigned_in_round_1()
    gone = network.tables[back]
    request = gone.return_request()
    stayer = next(t for t in network.tables if t.me != back)
    local = stayer.local
    assert local is not None
    forged = [
        sign_entry(
            gone.local.identity, request.table_id, request.seq, bytes(32), back, "return", {}
        ),  # type: ignore[union-attr]
        sign_entry(
            gone.local.identity,
            request.table_id,
            request.seq,
            request.prev,
            back,
            "return",
            {"x": 1},
        ),  # type: ignore[union-attr]
        local.sign(request.table_id, request.seq, request.prev, "return", {}),  # a seat still in
        request.wire[:-1] + bytes([request.wire[-1] ^ 1]),  # a bad signature
    ]
    for wire in (f if isinstance(f, bytes) else f.wire for f in forged):
        with pytest.raises(PeerProtocolError):
            stayer.receive(wire, network.now)
    network.run()
    assert stayer.game.round_seated[1:] == [tuple(s for s in range(3) if s != back)] * 2


def test_a_certificate_carrying_a_forged_return_request_is_a_bad_entry() -> None:
    """A seat cannot bring back (or invent) a seat by itself: every peer checks the requests
    a certificate carries, and blames its author for one that is not a valid request."""

    def carry_forged(
        c: Cheater, kind: str, body: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        if kind != "certify":
            return None
        fake = c.table.local.sign(c.table.table_id, 1, bytes(32), "return", {})  # type: ignore[union-attr]
        return kind, {**body, "returns": [fake.wire]}

    network, cheater = run(3, 5, cheat=1, rewrite=carry_forged)
    assert cheater is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at


def _pass_on_a_fitting_draw(c: Cheater, kind: str, body: dict[str, Any]) -> Any:
    public = c.table.public if c.table else None
    if kind != "play" or public is None or not public.drawn_pending:
        return None
    return "pass", {"round": body["round"]}


def _seat_1_cheats(
    players: int, seed: int, rewrite: Rewrite, rounds: int = 1
) -> tuple[Network, Cheater]:
    """A table (not yet run) whose seat 1 rewrites its entries with `rewrite`."""

    def factory(identity: Any, seat: int, entropy: Any) -> LocalSeat:
        if seat == 1:
            return Cheater(identity, seat, entropy, rewrite)
        return LocalSeat(identity, seat, entropy)

    network = start_tables(players, seed, RuleOptions(rounds=rounds), seats=factory, timeout=60)
    cheater = network.tables[1].local
    assert isinstance(cheater, Cheater)
    cheater.table = network.tables[1]
    return network, cheater


def test_a_false_pass_in_a_deal_abandoned_by_another_seat_is_still_caught() -> None:
    """Seat 1 passes although the tile it just drew fits; before the round's audit another
    seat resigns. The deal is abandoned, but the seats left reveal it first: their passes are
    replayed on their own hands, and every peer and `verify` name seat 1 for that pass: it is
    removed, and seat 0, the one still seated, wins (seat 2 left: it concedes)."""

    network, cheater = _seat_1_cheats(3, 1, _pass_on_a_fitting_draw)
    network.run(until=lambda: cheater.cheated_at is not None)
    due = network.tables[0].due()
    assert due is not None and due[0] == 2 and network.tables[0].step is Step.TURNS
    network.tables[2].resign()
    network.run()
    for table in network.tables:
        assert table.aborted is not None
        assert (table.aborted.code, table.aborted.seat) == (BAD_ENTRY, 1)
        assert table.aborted.detail.startswith("passed holding ")
    assert len({tuple(e.wire for e in t.entries) for t in network.tables}) == 1
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and verdict.removed == [1], verdict.problem
    assert f"entry {cheater.cheated_at}" in verdict.note, verdict.note
    for table in network.tables:
        assert table.over and table.game.winners() == (0,)
        assert table.game.disqualified == {1} and table.game.conceded == {2}


def test_the_seats_left_reveal_the_abandoned_deal_before_it_is_dealt_again() -> None:
    network = _table()
    _in_turns(network)
    due = network.tables[0].due()
    assert due is not None
    network.tables[due[0]].resign()
    network.run()
    entries = network.tables[0].entries
    resign = next(e for e in entries if e.kind == RESIGN)
    stay = tuple(s for s in range(3) if s != due[0])
    after = entries[resign.seq + 1 : resign.seq + 4]
    assert [(e.kind, e.seat) for e in after] == [
        ("reveal", stay[0]),
        ("reveal", stay[1]),
        ("shuffle_a", stay[0]),
    ]


def test_a_late_entry_of_a_seat_timed_out_is_refused_and_blames_nobody() -> None:
    """Seat 2 was slow, not gone: its entry for the seq where it was timed out arrives after
    the claim. It proves nothing (it may have been signed before seat 2 learnt it had left):
    every peer refuses it, nobody is blamed, and the game goes on without seat 2."""
    network = start_tables(3, 25, RuleOptions(rounds=1), timeout=60)
    network.run(until=lambda: network.tables[0].due() == (2, frozenset({"shuffle_a"})))
    held: list[bytes] = []
    network.tampers = {2: lambda entry: held.append(entry.wire) or []}
    network.run(until=lambda: network.tables[0].rounds.deal == 1)  # dealt again without it
    assert held  # seat 2 did post, but nobody got it in time
    for table in network.tables[:2]:
        assert table.fault is None and table.rounds.seated == (0, 1)
        with pytest.raises(PeerProtocolError, match="has left the game"):
            table.receive(held[0], network.now)
        assert table.fault is None
    network.run()
    assert all(table.over for table in network.tables[:2])
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and verdict.blamed is None


def test_a_proven_cheater_is_removed_disqualified_and_can_never_come_back() -> None:
    """4 seats, 2 rounds: seat 1 plays a tile it does not hold. It is removed at once, the
    round is dealt again among the 3 others, who play the game out; seat 1 scores the highest
    score of each round and is ranked last; its return request is refused by every peer, and
    its own table will not even make one."""
    network, _ = _seat_1_cheats(4, 3, plays_the_next_tile, rounds=2)
    honest = [t for t in network.tables if t.me != 1]
    network.run(until=lambda: all(1 not in t.rounds.seated for t in honest))
    removed = network.tables[1]
    assert removed.removed and removed.departed and not removed.finished
    with pytest.raises(LocalProtocolError, match="removed for cheating"):
        removed.return_request()
    abort = next(e for e in honest[0].entries if e.kind == "abort")
    assert removed.local is not None
    request = removed.local.sign(abort.table_id, abort.seq, abort.prev, "return", {})
    for table in honest:
        with pytest.raises(PeerProtocolError, match="removed for cheating"):
            table.receive(request.wire, network.now)
    network.run()
    cheater = removed.local
    assert isinstance(cheater, Cheater) and cheater.cheated_at is not None
    assert assert_caught(network, 1, BAD_ENTRY) == cheater.cheated_at
    for table in honest:
        assert table.over and table.game.disqualified == {1}
        assert table.game.round_seated == [(0, 2, 3), (0, 2, 3)]
        assert 1 not in table.game.winners()


def test_a_disqualified_seat_is_ranked_last_whatever_its_total() -> None:
    game = Game(3, RuleOptions(rounds=1), [(30, 2, 10)], [(0, 2)], frozenset({1}))
    assert game.winners() == (2,)
    game.disqualify(2)  # a second cheater: only seat 0 is left to win
    assert game.winners() == (0,)


def test_a_cheat_found_by_the_audit_of_an_abandoned_deal_removes_its_author_too() -> None:
    """4 seats: seat 1 passes although the tile it drew fits; then seat 3 resigns. The deal is
    abandoned and revealed by the 3 left; its audit proves seat 1's false pass: seat 1 is
    removed in turn, and seats 0 and 2 deal the round again and finish the game."""

    network, cheater = _seat_1_cheats(4, 7, _pass_on_a_fitting_draw)
    network.run(until=lambda: cheater.cheated_at is not None or network.tables[0].over)
    assert cheater.cheated_at is not None  # seed 7: seat 1 draws a fitting tile in round 1
    network.tables[3].resign()
    network.run()
    stayers = [network.tables[0], network.tables[2]]
    for table in stayers:
        assert table.over and table.aborted is None
        assert table.game.disqualified == {1} and table.game.round_seated == [(0, 2)]
        left = [e for e in network.events[table.me or 0] if isinstance(e, SeatLeft)]
        assert [(e.fault.seat, e.fault.code) for e in left] == [(3, RESIGN), (1, BAD_ENTRY)]
        assert left[1].fault.detail.startswith("passed holding ")
    assert len({tuple(e.wire for e in t.entries) for t in stayers}) == 1
    verdict = verify_entries(stayers[0].entries)
    assert verdict.ok and verdict.removed == [1], verdict.problem
    assert [line.split(": ", 2)[2][:40] for line in verdict.departures] == [
        "seat 3 (bot3) resigned: round 1 is dealt",
        "seat 1 (bot1) is removed and disqualifie",
    ]


def test_an_abort_that_supersedes_entries_after_a_removal_replays_the_chain_with_its_fault() -> (
    None
):
    """The removal vector: seat 1's false play (entry 19) stays in the chain as the evidence of
    its removal. Later, while seat 0 is due, seat 2 posts out of turn and seat 0's abort proves
    it at that seq, superseding seat 0's own entry there. A peer then replays its chain up to
    that seq, the false play included: it must take it as it did live (the fault it proves is
    already dealt with), not fail, and end with seat 2 removed too."""
    entries = read_log(Path(__file__).parent / "vectors" / "removal-3p-seed6.cfnlog")
    observer = Table(entries[0].wire)
    seq = next(e.seq for e in entries[40:] if e.seat == 0 and e.kind in ("play", "draw", "pass"))
    for entry in entries[1 : seq + 1]:
        observer.receive(entry.wire, OFFLINE)
    assert observer.rounds.seated == (0, 2)
    prev, turn = entries[seq - 1].hash, entries[seq]
    table_id = entries[0].table_id
    stray = sign_entry(sim_identity(6, 2), table_id, seq, prev, 2, turn.kind, dict(turn.body))
    fault = Fault(2, OUT_OF_TURN, "posted out of turn", None, {"entry": stray.wire})
    abort = sign_entry(sim_identity(6, 0), table_id, seq, prev, 0, ABORT, fault.abort_body())
    observer.receive(abort.wire, OFFLINE)
    assert observer.entries[-1].wire == abort.wire and len(observer.entries) == seq + 1
    events = drain(observer.next_event)
    assert any(isinstance(e, Aborted) for e in events)  # one seat left, no round scored
    assert observer.aborted is not None and observer.aborted.seat == 2
    verdict = verify_entries(observer.entries)
    assert verdict.removed == [1] and verdict.blamed == 2, verdict.problem


def test_a_claim_confirmed_by_our_own_clock_lets_in_the_entries_that_came_after_it() -> None:
    """Seat 0's clock runs ahead of seat 2's: its timeout claim against the stalled seat 1
    reaches seat 2 before seat 2's own deadline (held), and seat 0's next entry, built on the
    claim, comes right after (ahead of seat 2's chain). When seat 2's clock confirms the claim,
    that entry is taken too: seat 2 must not wait for an entry it holds, and blame seat 0.
    (Version 3: from version 4 no clock judges a timeout, the votes do.)"""
    network = start_tables(3, 26, RuleOptions(rounds=1), timeout=60, version=3)
    host, other = network.tables[0], network.tables[2]
    network.run(until=lambda: host.due() == (1, frozenset({"shuffle_a"})))
    network.tampers = {1: lambda entry: []}
    start = network.now
    host.handle_timer(start + 61)
    posted = host.entries_to_send(start + 61)
    assert [e.kind for e in posted] == ["abort", "reveal", "shuffle_a"]  # the deal again
    for entry in posted:
        other.receive(entry.wire, start + 30)  # before seat 2's deadline: held, then queued
    assert len(other.entries) == posted[0].seq
    other.handle_timer(start + 61)
    assert [e.wire for e in other.entries[-3:]] == [e.wire for e in posted]
    network.now = start + 61
    network.run()
    assert host.over and other.over and host.entries == other.entries
    verdict = verify_entries(host.entries)
    assert verdict.ok and verdict.blamed is None


def test_the_due_seats_entry_that_comes_after_an_abort_at_its_seq_blames_nobody() -> None:
    """Seat 1 posts its due entry at seq n while seat 0 posts an abort at n (seat 2 sent seat 0
    an entry out of turn). Seat 3 gets the abort first: seat 1's entry then comes where the
    abort stands. It was seat 1's turn there, so it proves nothing: refused, nobody blamed, and
    every peer ends with one chain in which seat 2 alone is removed for cheating."""
    network = start_tables(4, 27, RuleOptions(rounds=1), timeout=60)
    tables = network.tables
    network.run(until=lambda: tables[0].due() == (1, frozenset({"shuffle_a"})))
    seq, now = len(tables[0].entries), network.now
    cheater = tables[2].local
    assert cheater is not None
    tables[0].receive(cheater.sign(tables[0].table_id, seq, tables[0].head, RESIGN, {}).wire, now)
    abort, *after = tables[0].entries_to_send(now)  # and the game goes on without seat 2
    (due,) = tables[1].entries_to_send(now)
    assert (abort.kind, abort.seq, due.kind, due.seq) == (ABORT, seq, "shuffle_a", seq)
    tables[3].receive(abort.wire, now)
    with pytest.raises(PeerProtocolError, match="superseded by an abort") as refused:
        tables[3].receive(due.wire, now)
    assert refused.value.seat is None and tables[3].fault is None
    for table in tables:
        for entry in (due, abort, *after):
            with contextlib.suppress(PeerProtocolError):
                table.receive(entry.wire, now)
    network.run()
    assert len({tuple(e.wire for e in t.entries) for t in tables[:2] + tables[3:]}) == 1
    verdict = verify_entries(tables[0].entries)
    assert verdict.ok and verdict.blamed is None and verdict.removed == [2] and tables[0].over
    assert tables[0].rounds.game.disqualified == {2}
