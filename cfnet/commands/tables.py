"""`cfnet tables`: list the tables advertised on the LAN by mDNS."""

from __future__ import annotations

import argparse
import asyncio

from cfnet.arguments import ipv4, seconds_type

HELP = "List the tables open on the LAN (found by mDNS)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 600),
        default=2.0,
        metavar="SECONDS",
        help="how long to listen for tables (default: 2)",
    )
    parser.add_argument(
        "--interface",
        type=ipv4,
        default=None,
        metavar="ADDR",
        help="IPv4 address of the interface to use (default: all)",
    )


def run(args: argparse.Namespace) -> int:
    from cfnet.net.discovery import Discovery, TableInfo

    async def collect() -> list[TableInfo]:
        async with Discovery(args.interface) as discovery:
            browser = discovery.browse()
            await asyncio.sleep(args.wait)  # listening is the point: any table may still answer
            return sorted(browser.tables.values(), key=lambda t: (t.name.casefold(), t.host))

    tables = asyncio.run(collect())
    if not tables:
        print(f"No tables found within {args.wait:g} s.")
        return 0
    rows = [("NAME", "HOST", "ADDRESS", "SEATS", "RULES", "FINGERPRINT")]
    rows += [
        (
            t.name
            + (" (code)" if t.code else "")
            + (f" ({t.incompatible})" if t.incompatible else ""),
            t.host,
            f"{t.address}:{t.port}",
            f"{t.taken}/{t.seats}",
            t.rules.describe(),
            t.fingerprint,
        )
        for t in tables
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0
