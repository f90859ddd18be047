"""A host floods its watcher: after a valid table entry it sends a few hundred MiB of small
signed entries as fast as the link takes them, far faster than the watcher checks them. The
watcher reads no further ahead of its checks than its bound, so its memory stays bounded (its
peak RSS, measured by the kernel, stays far below what was sent), and it still ends with
`cfnet verify`'s report of what it was sent."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from lan_helpers import CFNET, LOOPBACK

from adversary.fake_host import FakeHost, fake_host
from cfnet.game.rules import RuleOptions
from cfnet.net.framing import encode_frame, entry_frame
from cfnet.protocol.genesis import SeatInfo, make_genesis
from cfnet.record.entry import sign_entry
from cfnet.record.identity import Identity

ENTRIES = 80_000
PAD = 8_000  # bytes of each entry's body: an ordinary entry is at most 9 KiB
PEAK_MIB = 200  # a watcher's interpreter and its imports take 45 to 120 MiB (seen on CI)


def test_a_watcher_flooded_by_its_host_keeps_bounded_memory(tmp_path: Path) -> None:
    host, other = Identity.generate(), Identity.generate()
    table_id = os.urandom(16)
    seats = [SeatInfo("ann", host.public), SeatInfo("bob", other.public)]
    genesis = make_genesis(host, table_id, "flooded", RuleOptions(rounds=1), seats, 60)
    junk = sign_entry(host, table_id, 1, genesis.hash, 0, "commit", {"pad": os.urandom(PAD)})

    def flood() -> Iterator[bytes]:
        yield entry_frame(genesis.wire)
        frame = entry_frame(junk.wire)
        for _ in range(ENTRIES):
            yield frame
        yield encode_frame({"t": "done"})

    served = FakeHost(host, table_id, flood)

    async def run() -> tuple[int, int, str]:
        async with fake_host(served) as port:
            watcher = subprocess.Popen(
                [*CFNET, "watch", "--connect", f"{LOOPBACK}:{port}", "--plain",
                 "--home", str(tmp_path)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            )  # fmt: skip
            assert watcher.stdout is not None
            output = asyncio.create_task(asyncio.to_thread(watcher.stdout.read))
            _, status, usage = await asyncio.wait_for(
                asyncio.to_thread(os.wait4, watcher.pid, 0), 300
            )
            watcher.returncode = os.waitstatus_to_exitcode(status)
            return watcher.returncode, usage.ru_maxrss // 1024, (await output).decode()

    code, peak_mib, said = asyncio.run(run())
    sent_mib = served.sent // 2**20
    assert sent_mib > 3 * PEAK_MIB, sent_mib  # the flood went through, all of it
    assert peak_mib < PEAK_MIB, f"peak RSS {peak_mib} MiB after {sent_mib} MiB sent"
    assert code == 1, said  # what it was sent is no game
    assert "INVALID: seat 0 posted commit as entry 1" in said, said  # judged as verify would
    assert "Traceback" not in said, said
