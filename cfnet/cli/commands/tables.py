"""`cfnet tables`: list the tables advertised on the LAN by mDNS."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cfnet.cli.options import ipv4, seconds_type
from cfnet.lang import N_, _, digits, ngettext, pgettext, said
from cfnet.lang.formatting import quantity

if TYPE_CHECKING:
    from cfnet.net.discovery import TableInfo

HELP = N_("List the tables open on the LAN (found by mDNS).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait",
        type=seconds_type(0, 600),
        default=2.0,
        metavar="SECONDS",
        help=_("how long to listen for tables (default: 2)"),
    )
    parser.add_argument(
        "--interface",
        type=ipv4,
        default=None,
        metavar="ADDR",
        help=_("IPv4 address of the interface to use (default: all)"),
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=_("also name each advertisement that is not listed, and why"),
    )


def listing(tables: Iterable[TableInfo]) -> list[str]:
    """The tables as lines of at most 80 columns: a row (name, seats, timeout, address), then
    the host and its key, then the rules (and whether the table can be joined) indented."""
    from prompt_toolkit.utils import get_cwidth

    from cfnet.net.discovery import fit_name

    tables = list(tables)
    rows = [
        (
            pgettext("heading", "NAME"),
            pgettext("heading", "SEATS"),
            pgettext("heading", "TIMEOUT"),
            pgettext("heading", "ADDRESS"),
        )
    ]
    rows += [
        (t.name, f"{digits(t.taken)}/{digits(t.seats)}", t.timeout_text, f"{t.address}:{t.port}")
        for t in tables
    ]
    widths = [max(get_cwidth(row[i]) for row in rows) for i in range(len(rows[0]))]

    def row(cells: tuple[str, ...]) -> str:
        padded = (
            cell + " " * (width - get_cwidth(cell))
            for cell, width in zip(cells, widths, strict=True)
        )
        return "  ".join(padded).rstrip()

    lines = [row(rows[0])]
    for table, cells in zip(tables, rows[1:], strict=True):
        lines.append(row(cells))
        host = _("host {name} · key {key}")
        lines.append("    " + host.format(name=fit_name(table.host), key=table.fingerprint))
        rules = table.rules.describe()
        lines.append(
            "    " + (_("{rules} · join code").format(rules=rules) if table.code else rules)
        )
        if table.incompatible:
            why = _("cannot be joined: {reason}").format(reason=said(table.incompatible))
            lines.append(f"    {why}")
    return lines


def run(args: argparse.Namespace) -> int:
    import asyncio

    from cfnet.net.discovery import Discovery

    async def collect() -> tuple[list[TableInfo], dict[str, str]]:
        async with Discovery(args.interface) as discovery:
            browser = discovery.browse()
            await asyncio.sleep(args.wait)  # listening is the point: any table may still answer
            tables = sorted(browser.tables.values(), key=lambda t: (t.name.casefold(), t.host))
            return tables, dict(browser.skipped)

    tables, skipped = asyncio.run(collect())
    if tables:
        print("\n".join(listing(tables)))
    else:
        print(_("No tables found within {seconds} s.").format(seconds=quantity(args.wait)))
    if args.verbose:
        count = len(skipped)
        print(
            ngettext(
                "{count} advertisement not listed:", "{count} advertisements not listed:", count
            ).format(count=digits(count))
        )
        from cfnet.game.text import escaped

        for instance, reason in sorted(skipped.items()):  # a peer's words: escaped
            print(f"  {escaped(instance)}: {escaped(reason)}")
    return 0
