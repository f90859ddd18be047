"""An outsider holds a lobby's connection slots from 40 addresses (127.0.0.2 to 127.0.0.41: all
of 127.0.0.0/8 is loopback on Linux) with 300 slow connections, each sending a byte of a frame
now and then and dialling again as soon as it is closed, for as long as it likes. A real `cfnet
bot --connect` that dials meanwhile still gets its seat: the host closes the connection that got
least far to let each new one in, and a slow one never gets as far as a joiner's prompt hello.
The game is then played to its end; the slots were all held when the bot dialled, and the flood
stayed at it while the bot got in."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from lan_helpers import (
    LOOPBACK,
    Peer,
    cfnet_verify,
    lobby_port,
    same_logs,
    unique,
    wait_all,
    wait_until,
)

CONNECTIONS = 300
ADDRESSES = [f"127.0.0.{i}" for i in range(2, 42)]
TRICKLE = 0.5  # seconds between the bytes a slow connection sends


class SlowFlood:
    """CONNECTIONS slow connections to a port from ADDRESSES, in a thread: each sends a byte of
    a frame header every TRICKLE s and is dialled again as soon as it is closed (until `stop`).
    `alive` counts those open now."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.opened = 0
        self.closed_by_peer = 0
        self.alive = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def start(self) -> SlowFlood:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    async def _run(self) -> None:
        await asyncio.gather(*(self._slow(ADDRESSES[i % 40]) for i in range(CONNECTIONS)))

    async def _slow(self, address: str) -> None:
        while not self._stop.is_set():
            try:
                async with asyncio.timeout(10):
                    reader, writer = await asyncio.open_connection(
                        LOOPBACK, self.port, local_addr=(address, 0)
                    )
            except (OSError, TimeoutError):
                await asyncio.sleep(0.1)
                continue
            self.opened += 1
            self.alive += 1
            try:
                while not self._stop.is_set():
                    writer.write(b"\x00")  # the start of a length prefix, never finished
                    try:
                        async with asyncio.timeout(TRICKLE):
                            if not await reader.read(4096):
                                self.closed_by_peer += 1
                                break
                    except TimeoutError:
                        continue
            except OSError:
                self.closed_by_peer += 1
            finally:
                self.alive -= 1
                writer.close()


def test_a_joiner_gets_in_while_slow_connections_from_40_addresses_fill_the_slots(
    tmp_path: Path,
) -> None:
    name = unique("crowded")
    common = ["--interface", LOOPBACK, "--strategy", "greedy"]
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "2", "--rule", "rounds=1", "--timeout", "30",
         *common],
    )  # fmt: skip
    flood: SlowFlood | None = None
    bot: Peer | None = None
    try:
        host.start()
        wait_until(lambda: lobby_port(host) > 0, what="the lobby open")
        port = lobby_port(host)
        flood = SlowFlood(port).start()
        running = flood
        wait_until(
            lambda: running.opened >= CONNECTIONS and running.closed_by_peer >= CONNECTIONS,
            timeout=120,
            what="the flood to hold the slots and be closed again and again",
        )
        bot = Peer(tmp_path / "bot", ["bot", "--connect", f"{LOOPBACK}:{port}", "--wait", "90",
                                      *common])  # fmt: skip
        held_at_dial, closed_at_dial = flood.alive, flood.closed_by_peer
        dialled = time.monotonic()
        bot.start()
        wait_until(lambda: "sits in seat 1" in host.output(), timeout=120, what="the bot seated")
        seated_after = time.monotonic() - dialled
        fought_meanwhile = flood.closed_by_peer - closed_at_dial
        flood.stop()
        codes = wait_all([host, bot])
    finally:
        if flood is not None:
            flood.stop()
        for peer in (host, bot):
            if peer is not None:
                peer.kill()
    # Every slot was held when the bot dialled, and the flood was still being closed and
    # dialling again while the bot got in. (Counted at the seat, the flood's open connections
    # can be fewer: once the game starts, the busy host accepts more slowly.)
    assert held_at_dial >= 32, held_at_dial
    assert fought_meanwhile > 0, fought_meanwhile
    assert codes == [0, 0], (host.output(), bot.output())
    assert seated_after < 60, seated_after
    same_logs([host, bot])
    assert cfnet_verify(host.log_path()).returncode == 0
    assert "Traceback" not in host.output() + bot.output()
