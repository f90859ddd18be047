"""The table browser: the tables mDNS finds, listed live; host one, join or watch the selected one
or one by address (`cfnet play`'s first screen)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from cfnet.disk.language import remember_language
from cfnet.errors import describe
from cfnet.game.bots import BOT_STRATEGIES
from cfnet.game.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptionError, RuleOptions
from cfnet.game.text import WIDTH, columns, escaped, fit, pad, rounds_text
from cfnet.lang import N_, _, digits, isolate_name, language, ngettext, pgettext
from cfnet.lang.catalog import set_language
from cfnet.lang.choice import choose, language_list
from cfnet.net.address import parse_host_port
from cfnet.net.discovery import Discovery, TableBrowser, TableInfo, check_name
from cfnet.protocol.wire import MAX_NAME_CHARS
from cfnet.ui.page import Page, Question, Terminal
from cfnet.ui.styles import Line, wrapped_line


@dataclass(frozen=True, slots=True)
class HostTable:
    """The person chose to host: the table's name, seats, rules, join code, computer players."""

    name: str
    seats: int
    rules: tuple[str, ...]
    code: str | None
    bots: int
    bot_strategy: str = "greedy"


@dataclass(frozen=True, slots=True)
class JoinTable:
    """The person chose a table: one the browser found, or an address; with its join code."""

    found: TableInfo | None
    address: tuple[str, int] | None
    code: str | None


@dataclass(frozen=True, slots=True)
class WatchTable:
    """The person chose to watch a listed table (with its join code, if it has one)."""

    found: TableInfo
    code: str | None


Choice = HostTable | JoinTable | WatchTable

BROWSER_KEYS = N_(
    "↑↓ select · Enter join · w watch · h host · c HOST:PORT · r refresh · l language · q quit"
)
KEY_LINES = (
    BROWSER_KEYS,
    N_("↑↓ · Enter join · w watch · h host · c HOST:PORT · l language · q quit"),
    N_("↑↓ · Enter join · w watch · h host · c HOST:PORT · q quit"),
)
"""The key reminder, longest first: the first that fits the terminal's width is shown."""
RULES_COLUMNS = 25  # the rules column, shown from WIDTH columns (else under the selected table)


def _number(text: str, low: int, high: int, what: str) -> int:
    if not text.isdecimal() or not low <= int(text) <= high:
        raise ValueError(
            _("{text!r}: {what} is a number from {low} to {high}").format(
                text=text, what=what, low=low, high=high
            )
        )
    return int(text)


class BrowserScreen(Page):
    """The tables on the LAN, updated live; `await run()` returns what the person chose (None:
    quit)."""

    def __init__(
        self,
        discovery: Discovery,
        player: str,
        terminal: Terminal,
        where: str = "",
        note: tuple[str, str] = ("", ""),
        home: Path | None = None,
    ) -> None:
        """`home`: the state directory, where a language chosen here is remembered."""
        super().__init__(terminal, refresh=0.25)  # the list follows mDNS as it changes
        self._discovery = discovery
        self.browser: TableBrowser = discovery.browse()
        self.player = player
        self.where = where
        self.home = home
        self.selected: str | None = None  # the selected table's mDNS instance name
        self.feedback = note
        self.choice: Choice | None = None
        self._form = HostTable("", 4, (), None, 0)  # the answers so far

    async def run(self) -> Choice | None:
        self.choice = None
        await self.app.run_async()
        return self.choice

    def tables(self) -> list[TableInfo]:
        """The tables listed, in the order shown."""
        return sorted(
            self.browser.tables.values(), key=lambda t: (t.name.casefold(), t.host, t.instance)
        )

    def _selection(self) -> tuple[list[TableInfo], int]:
        tables = self.tables()
        names = [t.instance for t in tables]
        if self.selected not in names:
            self.selected = names[0] if names else None
        return tables, names.index(self.selected) if self.selected in names else -1

    def title(self) -> str:
        if self.where:
            title = _("cfnet · tables on the LAN via {interface} · you are {name}")
        else:
            title = _("cfnet · tables on the LAN · you are {name}")
        return title.format(interface=self.where, name=isolate_name(self.player))

    def body(self, width: int = WIDTH) -> tuple[list[Line], int]:
        tables, chosen = self._selection()
        if not tables:
            lines = wrapped_line("", _("Looking for tables on the LAN… none seen yet."), width)
            lines.append([("", "")])
            help = _(
                "h: host a table here. c HOST:PORT: join a table by its address, where"
                " multicast does not reach (the host's screen shows it). l: choose the language."
            )
            return lines + wrapped_line("", help, width), 0
        wide = width >= WIDTH  # room for the rules column
        names = [escaped(table.name) for table in tables]
        fixed = len("▶  99  ") + len(" HOST        ") + len(" SEATS ") + len(" CODE")
        fixed += RULES_COLUMNS + 1 if wide else 0
        name_width = max(8, min(max(columns(name) for name in names), width - fixed))
        rules_head = pad(fit(pgettext("heading", "RULES"), RULES_COLUMNS), RULES_COLUMNS + 1)
        table_head = pad(fit(pgettext("heading", "TABLE"), name_width), name_width)
        host_head = pad(fit(pgettext("heading", "HOST"), 12), 12)
        seats_head = pad(fit(pgettext("heading", "SEATS"), 6), 6)
        code_head = fit(pgettext("heading", "CODE"), 5)
        head = (
            f"   {'#':>2}  {table_head} {host_head} {seats_head} {rules_head if wide else ''}"
            f"{code_head}"
        )
        rows: list[Line] = [[("class:title", head)]]
        namesakes = Counter(table.name for table in tables)
        coded = fit(pgettext("table has a join code", "yes"), 5)
        for i, (table, name) in enumerate(zip(tables, names, strict=True)):
            host = fit(escaped(table.host), 12)
            if namesakes[table.name] > 1:  # namesakes: told apart by their host keys
                host = f"{fit(escaped(table.host), 7)} {table.fingerprint[:4]}"
            about = pad(fit(self._about(table), RULES_COLUMNS), RULES_COLUMNS + 1) if wide else ""
            name = pad(fit(name, name_width), name_width)
            text = (
                f"{'▶' if i == chosen else ' '}  {i + 1:>2}  {name} "
                f"{pad(host, 12)} {pad(f'{digits(table.taken)}/{digits(table.seats)}', 6)} {about}"
                f"{coded if table.code else ''}"
            )
            styles = ["class:selected"] if i == chosen else []
            styles += ["class:more"] if table.incompatible else []  # dimmed: it cannot be joined
            rows.append([(" ".join(styles), text)])
        if 0 <= chosen < len(tables):
            table = tables[chosen]
            rows.append([("", "")])
            if not wide:
                rules = _("rules: {rules}").format(rules=self._about(table))
                rows += wrapped_line("", f"   {rules}", width, "   ")
            key = _("host key {key} at {address}:{port}").format(
                key=table.fingerprint, address=table.address, port=table.port
            )
            rows += wrapped_line("", f"   {key}", width, "   ")
            same = namesakes[table.name]
            answer = _("each seat has {time} to answer").format(time=table.timeout_text)
            if same > 1:
                answer = _(
                    "each seat has {time} to answer · {count} tables have this name: check the key"
                ).format(time=table.timeout_text, count=digits(same))
            rows += wrapped_line("", f"   {answer}", width, "   ")
        return rows, chosen + 1

    @staticmethod
    def _about(table: TableInfo) -> str:
        """A table's rules in a few words, or why this cfnet cannot join it."""
        if table.incompatible:
            return escaped(table.incompatible)
        blank = " 0-0=50" if table.rules.double_blank_50 else ""
        trains = table.rules.trains_needed(table.seats)
        about = ngettext("{rounds}, {count} train", "{rounds}, {count} trains", trains)
        return about.format(rounds=rounds_text(table.rules.rounds), count=digits(trains)) + blank

    def toolbar(self, width: int = WIDTH) -> str:
        if self.question is not None:
            return _("Enter: the default in [brackets] · Esc: cancel")
        lines = [_(keys) for keys in KEY_LINES]
        return next((keys for keys in lines if columns(keys) <= width), lines[-1])

    def more_keys(self, keys: KeyBindings) -> None:
        @keys.add("up")
        def _up(event: KeyPressEvent) -> None:
            self._move(-1)

        @keys.add("down")
        def _down(event: KeyPressEvent) -> None:
            self._move(1)

    def _move(self, step: int) -> None:
        tables, chosen = self._selection()
        if tables:
            self.selected = tables[max(0, min(len(tables) - 1, chosen + step))].instance

    def cancel(self) -> None:
        self.app.exit()

    def command(self, text: str) -> None:
        words = text.split()
        word = words[0].lower() if words else "join"
        rest = words[1:]
        if word in ("q", "quit", "exit"):
            self.app.exit()
        elif word in ("j", "join") or word.isdecimal():
            self._join_listed(int(word) if word.isdecimal() else None)
        elif word in ("w", "watch"):
            self._watch_listed()
        elif word in ("h", "host"):
            self._ask_host()
        elif word in ("c", "connect"):
            if rest:
                self._connect(" ".join(rest))
            else:
                self.ask(Question(_("Address (HOST:PORT)"), self._connect))
        elif word in ("r", "refresh"):
            self.browser = self._discovery.browse()
            self.info(_("Looking again: the list fills as tables answer."))
        elif word in ("l", "language"):
            if rest:
                self._choose_language(rest[0])
            else:
                self.ask(
                    Question(
                        _("Language [{code}]").format(code=language().code),
                        self._choose_language,
                        language().code,
                        _("One of {languages}.").format(languages=language_list()),
                    )
                )
        elif word in ("?", "help"):
            self.info(_("Keys: {keys}. A number joins that table.").format(keys=_(BROWSER_KEYS)))
        else:
            self.error(
                _("{text!r} is not a command here: {keys}").format(text=text, keys=_(BROWSER_KEYS))
            )

    def _join_listed(self, number: int | None) -> None:
        tables, chosen = self._selection()
        if not tables:
            self.error(_("no table is listed yet: host one (h), or join by address (c HOST:PORT)"))
            return
        index = chosen if number is None else number - 1
        if not 0 <= index < len(tables):
            self.error(
                _("there is no table {number}: choose 1 to {count}").format(
                    number=number, count=len(tables)
                )
            )
            return
        table = tables[index]
        self.selected = table.instance
        if table.refusal is not None:
            self.error(table.refusal)
        elif table.free <= 0:
            self.error(
                _("table {name!r} is full: choose another, or host one").format(name=table.name)
            )
        elif table.code:
            self.ask(
                Question(
                    _("Join code for '{name}'").format(name=fit(escaped(table.name), 30)),
                    lambda code: self._choose(JoinTable(table, None, _code(code, True))),
                    secret=True,
                    note=_("This table lets in only those who know its code: ask its host."),
                )
            )
        else:
            self._choose(JoinTable(table, None, None))

    def _watch_listed(self) -> None:
        """Watch the selected table (cfnet watch), asking its join code if it has one."""
        tables, chosen = self._selection()
        if not 0 <= chosen < len(tables):
            self.error(_("no table is listed yet: there is nothing to watch"))
            return
        table = tables[chosen]
        if table.refusal is not None:
            self.error(table.refusal)
        elif table.code:
            self.ask(
                Question(
                    _("Join code to watch '{name}'").format(name=fit(escaped(table.name), 24)),
                    lambda code: self._choose(WatchTable(table, _code(code, True))),
                    secret=True,
                    note=_("This table lets in only those who know its code, watchers too."),
                )
            )
        else:
            self._choose(WatchTable(table, None))

    def _connect(self, text: str) -> None:
        address = parse_host_port(text)
        self.ask(
            Question(
                _("Join code [none]"),
                lambda code: self._choose(JoinTable(None, address, _code(code, False))),
                secret=True,
                note=_("Joining {host}:{port}: type the table's join code, if any.").format(
                    host=address[0], port=address[1]
                ),
            )
        )

    def _choose_language(self, code: str) -> None:
        """Speak the language `code` names from now on, and remember it in the state directory
        for the next start; UnknownLanguageError (a ValueError) lists the languages."""
        chosen = choose(code, None, {})
        set_language(chosen)
        if self.home is not None:
            remember_language(self.home, chosen.code)
        self.info(
            _("cfnet speaks {language} now, and will when it starts again.").format(
                language=chosen.name
            )
        )

    def _choose(self, choice: Choice) -> None:
        self.choice = choice
        self.app.exit()

    # -- hosting: five questions, each with a default

    def _ask_host(self) -> None:
        default = _("{name}'s table").format(name=self.player)[:MAX_NAME_CHARS].strip()
        self.ask(Question(_("Table name [{name}]").format(name=default), self._host_name, default))

    def _host_name(self, text: str) -> None:
        self._form = replace(self._form, name=check_name(text))
        self.ask(
            Question(
                _("Seats, {low} to {high} [4]").format(low=MIN_PLAYERS, high=MAX_PLAYERS),
                self._host_seats,
                "4",
                _("How many players, you included."),
            )
        )

    def _host_seats(self, text: str) -> None:
        seats = _number(text, MIN_PLAYERS, MAX_PLAYERS, _("seats"))
        self._form = replace(self._form, seats=seats)
        default = RuleOptions().describe()
        self.ask(
            Question(
                _("Rules [defaults]"),
                self._host_rules,
                "",
                _(
                    "NAME=VALUE ...: rounds=1..10; start_trains=N..8, the trains the centre needs"
                    " before other plays, where N is the number of players ({seats} here);"
                    " double_blank_50=on|off. Enter: {rules}"
                ).format(seats=self._form.seats, rules=default),
            )
        )

    def _host_rules(self, text: str) -> None:
        options = RuleOptions()
        try:
            for item in text.split():
                options = options.with_assignment(item)
            options.check(self._form.seats)
        except RuleOptionError as exc:
            raise ValueError(describe(exc)) from None
        self._form = replace(self._form, rules=tuple(text.split()))
        self.ask(
            Question(
                _("Join code [none]"),
                self._host_code,
                note=_("Only players who type this code may sit (it is never sent). Enter: none."),
            )
        )

    def _host_code(self, text: str) -> None:
        self._form = replace(self._form, code=_code(text, False))
        self.ask(
            Question(
                _("Computer players, 0 to {high} [0]").format(high=self._form.seats - 1),
                self._host_bots,
                "0",
                _(
                    "They sit at once; more can be added in the lobby. A strategy may follow: "
                    "2 expert ({strategies}; default greedy)."
                ).format(strategies=", ".join(BOT_STRATEGIES)),
            )
        )

    def _host_bots(self, text: str) -> None:
        bots, strategy = computer_players(text, self._form.seats - 1)
        self._choose(replace(self._form, bots=bots, bot_strategy=strategy))


def computer_players(text: str, most: int) -> tuple[int, str]:
    """Read the host form's answer `K [STRATEGY]` (0..`most` players, default greedy);
    ValueError says what is allowed."""
    count, _space, strategy = text.strip().partition(" ")
    bots = _number(count or "0", 0, most, _("computer players"))
    strategy = strategy.strip().lower() or "greedy"
    if strategy not in BOT_STRATEGIES:
        raise ValueError(
            _("{strategy!r}: a computer player is one of {strategies}").format(
                strategy=strategy, strategies=", ".join(BOT_STRATEGIES)
            )
        )
    return bots, strategy


def _code(text: str, required: bool) -> str | None:
    code = text.strip()
    if not code and required:
        raise ValueError(_("this table needs its join code: ask its host (Esc: cancel)"))
    return code or None
