"""A player who leaves and comes back with `cfnet resume` is dealt in at the next round that
starts, every time. Three seats in this process over real TCP links on 127.0.0.1 (the network
driver, the store, the real crypto): one leaves in each round but the last (its resignation
posted at its first setup entry, or in its turns), and each time the process that left ends
and `cfnet resume`'s own code brings it back while the others deal that round again and play
it; resumed the last time as a person who then does nothing, it is timed out, and that is
final too. And, table by table, a request taken at any step of a deal, its setup included."""

from __future__ import annotations

import asyncio
import copy
import os
import re
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lan_helpers import LOOPBACK, cfnet_verify

from cfnet.disk.store import TableMeta, TableStore
from cfnet.game.bots import make_bot
from cfnet.game.rules import RuleOptions
from cfnet.net.lobby import LobbyEvent, Seating
from cfnet.protocol.events import GameOver, RoundStarted, SeatReturned
from cfnet.protocol.genesis import SeatInfo, make_genesis
from cfnet.protocol.local_seat import LocalSeat
from cfnet.protocol.schedule import Step
from cfnet.protocol.table import Table
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.wire import RESIGN, TURN_KINDS
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log
from cfnet.seat.config import PeerConfig
from cfnet.seat.net_game import NO_RESULT_EXIT, NetGame
from cfnet.seat.resume import _resume
from cfnet.seat.seating import AddBot
from cfnet.seat.session import GameLeft, Notice, SessionEvent

ROUNDS = 6
RETURNER = 2
IDLE_IN = ROUNDS - 1  # back in this round, the returner is a person who no longer plays
TIMEOUT = 12  # the table's: honest seats, starved on a busy 2-core machine, still answer
BACK = re.compile(rf"seat {RETURNER} \(\S+\) is back: dealt in from round (\d+)")


@dataclass
class Returner:
    """The `Front` of the seat that comes and goes: a computer seat, it resigns in each round
    it is dealt into (at its first setup entry in odd rounds, in its turns in even ones); the
    last time it is resumed, it is a person who does nothing, and is timed out. It notes, each
    time it asks to be dealt in again, the rounds that may deal it in by then, from what a
    peer's table shows: the round after the one under way, or, once that round's certificates
    are being posted, one round later at most."""

    peer: NetGame
    left_in: list[int] = field(default_factory=list)
    may_be_back_at: list[tuple[int, ...]] = field(default_factory=list)
    back_at: list[int] = field(default_factory=list)
    playing: bool = False  # not while a resumed seat replays its saved entries
    timed_out: bool = False  # the idle person was timed out: it is gone for good

    def say(self, text: str) -> None:
        """Nothing to say: the test reads the notes."""

    def lobby(self, event: LobbyEvent) -> None:
        """No lobby: the table is seated already."""

    async def seat(
        self,
        seating: Awaitable[Seating],
        add_bot: AddBot | None,
        me: bytes,
        bots: Sequence[bytes] = (),
    ) -> Seating:
        return await seating

    def follow(self, game: NetGame, event: SessionEvent) -> None:
        if not self.playing:
            return
        if isinstance(event, GameLeft) and event.how == "were timed out of":
            self.timed_out = True
        if isinstance(event, Notice) and event.text.startswith("asking to be dealt in again"):
            under_way = self.peer.table.round
            assert under_way is not None
            late = self.peer.table.step is Step.CERTIFY
            rounds = (under_way.number + 1, under_way.number + 2)
            self.may_be_back_at.append(rounds if late else rounds[:1])
        back = BACK.search(event.text) if isinstance(event, Notice) else None
        if back is not None:
            self.back_at.append(int(back[1]))
            if int(back[1]) % 2 == 1:
                self._leave(game, int(back[1]))
        elif isinstance(event, RoundStarted) and (event.round_number % 2 == 0 or not self.left_in):
            self._leave(game, event.round_number)

    def _leave(self, game: NetGame, round_number: int) -> None:
        """A computer seat resigns in `round_number` if dealt into it, once."""
        table = game.table
        if game.player is not None and round_number not in self.left_in and not table.departed:
            self.left_in.append(round_number)
            assert game.resign()

    async def play(self, game: NetGame) -> int:
        self.playing = True
        try:
            return await game.run()
        finally:
            self.playing = False


async def _game(tmp_path: Path) -> tuple[list[NetGame], list[int], Returner]:
    identities = [Identity.generate() for _ in range(3)]
    infos = [SeatInfo(f"p{seat}", identity.public) for seat, identity in enumerate(identities)]
    options = RuleOptions(rounds=ROUNDS)
    genesis = make_genesis(identities[0], os.urandom(16), "returns", options, infos, TIMEOUT).wire
    games: list[NetGame] = []
    for seat, identity in enumerate(identities):
        table = Table(genesis, LocalSeat(identity, seat), time.monotonic())
        meta = TableMeta(table.table_id, table.name, seat, 3, options, strategy="greedy")
        store = TableStore.create(tmp_path / f"p{seat}", meta)
        store.append(table.entries[0])
        player = make_bot("greedy", seat) if seat == RETURNER else None  # the others: below
        games.append(NetGame(identity, table, store, player=player))
    returner = Returner(games[0])
    games[RETURNER]._follow = returner.follow
    ports = [await game.listen(LOOPBACK) for game in games]
    addresses = {seat: (LOOPBACK, port) for seat, port in enumerate(ports)}
    for game in games:
        game.store.save_meta(replace(game.store.meta, addresses=addresses))
        game.set_addresses(addresses)
    others = [asyncio.create_task(game.run()) for game in games[:RETURNER]]
    players = asyncio.create_task(_play_while_the_returner_may_ask(games[:RETURNER], returner))
    codes = [await returner.play(games[RETURNER])]
    assert isinstance(games[RETURNER].result, GameLeft) and games[RETURNER].resigned
    home = tmp_path / f"p{RETURNER}"
    meta = games[RETURNER].store.meta
    while not returner.timed_out and len(codes) <= ROUNDS:  # resumed: back, it leaves again
        strategy = None if returner.left_in[-1] == IDLE_IN - 1 else "greedy"
        peer = PeerConfig(home=home, interface=LOOPBACK, strategy=strategy)
        codes.append(await _resume(peer, 60, home, identities[RETURNER], meta, returner))
    async with asyncio.timeout(120):
        codes = [*await asyncio.gather(*others), *codes]
    await players
    return games, codes, returner


async def _play_while_the_returner_may_ask(games: Sequence[NetGame], returner: Returner) -> None:
    """Play the seats of `games` as persons who take their time: in the turns of a deal without
    the returner, they wait until they hold its request to be dealt in again (the request
    then comes in a round's turns, which nothing ends before they move on), unless it was
    timed out, gone for good."""
    players = [make_bot("greedy", game.seat) for game in games]
    while not all(game.table.finished for game in games):
        for game, player in zip(games, players, strict=True):
            table = game.table
            with game._table_lock:  # the table's thread does not change it meanwhile
                returns = table.rounds.returns
                seated = (*table.rounds.seated, *returns.requests, *returns.coming_back)
                if table.awaiting_local_move and (returner.timed_out or RETURNER in seated):
                    game.submit(player.choose(table.view()))
        await asyncio.sleep(0.01)


def test_a_player_who_leaves_and_resumes_is_dealt_in_at_the_next_round_every_time(
    tmp_path: Path,
) -> None:
    """Each time, the process that left ends (leaving is final for it); `cfnet resume` asks
    once to be dealt in again and is dealt in at the next round that starts. Resumed and then
    idle, it is timed out, and that process ends too: it does not come back by itself."""
    games, codes, returner = asyncio.run(asyncio.wait_for(_game(tmp_path), 900))
    leaves = len(returner.left_in)
    assert returner.left_in == list(range(1, IDLE_IN)), returner
    assert returner.back_at == list(range(2, IDLE_IN + 1)), returner
    assert returner.may_be_back_at == [(n,) for n in returner.back_at], returner  # asked once
    assert returner.timed_out
    assert codes == [0, 0, *[NO_RESULT_EXIT] * (leaves + 1)], codes
    (mine,) = (tmp_path / f"p{RETURNER}").glob("tables/*/table.cflog")
    log = games[0].log_path
    assert log.read_bytes() == games[1].log_path.read_bytes()
    theirs = [e.wire for e in read_log(log)]
    kept = [e.wire for e in read_log(mine)]
    assert kept == theirs[: len(kept)] and len(kept) < len(theirs)  # up to its timeout
    resigns = [e.seat for e in read_log(log) if e.kind == RESIGN]
    assert resigns == [RETURNER] * leaves
    verdict = cfnet_verify(log)
    assert verdict.returncode == 0, verdict.stdout
    back = rf"^return: entry \d+: seat {RETURNER} .* from round (\d+)"
    assert re.findall(back, verdict.stdout, re.M) == [str(n) for n in returner.back_at]
    last = verdict.stdout.strip().splitlines()
    timeout = (  # version 4: timed out by the stall votes of the two others
        rf"^departure: entry \d+: seat {RETURNER} .*: timed out by the votes of seat 0 .*, "
        rf"seat 1 .*: round {IDLE_IN} is dealt again"
    )
    (at,) = [i for i, line in enumerate(last) if re.search(timeout, line)]
    assert not any(line.startswith("return: ") for line in last[at:])  # not back by itself
    assert isinstance(games[0].result, GameOver)


# ---------------------------------------------------------------------- every moment of a deal


def _resigned(network: Network) -> int:
    """Play into round 1's turns and have the seat due resign; its seat, once it has left."""
    network.run(until=lambda: network.tables[0].step is Step.TURNS)
    due = network.tables[0].due()
    assert due is not None
    gone = network.tables[due[0]]
    gone.resign()
    network.run(until=lambda: gone.departed)
    return due[0]


def test_a_return_request_taken_at_any_step_of_the_deal_under_way_is_dealt_in_next_round() -> None:
    """The request reaches the seats still dealt in at one of 10 moments of round 1's deal
    among them: before each entry of its setup (the reveal of the deal left, the shuffles and
    the deal), before its turns' end is revealed, before its last certificate. The seat is
    back in round 2 every time (a certificate still to come carries it), never later."""
    base = start_tables(3, 41, RuleOptions(rounds=2), timeout=60)
    back = _resigned(base)
    start = len(base.tables[0].entries)
    trial = copy.deepcopy(base)
    trial.run()
    deal = [e for e in trial.tables[0].entries[start:] if e.body.get("round") == 1]
    turns = next(e.seq for e in deal if e.kind in TURN_KINDS)
    reveal = next(e.seq for e in deal if e.kind == "reveal" and e.seq > turns)
    last = max(e.seq for e in deal if e.kind == "certify")
    moments = [*range(start, turns), reveal, last]
    assert len(moments) == 10, moments
    reached: list[int] = []
    for moment in moments:
        network = copy.deepcopy(base)
        tables = network.tables
        network.run(until=lambda: len(tables[0].entries) >= moment)  # noqa: B023
        reached.append(len(tables[0].entries))
        request = tables[back].return_request().wire
        for table in tables:
            if table.me != back:
                table.receive(request, network.now)
        network.run()
        for events in network.events:
            returned = [(e.seat, e.round_number) for e in events if isinstance(e, SeatReturned)]
            assert returned == [(back, 2)], moment
        assert tables[0].over and tables[0].game.round_seated[1] == (0, 1, 2)
    assert reached == moments  # each a moment of its own
