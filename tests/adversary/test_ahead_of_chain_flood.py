"""A seat floods a peer's ahead-of-chain queue with its own validly signed junk, then withholds
its real move from that peer (issue: one seat makes two honest seats blame each other). Each seat
has its own queue budget, so the flood crowds out only the flooder: the honest seat's entries
that arrive ahead of the chain are still kept, and the chain completes once the move arrives."""

from __future__ import annotations

import contextlib

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.chain import PENDING_SLACK
from cfnet.protocol.table import MAX_ORDINARY_ENTRY, Table
from cfnet.protocol.testing import play_protocol_game, sim_identity
from cfnet.protocol.verify import verify_entries
from cfnet.record.entry import sign_entry

SEED = 5


def test_a_seats_junk_ahead_of_the_chain_crowds_out_only_that_seat() -> None:
    game = play_protocol_game(3, SEED, RuleOptions(rounds=1))
    log = game.tables[0].entries
    victim = Table(log[0].wire)
    k = next(i for i in range(10, len(log)) if log[i].seat != log[i + 1].seat)
    for entry in log[1:k]:
        victim.receive(entry.wire, 0.0)
    attacker = log[k].seat
    identity = sim_identity(SEED, attacker)
    refused = 0
    seqs = range(k + 1, k + 1 + 2 * 3 + PENDING_SLACK)
    for size in (MAX_ORDINARY_ENTRY - 400, 2000, 400, 0):  # fill every last byte it can
        for n, seq in enumerate(list(seqs) * 40):
            junk = sign_entry(
                identity, log[0].table_id, seq, bytes(32), attacker, "pass",
                {"junk": bytes(size), "n": n},
            )  # fmt: skip
            try:
                victim.receive(junk.wire, 0.0)
            except PeerProtocolError:
                refused += 1
    assert refused > 0, "the flood never reached the queue's budget"

    # The next honest seat's entry arrives ahead of the chain (echoed by a peer) and is kept;
    # the attacker's real move, when it comes at last, lets the chain go on.
    victim.receive(log[k + 1].wire, 0.0)
    victim.receive(log[k].wire, 0.0)
    assert victim.entries[k + 1] == log[k + 1]
    for entry in log[k + 2 :]:
        with contextlib.suppress(PeerProtocolError):
            victim.receive(entry.wire, 0.0)
    assert victim.fault is None and victim.over
    assert verify_entries(victim.entries).ok
