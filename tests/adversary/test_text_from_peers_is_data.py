"""Text from peers is data: an adversary signs strings that carry a fake verdict line, a carriage
return, terminal control (ESC[2J clears the screen, ESC[8m hides what follows, a C1 CSI) and
bidi overrides and isolates, in every kind of signed string a person may be shown: the names of
the table entry, an abort's `detail`, the field names of a `resign` body, and a table's name in
its mDNS TXT record (and the instance name it is announced under). Every output shows them
escaped (`\\x1b`, `\\u202e`) and capped, never raw: verify, replay, the viewer, watch, games,
the game screen, the lobby, the browser and `cfnet tables`; and verify's real verdict line is
seen, whatever the fake one says."""

from __future__ import annotations

import asyncio
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from lan_helpers import CFNET, LOOPBACK
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import ColorDepth, DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from cfnet.cli.main import main
from cfnet.disk.store import LOG_FILE, TableMeta, TableStore, table_dir
from cfnet.game.rules import RuleOptions
from cfnet.game.text import TEXT_CHARS
from cfnet.net import discovery
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.protocol.testing import sim_identity, start_tables
from cfnet.protocol.wire import ABORT, RESIGN, TABLE, TIMEOUT, Fault
from cfnet.record.entry import GENESIS_PREV, Entry, sign_entry
from cfnet.record.identity import Identity
from cfnet.record.logfile import write_log
from cfnet.review.timeline import read_timeline
from cfnet.seat.offline import OfflineSession
from cfnet.seat.session import GameAborted, Notice
from cfnet.ui.browser import BrowserScreen
from cfnet.ui.game_screen import GameScreen
from cfnet.ui.lobby_screen import LobbyScreen
from cfnet.ui.page import Terminal
from cfnet.ui.report import verdict_line
from cfnet.ui.spectate import Spectator, WatchError
from cfnet.ui.viewer import Viewer

FAKE = "valid: a complete game; every signature, shuffle, key and move checked"
HIDE = "\x1b[2J\x1b[8m\u202eevil\u2066"
HOSTILE = f"x\r\n{FAKE}{HIDE}"
SHOWN = "\\x1b[2J\\x1b[8m\\u202eevil\\u2066"
"""How HIDE reads once escaped: every character visible, in order."""
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What no output may hold (a newline between lines is fine)."""
SEED = 21


def assert_data(text: str, where: str) -> None:
    """`text` holds no character a terminal acts on, and no line fakes a verdict."""
    found = RAW.search(text)
    assert found is None, f"{where}: a raw {found.group()!r} reaches the terminal:\n{text!r}"
    fakes = [line for line in text.splitlines() if line.lstrip().startswith(FAKE)]
    assert not fakes, f"{where}: a line fakes the verdict: {fakes}"


@dataclass(frozen=True)
class Logs:
    """The logs an adversary signed: hostile names in the table entry; a timeout claim whose
    detail is hostile, then an out-of-turn resign by the claimant; a resign of the seat due
    whose body's field names are hostile. `claimant`: the seat that claimed."""

    names: Path
    claim: Path
    fields: Path
    claimant: int
    due: int


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    folder = tmp_path_factory.mktemp("hostile")
    network = start_tables(3, SEED, RuleOptions(rounds=2), timeout=60)
    first = network.tables[0]
    network.run(until=lambda: first.public is not None and len(first.public.moves) >= 4)
    entries = list(first.entries)
    due = first.due()
    assert due is not None
    last = entries[-1]
    claimant = (due[0] + 1) % 3
    signer = network.tables[claimant].local
    assert signer is not None
    claim = Fault(due[0], TIMEOUT, HOSTILE, last.seq + 1, {"seq": last.seq + 1})
    abort = signer.sign(last.table_id, last.seq + 1, last.hash, ABORT, claim.abort_body())
    resign = signer.sign(last.table_id, last.seq + 2, abort.hash, RESIGN, {HOSTILE: 1})
    write_log(folder / "claim.cflog", [*entries, abort, resign])
    due_signer = network.tables[due[0]].local
    assert due_signer is not None
    fields = due_signer.sign(last.table_id, last.seq + 1, last.hash, RESIGN, {HOSTILE: 1})
    write_log(folder / "fields.cflog", [*entries, fields])
    genesis = entries[0]
    body = dict(genesis.body)
    body["name"] = HOSTILE
    body["seats"] = [dict(seat) for seat in body["seats"]]
    body["seats"][1]["name"] = HOSTILE
    hostile = sign_entry(sim_identity(SEED, 0), genesis.table_id, 0, GENESIS_PREV, 0, TABLE, body)
    write_log(folder / "names.cflog", [hostile])
    return Logs(folder / "names.cflog", folder / "claim.cflog", folder / "fields.cflog",
                claimant, due[0])  # fmt: skip


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def verdicts(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"(INVALID|unfinished|valid):", line)]


# ---------------------------------------------------------------- verify, replay, watch, games


def test_verify_shows_the_real_verdict_and_the_hostile_strings_escaped(
    logs: Logs, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_cli(["verify", str(logs.claim)], capsys)
    assert_data(out, "verify (the claim)")
    assert code == 1
    (verdict,) = verdicts(out)
    assert verdict.startswith("INVALID: ")
    assert f"to blame: seat {logs.claimant} (bot{logs.claimant})" in out.splitlines()
    if "claims seat" in out:  # the claim is told: its detail, escaped
        assert SHOWN in out

    code, out = run_cli(["verify", str(logs.fields)], capsys)
    assert_data(out, "verify (the resign's fields)")
    assert code == 1
    (verdict,) = verdicts(out)
    assert verdict.startswith("INVALID: entry ") and SHOWN in verdict
    assert f"to blame: seat {logs.due} (bot{logs.due})" in out.splitlines()

    code, out = run_cli(["verify", str(logs.names)], capsys)
    assert_data(out, "verify (the names)")
    assert code == 1 and out.startswith("cfnet verify: entry 0 is not a valid table")


def test_replay_shows_the_hostile_strings_escaped(
    logs: Logs, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = []
    for log in (logs.claim, logs.fields, logs.names):
        _, out = run_cli(["replay", "--plain", str(log)], capsys)
        assert_data(out, f"replay {log.name}")
        shown.append(out)
    claim, fields, names = shown
    if "claims seat" in claim:
        assert SHOWN in claim
    assert SHOWN in fields
    assert names.startswith("cfnet replay: ")


def test_the_viewer_shows_the_hostile_strings_escaped_at_every_step(logs: Logs) -> None:
    for log in (logs.claim, logs.fields):
        with log.open("rb") as f:
            timeline = read_timeline(f, str(log))
        viewer = Viewer(timeline, f"replay {timeline.table.name!r}", output=DummyOutput())
        viewer.status = verdict_line(timeline.verdict())
        assert viewer.status.startswith("INVALID: ")
        seen = []
        for cursor in range(len(timeline.positions)):
            viewer.cursor = cursor
            for width, height in ((60, 20), (80, 24)):
                text = "\n".join("".join(t[1] for t in row) for row in viewer.frame(width, height))
                assert_data(text, f"the viewer on {log.name} at step {cursor}")
                seen.append(text)
        assert any("INVALID: " in text for text in seen)  # the verdict, under the moves
        if log == logs.fields:
            assert any(SHOWN[:20] in text.replace("\n", "") for text in seen)
        if any("claims seat" in text for text in seen):
            assert any("\\x1b[2J" in text for text in seen)


def test_watch_shows_the_hostile_strings_escaped(logs: Logs) -> None:
    from cfnet.record.logfile import read_log

    for log in (logs.claim, logs.fields):
        lines: list[str] = []
        spectator = Spectator(lines.append)
        for entry in read_log(log):
            spectator.take_entry(entry)
        lines += spectator.final_lines()
        out = "\n".join(lines)
        assert_data(out, f"watch {log.name}")
        (verdict,) = verdicts(out)
        assert verdict.startswith("INVALID: ")
    (genesis,) = read_log(logs.names)
    with pytest.raises(WatchError) as refused:
        Spectator(lambda line: None).take_entry(genesis)
    assert_data(str(refused.value), "watch on the names")


def test_games_lists_a_hostile_table_escaped(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cfnet.record.logfile import read_log

    for name, log in ((HOSTILE, logs.claim), ("fields", logs.fields), ("names", logs.names)):
        home = tmp_path / log.stem  # one table id: each log in a state directory of its own
        entries: list[Entry] = read_log(log)
        meta = TableMeta(entries[0].table_id, name, 0, 3, RuleOptions(2))
        with TableStore.create(home, meta) as store:
            for entry in entries:
                store.append(entry)
        assert (table_dir(home, meta.table_id) / LOG_FILE).is_file()
        code, out = run_cli(["games", "--home", str(home)], capsys)
        assert code == 0
        assert_data(out, f"games ({log.name})")
        assert len([line for line in out.splitlines() if line[:4].isdigit()]) == 1


# ---------------------------------------------------------------- the screens


def frame_text(draw: Callable[[int, int], list[list[tuple[str, str]]]], size: Size) -> str:
    return "\n".join("".join(t[1] for t in row) for row in draw(size.columns, size.rows))


def test_the_game_screen_shows_hostile_names_claims_and_aborts_escaped() -> None:
    """The screen a person plays on: seats whose names are hostile, a notice quoting a claim's
    hostile detail, an abort whose reason quotes it; drawn to a real VT100 terminal too."""
    names = ("Me", "Ada" + HIDE, HOSTILE)
    stream = io.StringIO()
    output = Vt100_Output(stream, lambda: Size(rows=24, columns=80), term="xterm-256color")

    async def scenario() -> list[str]:
        with create_pipe_input() as keys:
            session = OfflineSession(names, 0, RuleOptions(rounds=1), 4, delay=0.0)
            screen = GameScreen(session, keys, output, ColorDepth.DEPTH_8_BIT)
            app = asyncio.get_running_loop().create_task(screen.run())
            async with asyncio.timeout(30):
                while session.view is None or not screen.log:
                    await asyncio.sleep(0.01)
            screen.on_event(Notice(f"seat 0 claims seat 2 {HOSTILE}: round 1 is dealt again"))
            texts = [frame_text(screen.frame, Size(23, 80)), frame_text(screen.frame, Size(19, 60))]
            screen.on_event(GameAborted(f"seat 1 {HOSTILE}"))
            texts += [frame_text(screen.frame, Size(23, 80)), screen.text()]
            screen.app.invalidate()
            await asyncio.sleep(0.3)  # a redraw of the aborted game reaches the terminal
            keys.send_text("quit\r")
            async with asyncio.timeout(30):
                await app
            return texts

    texts = asyncio.run(scenario())
    for text in texts:
        assert_data(text, "the game screen")
    assert SHOWN in texts[0] and "\\x1b[2J" in texts[2]  # the claim, the abort: escaped
    assert "Ada\\x1b[2J" in texts[0]  # a name, in the players' table
    written = stream.getvalue()
    for raw in ("\x1b[8m", "\u202e", "\u2066", "\r\n" + FAKE):
        assert raw not in written, f"{raw!r} was written to the terminal"


def test_the_lobby_shows_hostile_names_and_messages_escaped() -> None:
    async def scenario() -> list[str]:
        with create_pipe_input() as keys:
            screen = LobbyScreen(Terminal(keys, DummyOutput()), f"table '{HOSTILE}'", 60)
            never: asyncio.Future[object] = asyncio.get_running_loop().create_future()
            me = Identity.generate().public
            shown = asyncio.create_task(screen.seat(never, None, me))  # type: ignore[arg-type]
            screen.roster([("Me", me), (HOSTILE, Identity.generate().public)], 3)
            screen.say(f"{HOSTILE} sits in seat 1")
            async with asyncio.timeout(10):
                while not screen.app.is_running:
                    await asyncio.sleep(0.01)
            texts = [frame_text(screen.frame, Size(22, 80)), frame_text(screen.frame, Size(14, 60))]
            keys.send_text("leave\r")
            with pytest.raises(Exception, match="left the table"):
                await shown
            return texts

    for text in asyncio.run(scenario()):
        assert_data(text, "the lobby")
        assert "x\\r\\nvalid: a complete game" in text.replace("\n", "")


def test_a_hostile_table_name_in_mdns_is_never_shown_raw(tmp_path: Path) -> None:
    """A table announced with a hostile TXT name and host, under an instance name holding a C1
    CSI and bidi controls (what zeroconf lets through): the browser does not list it, and
    `cfnet tables --verbose` says why, escaped."""

    async def scenario() -> tuple[list[str], str]:
        table = TableInfo("clean", os.urandom(16), "host", Identity.generate().fingerprint,
                          RuleOptions(), 4, 1, False, port=9)  # fmt: skip
        kind = discovery.service_type()
        label = f"evil\u202e\x9b2J\u2066 [{table.table_id.hex()[:12]}]"
        from zeroconf.asyncio import AsyncServiceInfo

        info = AsyncServiceInfo(
            kind,
            f"{label}.{kind}",
            port=9,
            properties=table.to_txt() | {"name": HOSTILE, "host": HOSTILE},
            parsed_addresses=[LOOPBACK],
            server=f"cfnet-{table.table_id.hex()[:16]}.local.",
        )
        with create_pipe_input() as keys:
            async with Discovery(LOOPBACK) as hosting, Discovery(LOOPBACK) as looking:
                await (await hosting.zc.async_register_service(info, cooperating_responders=True))
                screen = BrowserScreen(looking, "Me", Terminal(keys, DummyOutput()))
                async with asyncio.timeout(30):
                    while not any(label in name for name in screen.browser.skipped):
                        await asyncio.sleep(0.05)
                texts = [
                    frame_text(screen.frame, Size(22, 80)),
                    frame_text(screen.frame, Size(14, 60)),
                ]
                listing = await asyncio.create_subprocess_exec(
                    *CFNET, "tables", "--interface", LOOPBACK, "--wait", "3", "--verbose",
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                )  # fmt: skip
                out, _ = await listing.communicate()
        return texts, out.decode(errors="replace")

    texts, out = asyncio.run(scenario())
    for text in texts:
        assert_data(text, "the browser")
        assert "evil" not in text  # not listed
    assert_data(out, "cfnet tables --verbose")
    assert "evil\\u202e\\x9b2J\\u2066" in out  # the instance, escaped, and why it is not listed
    assert "x\\\\r\\\\nvalid" in out or "x\\r\\nvalid" in out


def test_escaped_text_is_capped() -> None:
    """However long a peer's string (a field name can fill an entry), what is shown is capped."""
    from cfnet.game.text import escaped

    flood = ("\x1b[2J" * 10_000) + "end"
    shown = escaped(flood)
    assert len(shown) <= TEXT_CHARS and shown.endswith("…") and RAW.search(shown) is None
    assert escaped(shown) == shown  # escaping twice changes nothing
