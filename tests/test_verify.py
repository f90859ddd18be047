"""`cfnet verify` and `cfnet replay` on valid, cheated, truncated and damaged logs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from cheaters import plays_the_next_tile, resign, run

from cfnet.cli.main import main
from cfnet.game.rules import RuleOptions
from cfnet.protocol.events import MoveMade
from cfnet.protocol.testing import Network, play_protocol_game, start_tables
from cfnet.record.entry import Entry
from cfnet.record.logfile import write_log

VECTOR = Path(__file__).parent / "vectors" / "game-2p-seed1.cfnlog"


def test_valid_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(VECTOR)]) == 0
    out = capsys.readouterr().out
    assert "round 1: bot0 went out" in out
    assert re.search(r"^round +bot0 +bot1\n +1 +0 +4\ntotal +0 +4$", out, re.M), out
    assert "game over: seat 0 (bot0) wins with 0 points" in out
    assert "valid: a complete game" in out
    assert "[" not in out.replace("[0, 4]", "")  # no Python lists


def verify_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    """`cfnet verify --json`'s exit code and object."""
    code = main(["verify", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_json_of_a_valid_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, verdict = verify_json(VECTOR, capsys)
    assert code == 0
    assert verdict["valid"] is True and verdict["finished"] is True
    assert verdict["rounds"] == [
        {
            "round": 1,
            "scores": [0, 4],
            "totals": [0, 4],
            "end": "went out",
            "went_out": 0,
            "seated": [0, 1],
        }
    ]
    assert verdict["totals"] == [0, 4] and verdict["winners"] == [0]
    assert verdict["blamed"] is None and verdict["players"] == ["bot0", "bot1"]


def test_the_json_fields_are_those_protocol_md_lists(capsys: pytest.CaptureFixture[str]) -> None:
    """protocol.md 4.7 lists every field of `verify --json`, in order, and of each round."""
    spec = (Path(__file__).parent.parent / "protocol.md").read_text()
    table = spec[spec.index("**`verify --json`**") :].split("\n\n")[1]
    listed = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    _, verdict = verify_json(VECTOR, capsys)
    assert listed == list(verdict)
    row = next(line for line in table.splitlines() if line.startswith("| `rounds` |"))
    assert re.findall(r"`([a-z_]+)` \(", row) == list(verdict["rounds"][0])


def test_a_cheater_alone_with_one_honest_seat_is_to_blame_and_the_game_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Version 3, 2 seats, round 1: removing the cheater leaves one player and no round scored,
    so the game ends without a result, and the cheater is to blame."""
    network, cheater = run(2, 6, 1, plays_the_next_tile, version=3)
    assert cheater is not None and cheater.cheated_at is not None
    path = tmp_path / "cheat.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"INVALID: entry {cheater.cheated_at} (seat 1, play)" in out
    assert "to blame: seat 1 (bot1)" in out
    assert "abort: seat 1" in out
    code, verdict = verify_json(path, capsys)
    assert code == 1 and verdict["valid"] is False and verdict["blamed"] == 1
    assert verdict["finished"] is False and verdict["winners"] == []


def test_a_cheater_alone_with_one_honest_seat_is_removed_and_the_other_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """2 seats, round 1: the cheater is removed and disqualified; one player is left, so the
    game ends with no round scored, and the player still seated wins it (RULES.md)."""
    network, cheater = run(2, 6, 1, plays_the_next_tile)
    assert cheater is not None and cheater.cheated_at is not None
    path = tmp_path / "cheat.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "game over: seat 0 (bot0) wins" in out, out
    assert "seat 1 (bot1) is disqualified: removed for cheating" in out
    code, verdict = verify_json(path, capsys)
    assert code == 0 and verdict["valid"] and verdict["finished"] and verdict["winners"] == [0]
    assert verdict["removed"] == [1] and verdict["blamed"] is None


def test_a_cheater_among_three_is_removed_and_disqualified_and_the_game_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network, cheater = run(3, 6, 1, plays_the_next_tile)
    assert cheater is not None and cheater.cheated_at is not None
    path = tmp_path / "cheat.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 0  # the game's result stands without the cheater
    out = capsys.readouterr().out
    assert re.search(
        rf"^departure: entry {cheater.cheated_at + 1}: seat 1 \(bot1\) is removed and"
        rf" disqualified: entry {cheater.cheated_at}: played \S+ but its position \d+ holds"
        r" \S+ \(bad-entry\): round 1 is dealt again among seat 0 \(bot0\), seat 2 \(bot2\)$",
        out,
        re.M,
    ), out
    assert "seat 1 (bot1) is disqualified: removed for cheating" in out
    assert "valid: a complete game" in out and "to blame" not in out
    code, verdict = verify_json(path, capsys)
    assert code == 0 and verdict["valid"] and verdict["finished"] and verdict["removed"] == [1]
    assert verdict["blamed"] is None and 1 not in verdict["winners"]
    assert verdict["rounds"][0]["seated"] == [0, 2]


def test_a_truncated_log_is_unfinished_and_names_the_seat_due(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = play_protocol_game(2, 3, RuleOptions(rounds=1)).tables[0].entries
    path = tmp_path / "short.cfnlog"
    write_log(path, entries[:5])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "unfinished: the log stops after entry 4: seat 1 (bot1) was due to post shuffle_b" in out
    assert "blame" not in out and "INVALID" not in out
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["valid"], verdict["finished"]) == (1, True, False)
    assert verdict["blamed"] is None and verdict["due"] == 1


def test_in_a_version_3_table_a_timeout_abort_is_a_claim_not_a_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = start_tables(2, 5, RuleOptions(rounds=1), timeout=30, version=3)
    network.tampers = {1: lambda entry: []}  # seat 1's entries reach nobody
    network.run()
    entries = network.tables[0].entries
    assert entries[-1].kind == "abort" and entries[-1].body["code"] == "timeout"
    path = tmp_path / "timeout.cfnlog"
    write_log(path, entries)
    assert main(["verify", str(path)]) == 1  # the game did not finish
    out = capsys.readouterr().out
    assert (
        "unfinished: seat 0 (bot0) claims seat 1 (bot1) did not post its accept within 30 s"
        " (timeout)" in out
    )
    assert "only seat 0's word: time cannot be proven offline" in out
    assert "blame" not in out and "INVALID" not in out
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["valid"], verdict["finished"], verdict["blamed"]) == (
        1,
        True,
        False,
        None,
    )
    assert verdict["claim"]["by"] == 0 and verdict["claim"]["seat"] == 1
    assert verdict["claim"]["code"] == "timeout"


def test_forged_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cfnet.protocol.testing import sim_identity

    entries = list(play_protocol_game(2, 3, RuleOptions(rounds=1)).tables[0].entries)
    forged = resign(sim_identity(3, 0), entries[3])  # seat 1's entry signed with seat 0's key
    path = tmp_path / "forged.cfnlog"
    write_log(path, [*entries[:3], forged])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "entry 3 (claims seat 1, shuffle_a) is refused: entry 3: the signature is not" in out
    assert "seat 1 (bot1) was due to post shuffle_a" in out
    assert "no seat is proven at fault" in out and "to blame" not in out


def test_damaged_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(VECTOR.read_bytes())
    data[500] ^= 0xFF
    path = tmp_path / "damaged.cfnlog"
    path.write_bytes(bytes(data))
    assert main(["verify", str(path)]) == 1
    assert "record damaged" in capsys.readouterr().out


def _damaged_tail(how: str, entries: list[Entry]) -> bytes:
    """The records of the vector's first 20 entries, then a tail damaged as `how` says."""
    from cfnet.protocol.testing import sim_identity
    from cfnet.record.entry import sign_entry
    from cfnet.record.logfile import MAGIC, encode_record

    head, record = MAGIC, encode_record(entries[20].wire)
    head += b"".join(encode_record(e.wire) for e in entries[:20])
    flipped = record[:-1] + bytes([record[-1] ^ 1])
    e = entries[20]
    if how == "torn":  # the file ends inside a record
        return head + record[:50]
    if how == "check fails, last":  # torn too: nothing after it
        return head + flipped
    if how == "check fails, data after":
        return head + flipped + encode_record(entries[21].wire)
    if how == "length out of range":  # 35187 > 34816, with a good header check
        size = (35187).to_bytes(4, "big")
        return head + size + zlib.crc32(size).to_bytes(4, "big") + bytes(100)
    if how == "does not link":
        return head + encode_record(entries[21].wire)
    if how == "signature":  # refused: another key
        forged = sign_entry(sim_identity(99, 0), e.table_id, e.seq, e.prev, e.seat, e.kind, e.body)
        return head + encode_record(forged.wire)
    assert how == "over 9 KiB"  # refused: an ordinary entry over its limit
    big = sign_entry(
        sim_identity(1, e.seat),
        e.table_id,
        e.seq,
        e.prev,
        e.seat,
        e.kind,
        {**e.body, "pad": bytes(10000)},
    )
    return head + encode_record(big.wire)


@pytest.mark.parametrize(
    ("how", "damaged"),
    [
        ("torn", False),
        ("check fails, last", False),
        ("check fails, data after", True),
        ("length out of range", True),
        ("does not link", True),
        ("signature", False),
        ("over 9 KiB", False),
    ],
)
def test_valid_finished_and_damaged_before_the_end(
    how: str, damaged: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """protocol.md 4.7, rule 3: a torn tail or a refused record leaves `valid` true; a file
    corrupt before the game's end is `damaged` and not valid; none is finished or blames."""
    from cfnet.record.logfile import read_log

    path = tmp_path / "tail.cfnlog"
    path.write_bytes(_damaged_tail(how, read_log(VECTOR)))
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["finished"], verdict["blamed"], verdict["due"]) == (1, False, None, 0)
    assert (verdict["valid"], verdict["damaged"]) == (not damaged, damaged), verdict["problem"]


@pytest.mark.parametrize("tail", [b"\x00\x00\x01", bytes(range(1, 40))])
def test_damage_after_the_end_leaves_the_result(
    tail: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """protocol.md 4.7, rule 3: torn or corrupt bytes after the last certificate: valid,
    finished, not damaged, reported as the problem (exit status 1)."""
    path = tmp_path / "after.cfnlog"
    path.write_bytes(VECTOR.read_bytes() + tail)
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["valid"], verdict["finished"], verdict["damaged"]) == (
        1,
        True,
        True,
        False,
    )
    assert verdict["problem"].startswith("after the end, the file cannot be read on at byte 40810")


def test_replay(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(VECTOR), "--round", "1", "--to", "3"]) == 0
    out = capsys.readouterr().out
    assert "== round 1: centre [9|9]; seat 0 (bot0) starts" in out
    assert "3. seat 0 (bot0):" in out and "4. " not in out
    assert main(["replay", str(VECTOR)]) == 0
    out = capsys.readouterr().out
    assert "-- round 1 over: seat 0 (bot0) went out; hands as revealed" in out
    assert re.search(r"^round +bot0 +bot1\n +1 +0 +4\ntotal +0 +4$", out, re.M), out
    assert "game over: seat 0 (bot0) wins with 0 points" in out


def test_replay_shows_each_drawn_tile_and_how_each_round_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    network = play_protocol_game(4, 3, RuleOptions(rounds=2))
    path = tmp_path / "game.cflog"
    write_log(path, network.tables[0].entries)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    drawn = sorted(
        (seat, event.drawn.label)
        for seat, events in enumerate(network.events)
        for event in events
        if isinstance(event, MoveMade) and event.seat == seat and event.drawn is not None
    )
    shown = re.findall(r"^\d+\. seat (\d) \(bot\d\): draw(.*)$", out, re.M)
    assert drawn and sorted((int(seat), tile.strip()) for seat, tile in shown) == drawn
    ends = re.findall(r"^-- round (\d) over: (.*); hands as revealed:$", out, re.M)
    assert [number for number, _ in ends] == ["1", "2"]
    assert all(
        re.fullmatch(r"seat \d \(bot\d\) went out|blocked: .*|dead foot: .*", e) for _, e in ends
    )


def test_replay_of_a_round_the_log_does_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(VECTOR), "--round", "5"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "cfnet replay: no round 5: this game has rounds 1 to 1\n"
    entries = play_protocol_game(2, 3, RuleOptions(rounds=2)).tables[0].entries
    path = tmp_path / "short.cflog"
    write_log(path, entries[:60])
    assert main(["replay", str(path), "--round", "2"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "cfnet replay: no round 2: the log stops in round 1\n"


def test_replay_into_a_closed_pipe_stops_quietly() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has left, as `| head` does after its lines
    try:
        run = subprocess.run(
            [sys.executable, "-m", "cfnet", "replay", str(VECTOR)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr, run.stderr
    assert run.returncode == 1


def test_selfplay_protocol_writes_a_valid_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.cfnlog"
    args = ["selfplay", "--protocol", "--players", "3", "--seed", "2", "--rule", "rounds=1"]
    assert main([*args, "--bots", "random", "--log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "every peer's log identical: yes" in out and f"log written to {path}" in out
    assert main(["verify", str(path)]) == 0
    assert main(["selfplay", "--log", str(path)]) == 2


def _withholding_certify(rounds: int, at_end: bool) -> Network:
    """A 3-seat game in which seat 2 never sends its certify of the last round (`at_end`) or of
    the first of several."""
    network = start_tables(3, 15, RuleOptions(rounds=rounds), timeout=30)

    def withhold(entry: Entry) -> list[tuple[bytes, frozenset[int] | None]]:
        if entry.kind == "certify" and network.tables[0].game.is_over == at_end:
            return []
        return [(entry.wire, None)]

    network.tampers = {2: withhold}
    network.run()
    return network


def test_a_certificate_withheld_at_the_end_leaves_the_result_standing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loser withholds its certify of the last round: the others time it out, and the
    game is over with the audited rounds' result, live and in `verify`."""
    network = _withholding_certify(rounds=1, at_end=True)
    for table in network.tables[:2]:
        assert table.aborted is not None and table.aborted.seat == 2
        assert table.aborted.code == "timeout" and table.over and table.finished
    path = tmp_path / "withheld.cfnlog"
    write_log(path, network.tables[0].entries)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "INVALID" not in out and "blame" not in out
    assert re.search(
        r"note: seat 2 \(bot2\) did not post its certify within 30 s: timed out by the votes"
        r" of seat 0 \(bot0\), seat 1 \(bot1\): the result of the audited rounds stands",
        out,
    ), out
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["valid"], verdict["finished"], verdict["blamed"]) == (0, True, True, None)
    assert verdict["totals"] == list(network.tables[0].game.totals)
    assert verdict["winners"] == list(network.tables[0].game.winners())
    assert "the result of the audited rounds stands" in verdict["note"]


def test_a_certificate_withheld_before_the_end_times_its_seat_out_and_the_game_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seat 2 withholds its certify of round 1 of 2: it is timed out, round 1 stands as
    audited, and round 2 is played by the two seats left; seat 2 scores its highest score."""
    network = _withholding_certify(rounds=2, at_end=False)
    table = network.tables[0]
    assert table.aborted is None and table.over
    assert table.game.round_seated == [(0, 1, 2), (0, 1)]
    assert table.game.round_scores[1][2] == max(table.game.round_scores[1][:2])
    path = tmp_path / "withheld.cfnlog"
    write_log(path, table.entries)
    code, verdict = verify_json(path, capsys)
    assert (code, verdict["valid"], verdict["finished"], verdict["note"]) == (0, True, True, None)
    (departure,) = verdict["departures"]
    assert re.search(
        r"seat 2 \(bot2\) did not post its certify within 30 s: timed out by the votes of"
        r" seat 0 \(bot0\), seat 1 \(bot1\): round 2 starts among"
        r" seat 0 \(bot0\), seat 1 \(bot1\)$",
        departure,
    ), departure
    assert [r["seated"] for r in verdict["rounds"]] == [[0, 1, 2], [0, 1]]
