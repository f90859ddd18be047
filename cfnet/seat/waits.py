"""What a seat at a LAN table waits for, and for how long (no I/O of its own): the deadline of
the seat due and whether its link is up (`Waits.current`), when to say whom the table waits for
(once per wait), and a resumed seat's hold: it posts nothing before a peer has told it the chain
and it holds that chain's head, so that it never plays on alone (`Waits.holding`)."""

from __future__ import annotations

from cfnet.game.text import waiting_text
from cfnet.lang import _, digits
from cfnet.net.mesh import Mesh
from cfnet.protocol.table import Table
from cfnet.seat.session import Wait

HOLD_POLL = 0.1  # a held seat looks this often whether a peer has given it the chain


class HoldExpired(OSError):
    """No peer gave a resumed seat the chain in time; it posted nothing."""


class Waits:
    """The waits of the local seat at `table`, whose links are `mesh`'s; the table is said to
    wait for a seat once, `notice_after` s into each wait."""

    def __init__(self, table: Table, mesh: Mesh, notice_after: float, now: float) -> None:
        self._table, self._mesh = table, mesh
        self._notice_after = notice_after
        self._wait: tuple[int | None, int] = (None, -1)  # (seat awaited, entries) of this wait
        self._since, self._said = now, False
        self._hold_until: float | None = None

    def current(self, now: float) -> Wait | None:
        """The seat due under a deadline and how that stands; None: no deadline runs."""
        table = self._table
        awaited, deadline = table.awaited, table.turn_deadline()
        if awaited is None or deadline is None:
            return None
        since = None if awaited == table.me else self._mesh.down_since(table.seats[awaited].key)
        return Wait(awaited, deadline - now, None if since is None else now - since)

    def hold(self, seconds: float, now: float) -> None:
        """Hold posting until a peer has given us the chain, for at most `seconds`."""
        self._hold_until = now + seconds

    def holding(self, now: float) -> bool:
        """Whether posting is still held; HoldExpired once the hold is over with no peer."""
        if self._hold_until is None or self._mesh.caught_up():
            self._hold_until = None
            return False
        if now >= self._hold_until:
            raise HoldExpired(
                _(
                    "no peer gave us the chain in time; nothing was posted (run cfnet resume"
                    " again when a peer is back)"
                )
            )
        return True

    def notice(self, now: float) -> str | None:
        """Whom the table waits for and how that stands, once per wait, when it is time."""
        table = self._table
        awaited = None if table.awaited == table.me else table.awaited
        if (awaited, len(table.entries)) != self._wait:
            self._wait, self._since, self._said = (awaited, len(table.entries)), now, False
        if awaited is None or self._said or now < self._since + self._notice_after:
            return None
        self._said = True
        wait = self.current(now)
        who = _("seat {number} ({name})").format(
            number=digits(awaited), name=table.seats[awaited].name
        )
        if wait is None:
            return _("waiting for {name}").format(name=who)
        return waiting_text(who, wait.left, wait.link_down)

    def next_wakeup(self, now: float) -> float | None:
        """When something here, or the table's timer, next needs a look; None: nothing."""
        times = [self._table.get_timer()]
        if self._hold_until is not None:  # a peer's `sync` wakes nobody: look again soon
            times.append(min(self._hold_until, now + HOLD_POLL))
        if not self._said and self._wait[0] is not None:
            times.append(self._since + self._notice_after)
        found = [t for t in times if t is not None]
        return min(found) if found else None
