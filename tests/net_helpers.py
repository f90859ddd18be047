"""Shared helpers for the network tests: a loopback server whose accepted links are queued."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from cfnet.net.link import Link

LOOPBACK = "127.0.0.1"


@asynccontextmanager
async def link_server() -> AsyncIterator[tuple[int, asyncio.Queue[Link]]]:
    """A TCP server on 127.0.0.1 (free port); yields (port, queue of accepted links)."""
    accepted: asyncio.Queue[Link] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put(Link(reader, writer))

    server = await asyncio.start_server(on_connect, LOOPBACK, 0)
    try:
        yield server.sockets[0].getsockname()[1], accepted
    finally:
        server.close()
        while not accepted.empty():
            await accepted.get_nowait().close("test over")
        await server.wait_closed()
