"""Watching a table's game live in the viewer: the table browser's "watch" and `cfnet watch`
on a terminal. The chain comes from a source (the table's host, or a log file being written)
into a `Spectator`; the viewer follows it, shows every seat's key under the board, and says,
at the end, what `cfnet verify` would."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from cfnet.errors import describe
from cfnet.game.text import columns, fit
from cfnet.lang import _
from cfnet.net.discovery import TableInfo
from cfnet.net.watch import watch_table
from cfnet.record.identity import Identity, fingerprint
from cfnet.review.timeline import Timeline
from cfnet.ui.report import verdict_line
from cfnet.ui.spectate import Spectator
from cfnet.ui.styles import Line, wrap_items
from cfnet.ui.viewer import Viewer


async def watch_found(
    identity: Identity,
    name: str,
    found: TableInfo,
    code: str | None,
    spectator: Spectator,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """Watch the table a browser `found` into `spectator`, in the viewer (the table
    browser's "watch")."""
    source = watch_table(
        identity,
        name,
        found.address,
        found.port,
        spectator.take,
        code=code,
        advertised=found,
        say=lambda _: None,
    )
    return await view_live(spectator, source, input, output)


async def view_live(
    spectator: Spectator,
    source: Coroutine[Any, Any, object],
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """Run `source` (which feeds `spectator`) and show the game in the viewer, following it
    live, once the table entry has come; until the person leaves."""
    task = asyncio.create_task(source)
    try:
        return await _view(spectator, task, input, output)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _view(
    spectator: Spectator,
    task: asyncio.Task[object],
    input: Input | None,
    output: Output | None,
) -> int:
    while spectator.timeline is None and not task.done():
        await asyncio.sleep(0.05)
    if spectator.timeline is None:
        await task  # raises what stopped it
        raise OSError(_("the game ended before its table entry came"))
    timeline = spectator.timeline
    viewer = Watching(
        timeline,
        _("watching {name!r}").format(name=timeline.table.name),
        follow=True,
        input=input,
        output=output,
    )
    viewer.status = _("live: every entry is checked as it comes")

    def rebuilt(fresh: Timeline) -> None:  # an abort dropped a scored round: the final chain
        viewer.timeline = fresh
        viewer.app.invalidate()

    def ended(done: asyncio.Task[object]) -> None:
        error = None if done.cancelled() else done.exception()
        verdict = verdict_line(viewer.timeline.verdict())
        viewer.status = (
            verdict if error is None else _("link lost: {error}").format(error=describe(error))
        )
        viewer.app.invalidate()

    spectator.on_timeline = rebuilt
    task.add_done_callback(ended)
    return await viewer.run()


class Watching(Viewer):
    """The viewer of a game watched live: under the board, the link's state (the verdict at
    the end), then every seat's player and key fingerprint, seat 0 the host's, wrapped to the
    terminal between two keys, never inside one."""

    def _footer(self, width: int) -> list[Line]:
        lead = _("keys:") + " "
        keys: list[Line] = []
        for name, seat in zip(self.timeline.names, self.timeline.table.seats, strict=True):
            key = fingerprint(seat.key)
            shown = fit(name, width - columns(lead) - 1 - columns(key))  # a key always fits
            keys.append([("class:info", f"{shown} {key}")])
        return [*super()._footer(width), *wrap_items(keys, [("class:info", lead)], width)]
