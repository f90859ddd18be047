"""The network game driver: one seat's `Table` on the real network (one per process).

A thin shell around the sans-IO table: entries from the mesh go to `Table.receive` with
`time.monotonic()`; the entries the table posts are written to the store (secrets first, then
the entry, fsynced) and only then sent to every peer (an abort that supersedes entries first
truncates the stored log); a timer is armed at `get_timer()`. The mesh resyncs peers from
the store, never from the table, so no entry leaves before it is on disk; a store failure stops
the game (nothing more is taken or posted). The table's work (checking what comes, proving
what it posts) runs on a thread of its own, one call at a time, so that the event loop stays
free for the links and the screen meanwhile. After the end the seat lingers until
every seat not blamed announces the same final chain (or the grace period ends).
It is also a `GameSession`, so the game screen can play a seat; `follow` sees every session
event (the plain lines of a computer seat). At the end the saved file is checked to be exactly
the chain the table verified as it came. A stall vote the table casts goes to every peer, and
again while it is open whenever a link comes up (votes.py); a 2-seat game whose other seat stalls
ends here unfinished. `chaos` (tests only, net/faults.py) cuts links at random.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import TypeVar, cast

from cfnet.disk.store import LOG_FILE, TableStore
from cfnet.errors import LocalProtocolError, PeerProtocolError, describe
from cfnet.game.bots import Player
from cfnet.game.moves import IllegalMoveError, Move
from cfnet.game.round import Game, PlayerView
from cfnet.game.text import comeback_text, result_after_departure
from cfnet.lang import _, digits, said
from cfnet.net.faults import Chaos
from cfnet.net.mesh import Mesh
from cfnet.net.watch import Watchers
from cfnet.protocol.events import (
    Aborted,
    Appended,
    Disqualified,
    Event,
    FaultFound,
    GameOver,
    LateProof,
    MoveMade,
    ProofHeld,
    RoundScored,
    RoundStarted,
    SeatLeft,
    SeatReturned,
    Stalled,
    Superseded,
    TimeoutDisproved,
    VoteCast,
    drain,
)
from cfnet.protocol.table import Table
from cfnet.protocol.wire import RESIGN, TIMEOUT
from cfnet.record.entry import Entry
from cfnet.record.identity import Identity, fingerprint
from cfnet.seat import loop_probe
from cfnet.seat.session import GameAborted, GameLeft, Notice, SessionEvent, Wait
from cfnet.seat.waits import Waits

log = logging.getLogger("cfnet.net")
T = TypeVar("T")

GRACE = 0.05  # after a timer fires, let what already arrived be delivered first
LATE = 0.5  # a timer this late means this process was stopped or starved...
CATCH_UP = 1.0  # ...so wait this long for the input before judging a deadline
FINISH_GRACE = 2.0  # after the end, how long to wait for the linked peers to be done too
MAX_LINGER = 30.0
LINGER_LOOK = 0.05  # a lingering seat looks again at each change in the mesh, or this often
VOTE_RESEND = 5.0  # how often an open stall vote is sent again to every peer...
VOTE_LOOK = 0.5  # ...and how often to look whether a link came up meanwhile (send it there)
ASK_AGAIN = 2.0  # a seat asking to be dealt in again sends its request again this often

Follow = Callable[["NetGame", SessionEvent], None]
"""Shown each session event of a game as it happens (plain lines for a computer seat)."""

NO_RESULT_EXIT = 3
"""The exit status of a seat whose game ended without a result (an abort, a resignation)."""


def set_aside_survivors() -> None:
    """Keep what is alive now (the program, the lobby's results: it lives through the game) out
    of Python's full garbage collections, which otherwise take 15-20 ms of the screen's loop
    each, twice a game. What an earlier game set aside is given back and collected first, so a
    process that plays game after game keeps no game's leftovers beyond the next start."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def same_end_exits(over: bool) -> frozenset[int]:
    """The exit statuses of the computer players of a game that ended `over` (with a result)
    or not, when they saw the same end."""
    return frozenset({0} if over else {0, NO_RESULT_EXIT})


class NetGame:
    """One seat at a table on the LAN: its `Table`, `TableStore` and `Mesh`.

    `player` plays the seat if given (a computer seat); otherwise moves come through `submit`
    (the game screen). `follow` sees every session event (None: nobody)."""

    def __init__(
        self,
        identity: Identity,
        table: Table,
        store: TableStore,
        *,
        player: Player | None = None,
        follow: Follow | None = None,
        chaos: Chaos | None = None,
    ) -> None:
        if table.local is None or table.me is None:
            raise LocalProtocolError("a network game needs a local seat")  # untranslated: a bug
        self.identity = identity
        self.table = table
        self.store = store
        self.player = player
        self._follow = follow
        self._chaos = chaos
        self._local = table.local
        self._saved_seeds = dict(self._local.seeds)
        self._keys = [info.key for info in table.seats]
        self.mesh = Mesh(identity, table.table_id, self._keys, store, self._deliver)
        self._wake = asyncio.Event()
        self._queue: asyncio.Queue[SessionEvent] = asyncio.Queue()
        self._fatal: BaseException | None = None
        self._waits = Waits(table, self.mesh, min(5.0, table.timeout / 3), time.monotonic())
        self._task: asyncio.Task[int] | None = None
        # Play is over: the last round's last move is in, or the game stopped for this seat;
        # only the audit, the end and the lingering are left.
        self.play_over = asyncio.Event()
        self.result: GameOver | GameAborted | GameLeft | None = None
        self.departure: SeatLeft | None = None  # the local seat's latest departure
        self._rejoin = False  # resumed and not dealt in again yet: while out, it asks to be
        self._asked: bytes | None = None  # the return request sent...
        self._asked_to: frozenset[bytes] = frozenset()  # ...to these peers...
        self._asked_at = 0.0  # ...last at this time
        self._vote_sent: tuple[bytes, frozenset[bytes], float] | None = None  # what, to whom, when
        self._disproof_sent: tuple[TimeoutDisproved, frozenset[bytes]] | None = None  # to whom
        self._stalled = False  # 2 seats dealt in and one stalled: no majority can time it out
        self.log_path = store.path / LOG_FILE
        self.watchers: Watchers | None = None  # the host's spectators (net/watch.py)
        self.own_bots: frozenset[bytes] = frozenset()  # keys of the computer players we started
        self._worker = ThreadPoolExecutor(1, "cfnet-table")  # the table's own thread
        self._table_lock = threading.RLock()  # held while the table changes (either thread)
        self._last_read: dict[str, object] = {}  # what the screen read last (`_settled`)
        self._turn = asyncio.Lock()  # one table call, and the handling of its events, at a time

    # ------------------------------------------------------------------ GameSession

    @property
    def seat(self) -> int:
        assert self.table.me is not None
        return self.table.me

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(info.name for info in self.table.seats)

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def view(self) -> PlayerView | None:
        """The local seat's view of the round; out of the game, the round without a hand."""
        return self._settled("view", self._view, None)

    def _view(self) -> PlayerView | None:
        table = self.table
        if table.me is not None and table.departed and table.public is not None:
            return PlayerView(table.me, (), None, table.public)
        try:
            return table.view()
        except LocalProtocolError:
            return None

    @property
    def audited(self) -> bool:
        """Always: the table audits each round before it scores it."""
        return True

    @property
    def wait(self) -> Wait | None:
        return self._settled("wait", lambda: self._waits.current(time.monotonic()), None)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        awaited = self._settled("awaited", lambda: self.table.awaited, None)
        return () if awaited is None else (awaited,)

    def _settled(self, name: str, read: Callable[[], T], default: T) -> T:
        """`read()` of the table for the screen, unless the table's thread is changing it
        right now: then what it gave last time (`default` before that), without waiting."""
        if not self._table_lock.acquire(blocking=False):
            return cast(T, self._last_read.get(name, default))
        try:
            value = read()
        finally:
            self._table_lock.release()
        self._last_read[name] = value
        return value

    def start(self) -> None:
        """Run the game in a task on the running loop (the mesh must be listening)."""
        if self._task is None:
            set_aside_survivors()
            loop_probe.phase("game")
            self._task = asyncio.get_running_loop().create_task(self.run())

    async def next_event(self) -> SessionEvent:
        return await self._queue.get()

    def submit(self, move: Move) -> None:
        try:
            with self._table_lock:
                self.table.choose(move)
        except LocalProtocolError as exc:
            raise IllegalMoveError(*exc.args) from None
        self._wake.set()

    def ready(self) -> None:
        """Nothing to do: the protocol goes on to the next round by itself."""

    @property
    def resigned(self) -> bool:
        """The game ended, or the local seat left it, with the local seat's own resignation."""
        left = self.table.aborted
        if left is None and isinstance(self.result, GameLeft) and self.departure is not None:
            left = self.departure.fault
        return left is not None and left.code == RESIGN and left.seat == self.table.me

    def resign(self) -> bool:
        """Leave for good (this process asks no more to be dealt in again): resign at the
        seat's next turn, also if a certificate has already brought it back for the next
        round; out of the game otherwise, the session ends at once, with nothing to post."""
        table = self.table
        if table.finished or isinstance(self.result, GameLeft):
            return False
        self._rejoin = False
        if table.departed and not self._coming_back:
            self.result = replace(self._left(), how="left")
        else:
            with self._table_lock:
                table.resign()
        self._wake.set()
        return True

    @property
    def _coming_back(self) -> bool:
        """A certificate has carried the local seat's return: it is dealt in next round."""
        return self.table.me in self.table.rounds.returns.coming_back

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.mesh.close()
        self._worker.shutdown(wait=False)

    async def _on_table_thread(self, work: Callable[[], T]) -> T:
        """`work` (a call into the table) on the table's thread; the loop runs on meanwhile."""

        def locked() -> T:
            with self._table_lock:
                return work()

        return await asyncio.get_running_loop().run_in_executor(self._worker, locked)

    # ------------------------------------------------------------------ running

    async def listen(self, host: str, port: int = 0) -> int:
        """Open the mesh listener; returns its port."""
        return await self.mesh.start(host, port)

    def set_addresses(self, addresses: dict[int, tuple[str, int]]) -> None:
        """Where the other seats listen."""
        for seat, (host, port) in addresses.items():
            if seat != self.table.me and 0 <= seat < len(self._keys):
                self.mesh.set_address(self._keys[seat], host, port)

    def hold(self, seconds: float) -> None:
        """Post nothing (no move, no timeout claim) until a peer has told us its chain and we
        hold its head; give up after `seconds` (a resumed seat must not play on alone)."""
        self._waits.hold(seconds, time.monotonic())
        self._emit(Notice(_("resumed: waiting for a peer to give us the chain as it stands now")))

    def replay(self, entries: Sequence[Entry]) -> None:
        """Feed back the entries saved before a restart by `cfnet resume` (those after the
        genesis): from then on, while the seat is out of the game (it had left, or it is
        timed out meanwhile), it asks to be dealt in again, until it is."""
        for entry in entries:
            self.table.receive(entry.wire, time.monotonic())
            self._handle(drain(self.table.next_event))
        if isinstance(self.result, GameLeft) and self.result.comeback is not None:
            self._emit(Notice(self.result.reason))
            self.result = None
        self._rejoin = True

    async def run(self) -> int:
        """Play until the game is over; save, verify and return the exit code (0: a complete
        valid game, 3: the game ended with an abort, 1: a local failure)."""
        judge = False
        try:
            while not self._stopped():
                self._wake.clear()
                await self._pump(timeouts=judge)
                if self._stopped():
                    break
                async with self._turn:  # no delivery changes the table meanwhile
                    wakeup = self._next_wakeup()
                timeout = None if wakeup is None else max(0.0, wakeup - time.monotonic())
                judge = False
                try:  # not wait_for: on 3.11 it can swallow a cancel (bpo-42130)
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()
                except TimeoutError:
                    # Judge a deadline only once what already arrived is in; after a stop of
                    # this process (late timer) give the input time to catch up first.
                    late = wakeup is not None and time.monotonic() - wakeup > LATE
                    await asyncio.sleep(CATCH_UP if late else GRACE)
                    judge = True
            self.play_over.set()
            if self._fatal is None and not self.table.departed and not self._stalled:
                await self._linger()  # an abort may still replace the end meanwhile
        finally:
            if self.watchers is not None:
                await self.watchers.finish()
            await self.mesh.close()
        return self._finish()

    def _stopped(self) -> bool:
        """The game is over for this seat: it ended, this seat left it for good (it was not
        resumed to come back, or it was removed), or this peer failed."""
        table = self.table
        out = table.departed and not (self._rejoin or self._coming_back)
        stopped = table.finished or out or table.removed or self._stalled
        return stopped or self._fatal is not None

    async def _pump(self, timeouts: bool = False) -> None:
        """Take timeouts (if asked), let a computer seat choose, post what the table posts."""
        async with self._turn:
            await self._pump_now(timeouts)

    async def _pump_now(self, timeouts: bool = False) -> None:
        """`_pump`, its turn already held."""
        table = self.table
        try:
            # Asked at once, held or not: a request is no chain entry (it names the departure
            # this seat holds already), and the others may be about to certify the next round.
            if table.departed and self._rejoin and not table.finished and not table.removed:
                self._ask_to_return(time.monotonic())
            if self._waits.holding(time.monotonic()):
                return
            judge = timeouts
            while True:
                posted, events = await self._on_table_thread(partial(self._step, judge))
                judge = False
                self._handle(events)
                for entry in posted:
                    self.mesh.post(entry.wire)
                if not posted:
                    break
            self._send_vote()
            self._send_disproof()
        except (OSError, LocalProtocolError) as exc:
            self._fail(exc)

    def _step(self, timeouts: bool) -> tuple[list[Entry], list[Event]]:
        """On the table's thread: take timeouts (if asked), let a computer seat choose, make
        the entries the table posts now (its secrets saved first); they and its events."""
        table = self.table
        if timeouts:
            table.handle_timer(time.monotonic())
        if self.player is not None and table.awaiting_local_move:
            table.choose(self.player.choose(table.view()))
        posted = table.entries_to_send(time.monotonic())
        if self._local.seeds != self._saved_seeds:
            self.store.save_secrets(self._local.secrets_to_plain())
            self._saved_seeds = dict(self._local.seeds)
        return posted, drain(table.next_event)

    def _send_vote(self, cast: bool = False) -> None:
        """Send the local seat's open stall vote to every linked peer: when it is `cast`, and
        again when a link came up since, or every VOTE_RESEND s (it is not a chain entry: no
        `sync` brings it back if it was lost)."""
        vote, now, linked = self.table.own_vote(), time.monotonic(), self.mesh.connected
        if vote is None:
            self._vote_sent = None
            return
        sent = self._vote_sent
        if (
            cast
            or sent is None
            or sent[0] != vote.wire
            or not linked <= sent[1]
            or now >= sent[2] + VOTE_RESEND
        ):
            self.mesh.resend(vote.wire)
            self._vote_sent = (vote.wire, linked, now)

    def _send_disproof(self) -> None:
        """Send the entries of the timeout's disproof the table holds to every linked peer:
        when it is found, and again to a link that came up since (they are chain entries a
        peer may have had already, so they are sent again, not posted)."""
        disproof, linked, sent = self.table.disproof, self.mesh.connected, self._disproof_sent
        if disproof is None or (sent is not None and sent[0] is disproof and linked <= sent[1]):
            return
        for wire in disproof.entries:
            self.mesh.resend(wire)
        self._disproof_sent = (disproof, linked)

    def _ask_to_return(self, now: float) -> None:
        """Send the local seat's return request until a certificate carries it (a seat still
        dealt in carries it, and this seat is dealt in again from the next round): to every
        peer linked, again to a peer newly linked and every ASK_AGAIN s, since a peer that
        has not yet taken our departure refuses it and nothing brings it back by itself."""
        if self._coming_back:
            return
        request = self.table.return_request().wire
        linked = self.mesh.connected
        if not linked:
            return  # at the next delivery, or the next look
        if request != self._asked:
            self._emit(Notice(_("asking to be dealt in again when the next round starts")))
        elif linked <= self._asked_to and now < self._asked_at + ASK_AGAIN:
            return
        self._asked, self._asked_to, self._asked_at = request, linked, now
        self.mesh.resend(request)

    async def _deliver(self, wire: bytes, key: bytes) -> bool:
        """An entry from the mesh (never raises); whether to echo it. After the end only an
        entry of our final chain is echoed (an earlier abort that replaces ours joins it);
        once this game has stopped on a local failure nothing is taken."""
        async with self._turn:
            if self._fatal is not None:
                return False
            finished = self.table.finished
            held = self.table.chain.holds(wire)  # a copy of what we hold: nothing to check
            refused = False
            try:
                events = [] if held else await self._on_table_thread(partial(self._receive, wire))
            except PeerProtocolError as exc:
                log.info("entry from %s not taken: %s", fingerprint(key), exc.reason)
                refused = True  # a refusal may still find something (a disproof to pass on)
                events = drain(self.table.next_event)  # no table call runs: the turn is ours
            except Exception:  # our bug, not the peer's: refuse the entry, keep the link
                log.warning(
                    "entry from %s not taken: the table failed on it",
                    fingerprint(key),
                    exc_info=True,
                )
                return False
            try:
                self._handle(events)
                if events and self._fatal is None:
                    await self._pump_now()  # answer at once: the chain waits for us
            except Exception as exc:  # the mesh must not see it: this game stops
                self._fail(exc)
        self._wake.set()
        if self._fatal is not None or refused:
            return False
        return not finished or self.table.chain.holds(wire)

    def _receive(self, wire: bytes) -> list[Event]:
        """On the table's thread: `wire` into the table; the events it made."""
        self.table.receive(wire, time.monotonic())
        return drain(self.table.next_event)

    def _fail(self, exc: BaseException) -> None:
        log.error("cannot go on: %s", exc)
        if self._fatal is None:
            self._fatal = exc
        self._wake.set()

    def _handle(self, events: list[Event]) -> None:
        """Store appended entries (in chain order); pass on the events of play, word faults
        and aborts as session events."""
        for event in events:
            if isinstance(event, Appended):
                # others' entries can be fetched again: no fsync
                durable = event.entry.seat == self.table.me or self.table.finished
                self.store.append(event.entry, durable=durable)
                if self.watchers is not None:  # after it is stored, as for the peers
                    self.watchers.entry(event.entry.wire)
                if self._chaos is not None:
                    self._chaos.after_entry(self.mesh)
            elif isinstance(event, Superseded):  # the abort that follows replaces the rest
                self.store.truncate(event.seq)
            elif isinstance(event, RoundStarted | MoveMade | RoundScored):
                self._emit(event)
                if isinstance(event, MoveMade) and self._ends_play(event):
                    self.play_over.set()
            elif isinstance(event, FaultFound):
                fault = event.fault
                text = _("{name} {detail} ({code})").format(
                    name=self._who(fault.seat), detail=fault.detail, code=fault.code
                )
                self._emit(Notice(text, fault=True))
            elif isinstance(event, Aborted):
                fault = event.fault
                values = {"name": self._who(fault.seat), "detail": fault.detail}
                text = (
                    _("{name} {detail}").format(**values)
                    if fault.code == RESIGN
                    else _("{name} {detail} ({code}); abort signed by {by}").format(
                        code=fault.code, by=self._who(event.by), **values
                    )
                )
                self.result = GameAborted(text)
            elif isinstance(event, SeatLeft):
                if event.fault.seat != self.table.me:
                    self._emit(Notice(said(event.describe(self._whos()))))
                    continue
                self.departure = event
                left = self._left()
                if self._rejoin and left.comeback is not None:  # resumed: it asks to be back
                    self._emit(Notice(left.reason))
                else:
                    self.result = left
            elif isinstance(event, SeatReturned):
                if event.seat == self.table.me:
                    self._rejoin = False  # back: should it leave again, that is for good
                self._emit(Notice(said(event.describe(self._whos()))))
            elif isinstance(event, ProofHeld | Disqualified | LateProof):  # a proof of cheating
                self._emit(
                    Notice(said(event.describe(self._whos())), fault=True)
                )  # rewinds nothing
                if isinstance(event, ProofHeld):  # every seat must hold it: the seat due posts it
                    for wire in event.fault.evidence["entries"]:
                        self.mesh.post(wire)
            elif isinstance(event, TimeoutDisproved):  # a peer that took it must go back
                self._emit(Notice(said(event.describe(self._whos())), fault=True))
                self._send_disproof()
            elif isinstance(event, VoteCast):
                self._emit(Notice(said(event.describe(self._whos()))))
                self._send_vote(cast=True)
            elif isinstance(event, Stalled):
                self._stalled = True
                self.result = GameAborted(said(event.describe(self._whos())))
            elif isinstance(event, GameOver):
                if isinstance(self.result, GameLeft):  # a departure; the result stands
                    why = result_after_departure(self.table.game)
                    text = _("{reason}: {why}").format(reason=self.result.reason, why=said(why))
                    self._emit(Notice(text))
                self.result = event

    def _ends_play(self, move: MoveMade) -> bool:
        """Whether `move` ended the last round's play."""
        public = self.table.public
        last = move.round_number == self.table.game.options.rounds
        return last and public is not None and public.end_reason is not None

    def _emit(self, event: SessionEvent) -> None:
        if self.player is None:
            self._queue.put_nowait(event)
        if self._follow is not None:
            self._follow(self, event)

    def _who(self, seat: int) -> str:
        return _("seat {number} ({name})").format(
            number=digits(seat), name=self.table.seats[seat].name
        )

    def _whos(self) -> list[str]:
        return [self._who(s) for s in range(self.table.players)]

    def others_play_on(self) -> bool:
        """A seat still dealt in belongs to another peer's player (not this seat, not one of
        the computer players this process started): the game goes on without us."""
        ours = {self.identity.public, *self.own_bots}
        return any(self._keys[seat] not in ours for seat in self.table.rounds.seated)

    def _left(self) -> GameLeft:
        """The local seat out of the game: how, after its latest departure; whether the game
        waits for it (only our own computer players are left: they stop with us)."""
        departure, name = self.departure, self.table.name
        if self.table.removed:
            assert departure is not None
            text = departure.describe(self._whos())
            removed = _("you were removed from the game: {why}").format(why=said(text))
            return GameLeft(removed, "were removed from", None)
        waits = not self.others_play_on()
        if departure is None:
            return GameLeft(_("you left the game"), "left", comeback_text(name), waits)
        text = departure.describe(self._whos())
        how = "resigned from" if departure.fault.code == RESIGN else "were timed out of"
        left = _("you left the game: {why}").format(why=said(text))
        return GameLeft(left, how, comeback_text(name), waits)

    def _next_wakeup(self) -> float | None:
        """When to look again: the table's next deadline, a hold, whom we are waiting for, or
        when to ask again to be dealt in."""
        now = time.monotonic()
        text = self._waits.notice(now)
        if text is not None:
            self._emit(Notice(text))
        wakeup = self._waits.next_wakeup(now)
        if self._vote_sent is not None:  # look again soon: a link may come up
            look = now + VOTE_LOOK
            wakeup = look if wakeup is None else min(wakeup, look)
        if self._rejoin and self._asked is not None and self.table.departed:
            again = self._asked_at + ASK_AGAIN
            wakeup = again if wakeup is None else min(wakeup, again)
        return wakeup

    async def _linger(self) -> None:
        """Before leaving: tell every peer our final chain (`announce`, again whenever it
        changes: an earlier abort or an equivocation proof may still come) and wait (bounded)
        until every peer not proven to cheat has said it holds exactly that chain (a seat timed
        out may be alive and come back: it must get the abort, not play on alone); then say
        done and close once all linked peers are done too."""
        until = time.monotonic() + min(MAX_LINGER, float(self.table.timeout))
        announced: tuple[int, bytes] | None = None
        while time.monotonic() < until and self._fatal is None:
            peers = set(self._keys) - {self.identity.public}  # a seat that left may be back
            async with self._turn:  # no delivery changes the table meanwhile
                aborted = self.table.aborted
                head = (self.store.count(), self.table.head)
            if aborted is not None and aborted.code != TIMEOUT:
                peers.discard(self._keys[aborted.seat])
            if head != announced:  # even when the others already agree: they must learn it
                self.mesh.announce()
                announced = head
            if self.mesh.agree(peers):
                break
            await self.mesh.changed(LINGER_LOOK)
        await self.mesh.finish(FINISH_GRACE)

    def _finish(self) -> int:
        """Save the final metadata, check the log file holds exactly the chain the table
        checked live, emit the result; the exit code."""
        table = self.table
        try:
            if table.finished:
                self.store.save_meta(replace(self.store.meta, finished=True))
            self.store.check_log([entry.wire for entry in table.entries])
        except (OSError, LocalProtocolError) as exc:
            self._fail(exc)
        self.store.close()
        if self._fatal is not None:
            stopped = _("this peer stopped: {why}").format(why=describe(self._fatal))
            self._emit(GameAborted(stopped, str(self._fatal)))
            return 1
        if self.result is not None:
            self._emit(self.result)
        return 0 if isinstance(self.result, GameOver) else NO_RESULT_EXIT
