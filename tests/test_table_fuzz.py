"""Signed junk: a seat that signs entries with fields of any type or value never crashes a
peer; it is blamed (or, if the junk happens to be valid, the game goes on)."""

from __future__ import annotations

from typing import Any

from cheaters import Cheater, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfnet.table_events import FaultFound

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
    for table in (network.tables[0], network.tables[2]):
        assert table.aborted is not None and table.aborted.seat == 1
