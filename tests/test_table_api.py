"""The table's API: local moves, garbage, resuming from saved secrets, deadlines, reordering."""

from __future__ import annotations

import contextlib

import pytest

from cfnet.deck.sra import first_invalid, round_deck
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.game.moves import PASS
from cfnet.game.rules import RuleOptions
from cfnet.game.tiles import double
from cfnet.protocol.chain import MAX_PENDING_BYTES, PENDING_SLACK
from cfnet.protocol.events import SeatLeft
from cfnet.protocol.genesis import SeatInfo, make_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import MAX_ABORT_ENTRY, MAX_ORDINARY_ENTRY, Table
from cfnet.protocol.testing import Network, play_protocol_game, sim_identity, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import EQUIVOCATION, PROTOCOL_VERSION, TIMEOUT, check_display_name
from cfnet.record.entry import Entry, sign_entry
from cfnet.record.identity import Identity


def _logs(network: Network) -> set[bytes]:
    return {b"".join(e.wire for e in t.entries) for t in network.tables}


def test_local_moves_are_checked() -> None:
    network = start_tables(2, 4, RuleOptions(rounds=1))
    network.run(until=lambda: any(t.awaiting_local_move for t in network.tables))
    mover = next(t for t in network.tables if t.awaiting_local_move)
    other = next(t for t in network.tables if t is not mover)
    legal = mover.view().legal_moves()
    assert PASS not in legal
    with pytest.raises(LocalProtocolError, match="not a legal move now"):
        mover.choose(PASS)
    with pytest.raises(LocalProtocolError, match="not your turn"):
        other.choose(legal[0])
    assert mover.entries_to_send(network.now) == []
    mover.choose(legal[0])
    assert [e.kind for e in mover.entries_to_send(network.now)] == ["play"]


def test_garbage_changes_nothing() -> None:
    network = start_tables(2, 5, RuleOptions(rounds=1))
    network.run(until=lambda: len(network.tables[0].entries) > 6)
    table = network.tables[0]
    before = list(table.entries)
    for junk in (b"", b"\x92\xc4\x01", b"\xff" * 40):
        with pytest.raises(PeerProtocolError):
            table.receive(junk, network.now)
    assert table.entries == before and table.fault is None
    while table.next_event() is not None:
        pass
    table.receive(before[-1].wire, network.now)  # an echo
    assert table.next_event() is None


def test_seats_must_match_keys() -> None:
    host, guest = sim_identity(9, 0), sim_identity(9, 1)
    seats = [SeatInfo("a", host.public), SeatInfo("b", guest.public)]
    genesis = make_genesis(host, bytes(16), "t", RuleOptions(rounds=1), seats)
    with pytest.raises(LocalProtocolError):
        Table(genesis.wire, LocalSeat(guest, 0))
    with pytest.raises(LocalProtocolError):
        make_genesis(guest, bytes(16), "t", RuleOptions(rounds=1), seats)


def test_resume_from_saved_secrets() -> None:
    """A peer that restarts mid-round from its saved seeds and the chain plays on unchanged."""
    whole = play_protocol_game(3, 6, RuleOptions(rounds=2))
    network = start_tables(3, 6, RuleOptions(rounds=2))
    network.run(until=lambda: len(network.tables[0].entries) > 40)
    old = network.tables[1]
    assert old.local is not None
    saved = old.local.secrets_to_plain()
    fresh = Table(old.entries[0].wire, LocalSeat.from_plain(old.local.identity, saved))
    fresh.local.entropy = old.local.entropy  # type: ignore[union-attr]
    for entry in old.entries[1:]:
        fresh.receive(entry.wire, network.now)
    assert fresh.entries == old.entries
    network.tables[1] = fresh
    network.run()
    assert _logs(network) == _logs(whole)


def test_deadline_then_the_next_poster() -> None:
    """Seat 1 never posts; seat 0's abort is lost too: seat 2 posts one a timeout later."""
    network = start_tables(3, 7, RuleOptions(rounds=1), timeout=30)
    drop: list[Entry] = []

    def silent(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        drop.append(entry)
        return []

    network.tampers = {1: silent, 0: lambda e: [] if e.kind == "abort" else [(e.wire, None)]}
    assert network.tables[2].get_timer() == 30
    assert network.tables[1].awaited == 1 and network.tables[1].get_timer() is None
    network.run()
    late = network.tables[2]
    assert late.aborted is not None and late.aborted.seat == 1
    assert late.aborted.code == TIMEOUT and late.aborted_by == 2
    assert network.now == 60
    assert drop and drop[0].kind == "accept"


def test_entries_in_any_order_within_the_window() -> None:
    """Entries up to 2 * players + PENDING_SLACK seqs ahead wait for their turn."""
    entries = play_protocol_game(2, 8, RuleOptions(rounds=1)).tables[0].entries
    observer = Table(entries[0].wire)
    window = 2 * 2 + PENDING_SLACK
    for start in range(1, len(entries), window):
        for entry in reversed(entries[start : start + window]):
            observer.receive(entry.wire, 0.0)
    assert observer.over and observer.entries == entries


def test_entries_ahead_are_checked_and_bounded() -> None:
    """An entry ahead of the chain is queued only if its seat signed it, it is near the head
    and it fits the byte budget; a forgery leaves no mark on the seat it names."""
    network = start_tables(3, 11, RuleOptions(rounds=1), timeout=30)
    ids = [t.local.identity for t in network.tables]  # type: ignore[union-attr]
    genesis = network.tables[0].entries[0]
    observer = Table(genesis.wire)
    mallory = sim_identity(99, 0)

    def entry(signer: Identity, seq: int, body: bytes = b"", seat: int = 2) -> bytes:
        wire = sign_entry(signer, genesis.table_id, seq, bytes(32), seat, "abort", {"x": body})
        return wire.wire

    for wire in (entry(mallory, 5), entry(mallory, 1), entry(ids[2], 1 + 6 + PENDING_SLACK + 1)):
        with pytest.raises(PeerProtocolError):
            observer.receive(wire, 0.0)
    with pytest.raises(PeerProtocolError, match="over"):
        observer.receive(entry(ids[2], 5, bytes(MAX_ABORT_ENTRY)), 0.0)
    assert observer.rejected == {} and observer.chain._pending_bytes == [0, 0, 0]
    queued = entry(ids[2], 5, bytes(MAX_ABORT_ENTRY // 2))
    observer.receive(queued, 0.0)
    observer.receive(queued, 0.0)  # the same wire again is kept once
    assert observer.chain._pending_bytes == [0, 0, len(queued)]
    with pytest.raises(PeerProtocolError, match="wait ahead"):
        for seq in range(2, 6 + PENDING_SLACK):
            for size in range(4):
                observer.receive(entry(ids[2], seq, bytes(MAX_ABORT_ENTRY - 256 - size)), 0.0)
    assert observer.chain._pending_bytes[2] <= MAX_PENDING_BYTES


def test_a_forged_entry_is_not_blamed_on_its_seat() -> None:
    """A badly signed entry naming the seat due is refused and not mentioned in the timeout
    that blames the seat (version 3, where one seat's clock times another out)."""
    network = start_tables(2, 12, RuleOptions(rounds=1), timeout=30, version=3)
    genesis = network.tables[0].entries[0]
    table = Table(genesis.wire, network.tables[0].local)
    body = {"genesis": genesis.hash}
    forged = sign_entry(sim_identity(99, 0), genesis.table_id, 1, genesis.hash, 1, "accept", body)
    with pytest.raises(PeerProtocolError, match="signature"):
        table.receive(forged.wire, 0.0)
    assert table.rejected == {}
    table.handle_timer(31.0)
    assert table.fault is not None and "refused" not in table.fault.detail


def test_real_entries_fit_the_size_limits() -> None:
    entries = play_protocol_game(8, 2, RuleOptions(rounds=1)).tables[0].entries
    largest = max(len(e.wire) for e in entries)
    assert largest <= MAX_ORDINARY_ENTRY < largest + 256  # room for the real ones, no more
    assert 2 * MAX_ORDINARY_ENTRY + 4096 <= MAX_ABORT_ENTRY


def test_in_a_version_3_table_a_partitioned_seat_and_the_others_blame_each_other() -> None:
    """Seat 0 stops hearing seats 1 and 2 when seat 1 is due: seat 0 times seat 1 out after
    the deadline; seat 2 got seat 1's entry in time, refuses that claim, and with seat 1 times
    out seat 0, which is then the one that stalls. The two sides agree among themselves: seats
    1 and 2 deal the round again without seat 0 and finish the game; seat 0, alone, cannot.
    (From version 4 seat 0 alone times nobody out: tests/adversary/
    test_one_seat_cannot_time_out_another.py.)"""
    network = start_tables(3, 9, RuleOptions(rounds=1), timeout=30, version=3)
    network.run(until=lambda: network.tables[0].due() == (1, frozenset({"shuffle_b"})))
    network.cut = {(1, 0), (2, 0)}
    network.run()
    alone, *others = network.tables
    left = [e for e in network.events[0] if isinstance(e, SeatLeft)]
    assert [(e.fault.seat, e.fault.code) for e in left] == [(1, TIMEOUT)]
    assert alone.finished and not alone.over  # then seat 2 timed out: one seat is left
    for table in others:
        assert table.aborted is None and table.over and table.rounds.seated == (1, 2)
        left = [e for e in network.events[table.me or 0] if isinstance(e, SeatLeft)]
        assert [(e.fault.seat, e.fault.code) for e in left] == [(0, TIMEOUT)]
    assert others[0].entries == others[1].entries
    assert any("arrived here in time" in str(e) for _, e in network.errors)


def test_premature_timeout_claim_is_ignored() -> None:
    """Seat 0 claims seat 1 timed out the moment seat 1 is due: the others hold the claim,
    seat 1 posts in time, the claim is dropped and the game ends normally."""
    network = start_tables(3, 10, RuleOptions(rounds=1), timeout=30)
    identity = network.tables[0].local.identity  # type: ignore[union-attr]
    sent: list[bool] = []

    def accuse(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        if sent or entry.kind != "shuffle_a":
            return [(entry.wire, None)]
        sent.append(True)
        body = {
            "blamed": 1,
            "code": "timeout",
            "detail": "late",
            "evidence": {"seq": entry.seq + 1},
        }
        claim = sign_entry(identity, entry.table_id, entry.seq + 1, entry.hash, 0, "abort", body)
        return [(entry.wire, None), (claim.wire, None)]

    network.tampers = {0: accuse}
    network.run()
    assert sent and all(t.over and t.aborted is None for t in network.tables)
    assert network.now == 0 and len(_logs(network)) == 1


def test_a_second_genesis_is_an_equivocation_of_seat_0() -> None:
    """Seat 0 signs two different table entries: the seat that sees both posts an abort with
    the proof at the head (seq 0 cannot be superseded); everyone, and verify, blame seat 0."""
    ids = [sim_identity(13, s) for s in range(3)]
    seats = [SeatInfo(f"p{s}", ids[s].public) for s in range(3)]
    genesis = make_genesis(ids[0], bytes(16), "t", RuleOptions(rounds=1), seats)
    other = make_genesis(ids[0], bytes(16), "t2", RuleOptions(rounds=1), seats)
    table = Table(genesis.wire, LocalSeat(ids[1], 1))
    table.receive(other.wire, 0.0)
    assert table.fault is not None and table.fault.code == EQUIVOCATION
    (abort,) = table.entries_to_send(0.0)
    assert abort.seq == 1 and abort.prev == genesis.hash
    assert table.aborted is not None and table.aborted.seat == 0
    observer = Table(genesis.wire)
    observer.receive(abort.wire, 0.0)
    assert observer.aborted is not None and observer.aborted.seat == 0
    verdict = verify_entries([genesis, abort])
    assert not verdict.ok and verdict.blamed == 0


def test_first_invalid_never_accuses_a_valid_deck() -> None:
    deck = round_deck(double(9))
    assert first_invalid([*deck[:3], bytes(32), *deck[3:]]) == 3
    with pytest.raises(LocalProtocolError, match="every point"):
        first_invalid(deck)


@pytest.mark.parametrize(
    ("table_name", "seat_name"),
    [("t", "p\x1b[2J"), ("\x1b]0;owned\x07", "p"), ("t", "p\n"), ("t", "x" * 41), ("t", "")],
)
def test_a_genesis_with_an_unprintable_name_is_refused(table_name: str, seat_name: str) -> None:
    """Names are shown on screens: an escape sequence, a control character or a name over 40
    characters makes the genesis invalid, whoever signed it."""
    ids = [sim_identity(14, s) for s in range(2)]
    seats = [SeatInfo("p0", ids[0].public), SeatInfo(seat_name, ids[1].public)]
    with pytest.raises(LocalProtocolError, match="printable"):
        make_genesis(ids[0], bytes(16), table_name, RuleOptions(rounds=1), seats)
    body = {
        "version": PROTOCOL_VERSION,
        "name": table_name,
        "options": RuleOptions(rounds=1).to_plain(),
        "timeout": 60,
        "seats": [{"name": s.name, "key": s.key} for s in seats],
    }
    forged = sign_entry(ids[0], bytes(16), 0, bytes(32), 0, "table", body)
    with pytest.raises(PeerProtocolError, match=r"field '(name|seats)'"):
        Table(forged.wire)


def test_display_names() -> None:
    assert check_display_name("Zoë 🂡 " + "x" * 32, "player name").startswith("Zoë")
    with pytest.raises(ValueError, match="player name '\\\\x1b\\[31mred': use 1 to 40"):
        check_display_name("\x1b[31mred", "player name")
    with pytest.raises(ValueError):
        check_display_name(5, "table name")


def test_a_restarted_seat_takes_a_timeout_claim_against_itself_at_once() -> None:
    """Seat 1 is down when it is due; seat 0 claims its timeout. Seat 1, restarted with a new
    clock, cannot deny the claim: it takes it as it comes (one chain with its peer) rather than
    hold it as premature and play on; a table not marked as restarted still holds it."""
    network = start_tables(2, 14, RuleOptions(rounds=1), timeout=30, version=3)
    network.run(until=lambda: network.tables[0].due() == (1, frozenset({"shuffle_b"})))
    accuser, down = network.tables
    accuser.handle_timer(network.now + 31)
    (claim,) = accuser.entries_to_send(network.now + 31)
    assert down.local is not None and claim.kind == "abort"

    back = _restarted(down, claim, returned=True)
    assert back.aborted is not None and back.aborted.seat == 1 and back.aborted.code == TIMEOUT
    assert back.entries == accuser.entries
    restarted = _restarted(down, claim, returned=False)
    assert restarted.aborted is None  # held: its own clock has not seen the deadline


def _restarted(down: Table, claim: Entry, returned: bool) -> Table:
    """`down`'s seat rebuilt from its entries and secrets (`returned`: marked as restarted),
    then given `claim` (refused or held, it is not taken)."""
    assert down.local is not None
    local = LocalSeat.from_plain(down.local.identity, down.local.secrets_to_plain())
    table = Table(down.entries[0].wire, local, 0.0)
    for entry in down.entries[1:]:
        table.receive(entry.wire, 0.0)
    if returned:
        table.returned()
    with contextlib.suppress(PeerProtocolError):
        table.receive(claim.wire, 0.0)
    return table


def test_a_restarted_seat_takes_a_claim_at_a_seq_where_its_unsent_entry_sits() -> None:
    """Seat 1 stored its `shuffle_b` and was killed before sending it; seat 0, which never got
    it, claims seat 1's timeout at that seq. Restarted, seat 1 holds its own entry there with
    the replay's arrival time, which proves nothing to anyone: it takes the claim (the claim
    supersedes its entry: one chain with its peer) instead of refusing it as 'arrived in time'
    and claiming its peer's timeout in a chain of its own (the split brain seen in CI)."""
    network = start_tables(2, 14, RuleOptions(rounds=1), timeout=30, version=3)
    network.run(until=lambda: network.tables[0].due() == (1, frozenset({"shuffle_b"})))
    accuser, down = network.tables
    (unsent,) = down.entries_to_send(network.now)  # stored by seat 1, never delivered
    accuser.handle_timer(network.now + 31)
    (claim,) = accuser.entries_to_send(network.now + 31)
    assert claim.kind == "abort" and claim.seq == unsent.seq and down.local is not None

    back = _restarted(down, claim, returned=True)
    assert back.aborted is not None and back.aborted.seat == 1 and back.aborted.code == TIMEOUT
    assert back.entries == accuser.entries
    live = _restarted(down, claim, returned=False)
    assert live.entries[-1] == unsent  # a live seat's clock may deny it
