"""`cfnet watch`: spectators of a real game between `cfnet` processes on 127.0.0.1 (mDNS and
TCP), which end with exactly what `cfnet verify` says of the log, also after an abort rewound
the chain across a scored round; a watcher can post nothing."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from adversary.fake_host import FakeHost, entry_frames, fake_host
from adversary.forged import second_signature
from lan_helpers import (
    CFNET,
    LOOPBACK,
    Peer,
    cfnet_verify,
    lobby_port,
    same_logs,
    start_all,
    table_peers,
    unique,
    wait_all,
    wait_until,
)
from prompt_toolkit.output import DummyOutput

from cfnet.game.rules import RuleOptions
from cfnet.game.text import columns, render_board
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.net.reasons import NO_WATCHERS
from cfnet.protocol.events import Appended, RoundScored, Superseded
from cfnet.protocol.testing import play_protocol_game, sim_identity, start_tables
from cfnet.protocol.wire import REVEAL, TABLE
from cfnet.record.entry import GENESIS_PREV, Entry, decode_entry, sign_entry
from cfnet.record.identity import Identity, fingerprint
from cfnet.record.logfile import write_log
from cfnet.review.timeline import Timeline, read_timeline
from cfnet.ui.report import verdict_line
from cfnet.ui.spectate import LogFollower
from cfnet.ui.watching import Watching


def final_board(log: Path) -> str:
    with log.open("rb") as f:
        timeline = read_timeline(f, str(log))
    return render_board(timeline.positions[-1].public)


def test_watchers_follow_a_real_game_to_its_end(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "watched", seats=3, rounds=2)
    host = peers[0]
    name = host.args[host.args.index("--name") + 1]
    common = ["--plain", "--interface", LOOPBACK, "--player", "ann"]
    by_name = Peer(tmp_path / "w1", ["watch", name, *common])
    by_name.start()  # before the table is hosted: it looks for it by mDNS
    start_all(peers)
    wait_until(lambda: "open on" in host.output(), what="the table to open")
    by_address = Peer(tmp_path / "w2", ["watch", "--connect", f"{LOOPBACK}:{lobby_port(host)}",
                                        *common[:-1], "bea"])  # fmt: skip
    wait_until(lambda: host.log_size() > 0, what="the game to start")
    by_address.start()  # while the game is under way: it catches up from the genesis
    assert wait_all([*peers, by_name, by_address]) == [0] * 5
    same_logs(peers)
    log = host.log_path()
    verify = cfnet_verify(log)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    board = final_board(log)
    for watcher in (by_name, by_address):
        out = watcher.output()
        assert out.rstrip().endswith(f"final board:\n{board}\n{verify.stdout.rstrip()}"), out
        assert "-- round 1 over:" in out and "was dealt" in out  # hands shown at a round end
    assert "ann (" in host.output() and "bea (" in host.output()
    assert "is watching" in host.output()


def test_a_table_may_refuse_watchers(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "private", seats=2, rounds=1)
    host = peers[0]
    host.args.append("--no-watchers")
    start_all(peers[:1])
    wait_until(lambda: "open on" in host.output(), what="the table to open")
    watcher = subprocess.run(
        [*CFNET, "watch", "--connect", f"{LOOPBACK}:{lobby_port(host)}", "--plain",
         "--home", str(tmp_path / "w")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    start_all(peers[1:])
    assert wait_all(peers) == [0, 0]
    assert watcher.returncode == 1
    assert NO_WATCHERS in watcher.stderr


async def _rogue(port: int, identity: Identity) -> tuple[bytes, str]:
    """Watch as `identity`, then post a signed entry on the watcher's link: (the genesis, why
    the host closed the link)."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    link = Link(reader, writer)
    await link.handshake(Handshake(identity, initiator=True, table_id=None))
    await link.send({"t": "watch", "name": "rogue"})
    while True:
        message = await link.receive()
        if message["t"] == "entry":
            genesis = decode_entry(message["wire"])
            break
    forged = sign_entry(identity, genesis.table_id, 1, genesis.hash, 1, "commit", {"round": 1})
    await link.send({"t": "entry", "wire": forged.wire})
    try:
        while True:
            await link.receive()
    except LinkClosed as closed:
        return genesis.wire, closed.reason


async def _dial_seat(address: tuple[str, int], identity: Identity, table_id: bytes) -> str:
    """Try to link to a seat's mesh as `identity`; why it was refused."""
    reader, writer = await asyncio.open_connection(*address)
    link = Link(reader, writer)
    try:
        await link.handshake(Handshake(identity, initiator=True, table_id=table_id))
    except LinkClosed as closed:
        return closed.reason
    await link.close("test")
    return "accepted"


def test_a_watcher_cannot_post(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "guarded", seats=3, rounds=4)
    host = peers[0]
    start_all(peers)
    wait_until(lambda: "open on" in host.output(), what="the table to open")
    rogue = Identity.generate()
    genesis, reason = asyncio.run(_rogue(lobby_port(host), rogue))
    assert "a watcher posts nothing" in reason
    table_id = decode_entry(genesis).table_id
    wait_until(lambda: len(host.meta().addresses) == 3, what="every seat's address")
    addresses = host.meta().addresses
    refusals = [asyncio.run(_dial_seat(addresses[s], rogue, table_id)) for s in range(3)]
    assert wait_all(peers) == [0, 0, 0]
    for refusal in refusals:  # every seat refuses a link from the watcher's key
        assert "not one we accept here" in refusal, refusals
    entries = same_logs(peers)
    assert all(entry.seat < 3 and entry.signature for entry in entries)
    assert all(not entry.verify(rogue.public) for entry in entries)
    assert cfnet_verify(host.log_path()).returncode == 0


def test_follow_a_log_being_written(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "followed", seats=2, rounds=1)
    host = peers[0]
    start_all(peers)
    wait_until(lambda: host.log_size() > 0, what="the game to start")
    follower = subprocess.run(
        [*CFNET, "watch", "--follow", str(host.log_path()), "--plain"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert wait_all(peers) == [0, 0]
    verify = cfnet_verify(host.log_path())
    assert follower.returncode == 0, follower.stderr
    assert follower.stdout.rstrip().endswith(verify.stdout.rstrip())


def test_the_follower_starts_again_where_a_file_is_rewritten(tmp_path: Path) -> None:
    from cfnet.cli.main import main

    log = tmp_path / "game.cflog"
    assert main(["selfplay", "--protocol", "--players", "2", "--rule", "rounds=1",
                 "--log", str(log)]) == 0  # fmt: skip
    data = log.read_bytes()
    follower = LogFollower(log)
    whole = follower.poll()
    assert whole and follower.poll() == []
    cut = tmp_path / "cut.cflog"
    cut.write_bytes(data[: len(data) // 2])  # a torn record at the end: read up to it
    part = LogFollower(cut)
    first = part.poll()
    assert first == whole[: len(first)]
    cut.write_bytes(data)
    assert part.poll() == whole[len(first) :]
    # a rewrite as after an abort: the file cut back to entry k, then another entry k
    from cfnet.record.logfile import write_log

    k = len(whole) // 2
    other_k = sign_entry(Identity.generate(), whole[0].table_id, k, whole[k - 1].hash, 0,
                         "abort", {"round": 1})  # fmt: skip
    write_log(cut, whole[:k])
    assert part.poll() == []  # cut back: nothing new yet
    write_log(cut, [*whole[:k], other_k])
    assert part.poll() == [other_k]
    assert part.entries == [*whole[:k], other_k]
    # a rewrite from the start: the file replaced by other entries (another game's)
    other = tmp_path / "other.cflog"
    assert main(["selfplay", "--protocol", "--players", "2", "--seed", "9", "--rule",
                 "rounds=1", "--log", str(other)]) == 0  # fmt: skip
    cut.write_bytes(other.read_bytes())
    assert part.poll() == LogFollower(other).poll()


@pytest.mark.parametrize("args", [[], ["x", "--follow", "f"]])
def test_watch_needs_one_source(args: list[str]) -> None:
    from cfnet.cli.main import main

    assert main(["watch", *args]) == 2


def test_the_lobby_shows_how_many_are_watching() -> None:
    from cfnet.game.rules import RuleOptions
    from cfnet.net.joining import join_table
    from cfnet.net.lobby import HostLobby
    from cfnet.net.roster import LobbyError, Roster
    from cfnet.net.watch import MAX_WATCHERS, watch_table

    host, guest = Identity.generate(), Identity.generate()
    said: list[str] = []
    rosters: list[object] = []
    watcher_said: list[str] = []

    async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        return 40000 + seat

    def quiet(_: object) -> None:
        """Nothing to do."""

    async def until(condition: object, what: str) -> None:
        assert callable(condition)
        async with asyncio.timeout(30):
            while not condition():
                await asyncio.sleep(0.01)

    async def scenario() -> str:
        lobby = HostLobby(
            host, None, name="Kitchen", player="host", seats=3, options=RuleOptions(rounds=1),
            timeout=20, code=None, interface=LOOPBACK, say=said.append,
        )  # fmt: skip
        port = await lobby.open()
        says = [watcher_said.append] + [quiet] * (MAX_WATCHERS - 1)
        watchers = [
            asyncio.create_task(
                watch_table(Identity.generate(), "eve", LOOPBACK, port, quiet, say=say)
            )
            for say in says
        ]
        await until(lambda: f"({MAX_WATCHERS} watching)" in "\n".join(said), "every watcher")
        joining = asyncio.create_task(
            join_table(guest, "guest", LOOPBACK, port, prepare, say=quiet, on_event=rosters.append)
        )

        def shown() -> list[str]:
            return [line for r in rosters if isinstance(r, Roster) for line in r.lines()]

        await until(lambda: f"  watching: {MAX_WATCHERS}" in shown(), "the joiner's roster")
        await until(lambda: "  seat 1: guest" in "\n".join(watcher_said), "the watcher's roster")
        try:
            await watch_table(Identity.generate(), "late", LOOPBACK, port, quiet)
        except LobbyError as error:
            refused = str(error)
        for task in [*watchers, joining]:
            task.cancel()
        await asyncio.gather(*watchers, joining, return_exceptions=True)
        await lobby.close()
        return refused

    refused = asyncio.run(scenario())
    assert f"the table has its {MAX_WATCHERS} watchers" in refused


def a_rewound_game() -> tuple[list[bytes], list[Entry]]:
    """A 3-seat, 2-round game in which seat 2 signs two different last reveals of round 1, one
    for each other seat: both peers score round 1, then meet the equivocation, and the abort
    that removes seat 2 supersedes the chain from that reveal on, so round 1 is dealt again
    without it. Returns what seat 0's table appended, in order (the dropped entries too, as a
    host sends its watchers), and its final chain."""
    network = start_tables(3, seed=3, options=RuleOptions(rounds=2), timeout=60)
    split_done: list[Entry] = []

    def split(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        if entry.kind != REVEAL or split_done:  # seat 2 reveals last in round 1 (seed 3)
            return [(entry.wire, None)]
        split_done.append(entry)
        other = second_signature(sim_identity(3, entry.seat), entry)
        return [(entry.wire, frozenset({0})), (other.wire, frozenset({1}))]

    network.tampers = {2: split}
    network.run()
    events = network.events[0]
    kinds = [type(e).__name__ for e in events if isinstance(e, RoundScored | Superseded)]
    assert kinds[:3] == ["RoundScored", "Superseded", "RoundScored"], kinds  # the rewind
    table = network.tables[0]
    assert table.finished and len(table.entries) > 2
    appended = [e.entry.wire for e in events if isinstance(e, Appended)]
    return [table.entries[0].wire, *appended], list(table.entries)


def test_after_a_rewind_the_watcher_reports_the_final_chain_only(tmp_path: Path) -> None:
    sent, final = a_rewound_game()
    log = tmp_path / "final.cflog"
    write_log(log, final)
    verify = cfnet_verify(log)
    assert verify.returncode == 0, verify.stdout

    async def run() -> subprocess.CompletedProcess[str]:
        frames = FakeHost(sim_identity(3, 0), final[0].table_id, lambda: entry_frames(sent))
        async with fake_host(frames) as port:
            return await asyncio.to_thread(
                subprocess.run,
                [*CFNET, "watch", "--connect", f"{LOOPBACK}:{port}", "--plain", "--home",
                 str(tmp_path / "w")],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip

    watcher = asyncio.run(run())
    out = watcher.stdout
    assert watcher.returncode == 0, out + watcher.stderr
    assert out.count("-- round 1 over:") == 2, out  # as it was shown live, then as it stands
    assert "the result of round 1 shown above does not count" in out, out
    assert out.rstrip().endswith(f"final board:\n{final_board(log)}\n{verify.stdout.rstrip()}")


def test_a_watcher_by_name_does_not_choose_between_hosts_of_one_name(tmp_path: Path) -> None:
    name = unique("twins")
    keys = [Identity.generate().fingerprint for _ in range(2)]

    async def run() -> subprocess.CompletedProcess[str]:
        async with Discovery(LOOPBACK) as discovery:
            for key in keys:
                table = TableInfo(name, os.urandom(16), "alice", key, RuleOptions(rounds=1), 2, 1,
                                  False, port=9, timeout=60)  # fmt: skip
                await discovery.advertise(table, [LOOPBACK])
            return await asyncio.to_thread(
                subprocess.run,
                [*CFNET, "watch", name, "--plain", "--interface", LOOPBACK, "--wait", "60",
                 "--home", str(tmp_path)],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip

    done = asyncio.run(run())
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"cfnet watch: 2 tables are named {name!r}: "), line
    assert all(f"key {key})" in line for key in keys), line
    assert "choose one with --fingerprint KEY or --connect HOST:PORT" in line


@pytest.mark.parametrize("key", ["abcd", "abcd-efgh-ijkl-mno1", "not a key at all"])
def test_a_pinned_fingerprint_must_be_a_whole_one(key: str) -> None:
    done = subprocess.run(
        [*CFNET, "watch", "--connect", f"{LOOPBACK}:9", "--fingerprint", key],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"{key!r} is not a key fingerprint: give all 16 letters and digits" in done.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("seats", "columns"), [(2, 100), (3, 60)])
def test_the_watchers_screen_shows_every_seats_key(
    tmp_path: Path, seats: int, columns: int
) -> None:
    """`cfnet watch` on a terminal (tmux): the viewer shows each seat's key under the board,
    whole on one line however narrow the terminal, and the verdict at the end."""
    network = play_protocol_game(seats, 7, RuleOptions(rounds=1))
    chain = [entry.wire for entry in network.tables[0].entries]
    host = FakeHost(sim_identity(7, 0), network.tables[0].table_id, lambda: entry_frames(chain))
    ready, stop = threading.Event(), threading.Event()
    ports: list[int] = []

    async def serve() -> None:
        async with fake_host(host) as port:
            ports.append(port)
            ready.set()
            await asyncio.to_thread(stop.wait)

    server = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    server.start()
    assert ready.wait(30)
    session = f"cfnet-watch-{os.getpid()}"
    tmux = ["tmux", "-L", session]
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    command = shlex.join([*CFNET, "watch", "--connect", f"{LOOPBACK}:{ports[0]}", "--home",
                          str(tmp_path)])  # fmt: skip

    def pane() -> str:
        return subprocess.run(
            [*tmux, "capture-pane", "-p", "-J", "-t", session],
            capture_output=True, text=True, check=True, env=env,
        ).stdout  # fmt: skip

    subprocess.run([*tmux, "new-session", "-d", "-s", session, "-x", str(columns), "-y", "30",
                    f"{command}; echo EXIT=$?; sleep 60"], check=True, env=env)  # fmt: skip
    try:
        wait_until(lambda: "valid: a complete game" in pane(), 60, "the verdict on the screen")
        text = pane()
        subprocess.run([*tmux, "send-keys", "-t", session, "q"], check=True, env=env)
        wait_until(lambda: "EXIT=0" in pane(), 30, "the viewer to close")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, env=env)
        stop.set()
        server.join(30)
    for s in range(seats):
        key = fingerprint(sim_identity(7, s).public)
        assert f"bot{s} {key}" in text, text  # on one line: a key is never cut


def test_the_watchers_frame_keeps_every_key_whole_at_every_size() -> None:
    """The watcher's viewer from 60x20 up: every seat's name and whole key on one row under
    the board (six seats; names of 40 wide characters cut to make room, never a key), the
    frame within the terminal and the board keeping rows of its own."""
    network = play_protocol_game(6, 7, RuleOptions(rounds=1))
    entries = network.tables[0].entries
    played = Timeline(entries[0].wire)
    for entry in entries[1:]:
        played.take(entry)
    body = dict(entries[0].body)
    wide_names = [chr(0x540D + s) * 40 for s in range(6)]  # 80 columns each
    body["seats"] = [
        {**seat, "name": name} for seat, name in zip(body["seats"], wide_names, strict=True)
    ]
    wide = sign_entry(sim_identity(7, 0), entries[0].table_id, 0, GENESIS_PREV, 0, TABLE, body)
    keys = [fingerprint(sim_identity(7, s).public) for s in range(6)]
    sizes = [(60, 24), (61, 25), (80, 24), (100, 30), (120, 40)]
    for timeline, shown, least in (  # a row's name (whole, or cut with …) and key, as patterns
        (played, [f"bot{s} {key}" for s, key in enumerate(keys)], (60, 20)),
        (Timeline(wide.wire), [f"{n[0]}+…? {k}" for n, k in zip(wide_names, keys, strict=True)],
         (60, 21)),  # six rows of names over the board
    ):  # fmt: skip
        viewer = Watching(timeline, "watching 'selfplay'", follow=True, output=DummyOutput())
        viewer.status = verdict_line(timeline.verdict())
        for width, height in [least, *sizes]:
            rows = ["".join(t[1] for t in row) for row in viewer.frame(width, height)]
            assert len(rows) <= height and all(columns(row) <= width for row in rows), rows
            assert not rows[0].startswith("This screen needs"), rows
            for key, seat in zip(keys, shown, strict=True):
                (row,) = [row for row in rows if key in row]  # whole, and once
                assert re.search(seat, row), row
