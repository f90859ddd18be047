"""A computer seat's output (`cfnet host|join|bot|resume --strategy S`): plain lines on
stdout, one per lobby sentence, roster and game event, for a person reading a log or a script."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from cfnet.game.text import round_start, seat_name, shown_sentence
from cfnet.lang import _, ngettext, word_list
from cfnet.lang.formatting import native_digits
from cfnet.net.lobby import LobbyEvent, Seating
from cfnet.net.roster import Roster
from cfnet.protocol.events import GameOver, RoundScored, RoundStarted
from cfnet.seat.net_game import NetGame
from cfnet.seat.seating import AddBot
from cfnet.seat.session import GameAborted, GameLeft, Notice, SessionEvent


def say(text: str) -> None:
    """Print `text`, a sentence that may quote a peer (a name, an abort's detail): escaped."""
    print(shown_sentence(text), flush=True)


class PlainLines:
    """The `Front` of a computer seat: it prints what happens and plays without a screen."""

    def say(self, text: str) -> None:
        say(text)

    def lobby(self, event: LobbyEvent) -> None:
        """Each roster as it changes, one line a seat (the host's opening says seat 0)."""
        if isinstance(event, Roster):
            for line in event.lines():
                say(line)

    async def seat(
        self,
        seating: Awaitable[Seating],
        add_bot: AddBot | None,
        me: bytes,
        bots: Sequence[bytes] = (),
    ) -> Seating:
        return await seating

    def follow(self, game: NetGame, event: SessionEvent) -> None:
        for line in game_lines(game, event):
            say(line)

    async def play(self, game: NetGame) -> int:
        return await game.run()


def game_lines(game: NetGame, event: SessionEvent) -> list[str]:
    """What a computer seat prints of `event` in `game`: round starts and scores, faults,
    whom it waits for, the end (with where the log is, and that it verified)."""

    def who(seat: int) -> str:
        name = seat_name(game.names, seat)
        return _("seat {number} ({name})").format(number=native_digits(str(seat)), name=name)

    count = len(game.table.entries)
    saved = ngettext(
        "log saved: {file} ({count} entry)", "log saved: {file} ({count} entries)", count
    ).format(file=game.log_path, count=native_digits(str(count)))
    if isinstance(event, RoundStarted):
        return [round_start(event.round_number, who(event.starter))]
    if isinstance(event, RoundScored):
        number = native_digits(str(event.round_number))
        scores, totals = (
            native_digits(str(list(event.scores))),
            native_digits(str(list(event.totals))),
        )
        scored = _("round {number}: scores {scores}, totals {totals}")
        return [scored.format(number=number, scores=scores, totals=totals)]
    if isinstance(event, Notice):
        return [_("fault: {text}").format(text=event.text) if event.fault else event.text]
    if isinstance(event, GameLeft):
        return [event.reason, saved]
    if isinstance(event, GameAborted):
        if event.failure is not None:
            return [_("stopped: {reason}").format(reason=event.failure)]
        return [_("game aborted: {reason}").format(reason=event.reason), saved]
    if isinstance(event, GameOver):
        over = ngettext(
            "game over: totals {totals}; winner: {names}",
            "game over: totals {totals}; winners: {names}",
            len(event.winners),
        )
        winners = word_list([who(s) for s in event.winners])
        verified = (
            _(
                "verified: the log is a complete, valid game (every signature, shuffle, key,"
                " move and round audit checked as it came)"
            )
            if game.table.game.is_over
            else _(
                "verified: the log is an early-ended, valid game (every signature, shuffle,"
                " key, move and round audit checked as it came)"
            )
        )
        totals = native_digits(str(list(event.totals)))
        return [over.format(totals=totals, names=winners), saved, verified]
    return []
