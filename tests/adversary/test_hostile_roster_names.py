"""A hostile host sends a roster whose player name carries terminal escape sequences: the
joiner (`cfnet join --strategy`, a real process) refuses the roster and prints none of it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lan_helpers import CFNET, LOOPBACK

from cfnet.game.rules import RuleOptions
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.record.identity import Identity

HOSTILE = "eve\x1b]0;pwned\x07\x1b[2J\x1b[31m"
DEADLINE = 60.0


async def _host_and_join(home: Path) -> tuple[int, str, str]:
    """Run a lobby host that seats the joiner with a hostile roster; the joiner's exit code,
    its output, and the host's view of how the link ended."""
    identity = Identity.generate()
    table_id = os.urandom(16)
    ended: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        try:
            joiner = await link.handshake(Handshake(identity, initiator=False, table_id=table_id))
            sit = await link.receive()
            assert sit["t"] == "sit", sit
            roster = [["host", identity.public], [HOSTILE, Identity.generate().public]]
            roster.append([sit["name"], joiner.peer_key])
            rules = RuleOptions().describe()
            await link.send({"t": "seats", "seats": roster, "of": 4, "rules": rules})
            while True:
                await link.receive()
        except LinkClosed as closed:
            if not ended.done():
                ended.set_result(closed.reason)

    server = await asyncio.start_server(on_connect, LOOPBACK, 0)
    port = server.sockets[0].getsockname()[1]
    joiner = await asyncio.create_subprocess_exec(
        *CFNET, "join", "--connect", f"{LOOPBACK}:{port}", "--strategy", "greedy",
        "--interface", LOOPBACK, "--player", "alice", "--home", str(home),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        async with asyncio.timeout(DEADLINE):
            output, _ = await joiner.communicate()
            reason = await ended
    finally:
        if joiner.returncode is None:
            joiner.kill()
            await joiner.wait()
        server.close()
        await server.wait_closed()
    assert joiner.returncode is not None
    return joiner.returncode, output.decode(errors="replace"), reason


def test_a_roster_name_with_terminal_escapes_is_refused_and_never_printed(
    tmp_path: Path,
) -> None:
    code, output, reason = asyncio.run(_host_and_join(tmp_path / "joiner"))
    assert code == 1, output
    assert "\x1b" not in output and "\x07" not in output, repr(output)
    assert "malformed 'seats' message: player name" in output, output
    assert "printable characters" in reason, reason
