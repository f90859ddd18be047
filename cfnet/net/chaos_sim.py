"""Test-only fault injection: cut mesh links at random moments, from a seeded generator.

Set CFNET_TEST_CHAOS=SEED:RATE in a peer's environment: after each entry it appends, with
probability RATE, it closes its link to one connected peer (chosen by the same generator); the
mesh reconnects and resyncs. `random` is fine here: nothing secret depends on it.
"""

from __future__ import annotations

import os
import random


class Chaos:
    """Decides, entry by entry, whether to cut a link and which one."""

    def __init__(self, seed: int, rate: float) -> None:
        self._rng = random.Random(seed)
        self._rate = rate

    def pick(self, connected: list[bytes]) -> bytes | None:
        """The peer key whose link to cut now, or None."""
        if self._rng.random() >= self._rate or not connected:
            return None
        return self._rng.choice(sorted(connected))


def chaos_from_env() -> Chaos | None:
    """The link cutter CFNET_TEST_CHAOS=SEED[:RATE] asks for (RATE default 0.05), if any."""
    text = os.environ.get("CFNET_TEST_CHAOS")
    if not text:
        return None
    seed, _, rate = text.partition(":")
    return Chaos(int(seed), float(rate or "0.05"))
