"""Every error a person can make at the command line is one line on stderr, never a traceback,
with argparse's exit statuses: 2 for a usage error, 1 for any other failure. Each command runs
as a real process, its stdin not a terminal; the network is touched on 127.0.0.1 only (an
address that is not this machine's is refused before anything is bound)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cfnet.cli.options import machine_ipv4

CFNET = [sys.executable, "-m", "cfnet"]
LOOPBACK = "127.0.0.1"
TEST_NETS = ("192.0.2.1", "198.51.100.1", "203.0.113.1")  # RFC 5737: documentation only
FOREIGN = next(address for address in TEST_NETS if address not in machine_ipv4())


@dataclass(frozen=True)
class Files:
    """A state directory, a 2-round log, the same log cut short, the same log with one byte of
    a middle record changed, its JSON record, and a file of random bytes."""

    home: Path
    log: Path
    truncated: Path
    damaged: Path
    record: Path
    random: Path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    tmp = tmp_path_factory.mktemp("cli-errors")
    log = tmp / "game.cflog"
    subprocess.run(
        [*CFNET, "selfplay", "--protocol", "--players", "3", "--seed", "3",
         "--rule", "rounds=2", "--log", str(log)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    truncated = tmp / "truncated.cflog"
    truncated.write_bytes(log.read_bytes()[:-1])  # the last record lacks its last byte
    damaged = tmp / "damaged.cflog"
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 0x10  # inside a middle record: no crash leaves this
    damaged.write_bytes(data)
    record = tmp / "game.json"
    subprocess.run(
        [*CFNET, "export", str(log), "-o", str(record)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    random = tmp / "random.bin"
    random.write_bytes(os.urandom(1000))
    return Files(tmp / "home", log, truncated, damaged, record, random)


@pytest.fixture
def port_in_use() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that this test holds open."""
    with socket.socket() as holder:
        holder.bind((LOOPBACK, 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def cfnet(files: Files, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `cfnet ARGS` with its own state directory, stdin not a terminal."""
    return subprocess.run(
        [*CFNET, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "CFNET_HOME": str(files.home)},
    )


def assert_one_line(
    result: subprocess.CompletedProcess[str], status: int | tuple[int, ...], says: str
) -> None:
    """Exactly one line on stderr, naming the command and saying `says` (in any case); the
    exit status (or one of them)."""
    shown = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "Traceback" not in result.stderr + result.stdout, shown
    lines = result.stderr.splitlines()
    assert len(lines) == 1, shown
    assert lines[0].startswith("cfnet"), shown
    assert says.lower() in lines[0].lower(), shown
    assert result.returncode in (status if isinstance(status, tuple) else (status,)), shown


USAGE = [
    (["host", "--name", "t", "--rule", "colour=red"], "is not a rule option"),
    (["host", "--name", "t", "--rule", "rounds=11"], "rounds=11: choose 1..10"),
    (["host", "--name", "t", "--seats", "1"], "1 player: Chicken Foot takes 2 to 8 players"),
    (["host", "--name", "t", "--seats", "9"], "9 players: Chicken Foot takes 2 to 8 players"),
    (["host", "--name", "t", "--bots", "4", "--seats", "4"], "--bots 4: at most 3"),
    (["host", "--name", "t", "--port", "99999"], "give a TCP port"),
    (["host", "--name", "t", "--seats", "four"], "invalid int value"),
    (["host"], "the following arguments are required: --name"),
    (["play", "--offline", "--rule", "rounds"], "is not a rule option"),
    (["play", "--offline", "--players", "1"], "1 player: Chicken Foot takes"),
    (["play", "--offline", "--players", "9"], "9 players: Chicken Foot takes"),
    (["selfplay", "--rule", "start_trains=1"], "start_trains=1"),
    (["selfplay", "--players", "1"], "1 player: Chicken Foot takes"),
    (["selfplay", "--players", "9"], "9 players: Chicken Foot takes"),
    (["demo", "--players", "1"], "1 player: Chicken Foot takes"),
    (["demo", "--players", "9"], "9 players: Chicken Foot takes"),
    (["demo", "--rounds", "11"], "rounds=11"),
    (["verify"], "the following arguments are required: log"),
    (["tables", "--wait", "0"], "give a number of seconds"),
    (["join"], "name a table, or give --connect HOST:PORT"),
    (["bot"], "name a table, or give --connect HOST:PORT"),
    (["bot", "friday", "--table", "kitchen"], "NAME 'friday' and --table 'kitchen' differ"),
    (["replay", "x.cflog", "--to", "-3"], "argument --to: '-3': give a whole number, 0 to"),
    (["replay", "x.cflog", "--round", "0"], "argument --round: '0': give a whole number, 1 to 10"),
    (["bogus"], "invalid choice: 'bogus'"),
    # a person's seat, or a screen, needs a terminal
    (["play", "--offline"], "needs a terminal"),
    (["play"], "needs a terminal"),
    (["demo", "--human"], "needs a terminal"),
    (["host", "--name", "t"], "needs a terminal"),
    (["join", "t"], "needs a terminal"),
]


@pytest.mark.parametrize(("args", "says"), USAGE, ids=[" ".join(a) for a, _ in USAGE])
def test_a_usage_error_is_one_line_and_exits_2(files: Files, args: list[str], says: str) -> None:
    assert_one_line(cfnet(files, *args), 2, says)


@pytest.mark.parametrize("command", ["tables", "host --name t", "bot --table t", "join t", "play"])
def test_an_address_not_on_this_machine_is_named_with_the_machines_own(
    files: Files, command: str
) -> None:
    result = cfnet(files, *command.split(), "--interface", FOREIGN)
    assert_one_line(result, 2, f"{FOREIGN} is not an address of this machine")
    assert LOOPBACK in result.stderr  # the machine's addresses are listed


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_a_missing_random_or_truncated_file_is_one_line(files: Files, command: str) -> None:
    missing = files.log.with_name("missing.cflog")
    assert_one_line(cfnet(files, command, str(missing)), 1, "no file")
    assert_one_line(cfnet(files, command, str(files.random)), 1, "not a cfnet log file")
    result = cfnet(files, command, str(files.truncated))
    cut = "the file ends 1 byte before the end of the last record"
    if command == "verify":  # judged as far as it can be read: a verdict, not an error
        assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
        assert "unfinished: the file cannot be read on at byte" in result.stdout
        assert cut in result.stdout and result.stderr == ""
    else:
        assert_one_line(result, 1, cut)
    assert_one_line(cfnet(files, command, str(files.home.parent)), 1, "is not a file")


def test_replay_of_a_round_the_log_does_not_hold_says_how_many_it_has(files: Files) -> None:
    result = cfnet(files, "replay", str(files.log), "--round", "5")
    assert_one_line(result, (1, 2), "1 to 2")
    assert "round 1" in cfnet(files, "replay", str(files.log), "--round", "1").stdout


def test_a_port_in_use_is_named(files: Files, port_in_use: int) -> None:
    result = cfnet(
        files, "host", "--name", "t", "--port", str(port_in_use),
        "--interface", LOOPBACK, "--strategy", "greedy",
    )  # fmt: skip
    assert_one_line(result, 1, f"port {port_in_use} on {LOOPBACK} is in use")


def test_an_unknown_table_is_one_line_after_the_wait(files: Files) -> None:
    """`join NAME`, `bot NAME` (as join and watch name a table) and `bot --table NAME`."""
    for command, option in (("join", []), ("bot", []), ("bot", ["--table"])):
        name = f"no-such-table-{os.urandom(4).hex()}"
        result = cfnet(
            files, command, *option, name, "--wait", "0.5", "--interface", LOOPBACK,
            "--strategy", "greedy",
        )  # fmt: skip
        assert_one_line(result, 1, name)


def test_nobody_at_the_address_is_said_in_cfnets_words(files: Files) -> None:
    result = cfnet(
        files, "join", "--connect", f"{LOOPBACK}:1", "--wait", "1", "--strategy", "greedy"
    )
    assert_one_line(result, 1, f"cannot reach the table at {LOOPBACK}:1: nothing listens there")
    assert "Errno" not in result.stderr + result.stdout


def test_a_damaged_log_is_damaged_in_text_and_json_and_export_fails(files: Files) -> None:
    """One byte changed inside a middle record: verify's text says DAMAGED and --json says not
    valid; export writes the record as far as the log goes, says why in one line and exits 1.
    A log cut short inside its last record (as a crash leaves it) stays unfinished and valid."""
    text = cfnet(files, "verify", str(files.damaged))
    assert text.returncode == 1 and "DAMAGED: the file cannot be read on at byte" in text.stdout
    assert "unfinished" not in text.stdout
    verdict = json.loads(cfnet(files, "verify", "--json", str(files.damaged)).stdout)
    assert (verdict["valid"], verdict["damaged"], verdict["finished"]) == (False, True, False)
    cut = json.loads(cfnet(files, "verify", "--json", str(files.truncated)).stdout)
    assert (cut["valid"], cut["damaged"], cut["finished"]) == (True, False, False)
    out = files.home.parent / "damaged.json"
    exported = cfnet(files, "export", str(files.damaged), "-o", str(out))
    assert_one_line(exported, 1, f"{files.damaged} is damaged: the file cannot be read on")
    record = json.loads(out.read_text())
    assert record["valid"] is False and record["problem"] == verdict["problem"]


def test_a_file_of_the_wrong_kind_is_named_with_what_reads_it(files: Files) -> None:
    """A record given to verify, a log or other bytes given to import-check: what the file is,
    and which command reads it; never a decoder's words."""
    result = cfnet(files, "verify", str(files.record))
    assert_one_line(result, 1, "not a cfnet log file but JSON text")
    assert "cfnet import-check reads those" in result.stderr and "CFNLOG\\x00" not in result.stderr
    result = cfnet(files, "import-check", str(files.log))
    assert_one_line(result, 1, f"{files.log} is a cfnet log file, not a record: `cfnet export")
    result = cfnet(files, "import-check", str(files.random))
    assert_one_line(result, 1, f"{files.random} is not a record: byte")
    assert "is not UTF-8 text" in result.stderr and "codec" not in result.stderr
    text = files.home.parent / "notes.txt"
    text.write_text("nothing to see\n")
    result = cfnet(files, "import-check", str(text))
    assert_one_line(result, 1, f"{text} is not a record: it is not JSON text")
    assert "(char " not in result.stderr
    missing = files.home.parent / "missing.json"
    assert_one_line(cfnet(files, "import-check", str(missing)), 1, f"{missing}: no such file")


def test_a_file_written_into_a_missing_folder_names_the_folder(files: Files) -> None:
    """`export -o` and `selfplay --log` into a folder that does not exist."""
    target = files.home.parent / "no-such-folder" / "game.json"
    result = cfnet(files, "export", str(files.log), "-o", str(target))
    assert_one_line(result, 1, f"cannot write {target}: there is no folder {target.parent}")
    assert "Errno" not in result.stderr
    log = target.with_suffix(".cflog")
    result = cfnet(files, "selfplay", "--protocol", "--players", "2", "--rule", "rounds=1",
                   "--log", str(log))  # fmt: skip
    assert_one_line(result, 1, f"cannot write {log}: there is no folder {log.parent}")
    assert ".tmp" not in result.stderr


def test_watch_follow_of_a_missing_file_says_so_and_gives_up_after_the_wait(
    files: Files,
) -> None:
    missing = files.home.parent / "not-yet.cflog"
    result = cfnet(files, "watch", "--follow", str(missing), "--wait", "0.5")
    assert f"no file {missing} yet: waiting up to 0.5 s" in result.stdout
    assert_one_line(result, 1, f"no file {missing} appeared within 0.5 s")
    assert_one_line(cfnet(files, "watch", "--follow", str(files.home.parent)), 1, "is not a file")


def test_import_check_counts_rounds_not_deals(files: Files) -> None:
    result = cfnet(files, "import-check", str(files.record))
    assert result.returncode == 0 and "record ok: 2 rounds," in result.stdout, result


def test_nothing_to_resume_and_a_home_that_is_a_file_are_one_line(files: Files) -> None:
    assert_one_line(cfnet(files, "resume", "--strategy", "greedy"), 1, "unfinished")
    result = cfnet(files, "resume", "--home", str(files.random))
    assert_one_line(result, 1, str(files.random))


def test_a_reader_that_goes_away_ends_replay_quietly(files: Files) -> None:
    """`cfnet replay LOG | head`: the reader is gone (here before the first line, so that no
    pipe buffer can hide it): no BrokenPipeError, nothing on stderr, exit 1."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        replay = subprocess.run(
            [*CFNET, "replay", str(files.log)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (replay.returncode, replay.stderr) == (1, "")


def test_ctrl_c_is_one_line_and_exits_130(files: Files) -> None:
    name = f"no-such-table-{os.urandom(4).hex()}"
    with subprocess.Popen(
        [*CFNET, "join", name, "--wait", "600", "--interface", LOOPBACK, "--strategy", "greedy"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CFNET_HOME": str(files.home)},
    ) as join:
        assert join.stdout is not None
        assert "looking for table" in join.stdout.readline()  # it is under way
        join.send_signal(signal.SIGINT)
        try:
            out, err = join.communicate(timeout=120)
        finally:
            join.kill()  # never left behind, should it ignore the signal
    result = subprocess.CompletedProcess(join.args, join.returncode, out, err)
    assert_one_line(result, 130, "interrupted")
