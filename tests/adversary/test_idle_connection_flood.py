"""An outsider opens hundreds of idle TCP connections to a host's lobby port and then, for the
whole game, to a seated bot's mesh port, both processes limited to 256 open files: the host
still seats the table, the bot still saves its secrets and log, and the game completes with
identical verified logs and nobody blamed."""

from __future__ import annotations

import asyncio
import resource
import socket
import subprocess
import threading
from pathlib import Path

from lan_helpers import (
    CFNET,
    LOOPBACK,
    Peer,
    cfnet_verify,
    lobby_port,
    same_logs,
    table_peers,
    wait_all,
    wait_until,
)

FILES = 256  # soft and hard open-file limit of the attacked processes (macOS's default soft)
CONNECTIONS = 350


class LimitedPeer(Peer):
    """A `cfnet` process whose open-file limit is FILES, soft and hard (so it cannot raise it)."""

    def start(self, args: list[str] | None = None) -> None:
        self.runs += 1
        self.home.mkdir(parents=True, exist_ok=True)
        command = [*CFNET, *(self.args if args is None else args), "--home", str(self.home)]

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))

        with open(self.output_path, "wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=limit
            )


KEEPALIVE = 3  # seconds a flood connection is silent before TCP asks whether the other end has it


class Flood:
    """CONNECTIONS idle connections to a port, in a thread: each is opened, then held until the
    other side closes it; with `again`, it is opened again (until `stop`).

    A connection is idle (it never sends a byte), but TCP keepalive probes it: when the
    listener's accept queue is full, the kernel drops the last step of a handshake the client
    counts as done, and such a connection, which the listener never held, would otherwise wait
    for a close forever. A probe brings it in if the queue has room now, and is answered with a
    reset once the kernel has given it up: it is then dialled again (`never_held`)."""

    def __init__(self, port: int, again: bool) -> None:
        self.port, self.again = port, again
        self.opened = 0
        self.closed_by_peer = 0
        self.never_held = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def start(self) -> Flood:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    async def _run(self) -> None:
        await asyncio.gather(*(self._hold() for _ in range(CONNECTIONS)))

    async def _hold(self) -> None:
        while not self._stop.is_set():
            try:
                async with asyncio.timeout(10):
                    reader, writer = await asyncio.open_connection(LOOPBACK, self.port)
            except (OSError, TimeoutError):
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            probe(writer.get_extra_info("socket"))
            try:
                while not self._stop.is_set():  # idle: never a byte sent
                    try:
                        async with asyncio.timeout(0.5):
                            if not await reader.read(4096):
                                self.closed_by_peer += 1
                                break
                    except TimeoutError:
                        continue
            except ConnectionResetError:  # the listener never held it: dial again
                self.never_held += 1
                continue
            except OSError:
                self.closed_by_peer += 1
            finally:
                writer.close()
            if not self.again:
                return
            await asyncio.sleep(0.05)


def probe(sock: socket.socket) -> None:
    """TCP keepalive on `sock`: a probe after KEEPALIVE s of silence, one a second after that,
    and a reset as soon as one is not acknowledged."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, KEEPALIVE)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 1)


def test_idle_connection_floods_neither_stop_nor_frame_a_seat(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "flood", seats=3, rounds=2, timeout=20)
    host, victim = (LimitedPeer(p.home, p.args) for p in peers[:2])
    peers = [host, victim, peers[2]]
    floods: list[Flood] = []
    try:
        host.start()
        wait_until(lambda: lobby_port(host) > 0, what="the lobby open")
        lobby = Flood(lobby_port(host), again=False).start()
        floods.append(lobby)
        wait_until(lambda: lobby.done, timeout=300, what="the host closing every idle connection")
        assert lobby.closed_by_peer == CONNECTIONS, (lobby.opened, lobby.closed_by_peer)
        assert host.process is not None and host.process.poll() is None, host.output()

        victim.start()
        peers[2].start()
        wait_until(lambda: victim.log_size() > 5000, timeout=300, what="the game started")
        meta = victim.meta()
        mesh = Flood(meta.addresses[meta.seat][1], again=True).start()
        floods.append(mesh)
        codes = wait_all(peers)
        closed = mesh.closed_by_peer
    finally:
        for flood in floods:
            flood.stop()
        for peer in peers:
            peer.kill()
    assert codes == [0, 0, 0], [p.output() for p in peers]
    assert closed > 0  # the bot closed idle connections while the flood held them open
    same_logs(peers)
    assert cfnet_verify(victim.log_path()).returncode == 0
    for peer in peers:
        said = peer.output()
        assert "verified: the log is a complete, valid game" in said, said
        assert "stopped:" not in said and "aborted" not in said, said
        assert "Traceback" not in said, said  # not even when it leaves, floods still open
