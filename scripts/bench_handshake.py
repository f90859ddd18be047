"""Benchmark of the link handshake (protocol.md 6.3) and of sealing frames (6.1): the CPU time
of a whole handshake (both sides, in memory), with and without a join code; the wall time of
one over a loopback TCP link; and the cost of sealing and opening an entry frame. Only
127.0.0.1 is used.

Run: .venv/bin/python scripts/bench_handshake.py [--runs 200]
Targets: a handshake within 5 ms of CPU (both sides), within 20 ms over loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from cfnet.net.framing import FrameCipher, entry_frame
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link
from cfnet.record.identity import Identity

LOOPBACK = "127.0.0.1"
TABLE = bytes(range(16))
HOST, GUEST = Identity.from_seed(b"\x01" * 32), Identity.from_seed(b"\x02" * 32)
CPU_TARGET_MS, LOOPBACK_TARGET_MS = 5.0, 20.0


def in_memory(code: str | None) -> float:
    """Seconds of CPU for one whole handshake, both sides."""
    start = time.process_time()
    initiator = Handshake(GUEST, initiator=True, table_id=None, join_code=code)
    responder = Handshake(HOST, initiator=False, table_id=TABLE, join_code=code)
    queue = [(responder, m) for m in initiator.start()] + [
        (initiator, m) for m in responder.start()
    ]
    while queue:
        receiver, message = queue.pop(0)
        other = initiator if receiver is responder else responder
        queue += [(other, reply) for reply in receiver.receive(message)]
    assert initiator.result is not None and responder.result is not None
    return time.process_time() - start


async def over_loopback(code: str | None, runs: int) -> list[float]:
    """Wall seconds from dialling to both sides done, per handshake over 127.0.0.1."""
    accepted: asyncio.Queue[Link] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put(Link(reader, writer))

    server = await asyncio.start_server(on_connect, LOOPBACK, 0)
    port = server.sockets[0].getsockname()[1]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        client = await Link.connect(LOOPBACK, port)
        host = await accepted.get()
        await asyncio.gather(
            client.handshake(Handshake(GUEST, initiator=True, table_id=None, join_code=code)),
            host.handshake(Handshake(HOST, initiator=False, table_id=TABLE, join_code=code)),
        )
        times.append(time.perf_counter() - start)
        await client.close("bench")
        await host.close("bench")
    server.close()
    await server.wait_closed()
    return times


def sealing(size: int, runs: int) -> float:
    """Seconds to seal and open one entry frame of `size` wire bytes."""
    sender, receiver = (
        FrameCipher(b"\x01" * 32, b"\x02" * 32),
        FrameCipher(b"\x02" * 32, b"\x01" * 32),
    )
    frame = entry_frame(bytes(size))
    start = time.perf_counter()
    for _ in range(runs):
        sealed = sender.seal(frame)
        receiver.open(sealed[:4], sealed[4:])
    return (time.perf_counter() - start) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    for code in (None, "blue harbour 42"):
        label = "with a join code" if code else "without a join code"
        cpu = statistics.median(in_memory(code) for _ in range(args.runs)) * 1000
        wall = statistics.median(asyncio.run(over_loopback(code, args.runs))) * 1000
        print(
            f"handshake {label}: {cpu:.2f} ms CPU (both sides, median of {args.runs}); "
            f"{wall:.2f} ms over loopback; targets {CPU_TARGET_MS:g} / {LOOPBACK_TARGET_MS:g} ms: "
            + ("ok" if cpu <= CPU_TARGET_MS and wall <= LOOPBACK_TARGET_MS else "OVER TARGET")
        )
    for size in (200, 4000):
        micro = sealing(size, args.runs * 10) * 1e6
        print(f"sealing and opening an entry frame of {size} wire bytes: {micro:.1f} us")


if __name__ == "__main__":
    main()
