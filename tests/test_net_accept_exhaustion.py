"""A listener that runs out of file descriptors (EMFILE on accept: asyncio stops accepting and
tries again a second later) and is closed before that second is over, as a lobby or a mesh is
when its game goes on or ends under a connection flood: the process says in one line that it
cannot accept now, and nothing else; no traceback from asyncio's late retry (on Python 3.11 it
raises ValueError on the closed socket). A real server in a child process with every free
descriptor used up, and real connections to it."""

from __future__ import annotations

import socket
import subprocess
import sys

LOOPBACK = "127.0.0.1"

CHILD = """
import asyncio, os
from asyncio import constants
from cfnet.net.link import ACCEPT_EXHAUSTED, quiet_accept_exhaustion

async def main() -> None:
    loop = asyncio.get_running_loop()
    quiet_accept_exhaustion()
    cfnet_handler = loop.get_exception_handler()
    exhausted = asyncio.Event()

    def handler(loop, context):
        if context.get("message") == ACCEPT_EXHAUSTED:
            exhausted.set()
        cfnet_handler(loop, context)

    loop.set_exception_handler(handler)
    server = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    spare = []
    try:
        while True:  # every free descriptor: the next accept fails with EMFILE
            spare.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    await exhausted.wait()
    server.close()  # before asyncio's retry, which it scheduled a second ahead
    await asyncio.sleep(constants.ACCEPT_RETRY_DELAY + 0.1)  # the retries run first
    for fd in spare:
        os.close(fd)
    print("done", flush=True)

asyncio.run(main())
"""


def test_a_listener_closed_while_out_of_descriptors_leaves_no_traceback() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    port = int(child.stdout.readline())
    clients = [socket.create_connection((LOOPBACK, port), timeout=30) for _ in range(3)]
    try:
        out, err = child.communicate(timeout=60)
    finally:
        for client in clients:
            client.close()
    assert child.returncode == 0, err
    assert out.strip() == "done", (out, err)
    assert err.count("cannot accept a connection now") == 1, err  # it ran out, said once
    assert "Traceback" not in err and "Exception in callback" not in err, err
