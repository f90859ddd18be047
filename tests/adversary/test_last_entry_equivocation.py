"""The last seat sends one valid certificate to one peer and another to the next (the same body
under a second valid Ed25519 signature, made with another nonce). Both peers hold a finished game,
but different logs. A finished table still takes a conflicting entry for a seq it holds, so the
first echo turns the two certificates into an equivocation proof: every peer ends with the same
log, blaming the last seat, and `verify` agrees."""

from __future__ import annotations

from adversary.forged import second_signature
from cfnet.game.rules import RuleOptions
from cfnet.protocol.testing import sim_identity, start_tables
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import EQUIVOCATION
from cfnet.record.entry import Entry

SEED, PLAYERS = 3, 3


def test_two_last_certificates_become_one_equivocation_abort_everywhere() -> None:
    network = start_tables(PLAYERS, SEED, RuleOptions(rounds=1), timeout=60)
    last: list[Entry] = []

    def split(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        table = network.tables[entry.seat]
        if not table.over or entry.kind != "certify":  # only the last certificate is split
            return [(entry.wire, None)]
        other = second_signature(sim_identity(SEED, entry.seat), entry)
        last.append(entry)
        peers = [s for s in range(PLAYERS) if s != entry.seat]
        return [(entry.wire, frozenset(peers[:1])), (other.wire, frozenset(peers[1:]))]

    network.tampers = {s: split for s in range(PLAYERS)}
    network.run()
    (final,) = last
    cheat = final.seat
    honest = [t for t in network.tables if t.me != cheat]
    for table in honest:
        assert table.aborted is not None, f"seat {table.me} kept a log that differs"
        assert table.aborted.seat == cheat and table.aborted.code == EQUIVOCATION
    assert len({b"".join(e.wire for e in t.entries) for t in honest}) == 1
    verdict = verify_entries(honest[0].entries)
    assert len(verdict.rounds) == 1  # the round itself was played and scored
    # every round was audited: the result stands, the cheater removed and ranked last
    assert verdict.ok and verdict.removed == [cheat], verdict.problem
    assert verdict.table is not None and cheat not in verdict.table.game.winners()
    assert "is removed and disqualified" in verdict.note


def test_an_honest_finished_game_ignores_echoes_and_stays_finished() -> None:
    network = start_tables(PLAYERS, SEED, RuleOptions(rounds=1), timeout=60)
    network.run()
    for table in network.tables:
        assert table.next_event() is None  # the network took every event so far
        for entry in network.tables[0].entries:
            table.receive(entry.wire, network.now)
            assert table.next_event() is None
        assert table.over and table.finished and table.aborted is None
