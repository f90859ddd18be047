"""A table's address as a person types it: `HOST:PORT`."""

from __future__ import annotations


def parse_host_port(text: str) -> tuple[str, int]:
    """`HOST:PORT` as (host, port); ValueError saying the form if it is not one."""
    host, _, port = text.strip().rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) <= 0xFFFF:
        raise ValueError(f"{text!r}: give HOST:PORT, e.g. 192.168.1.20:40123")
    return host, int(port)
