"""`cfnet resume`: start again a peer that stopped mid-game, from what its state directory
kept; it rejoins the others where they listen and plays on. The computer players a host
started for that table (kept in HOME/bots/) are started again with it: they stopped with it."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from cfnet.disk.saved_games import summarize
from cfnet.disk.store import (
    LOG_FILE,
    StoreError,
    TableMeta,
    TableStore,
    list_tables,
    load_identity,
    prepare_home,
    table_dir,
)
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.lang import _, digits, ngettext
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.table import Table
from cfnet.record.identity import Identity
from cfnet.seat.children import Children
from cfnet.seat.config import PeerConfig, ResumeConfig
from cfnet.seat.host import BOTS_DIR, end_bots
from cfnet.seat.process import failed, interrupted, run_loop, seat_logging, setup
from cfnet.seat.seating import ANY, Front, MakeFront, make_game, run_game


def run_resume(config: ResumeConfig, make_front: MakeFront) -> int:
    """`cfnet resume` in one loop; the exit code. A computer seat stays one: `front` is asked
    for the seat's front once its strategy is known."""
    try:
        home = prepare_home(config.peer.home)
        identity = load_identity(home)
        meta = _pick_table(home, config.table)
        peer = config.peer
        if peer.strategy is None:  # a computer seat stays one
            peer = replace(peer, strategy=meta.strategy)
        setup(peer)
        with seat_logging(peer, home):
            front = make_front(peer)
            return run_loop(_resume(peer, config.wait, home, identity, meta, front))
    except (LocalProtocolError, PeerProtocolError, OSError) as exc:
        return failed("resume", exc)
    except KeyboardInterrupt as stop:
        return interrupted("resume", stop)


def _pick_table(home: Path, wanted: str | None) -> TableMeta:
    """The unfinished table `wanted` (a name or the start of an id; None: the only one) in
    `home`; LocalProtocolError saying whether it is finished, unknown or ambiguous."""

    def matches(meta: TableMeta) -> bool:
        return wanted is None or meta.name == wanted or meta.table_id.hex().startswith(wanted)

    every = list_tables(home, include_finished=True)
    unfinished = [m for m in every if not m.finished]
    tables = [m for m in unfinished if matches(m)]
    if len(tables) == 1:
        return tables[0]
    if tables:
        several = (
            ngettext(
                "{count} unfinished table matches {wanted!r} in {home}: {tables}; name one with"
                " --table NAME|ID",
                "{count} unfinished tables match {wanted!r} in {home}: {tables}; name one with"
                " --table NAME|ID",
                len(tables),
            )
            if wanted
            else ngettext(
                "{count} unfinished table is kept in {home}: {tables}; name one with --table"
                " NAME|ID",
                "{count} unfinished tables are kept in {home}: {tables}; name one with --table"
                " NAME|ID",
                len(tables),
            )
        )
        raise LocalProtocolError(
            several.format(
                count=digits(len(tables)), wanted=wanted, home=home, tables=_tables(tables)
            )
        )
    if wanted is None:
        nothing = _("no unfinished table in {home}: nothing to resume")
        raise LocalProtocolError(nothing.format(home=home))
    others = (
        _("unfinished: {tables}").format(tables=_tables(unfinished))
        if unfinished
        else _("no table is unfinished")
    )
    finished = [m for m in every if matches(m)]
    if finished:
        log_path = table_dir(home, finished[0].table_id) / LOG_FILE
        result = summarize(finished[0], log_path).result()
        ended = (
            _("table {name!r} is finished: nothing to resume (its log: {log}); {others}")
            if result == _("unfinished")  # a log cut short
            else _(
                "table {name!r} is finished ({result}): nothing to resume (its log: {log});"
                " {others}"
            )
        )
        raise LocalProtocolError(
            ended.format(name=wanted, result=result, log=log_path, others=others)
        )
    missing = _("no table {name!r} in {home}; {others}")
    raise LocalProtocolError(missing.format(name=wanted, home=home, others=others))


def _tables(tables: list[TableMeta]) -> str:
    return ", ".join(f"{m.name} ({m.table_id.hex()[:12]})" for m in tables)


async def _resume(
    peer: PeerConfig, wait: float, home: Path, identity: Identity, meta: TableMeta, front: Front
) -> int:
    store = TableStore.open(home, meta.table_id)
    try:
        saved = store.load()
        if not saved.entries:
            raise StoreError(
                _("table {name!r} has no saved entries to resume from").format(name=meta.name)
            )
        if saved.secrets is None:
            local = LocalSeat(identity, meta.seat)
        else:
            local = LocalSeat.from_plain(identity, saved.secrets)
        table = Table(saved.entries[0].wire, local, time.monotonic())
        table.returned()
        game = make_game(peer, identity, table, store, front)
        game.replay(saved.entries[1:])
        count = len(saved.entries)
        resuming = ngettext(
            "resuming table {name!r} as seat {seat}: {count} entry on disk",
            "resuming table {name!r} as seat {seat}: {count} entries on disk",
            count,
        )
        shown = resuming.format(name=meta.name, seat=digits(meta.seat), count=digits(count))
        print(shown, flush=True)
        port = meta.addresses[meta.seat][1] if meta.seat in meta.addresses else 0
        await game.listen(peer.interface or ANY, port)
        game.set_addresses(meta.addresses)
        bots, table, left = Children(), game.table, False
        try:
            game.own_bots = _resume_bots(bots, home, meta, peer.interface)
            game.hold(wait)
            code = await run_game(game, front)
            left = table.departed and game.others_play_on()
        finally:
            problem = await end_bots(bots, finished=table.finished, over=table.over, left=left)
        if problem is not None:
            print(f"cfnet resume: {problem}", file=sys.stderr, flush=True)
            return code or 1
        return code
    finally:
        store.close()


def _resume_bots(
    bots: Children, home: Path, meta: TableMeta, interface: str | None
) -> frozenset[bytes]:
    """Start again each computer player this home's host started for the table `meta` that
    has not finished it (it stopped with the host); their identity keys."""
    started = set()
    for bot_home in sorted((home / BOTS_DIR).glob("*/")):
        if any(kept.table_id == meta.table_id for kept in list_tables(bot_home)):
            bots.resume_bot(bot_home, meta.table_id, interface)
            started.add(load_identity(bot_home).public)
    return frozenset(started)
