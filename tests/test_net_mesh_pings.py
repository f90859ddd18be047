"""Mesh links on 127.0.0.1 that carry no entries stay up on their pings; without pings (a peer
that stops sending) a link is closed after the idle timeout."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence

import pytest

from cfnet.net.mesh import Mesh
from cfnet.record.identity import Identity

LOOPBACK = "127.0.0.1"


class Empty:
    """An entry store that holds nothing and takes nothing."""

    def count(self) -> int:
        return 0

    def since(self, count: int) -> Sequence[bytes]:
        return []


async def _quiet_pair(ping: float, idle: float, quiet_for: float) -> tuple[bool, bool]:
    table = os.urandom(16)
    keys = sorted((Identity.generate() for _ in range(2)), key=lambda k: k.public)
    meshes = [
        Mesh(
            key,
            table,
            [k.public for k in keys],
            Empty(),
            lambda wire, sender: False,
            ping_interval=ping,
            idle_timeout=idle,
        )
        for key in keys
    ]
    ports = [await mesh.start(LOOPBACK) for mesh in meshes]
    meshes[0].set_address(keys[1].public, LOOPBACK, ports[1])
    await meshes[0].wait_connected([keys[1].public], 30)
    await asyncio.sleep(quiet_for)  # nothing to await: the point is that nothing happens
    up = [keys[1].public in meshes[0].connected, keys[0].public in meshes[1].connected]
    for mesh in meshes:
        await mesh.close()
    return up[0], up[1]


def test_pings_keep_a_quiet_mesh_link_up(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="cfnet.net")
    assert asyncio.run(_quiet_pair(ping=0.05, idle=0.4, quiet_for=1.2)) == (True, True)
    assert not any("nothing received" in record.getMessage() for record in caplog.records)


def test_a_link_without_pings_is_closed_after_the_idle_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="cfnet.net")
    asyncio.run(_quiet_pair(ping=30.0, idle=0.4, quiet_for=1.0))
    assert any("nothing received for 0.4 s" in record.getMessage() for record in caplog.records)
