"""Finding a table by name with real `cfnet` processes on 127.0.0.1: a mistyped name, an
unfinished game of yours, several tables of one name (fakes at a silent port among them), the
table's timeout and its floor for a person's seat; `cfnet resume --table` on a finished or
unknown table."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from lan_helpers import CFNET, GAME_TIMEOUT, LOOPBACK, Peer, lobby_port, unique, wait_until

from cfnet.disk.store import TableMeta, TableStore, load_identity, prepare_home
from cfnet.game.rules import RuleOptions
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.net.joining import join_table
from cfnet.net.lobby import PERSON_MIN_TIMEOUT, HostLobby
from cfnet.net.roster import LobbyError
from cfnet.protocol.testing import play_protocol_game
from cfnet.record.identity import Identity

HOST = Identity.from_seed(b"\x09" * 32)
GUEST = Identity.from_seed(b"\x0a" * 32)


def cfnet(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CFNET, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def join(home: Path, name: str, *more: str) -> subprocess.CompletedProcess[str]:
    """`cfnet join NAME` by a computer seat (no terminal needed) on 127.0.0.1."""
    return cfnet(
        "join", name, "--strategy", "greedy", "--interface", LOOPBACK, "--home", str(home), *more
    )


@contextlib.contextmanager
def silent_port(below: int = 0) -> Iterator[int]:
    """A TCP port on 127.0.0.1 (below port `below`, if given) that accepts connections and
    never says a word."""
    with socket.socket() as sock:
        for port in range(below - 1, 1024, -1) if below else [0]:
            with contextlib.suppress(OSError):
                sock.bind((LOOPBACK, port))
                break
        sock.listen(64)
        yield sock.getsockname()[1]


@contextlib.asynccontextmanager
async def fakes(name: str, port: int, fingerprints: list[str]) -> AsyncIterator[None]:
    """Tables named `name` advertised on 127.0.0.1 with these host fingerprints, all at
    `port`, until the block ends."""
    async with Discovery(LOOPBACK) as discovery:
        tables = [
            TableInfo(
                name, os.urandom(16), "alice", fp, RuleOptions(rounds=1), 2, 1, False,
                port=port, timeout=60,
            )
            for fp in fingerprints
        ]  # fmt: skip
        await asyncio.gather(*(discovery.advertise(fake, [LOOPBACK]) for fake in tables))
        yield


async def _seen(name: str, count: int) -> None:
    """Wait until `count` tables named `name` are listed on 127.0.0.1."""
    async with Discovery(LOOPBACK) as looking:
        browser = looking.browse()
        async with asyncio.timeout(30):
            while sum(t.name == name for t in browser.tables.values()) < count:
                await asyncio.sleep(0.05)


def other_fingerprints(count: int) -> list[str]:
    return [Identity.generate().fingerprint for _ in range(count)]


# ---------------------------------------------------------------- names not seen


def test_a_mistyped_name_is_told_after_a_short_look_with_the_tables_seen(tmp_path: Path) -> None:
    real = unique("real")

    async def run() -> subprocess.CompletedProcess[str]:
        with silent_port() as port:
            async with fakes(real, port, other_fingerprints(1)):
                await _seen(real, 1)
                return await asyncio.to_thread(join, tmp_path, real + "x")

    started = time.monotonic()
    done = asyncio.run(run())
    print(f"a mistyped name is told after {time.monotonic() - started:.1f} s")
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert f"no table {real + 'x'!r} is seen on the LAN within 5 s" in line
    assert "--wait SECONDS looks longer" in line
    assert "tables seen: " in line and f"{real!r} ({LOOPBACK}:" in line


def test_joining_an_unfinished_table_of_yours_points_to_resume(tmp_path: Path) -> None:
    home = prepare_home(tmp_path / "home")
    name = unique("t4")
    meta = TableMeta(os.urandom(16), name, 1, 2, RuleOptions(rounds=1))
    TableStore.create(home, meta).close()
    done = join(home, name)
    assert done.returncode == 1
    assert f"`cfnet resume --table {name}` takes you back to it" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_resume_says_whether_a_table_is_finished_or_unknown(tmp_path: Path) -> None:
    home = prepare_home(tmp_path / "home")
    played = play_protocol_game(2, 4, RuleOptions(rounds=1)).tables[1]
    for name, done in (("t1", True), ("t2", False)):
        table_id = played.table_id if done else os.urandom(16)
        meta = TableMeta(table_id, name, 1, 2, RuleOptions(rounds=1), finished=done)
        with TableStore.create(home, meta) as store:
            for entry in played.entries if done else ():
                store.append(entry)
    args = ("--strategy", "greedy", "--interface", LOOPBACK, "--home", str(home))
    finished = cfnet("resume", "--table", "t1", *args)
    assert finished.returncode == 1
    (winner,) = played.game.winners()
    result = f"won by bot{winner}, {played.game.totals[winner]} points"
    assert f"table 't1' is finished ({result}): nothing to resume (its log: " in finished.stderr
    assert "unfinished: t2 (" in finished.stderr
    unknown = cfnet("resume", "--table", "zzz", *args)
    assert unknown.returncode == 1
    assert f"no table 'zzz' in {home}; unfinished: t2 (" in unknown.stderr


# ---------------------------------------------------------------- tables of the same name


@pytest.mark.parametrize("start", ["", "k3y2"], ids=["by name", "by the start of a key"])
def test_several_tables_of_one_name_are_listed_for_the_person_to_choose(
    tmp_path: Path, start: str
) -> None:
    name = unique("friday")
    keys = [start + key[len(start) :] for key in other_fingerprints(3)]
    pinned = ["--fingerprint", start] if start else []

    async def run() -> subprocess.CompletedProcess[str]:
        with silent_port() as port:
            async with fakes(name, port, keys):
                await _seen(name, 3)
                return await asyncio.to_thread(join, tmp_path, name, *pinned)

    done = asyncio.run(run())
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert re.search(rf"\d tables are named {name!r}: {LOOPBACK}:\d+ \(host alice, key ", line)
    assert "choose one with --host ADDR:PORT or --fingerprint KEY" in line


FINGERPRINT = re.compile(r"\(([a-z2-7]{4}(?:-[a-z2-7]{4}){3})\)")
LOOKING_AN_HOUR = [
    sys.executable,
    "-c",
    "import sys, cfnet.net.discovery as mdns; mdns.SAME_NAME_SETTLE = mdns.NAMESAKE_LOOK = 3600.0;"
    " from cfnet.cli.main import console; sys.exit(console())",
]  # `cfnet` whose look for namesakes, were it to look, would last an hour


def test_a_whole_fingerprint_names_one_host_so_no_namesake_is_waited_for(tmp_path: Path) -> None:
    """`cfnet join NAME` and `cfnet watch NAME` given the host's whole key choose no table of
    another key, so they do not look for namesakes: they sit down and watch at once. A namesake
    of another key is listed, and not chosen."""
    name = unique("pinned")
    key = load_identity(prepare_home(tmp_path / "host")).fingerprint
    host = Peer(tmp_path / "host", ["host", "--name", name, "--seats", "2", "--rule", "rounds=1",
                                    "--strategy", "greedy", "--interface", LOOPBACK])  # fmt: skip
    pinned = [name, "--fingerprint", key.upper(), "--wait", "3600", "--interface", LOOPBACK]

    def start(home: str, *command: str) -> tuple[subprocess.Popen[bytes], Path]:
        output = tmp_path / f"{home}.out"
        with open(output, "wb") as out:
            process = subprocess.Popen(
                [*LOOKING_AN_HOUR, *command, *pinned, "--home", str(tmp_path / home)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        return process, output

    def finish(process: subprocess.Popen[bytes], output: Path) -> tuple[int, str]:
        try:
            process.wait(GAME_TIMEOUT)
        finally:
            process.kill()
        return process.wait(), output.read_text()

    async def run() -> list[tuple[int, str]]:
        with silent_port() as silent:
            async with fakes(name, silent, other_fingerprints(1)):
                await _seen(name, 1)
                watcher = start("watcher", "watch", "--plain")
                await asyncio.to_thread(
                    wait_until,
                    lambda: "looking for table" in watcher[1].read_text(),
                    what="the watcher to listen",
                )
                host.start()  # the watcher hears it announced: the game cannot end unseen
                guest = start("guest", "join", "--strategy", "greedy")
                return await asyncio.gather(
                    asyncio.to_thread(finish, *watcher), asyncio.to_thread(finish, *guest)
                )

    try:
        (watched, watching), (joined, joining) = asyncio.run(run())
        assert host.wait() == 0, host.output()
    finally:
        host.kill()
    assert joined == 0, joining
    assert f"found table {name!r} at {LOOPBACK}:{lobby_port(host)}" in joining
    assert watched == 0, watching
    assert "valid: a complete game" in watching


@pytest.mark.parametrize("choose", ["--fingerprint", "--host", "same key", "same whole key"])
def test_twenty_fakes_of_the_name_at_a_silent_port_do_not_stop_a_join(
    tmp_path: Path, choose: str
) -> None:
    """Fakes advertise the real table's name (and, for "same key", its host key, which the
    person gives whole for "same whole key", so cfnet looks for no namesake); the person
    chooses the real one by key or address, or cfnet tries each listing, a handshake that
    times out counting as unreachable."""
    name = unique("friday")
    host = Peer(
        tmp_path / "host",
        ["host", "--name", name, "--seats", "2", "--rule", "rounds=1", "--timeout", "20",
         "--interface", LOOPBACK, "--strategy", "greedy"],
    )  # fmt: skip
    host.start()
    try:
        wait_until(lambda: "open on" in host.output(), what="the table to open")
        key = FINGERPRINT.search(host.output().split("open on")[1])
        assert key is not None
        port = re.findall(rf"open on {LOOPBACK}:(\d+)", host.output())[0]
        same = choose.startswith("same")
        count = 2 if same else 20
        keys = [key[1]] * count if same else other_fingerprints(count)
        more = {
            "--fingerprint": ["--fingerprint", key[1][:4]],
            "--host": ["--host", f"{LOOPBACK}:{port}"],
            "same key": ["--wait", "60"],
            "same whole key": ["--wait", "60", "--fingerprint", key[1]],
        }[choose]

        async def run() -> subprocess.CompletedProcess[str]:
            with silent_port(below=int(port)) as silent:  # listed before the real table
                async with fakes(name, silent, keys):
                    await _seen(name, 1 + count)
                    return await asyncio.to_thread(join, tmp_path / "guest", name, *more)

        done = asyncio.run(run())
        assert done.returncode == 0, done.stdout + done.stderr
        assert host.wait() == 0, host.output()
    finally:
        host.kill()
    if choose == "same key":  # the fakes it saw were each tried once (and timed out, to be
        # dialled again later) before the real table, which was never tried yet; on a loaded
        # machine its look for namesakes (SAME_NAME_SETTLE) may end before they answer, and
        # then it joins the table it found, the real one
        assert done.stdout.count("; dialling it again in") in (0, count), done.stdout


# ---------------------------------------------------------------- the table's timeout


def test_a_person_may_not_host_a_table_with_a_timeout_below_the_floor(tmp_path: Path) -> None:
    done = cfnet("host", "--name", "quick", "--timeout", "2", "--home", str(tmp_path))
    assert done.returncode == 2  # a usage error
    assert done.stderr.splitlines() == [
        f"cfnet host: --timeout 2: a person plays seat 0 and needs at least {PERSON_MIN_TIMEOUT}"
        f" s to answer (give --timeout {PERSON_MIN_TIMEOUT} or more; shorter only at a table "
        "of computer players, with --strategy)"
    ]


async def _a_person_joins_a_quick_table(advertised: bool) -> LobbyError:
    """A person's seat (min_timeout = the floor) tries a table whose timeout is 5 s, found by
    mDNS (the TXT `timeout`) or dialled directly (the lobby's `seats` message)."""

    async def prepare(genesis: bytes, seat: int, known: dict[int, tuple[str, int]]) -> int:
        raise AssertionError("the person never takes a seat")

    async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
        lobby = HostLobby(
            HOST, hosting, name=unique("quick"), player="bot", seats=2, options=RuleOptions(),
            timeout=5, code=None, interface=LOOPBACK, say=lambda text: None,
        )  # fmt: skip
        port = await lobby.open()
        browser = looking.browse()
        try:
            found = await browser.wait_for(lambda t: t.table_id == lobby.table_id, 30)
            assert found.timeout == 5 and found.timeout_text == "5 s"
            with pytest.raises(LobbyError) as refused:
                await join_table(
                    GUEST, "person", LOOPBACK, port, prepare, say=lambda text: None,
                    advertised=found if advertised else None, min_timeout=PERSON_MIN_TIMEOUT,
                )  # fmt: skip
        finally:
            await lobby.close()
    return refused.value


@pytest.mark.parametrize("advertised", [True, False], ids=["found by mDNS", "--connect"])
def test_a_persons_seat_refuses_a_table_whose_timeout_is_below_the_floor(advertised: bool) -> None:
    error = asyncio.run(_a_person_joins_a_quick_table(advertised))
    assert str(error).startswith(
        f"the table gives each seat only 5 s to answer: a person's seat needs at least "
        f"{PERSON_MIN_TIMEOUT} s"
    )


# ---------------------------------------------------------------- dialling again


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def test_a_joiner_dials_a_table_that_is_not_listening_yet_until_it_is(tmp_path: Path) -> None:
    """A bot dials --connect HOST:PORT before the table listens there (as after a link that
    went down and up): it says why it cannot get in, dials again, and joins once the host is
    open; the game is played."""
    port = free_port()
    bot = Peer(tmp_path / "bot", ["bot", "--connect", f"{LOOPBACK}:{port}", "--wait", "120",
                                  "--interface", LOOPBACK])  # fmt: skip
    host = Peer(tmp_path / "host", [
        "host", "--name", unique("late"), "--seats", "2", "--rule", "rounds=1", "--timeout", "30",
        "--port", str(port), "--interface", LOOPBACK, "--strategy", "greedy",
    ])  # fmt: skip
    try:
        bot.start()
        wait_until(lambda: bot.output().count("dialling again") >= 2, 60, "two dials refused")
        host.start()
        assert bot.wait() == 0, bot.output()
        assert host.wait() == 0, host.output()
    finally:
        bot.kill()
        host.kill()
    said = bot.output()
    assert (
        f"cannot reach the table at {LOOPBACK}:{port}: nothing listens there (connection "
        "refused); dialling again in 0.5 s"
    ) in said, said
    assert "Errno" not in said and "Traceback" not in said
    assert "verified: the log is a complete, valid game" in said


def test_nobody_at_the_address_is_said_in_cfnets_words_once_the_wait_is_over(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    done = cfnet("join", "--connect", f"{LOOPBACK}:1", "--wait", "2", "--strategy", "greedy",
                 "--home", str(tmp_path))  # fmt: skip
    took = time.monotonic() - started
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert re.fullmatch(
        rf"cfnet join: cannot reach the table at {LOOPBACK}:1: nothing listens there "
        r"\(connection refused\); dialled \w+( times)? in 2 s \(--wait SECONDS dials longer\)",
        line,
    ), line
    assert took >= 2, took


@pytest.mark.parametrize("how", ["by name", "--connect"])
def test_a_table_with_a_join_code_without_one_is_refused_once_and_at_once(
    tmp_path: Path, how: str
) -> None:
    name = unique("coded")
    host = Peer(tmp_path / "host", [
        "host", "--name", name, "--seats", "2", "--code", "blue moon", "--timeout", "30",
        "--interface", LOOPBACK, "--strategy", "greedy",
    ])  # fmt: skip
    host.start()
    try:
        wait_until(lambda: lobby_port(host) > 0, what="the table open")
        where = f"{LOOPBACK}:{lobby_port(host)}"
        target = [name] if how == "by name" else ["--connect", where]
        started = time.monotonic()
        done = cfnet("join", *target, "--strategy", "greedy", "--interface", LOOPBACK,
                     "--home", str(tmp_path / "guest"), "--wait", "60")  # fmt: skip
        took = time.monotonic() - started
    finally:
        host.kill()
    assert done.returncode == 1
    reason = f"the table at {where} needs a join code: give it with --code CODE"
    assert done.stderr.splitlines() == [f"cfnet join: {reason}"]
    assert reason not in done.stdout  # said once
    assert took < 30, took  # not after --wait


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_ctrl_c_while_still_looking_says_nothing_was_joined(tmp_path: Path) -> None:
    session = f"cfnet-look-{os.getpid()}"
    command = shlex.join([*CFNET, "join", unique("nowhere"), "--interface", LOOPBACK,
                          "--wait", "120", "--home", str(tmp_path)])  # fmt: skip
    tmux = ["tmux", "-L", session]
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}

    def pane() -> str:
        return subprocess.run(
            [*tmux, "capture-pane", "-p", "-J", "-t", session, "-S", "-100"],
            capture_output=True, text=True, check=True, env=env,
        ).stdout  # fmt: skip

    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24",
         f"{command}; echo EXIT=$?; sleep 60"],
        check=True, env=env,
    )  # fmt: skip
    try:
        wait_until(lambda: "Taking a seat" in pane(), 60, "the lobby screen, looking")
        subprocess.run([*tmux, "send-keys", "-t", session, "C-c"], check=True, env=env)
        wait_until(lambda: "EXIT=" in pane(), 30, "join to end")
        text = pane()
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, env=env)
    assert "cfnet join: you stopped before taking a seat: nothing was joined" in text, text
    assert "before it started" not in text
