"""Attack: rewrite or erase a finished game with a second entry for one of its places (issue
23). In version 3, after the last certificate a peer still took an equivocation for any place
it held and dropped everything after it: a second round-1 certificate made the last round be
played again with every hand public (the totals changed and the new log verified), and a
second `accept` dropped every round (the log became the genesis and an abort).

In version 4 those places are final (every seat built on them): a live peer reports the proof
(`LateProof`) and keeps its log, result and all; a log file that carries the proof after the
end, as an `equivocation` abort linked to its last entry, verifies valid with a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cheaters import resign

from cfnet.cli.main import main
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import LateProof
from cfnet.protocol.testing import Network, play_protocol_game
from cfnet.protocol.verify import verify_entries
from cfnet.protocol.wire import EQUIVOCATION, Fault
from cfnet.record.entry import Entry, Equivocation, sign_entry
from cfnet.record.logfile import write_log

CHEAT = 1


def _second_entry(network: Network, kind: str) -> tuple[Entry, Entry]:
    """The cheater's first entry of `kind` in the finished game, and a second one it signs
    for that place."""
    entry = next(e for e in network.tables[0].entries if e.kind == kind and e.seat == CHEAT)
    identity = network.tables[CHEAT].local.identity  # type: ignore[union-attr]
    changed = {"genesis": bytes(32)} if kind == "accept" else {**entry.body, "head": bytes(32)}
    return entry, resign(identity, entry, body=changed)


def _played(version: int) -> Network:
    return play_protocol_game(3, 61, RuleOptions(rounds=2), version=version)


@pytest.mark.parametrize("kind", ["certify", "accept"])
def test_a_second_entry_after_the_end_changes_nothing(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = _played(4)
    before = [list(t.entries) for t in network.tables]
    totals, winners = network.tables[0].game.totals, network.tables[0].game.winners()
    first, second = _second_entry(network, kind)
    for table in network.tables:
        if table.me != CHEAT:
            table.receive(second.wire, network.now)
    network.run()
    for table, entries in zip(network.tables, before, strict=True):
        assert table.entries == entries and table.over and table.aborted is None
        assert (table.game.totals, table.game.winners()) == (totals, winners)
    for seat in (0, 2):
        (late,) = [e for e in network.events[seat] if isinstance(e, LateProof)]
        assert (late.fault.seat, late.fault.code, late.fault.seq) == (
            CHEAT,
            EQUIVOCATION,
            first.seq,
        )
    verdict = verify_entries(network.tables[0].entries)
    assert verdict.ok and not verdict.late

    # the proof in the file, as an abort after the end: noted, the result stands
    host = network.tables[0]
    proof = Equivocation(first, second)
    fault = Fault(
        CHEAT, EQUIVOCATION, "signed two entries", first.seq, {"entries": proof.to_plain()}
    )
    last = host.entries[-1]
    abort = sign_entry(
        host.local.identity,  # type: ignore[union-attr]
        last.table_id,
        last.seq + 1,
        last.hash,
        0,
        "abort",
        fault.abort_body(),
    )
    path = tmp_path / "late.cfnlog"
    write_log(path, [*host.entries, abort])
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "valid: a complete game" in out
    assert (
        f"note: entry {abort.seq}: seat 1 (bot1) signed two different entries for entry"
        f" {first.seq}, after the game's end: the result stands"
    ) in out, out
    assert main(["verify", "--json", str(path)]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["valid"] and plain["finished"] and plain["winners"] == list(winners)
    assert plain["totals"] == list(totals) and len(plain["late_proofs"]) == 1


def test_in_version_3_a_second_accept_after_the_end_erased_the_game() -> None:
    """What the attack did to version 3: kept as a witness."""
    network = _played(3)
    _, second = _second_entry(network, "accept")
    for table in network.tables:
        if table.me != CHEAT:
            table.receive(second.wire, network.now)
    network.run()
    assert not network.tables[0].over and not network.tables[0].game.round_scores
