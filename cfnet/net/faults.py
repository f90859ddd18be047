"""Test-only fault injection: cut mesh links at random moments, from a seeded generator.

For tests only (test_lan_faults): set CFNET_TEST_CHAOS=SEED[:RATE] in a peer's environment:
after each entry it appends, with probability RATE, it closes its link to one connected peer
(chosen by the same generator); the mesh reconnects and resyncs. A malformed value is a
LocalProtocolError naming the variable. Its draws are SHA-256 of the seed and a counter:
reproducible, and nothing secret depends on them.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from cfnet.errors import LocalProtocolError
from cfnet.lang import N_, Sentence

if TYPE_CHECKING:
    from cfnet.net.mesh import Mesh

CHAOS_ENV = "CFNET_TEST_CHAOS"
DEFAULT_RATE = 0.05


class Chaos:
    """Decides, entry by entry, whether to cut a link and which one."""

    def __init__(self, seed: int, rate: float) -> None:
        self._seed = seed
        self._draws = 0
        self._rate = rate
        self._cuts: set[asyncio.Task[None]] = set()

    def after_entry(self, mesh: Mesh) -> None:
        """An entry was appended: maybe cut one of `mesh`'s links now (in a task)."""
        key = self.pick(list(mesh.connected))
        if key is not None:
            cut = asyncio.get_running_loop().create_task(
                mesh.disconnect(key, "test: link cut at random")
            )
            self._cuts.add(cut)
            cut.add_done_callback(self._cuts.discard)

    def pick(self, connected: list[bytes]) -> bytes | None:
        """The peer key whose link to cut now, or None."""
        if self._draw() / 2**64 >= self._rate or not connected:
            return None
        return sorted(connected)[self._draw() % len(connected)]

    def _draw(self) -> int:
        """The next 64-bit number of this cutter's stream."""
        self._draws += 1
        digest = hashlib.sha256(f"cfnet/test-chaos/{self._seed}/{self._draws}".encode()).digest()
        return int.from_bytes(digest[:8], "big")


def chaos_from_env(environ: Mapping[str, str] = os.environ) -> Chaos | None:
    """The link cutter CFNET_TEST_CHAOS=SEED[:RATE] asks for (RATE default 0.05), if any;
    LocalProtocolError saying what is expected for a malformed value."""
    text = environ.get(CHAOS_ENV)
    if not text:
        return None
    seed, colon, rate = text.partition(":")
    try:
        chance = float(rate) if colon else DEFAULT_RATE
    except ValueError:
        chance = math.nan
    if not (seed.isdigit() and 0.0 <= chance <= 1.0):
        raise LocalProtocolError(
            Sentence(
                N_(
                    "{variable}={value!r}: expected SEED[:RATE], a whole number and a probability"
                    " from 0 to 1 (e.g. 7:0.05); it is a test-only setting: unset it to play"
                ),
                variable=CHAOS_ENV,
                value=text,
            )
        )
    return Chaos(int(seed), chance)
