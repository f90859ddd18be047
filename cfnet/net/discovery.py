"""mDNS discovery of tables (`_cfnet._tcp.local.`, or $CFNET_MDNS_SERVICE) with zeroconf's
asyncio API.

One `Discovery` per process owns the one AsyncZeroconf (created inside the running loop); it
advertises our tables and browses for others. Browser callbacks never block: each resolve runs
in its own task. Our own entries are skipped. A crashed host's record lingers until its TTL
expires, so liveness comes from TCP links, not from what is listed here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from zeroconf import (
    DNSQuestionType,
    IPVersion,
    RecordUpdate,
    RecordUpdateListener,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf._dns import DNSText  # zeroconf's TXT record class (not in its __all__)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from cfnet.deck.derive import TABLE_ID_BYTES
from cfnet.errors import LocalProtocolError, UsageError, describe
from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptionError, RuleOptions
from cfnet.lang import N_, Sentence, _, digits, ngettext, said
from cfnet.net import NET_VERSION
from cfnet.protocol.wire import MAX_TIMEOUT, check_display_name

log = logging.getLogger("cfnet.net")

SERVICE_TYPE = "_cfnet._tcp.local."
SERVICE_ENV = "CFNET_MDNS_SERVICE"
"""A service type to use instead of SERVICE_TYPE: the test suite sets its own, so that the
tables it makes up never appear in a person's browser on the same machine."""
_SERVICE = re.compile(r"_[A-Za-z0-9](?:[A-Za-z0-9-]{0,13}[A-Za-z0-9])?\._tcp\.local\.\Z")
MAX_NAME_BYTES = 40  # a DNS label and the `host` TXT value are cut to this (fit_name)
RESOLVE_TIMEOUT_MS = 3000
QUESTION_TYPE = DNSQuestionType.QM
"""How every question is asked: for a multicast answer. A question that asks for a unicast
answer (QU) is answered to port 5353 of the asking host, where a host with several mDNS
sockets (a host and its computer players, the system's own responder) has it read by one of
them only, often not the asker (RFC 6762, section 15.1)."""
SAME_NAME_SETTLE = 1.0
"""Once a table of the name looked for is seen, how long to look further for namesakes."""
NAMESAKE_LOOK = 1.5
"""How long after this process began listening for mDNS a look for namesakes lasts at least.
What was multicast since then was heard (and cached); a responder that multicast a record
before, in the last second, answers a question for it a second later (RFC 6762, section 14):
with zeroconf's delays (the first question 20-120 ms after a browse begins, such an answer
1.0-1.2 s after it), up to 1.32 s after listening began if browsing began with it."""
ANNOUNCE_AGAIN = 1.0
"""Seconds after an announcement's first packet that it is multicast once more, after
zeroconf's two repeats 225 ms apart: RFC 6762 8.3 spaces announcements one second apart, and a
zeroconf receiver drops a packet it first saw less than 0.8 s before, so when a TXT value
returns within that time (a guest joins and leaves) only this last packet is heard."""
LABEL_DOT = "\u2024"  # ONE DOT LEADER: stands for "." in an instance label (RFC 6763 4.3)
_FINGERPRINT = re.compile(r"[a-z2-7]{4}(-[a-z2-7]{4}){3}\Z")


def service_type(environ: Mapping[str, str] = os.environ) -> str:
    """The mDNS service type tables are announced and looked for under: $CFNET_MDNS_SERVICE if
    set, else SERVICE_TYPE; UsageError if it is not an RFC 6763 service type over TCP."""
    chosen = environ.get(SERVICE_ENV) or SERVICE_TYPE
    if not _SERVICE.match(chosen):
        raise UsageError(
            _(
                "{variable}={value!r} is not a service type: give one such as"
                " _cfnet-test._tcp.local. (an underscore, 1 to 15 letters, digits or hyphens)"
            ).format(variable=SERVICE_ENV, value=chosen)
        )
    return chosen


def fingerprint_text(text: str) -> str:
    """A whole key fingerprint as typed (any case, with or without its dashes), written as
    `fingerprint` writes it; LocalProtocolError if it is not one."""
    bare = text.strip().replace("-", "").lower()
    written = "-".join(bare[i : i + 4] for i in range(0, 16, 4))
    if len(bare) != 16 or _FINGERPRINT.match(written) is None:
        raise LocalProtocolError(
            _(
                "{text!r} is not a key fingerprint: give all 16 letters and digits of the host's"
                " key as its screen shows them (four groups of four, such as abcd-efgh-ijkl-mn23)"
            ).format(text=text)
        )
    return written


def namesakes(name: str, tables: Sequence[TableInfo], choose: str) -> str:
    """Why a table named `name` is not chosen among `tables` of that name with different host
    keys, and how to choose (`choose`: the options that do)."""
    listed = "; ".join(table.where for table in tables)
    return ngettext(
        "{count} table is named {name!r}: {tables}; choose one with {options} (a listing is"
        " not proof: the host's key is checked when you link to it)",
        "{count} tables are named {name!r}: {tables}; choose one with {options} (a listing is"
        " not proof: the host's key is checked when you link to it)",
        len(tables),
    ).format(count=len(tables), name=name, tables=listed, options=choose)


class TxtError(ValueError):
    """A TXT record that is not a well-formed cfnet table advertisement."""


def fit_name(name: str, limit: int = MAX_NAME_BYTES) -> str:
    """`name` cut to at most `limit` UTF-8 bytes at a character boundary, "…" marking a cut."""
    if len(name.encode("utf-8")) <= limit:
        return name
    cut = name.encode("utf-8")[: limit - len("…".encode())].decode("utf-8", "ignore")
    return cut.rstrip() + "…"


def check_name(name: str, what: str = N_("table name")) -> str:
    """`name` stripped, if the genesis takes it as a name (`check_display_name`: 1..40
    printable characters); else LocalProtocolError saying so."""
    try:
        return check_display_name(name.strip(), what)
    except ValueError as exc:
        raise LocalProtocolError(exc.args[0]) from None


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What a table advertises, plus where it was found (`address`, `port`)."""

    name: str
    table_id: bytes
    host: str
    fingerprint: str
    rules: RuleOptions
    seats: int
    taken: int
    code: bool
    address: str = ""
    port: int = 0
    version: int = NET_VERSION
    timeout: int | None = None  # seconds a seat may take to answer; None: not advertised

    @property
    def free(self) -> int:
        return self.seats - self.taken

    @property
    def incompatible(self) -> str | None:
        """Why this cfnet cannot join the table (another network version), or None."""
        if self.version == NET_VERSION:
            return None
        return Sentence(N_("needs cfnet protocol v{version}"), version=str(self.version))

    @property
    def refusal(self) -> str | None:
        """Why a person cannot join this table and what to do instead, or None."""
        if self.incompatible is None:
            return None
        return _(
            "table {name!r} {reason} and this cfnet speaks v{version}: it cannot be joined"
            " (update cfnet, or choose another table)"
        ).format(name=self.name, reason=said(self.incompatible), version=NET_VERSION)

    @property
    def timeout_text(self) -> str:
        """The table's timeout as shown in the language in effect ("120 s", "۱۲۰ ثانیه"; "?"
        when not advertised)."""
        return (
            "?" if self.timeout is None else _("{seconds} s").format(seconds=digits(self.timeout))
        )

    @property
    def where(self) -> str:
        """One line telling this table from another of the same name: address, host, key."""
        return _("{address}:{port} (host {host}, key {key})").format(
            address=self.address, port=self.port, host=self.host, key=self.fingerprint
        )

    @property
    def label(self) -> str:
        """The instance label: one DNS label, the table name (each "." replaced by LABEL_DOT)
        and the start of the table id."""
        return f"{fit_name(self.name.replace('.', LABEL_DOT))} [{self.table_id.hex()[:12]}]"

    @property
    def instance(self) -> str:
        """The unique mDNS instance name: the label, then the service type in use."""
        return f"{self.label}.{service_type()}"

    def to_txt(self) -> dict[str, str]:
        """The TXT properties (every value far below 255 bytes); a host player name over 40
        UTF-8 bytes (it may have 40 characters) is cut to fit."""
        return {
            "v": str(self.version),
            "name": self.name,
            "id": self.table_id.hex(),
            "host": fit_name(self.host),
            "fp": self.fingerprint,
            "rules": self.rules.describe(),
            "seats": f"{self.taken}/{self.seats}",
            "code": "1" if self.code else "0",
        } | ({} if self.timeout is None else {"timeout": str(self.timeout)})

    @classmethod
    def from_txt(cls, txt: Mapping[bytes, bytes | None], address: str, port: int) -> TableInfo:
        """The table in a resolved TXT record (keys matched case-insensitively, the first of a
        repeated key counts); `TxtError` naming the key that is missing or wrong."""
        fields: dict[str, str] = {}
        for key, value in txt.items():
            try:
                fields.setdefault(key.decode("ascii").lower(), (value or b"").decode("utf-8"))
            except UnicodeError:
                raise TxtError(
                    _("TXT key {key!r}: not ASCII, or its value not UTF-8").format(key=key[:40])
                ) from None

        def field(key: str, parse: Callable[[str], Any], ok: Callable[[Any], bool]) -> Any:
            if key not in fields:
                raise TxtError(_("no TXT key {key!r}").format(key=key))
            try:
                value = parse(fields[key])
            except (ValueError, LocalProtocolError) as exc:
                raise TxtError(f"TXT {key}={fields[key][:60]!r}: {describe(exc)}") from None
            if not ok(value):
                out = _("TXT {key}={value!r} is out of range")
                raise TxtError(out.format(key=key, value=fields[key][:60]))
            return value

        def seat_counts(text: str) -> tuple[int, int]:
            taken, seats = (int(x) for x in text.split("/"))
            return taken, seats

        version = field("v", int, lambda v: v >= 1)
        name = field("name", check_name, bool)
        table_id = field("id", bytes.fromhex, lambda b: len(b) == TABLE_ID_BYTES)
        host = field("host", lambda text: check_name(text, N_("host name")), bool)
        fp = field("fp", str, lambda text: _FINGERPRINT.match(text) is not None)
        taken, seats = field(
            "seats", seat_counts, lambda c: MIN_PLAYERS <= c[1] <= MAX_PLAYERS and 0 <= c[0] <= c[1]
        )
        rules = field("rules", lambda text: parse_rules(text, seats), bool)
        code = field("code", lambda text: text == "1", lambda c: fields["code"] in ("0", "1"))
        timeout = None
        if "timeout" in fields:
            timeout = field("timeout", int, lambda t: 1 <= t <= MAX_TIMEOUT)
        return cls(
            name, table_id, host, fp, rules, seats, taken, code, address, port, version, timeout
        )


def parse_rules(text: str, seats: int | None = None) -> RuleOptions:
    """The inverse of `RuleOptions.describe()` (ValueError if not; with `seats`, also if the
    rules cannot be played at that many seats)."""
    rules = RuleOptions()
    for item in text.split():
        if item == "start_trains=N":
            rules = replace(rules, start_trains=None)
        else:
            try:
                rules = rules.with_assignment(item)
            except RuleOptionError as exc:
                raise ValueError(str(exc)) from None
    if seats is not None:
        rules.check(seats)  # RuleOptionError is a ValueError
    return rules


def txt_properties(text: bytes) -> dict[bytes, bytes | None]:
    """The key/value pairs of a TXT record's wire data, keys in lower case (RFC 6763 6.3-6.4:
    keys are case-insensitive, the first of a repeated key counts; a key without "=" has no
    value)."""
    properties: dict[bytes, bytes | None] = {}
    pos = 0
    while pos < len(text):
        item = text[pos + 1 : pos + 1 + text[pos]]
        pos += 1 + text[pos]
        key, sep, value = item.partition(b"=")
        properties.setdefault(key.lower(), value if sep else None)
    return properties


class TableBrowser(RecordUpdateListener):
    """The tables seen so far (`tables`, by instance name; `skipped`: the advertisements not
    listed, with the reason); `wait_for` awaits a matching one.

    Each table's TXT is the last one received for its name: zeroconf's browser reports no
    change when a TXT returns to a value it still has cached (a join then a leave within a
    second), so every TXT record received is also listened to here."""

    def __init__(
        self, zc: AsyncZeroconf, skip: Callable[[str], bool], service: str, listening: float
    ) -> None:
        self.tables: dict[str, TableInfo] = {}
        self.skipped: dict[str, str] = {}  # instance name -> why it is not listed
        self._zc = zc
        self._skip = skip
        self._service = service
        self._txt: dict[str, bytes] = {}  # by lower-case name: the last TXT received
        self._changed = asyncio.Condition()
        self._tasks: set[asyncio.Task[None]] = set()
        zc.zeroconf.async_add_listener(self, None)
        self._listening = listening  # the loop's time when the process began listening
        self._browser = AsyncServiceBrowser(
            zc.zeroconf, service, handlers=[self._on_change], question_type=QUESTION_TYPE
        )

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        """zeroconf's call for every record received: note our tables' TXT; re-resolve a
        listed table whose TXT differs from the last one."""
        for update in records:
            record = update.new
            key = record.key
            if (
                not isinstance(record, DNSText)
                or record.is_expired(now)
                or not key.endswith("." + self._service.lower())
                or self._skip(record.name)
                or self._txt.get(key) == record.text
            ):
                continue
            self._txt[key] = record.text
            listed = [name for name in self.tables if name.lower() == key]
            for name in listed:
                self._start(self._resolve(name))

    def _on_change(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if self._skip(name):
            return
        if state_change is ServiceStateChange.Removed:
            self._start(self._forget(name))
        else:
            self._start(self._resolve(name))

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _forget(self, name: str) -> None:
        async with self._changed:
            self.tables.pop(name, None)
            self.skipped.pop(name, None)
            self._txt.pop(name.lower(), None)
            self._changed.notify_all()

    async def _resolve(self, name: str) -> None:
        info = AsyncServiceInfo(self._service, name)
        if not await info.async_request(self._zc.zeroconf, RESOLVE_TIMEOUT_MS, QUESTION_TYPE):
            self._skipped(name, f"no SRV/TXT answer within {RESOLVE_TIMEOUT_MS / 1000:g} s")
            return
        addresses = info.parsed_addresses(IPVersion.V4Only)
        if not addresses or info.port is None:
            self._skipped(name, "no IPv4 address or port")
            return
        text = self._txt.get(name.lower())  # the cache may hold older TXT values too
        properties = info.properties if text is None else txt_properties(text)
        try:
            table = TableInfo.from_txt(properties, addresses[0], info.port)
        except TxtError as exc:
            self._skipped(name, str(exc))
            return
        self.skipped.pop(name, None)
        async with self._changed:
            if self.tables.get(name) != table:
                self.tables[name] = table
                self._changed.notify_all()

    def _skipped(self, name: str, reason: str) -> None:
        log.debug("skipping %s: %s", name, reason)
        self.skipped[name] = reason

    async def wait_for(self, predicate: Callable[[TableInfo], bool], timeout: float) -> TableInfo:
        """The first table seen for which `predicate` holds; TimeoutError after `timeout` s."""
        async with asyncio.timeout(timeout), self._changed:
            while True:
                for table in self.tables.values():
                    if predicate(table):
                        return table
                await self._changed.wait()

    def namesake_wait(self) -> float:
        """How long to look further for namesakes of a table just seen: SAME_NAME_SETTLE s,
        or until NAMESAKE_LOOK s after the process began listening if that is later."""
        since = asyncio.get_running_loop().time() - self._listening
        return max(SAME_NAME_SETTLE, NAMESAKE_LOOK - since)

    async def wait_gone(self, table_id: bytes, timeout: float) -> None:
        """Return once no table with `table_id` is listed; TimeoutError after `timeout` s."""
        async with asyncio.timeout(timeout), self._changed:
            while any(t.table_id == table_id for t in self.tables.values()):
                await self._changed.wait()

    async def cancel(self) -> None:
        """Stop browsing and resolving."""
        self._zc.zeroconf.async_remove_listener(self)
        await self._browser.async_cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class _SocketTrouble(logging.Filter):
    """zeroconf's report of a socket error (the network went down, an interface went away),
    which it logs with a traceback, as one line in cfnet's words."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, OSError):
            record.msg = "mDNS cannot use the network now (%s): tables are seen once it is back"
            record.args = (describe(error),)
            record.exc_info = record.exc_text = None
        return True


_SOCKET_TROUBLE = _SocketTrouble()


class Discovery:
    """The process's one AsyncZeroconf; use `async with Discovery(interface) as d:`.

    `interface` is an IPv4 address to bind mDNS to (tests: "127.0.0.1"); None means all. Tables
    are announced and looked for under `service_type()`. zeroconf's socket errors are logged in
    one line (`_SocketTrouble`), never a traceback.
    """

    def __init__(self, interface: str | None = None) -> None:
        self._interface = interface
        self.service = service_type()
        self._zc: AsyncZeroconf | None = None
        self._advertised: dict[bytes, AsyncServiceInfo] = {}
        self._repeats: dict[bytes, asyncio.Task[None]] = {}  # the last announcement's repeats
        self._browsers: list[TableBrowser] = []
        self._listening = 0.0  # the loop's time when the mDNS sockets joined the group

    async def __aenter__(self) -> Discovery:
        logging.getLogger("zeroconf").addFilter(_SOCKET_TROUBLE)  # once: filters are a set
        interfaces: Any = [self._interface] if self._interface else None
        if interfaces is None:
            self._zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
        else:
            self._zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        # From here the kernel keeps what is multicast for the sockets, even while the loop is
        # busy: zeroconf reads and caches it, and a browser begun later starts from the cache.
        self._listening = asyncio.get_running_loop().time()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def zc(self) -> AsyncZeroconf:
        if self._zc is None:
            raise LocalProtocolError("Discovery used outside `async with`")  # untranslated: a bug
        return self._zc

    def _service(self, table: TableInfo, addresses: list[str]) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            self.service,
            f"{table.label}.{self.service}",
            port=table.port,
            properties=table.to_txt(),
            parsed_addresses=addresses,
            server=f"cfnet-{table.table_id.hex()[:16]}.local.",
        )

    async def advertise(self, table: TableInfo, addresses: list[str]) -> None:
        """Announce `table` (listening on `table.port` at `addresses`) until withdrawn. The first
        announcement is sent when this returns, and the table answers questions from then on;
        it is repeated twice over the next 0.45 s and once more a second after it while the
        caller goes on."""
        info = self._service(table, addresses)
        # No probing (saves ~1 s): the instance and host names embed the random table id,
        # so they are unique by construction.
        announcing = await self.zc.async_register_service(info, cooperating_responders=True)
        self._repeat(table.table_id, info, announcing)
        await asyncio.sleep(0)  # zeroconf's task sends the first announcement before it sleeps

    async def update(self, table: TableInfo, addresses: list[str]) -> None:
        """Re-announce an advertised table with new TXT data (e.g. free seats). The caller
        goes on at once (a lobby reads its joiners meanwhile): the announcement is repeated
        twice over the next 0.45 s and once more a second after it, until a later update or
        withdrawal."""
        info = self._service(table, addresses)
        self._stop_repeats(table.table_id)
        self._repeat(table.table_id, info, await self.zc.async_update_service(info))

    def _repeat(self, table_id: bytes, info: AsyncServiceInfo, announcing: Awaitable[Any]) -> None:
        """`table_id` is advertised as `info`, whose announcement zeroconf makes and repeats in
        `announcing` (begun now); multicast it once more ANNOUNCE_AGAIN s from now."""
        self._advertised[table_id] = info
        zeroconf = self.zc.zeroconf
        again_at = asyncio.get_running_loop().time() + ANNOUNCE_AGAIN

        async def repeats() -> None:
            await announcing
            await asyncio.sleep(again_at - asyncio.get_running_loop().time())
            zeroconf.async_send(zeroconf.generate_service_broadcast(info, None))

        self._repeats[table_id] = asyncio.create_task(repeats())

    def _stop_repeats(self, table_id: bytes) -> None:
        """No more repeats of `table_id`'s last announcement: they would announce it as it was."""
        repeats = self._repeats.pop(table_id, None)
        if repeats is not None:
            repeats.cancel()

    async def withdraw(self, table_id: bytes) -> None:
        """Stop advertising a table (sends goodbye packets)."""
        self._stop_repeats(table_id)
        info = self._advertised.pop(table_id, None)
        if info is not None:
            await (await self.zc.async_unregister_service(info))

    def _is_own(self, name: str) -> bool:
        return any(info.name == name for info in self._advertised.values())

    def browse(self) -> TableBrowser:
        """Start browsing for tables other than our own."""
        browser = TableBrowser(self.zc, self._is_own, self.service, self._listening)
        self._browsers.append(browser)
        return browser

    async def close(self) -> None:
        """Cancel browsers, withdraw our tables, close zeroconf."""
        if self._zc is None:
            return
        for browser in self._browsers:
            await browser.cancel()
        self._browsers.clear()
        await asyncio.gather(*(self.withdraw(table_id) for table_id in list(self._advertised)))
        await self._zc.async_close()
        self._zc = None
