"""A separate advertising process for the discovery tests (run as a script).

Advertises one "Kitchen" table on 127.0.0.1 per hex table id in argv, prints "ready", then
obeys stdin lines: "taken N" updates the first table's seats taken, "quit" (or EOF) withdraws
every table and exits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys

from cfnet.game.rules import RuleOptions
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.record.identity import Identity

ADDRESSES = ["127.0.0.1"]


async def main(ids: list[bytes]) -> None:
    fingerprint = Identity.from_seed(b"\x07" * 32).fingerprint
    tables = [
        TableInfo(
            "Kitchen",
            table_id,
            "alice",
            fingerprint,
            RuleOptions(rounds=3),
            4,
            1,
            code=i > 0,
            port=40100 + i,
        )
        for i, table_id in enumerate(ids)
    ]
    loop = asyncio.get_running_loop()
    async with Discovery("127.0.0.1") as discovery:
        for table in tables:
            await discovery.advertise(table, ADDRESSES)
        print("ready", flush=True)
        while (words := (await loop.run_in_executor(None, sys.stdin.readline)).split()) and words[
            0
        ] != "quit":
            tables[0] = dataclasses.replace(tables[0], taken=int(words[1]))
            await discovery.update(tables[0], ADDRESSES)
            print("updated", flush=True)


if __name__ == "__main__":
    asyncio.run(main([bytes.fromhex(x) for x in sys.argv[1:]]))
