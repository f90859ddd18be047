"""A seated peer sends hundreds of `sync` frames asking for the whole log and never reads: the
victim keeps at most one answer under way (written as the link drains), stops reading the
flooder, drops it, and the game among the honest seats goes on."""

from __future__ import annotations

import asyncio
import logging
import resource

import pytest

from adversary.mesh_seats import close_all, intrude, play_to, seat_table
from cfnet.net.framing import encode_frame

SYNCS = 200
LOG_ENTRIES = 120
PAD = 6000  # bytes per entry: the log is about 0.7 MB, each answer to a sync the whole of it
MiB = 1024 * 1024


def _rss_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


async def _flood() -> tuple[int, int, int]:
    """(the victim's largest backlog to the flooder, the process's peak memory growth, the
    log size in bytes)."""
    seats, (flooder,), table_id = await seat_table(3, 1, idle_timeout=3.0)
    try:
        for seat in seats:
            seat.pad = PAD
        await play_to(seats, LOG_ENTRIES)
        victim = seats[0]
        log_bytes = sum(len(w) for w in victim.since(0))
        before = _rss_peak()
        link = await intrude(flooder, table_id, victim)
        sync = encode_frame({"t": "sync", "count": 0, "head": b""})
        await link.send_frames(sync * SYNCS)  # 5 KB in all; then it never reads
        for seat in seats:
            seat.pad = 0
        going_on = asyncio.create_task(play_to(seats, LOG_ENTRIES + 30))  # meanwhile
        largest = 0
        async with asyncio.timeout(60):  # until the victim drops the flooder
            while flooder.public in victim.mesh.connected or not going_on.done():
                largest = max(largest, victim.mesh.backlog(flooder.public))
                await asyncio.sleep(0.005)
        await going_on
        await link.close("test over")
        return largest, _rss_peak() - before, log_bytes
    finally:
        await close_all(seats)


def test_a_sync_flood_costs_the_victim_one_answer_and_its_link(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "cfnet.net")
    largest, growth, log_bytes = asyncio.run(_flood())
    asked = SYNCS * log_bytes  # what answering every sync at once would queue
    assert 0 < largest < 2 * MiB, (largest, asked)
    assert growth < 32 * MiB, (growth, asked)
    assert "it does not read what it asked for" in caplog.text
