"""Signed junk: a seat that signs entries with fields of any type or value never crashes a
peer; it is blamed (or, if the junk happens to be valid, the game goes on)."""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Any

import pytest
from cheaters import Cheater, assert_caught, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfnet.errors import PeerProtocolError
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import FaultFound
from cfnet.protocol.table import Table
from cfnet.protocol.testing import sim_identity, start_tables
from cfnet.record.entry import Entry, sign_entry

PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=8)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
KINDS = ["shuffle_a", "shuffle_b", "deal", "play", "draw", "yard_key", "pass", "reveal", "certify"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(KINDS),
    field=st.text(min_size=1, max_size=12),
    value=PLAIN,
    drop=st.booleans(),
    seed=st.integers(0, 50),
)
def test_signed_junk_is_blamed(kind: str, field: str, value: Any, drop: bool, seed: int) -> None:
    def rewrite(c: Cheater, k: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if k != kind:
            return None
        names = sorted(body)
        name = names[len(field) % len(names)] if drop or len(field) % 2 else field
        changed = dict(body)
        if drop:
            changed.pop(name)
        else:
            changed[name] = value
        return k, changed

    network, cheater = run(2, seed, 1, rewrite, bots=("random",))
    assert cheater is not None
    honest = network.tables[0]
    assert honest.finished
    if honest.aborted is not None:
        assert honest.aborted.seat == 1
    for event in network.events[0]:
        if isinstance(event, FaultFound):
            assert event.fault.seat == 1


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code=st.sampled_from(["bad-entry", "bad-point", "out-of-turn", "equivocation", "timeout"]),
    evidence=st.dictionaries(st.sampled_from(["seq", "index", "entry", "entries"]), PLAIN),
    blamed=st.integers(0, 3),
)
def test_junk_aborts_blame_their_author(code: str, evidence: Any, blamed: int) -> None:
    def rewrite(c: Cheater, k: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if k != "shuffle_a":
            return None
        return "abort", {"blamed": blamed, "code": code, "detail": "junk", "evidence": evidence}

    network, _ = run(3, 1, 1, rewrite)
    assert_caught(network, 1)  # removed (or timed out, its claim held back) and the game goes on


@cache
def _real_start() -> tuple[Entry, ...]:
    """A real 3-seat game's genesis, accepts, shuffles and deals."""
    network = start_tables(3, 21, RuleOptions(rounds=1))
    network.run(until=lambda: network.tables[0].round is not None and network.tables[0].public)
    return tuple(network.tables[0].entries)


def _observer(start: int, bad_shuffle: bool) -> tuple[Table, list[Entry]]:
    """An observer holding the first `start` real entries, or the genesis, the accepts and a
    `shuffle_a` of seat 0 with a deck that is no deck (a bad-entry fault)."""
    real = _real_start()
    chain = list(real[: 3 if bad_shuffle else start])
    if bad_shuffle:
        body = {"round": 1, "deck": 5, "seed_commitment": bytes(32), "nonce_commitment": bytes(32)}
        chain.append(_sign(0, 3, chain[-1].hash, "shuffle_a", body))
    table = Table(chain[0].wire)
    for entry in chain[1:]:
        table.receive(entry.wire, 0.0)
    return table, chain


def _sign(seat: int, seq: int, prev: bytes, kind: str, body: dict[str, Any]) -> Entry:
    table_id = _real_start()[0].table_id
    return sign_entry(sim_identity(21, seat), table_id, seq, prev, seat, kind, body)


def test_bad_point_at_a_malformed_deck_is_refuted() -> None:
    table, chain = _observer(0, True)
    assert table.fault is not None and table.fault.seat == 0
    claim = {"blamed": 0, "code": "bad-point", "detail": "x", "evidence": {"seq": 3, "index": 0}}
    with pytest.raises(PeerProtocolError, match="not a deck"):
        table.receive(_sign(1, 4, chain[-1].hash, "abort", claim).wire, 0.0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    bad_shuffle=st.booleans(),
    code=st.sampled_from(["bad-entry", "bad-point", "out-of-turn", "equivocation", "timeout"]),
    blamed=st.integers(0, 3),
    author=st.integers(0, 2),
)
def test_junk_aborts_at_any_entry_are_handled(
    data: st.DataObject, bad_shuffle: bool, code: str, blamed: int, author: int
) -> None:
    """An abort pointing anywhere in the chain (real decks, accepts, a bad-body shuffle) is
    taken or refused with PeerProtocolError: it never crashes the table."""
    start = data.draw(st.integers(1, len(_real_start())))
    table, chain = _observer(start, bad_shuffle)
    wires = st.sampled_from([e.wire for e in chain])
    if data.draw(st.booleans()):  # well-shaped evidence about an entry of the chain
        last = len(chain) - 1
        target = last if data.draw(st.booleans()) else data.draw(st.integers(0, last))
        evidence: dict[str, Any] = {
            "bad-entry": {"seq": target},
            "timeout": {"seq": target},
            "bad-point": {"seq": target, "index": data.draw(st.integers(0, 60))},
            "out-of-turn": {"entry": chain[target].wire},
            "equivocation": {"entries": sorted(data.draw(st.lists(wires, min_size=2, max_size=2)))},
        }[code]
        blamed = chain[target].seat if data.draw(st.booleans()) else blamed
        author = (blamed + 1) % 3 if author == blamed else author
    else:
        evidence = data.draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "seq": st.integers(0, len(chain) + 2) | PLAIN,
                    "index": st.integers(0, 60) | PLAIN,
                    "entry": wires | PLAIN,
                    "entries": st.lists(wires, max_size=3) | PLAIN,
                },
            )
        )
    seq = len(chain) if data.draw(st.booleans()) else data.draw(st.integers(1, len(chain)))
    body = {"blamed": blamed, "code": code, "detail": "junk", "evidence": evidence}
    abort = _sign(author, seq, chain[seq - 1].hash, "abort", body)
    with contextlib.suppress(PeerProtocolError):
        table.receive(abort.wire, 0.0)
