"""Faults on a real LAN game (processes on 127.0.0.1): a peer killed mid-round and resumed,
links cut at random, junk and forged handshakes sent to a peer, a stalled peer. Every game
finishes as if nothing happened (identical, verified logs), or, for the stalled peer, with the
same signed, attributed timeout abort on every log."""

from __future__ import annotations

import asyncio
import os
import random
import re
import struct
import subprocess
from functools import partial
from pathlib import Path

import msgpack
import pytest
from lan_helpers import (
    CFNET,
    LOOPBACK,
    Peer,
    cfnet_verify,
    same_logs,
    start_all,
    table_peers,
    wait_all,
    wait_until,
)

from cfnet.disk.store import IDENTITY_FILE
from cfnet.net.handshake import Handshake
from cfnet.net.link import Link, LinkClosed
from cfnet.protocol.wire import ABORT
from cfnet.record.identity import Identity
from cfnet.record.logfile import read_log

ROUND_BYTES = 40_000  # a 4-seat round's log is about 45 kB
STALL = 12  # the tables' --timeout where a seat is killed: honest seats, starved on a busy
# 2-core machine running two tests at once, still answer well within it


RESUME = ["resume", "--interface", LOOPBACK, "--strategy", "greedy"]


def test_peers_killed_mid_round_resume_and_the_game_goes_on(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "lan-resume", rounds=2)
    start_all(peers)
    try:
        bot, host = peers[2], peers[0]
        wait_until(lambda: bot.log_size() > ROUND_BYTES * 3 // 4, what="round 1 under way")
        bot.kill()  # SIGKILL
        bot.start(RESUME)
        wait_until(lambda: host.log_size() > ROUND_BYTES * 3 // 2, what="round 2 under way")
        host.kill()
        host.start(RESUME)
        assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    finally:
        for peer in peers:
            peer.kill()
    same_logs(peers)
    assert cfnet_verify(peers[0].log_path()).returncode == 0
    assert "resuming table 'lan-resume-" in bot.output()
    assert "verified: the log is a complete, valid game" in host.output()


def test_a_seat_timed_out_while_down_resumes_into_the_game_the_others_finished_without_it(
    tmp_path: Path,
) -> None:
    """3 seats, 1 round: one is killed and timed out; the other two deal the round again and
    finish it. When it resumes it learns from them that it left (it plays nothing, blames
    nobody): no round is left to deal it in, and it ends with their chain and their result."""
    peers = table_peers(tmp_path, "lan-left", seats=3, rounds=1, timeout=STALL)
    host, gone = peers[:2]
    start_all(peers)
    try:
        wait_until(lambda: gone.log_size() > ROUND_BYTES // 4, what="round 1 under way")
        gone.kill()  # SIGKILL: its seat is timed out once it is due
        wait_until(lambda: ABORT in _kinds(host), timeout=60, what="the timeout claim")
        gone.start([*RESUME, "--wait", "60"])
        assert wait_all(peers) == [0, 0, 0], [p.output()[-1500:] for p in peers]
    finally:
        for peer in peers:
            peer.kill()
    entries = same_logs(peers)
    seat = gone.meta().seat
    claim = next(e for e in entries if e.kind == ABORT)
    assert not any(e.seat == seat for e in entries[claim.seq :])
    assert "you left the game: " in gone.output() and "is dealt again among" in gone.output()
    verdict = cfnet_verify(host.log_path())
    assert verdict.returncode == 0 and "departure: entry" in verdict.stdout, verdict.stdout


def test_a_peer_killed_and_timed_out_resumes_later_and_is_dealt_in_again(tmp_path: Path) -> None:
    """4 peers: one is killed in round 1 and timed out; the other 3 deal round 1 again and play
    on. It resumes once a round has been scored without it: it asks to come back, is dealt in
    from a later round, and the game finishes with all 4, with byte-identical, valid logs."""
    peers = table_peers(tmp_path, "lan-back", rounds=6, timeout=STALL)  # rounds to spare: a
    # resume on a loaded machine may take two rounds to find its peers and the chain
    host, gone = peers[0], peers[3]
    start_all(peers)
    try:
        wait_until(lambda: gone.log_size() > ROUND_BYTES // 4, what="round 1 under way")
        gone.kill()  # SIGKILL: its seat is timed out once it is due
        wait_until(lambda: ABORT in _kinds(host), timeout=60, what="the timeout claim")
        wait_until(
            lambda: _kinds(host).count("certify") >= 3, timeout=60, what="a round without it"
        )
        gone.start([*RESUME, "--wait", "60"])
        assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    finally:
        for peer in peers:
            peer.kill()
    entries = same_logs(peers)
    seat = gone.meta().seat
    back = re.search(rf"seat {seat} \(\S+\) is back: dealt in from round (\d)", gone.output())
    assert back is not None and 3 <= int(back[1]) <= 6, gone.output()
    assert any(e.seat == seat and e.kind == "reveal" for e in entries)  # it played again
    verdict = cfnet_verify(host.log_path())
    assert verdict.returncode == 0, verdict.stdout
    assert re.search(
        r"^departure: entry \d+: .* round 1 is dealt again among", verdict.stdout, re.M
    )
    assert re.search(rf"^return: entry \d+: seat {seat} .* is back", verdict.stdout, re.M)


def _kinds(peer: Peer) -> list[str]:
    try:
        return [entry.kind for entry in read_log(peer.log_path())]
    except (ValueError, OSError):  # not written yet, or a record being appended
        return []


def test_a_resumed_seat_with_no_peer_posts_nothing_and_gives_up_after_its_wait(
    tmp_path: Path,
) -> None:
    peers = table_peers(tmp_path, "lan-alone", seats=2, timeout=STALL)
    bot = peers[1]
    start_all(peers)
    try:
        wait_until(lambda: bot.log_size() > ROUND_BYTES // 4, what="round 1 under way")
        for peer in peers:
            peer.kill()  # both gone: nobody can tell the resumed seat the chain
        kept = bot.log_path().read_bytes()
        bot.start([*RESUME, "--wait", "3"])
        assert bot.wait() == 1, bot.output()
    finally:
        for peer in peers:
            peer.kill()
    assert "no peer gave us the chain in time; nothing was posted" in bot.output()
    assert bot.log_path().read_bytes() == kept  # not a move, not a timeout claim
    assert not bot.meta().finished  # a later resume may still find its peers


def test_links_cut_at_random_moments_do_not_change_the_game(tmp_path: Path) -> None:
    env = [{"CFNET_TEST_CHAOS": f"{seed}:0.06"} for seed in (11, 22, 33, 44)]
    peers = table_peers(tmp_path, "lan-chaos", rounds=2, env=env)
    for peer in peers:
        peer.args.append("--verbose")
    start_all(peers)
    assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    same_logs(peers)
    assert cfnet_verify(peers[0].log_path()).returncode == 0
    cuts = sum(p.output().count("test: link cut at random") for p in peers)
    assert cuts >= 4, cuts


def _key(peer: Peer) -> Identity:
    return Identity.load_or_create(peer.home / IDENTITY_FILE)


async def _attack(port: int, table_id: bytes, seat_identity: Identity) -> None:
    """Junk frames, a handshake with a key of no seat, and a recorded handshake replayed."""
    header = struct.Struct(">I")
    nested = msgpack.packb({"t": "hello", "x": [[[[[[[[[[[[1]]]]]]]]]]]]})
    junk = [
        header.pack(5) + b"hello",  # not msgpack
        header.pack(100) + b"0123456789",  # truncated body, then end of stream
        header.pack(0x7FFFFFFF),  # oversized
        header.pack(len(nested)) + nested,  # too deep
    ]
    for frame in junk:
        reader, writer = await asyncio.open_connection(LOOPBACK, port)
        writer.write(frame)
        writer.write_eof()
        await reader.read()  # the peer's hello and goodbye, then it closes
        writer.close()
    stranger = Identity.generate()
    link = await Link.connect(LOOPBACK, port)
    try:
        await link.handshake(Handshake(stranger, initiator=True, table_id=table_id))
        raise AssertionError("a key of no seat was let in")
    except LinkClosed:
        pass
    # a real seat's handshake, recorded, then replayed on a new connection
    sent: list[dict[str, object]] = []
    link = await Link.connect(LOOPBACK, port)
    handshake = Handshake(seat_identity, initiator=True, table_id=table_id)
    for message in handshake.start():
        sent.append(message)
        await link.send(message)
    while handshake.result is None:
        for reply in handshake.receive(await link.receive()):
            sent.append(reply)
            await link.send(reply)
    await link.close("test: recorded")
    replay = await Link.connect(LOOPBACK, port)
    for message in sent:
        await replay.send(message)
    try:
        while True:
            await replay.receive()
    except LinkClosed as closed:
        assert "verify" in closed.reason, closed.reason


def test_junk_frames_and_forged_handshakes_close_only_their_link(tmp_path: Path) -> None:
    peers = table_peers(tmp_path, "lan-junk", rounds=2)
    start_all(peers)
    try:
        wait_until(lambda: all(p.log_size() > 5000 for p in peers), what="the game started")
        keys = {peer.home.name: _key(peer) for peer in peers}
        victim = max(peers, key=lambda p: keys[p.home.name].public)
        caller = min(peers, key=lambda p: keys[p.home.name].public)
        meta = victim.meta()
        port = meta.addresses[meta.seat][1]
        asyncio.run(_attack(port, meta.table_id, keys[caller.home.name]))
        assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    finally:
        for peer in peers:
            peer.kill()
    same_logs(peers)
    assert cfnet_verify(peers[0].log_path()).returncode == 0
    said = victim.output()
    for reason in (
        "FrameMalformed",
        "FrameTruncated",
        "FrameTooLarge",
        "is not one we accept here",
        "signature does not verify",
    ):
        assert reason in said, (reason, said)


@pytest.mark.parametrize("value", ["x", "7:2", "7:nan", "-1:0.1", "7:"])
def test_a_malformed_chaos_setting_is_a_one_line_error(tmp_path: Path, value: str) -> None:
    done = subprocess.run(
        [*CFNET, "bot", "--connect", "127.0.0.1:1", "--interface", LOOPBACK],
        env={**os.environ, "CFNET_HOME": str(tmp_path), "CFNET_TEST_CHAOS": value},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"cfnet bot: CFNET_TEST_CHAOS={value!r}: expected SEED[:RATE]")


def test_a_peer_killed_mid_round_and_kept_down_is_timed_out_and_the_others_finish(
    tmp_path: Path,
) -> None:
    """4 peers, one SIGKILLed in round 1 and kept down past the deadline: the other 3 time it
    out with one abort carrying their 3 stall votes, deal round 1 again among themselves and
    finish every round with byte-identical logs; `verify` exits 0 and shows the departure, the
    re-deal and the scores the absent seat gets (each round's highest)."""
    peers = table_peers(tmp_path, "lan-stall", rounds=2, timeout=STALL)  # honest seats answer
    start_all(peers)
    gone, others = peers[3], peers[:3]
    try:
        wait_until(lambda: gone.log_size() > ROUND_BYTES // 2, what="round 1 under way")
        gone.kill()  # SIGKILL, and it stays down
        assert wait_all(others) == [0, 0, 0], [p.output() for p in others]
    finally:
        for peer in peers:
            peer.kill()
    entries = same_logs(others)
    seat = gone.meta().seat
    (claim,) = [e for e in entries if e.kind == ABORT]
    assert claim.body["blamed"] == seat and claim.body["code"] == "timeout"
    assert not any(e.seat == seat for e in entries[claim.seq :])
    verdict = cfnet_verify(others[0].log_path())
    assert verdict.returncode == 0, verdict.stdout
    assert re.search(
        rf"^departure: entry {claim.seq}: seat {seat} \(\S+\) did not post .*: timed out by the"
        rf" votes of seat \d \(\S+\), seat \d \(\S+\), seat \d \(\S+\): round 1 is dealt again"
        rf" among ",
        verdict.stdout,
        re.M,
    ), verdict.stdout
    assert "valid: a complete game" in verdict.stdout and "to blame" not in verdict.stdout
    assert "* sat the round out" in verdict.stdout
    assert all("round 1 is dealt again among" in p.output() for p in others)
    waiting = re.compile(
        rf"waiting for seat {seat} \(\S+\): (thinking|link down \d+ s), \d+:\d\d left"
    )
    assert all(waiting.search(p.output()) for p in others), [p.output() for p in others]
    waiting = re.compile(
        rf"waiting for seat {seat} \(\S+\): (thinking|link down \d+ s), \d+:\d\d left"
    )
    assert all(waiting.search(p.output()) for p in others), [p.output() for p in others]


def _grown(peer: Peer, size: int) -> bool:
    return peer.log_size() > size


def test_peers_killed_again_and_again_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(2026)
    peers = table_peers(tmp_path, "lan-kills", rounds=2)
    start_all(peers)
    try:
        grown = 0
        for _ in range(4):
            victim = rng.choice(peers)
            grown += rng.randrange(5_000, 20_000)
            wait_until(partial(_grown, victim, grown), what="the log to grow")
            victim.kill()
            victim.start(RESUME)
        assert wait_all(peers) == [0, 0, 0, 0], [p.output() for p in peers]
    finally:
        for peer in peers:
            peer.kill()
    same_logs(peers)
    assert cfnet_verify(peers[0].log_path()).returncode == 0


def _certified_rounds(peer: Peer, seats: int) -> int:
    try:
        entries = read_log(peer.log_path())
    except (ValueError, OSError):  # not written yet, or a record being appended
        return 0
    return sum(1 for entry in entries if entry.kind == "certify") // seats


def test_two_seats_one_stalls_and_the_game_ends_unfinished_a_win_for_nobody(
    tmp_path: Path,
) -> None:
    """2 seats, the joiner killed in round 2 and kept down: no majority can time it out (the
    host alone is not one), so the host times nobody out: it says the game ends unfinished, a
    win for nobody, and exits with the no-result status; its log ends where the joiner was due
    and `verify` names it as due, blaming nobody."""
    host, bot = peers = table_peers(tmp_path, "lan-alone-left", seats=2, rounds=3, timeout=STALL)
    start_all(peers)
    try:
        wait_until(lambda: _certified_rounds(bot, 2) >= 1, timeout=60, what="round 1 certified")
        bot.kill()  # SIGKILL, and it stays down
        assert host.wait() == 3, host.output()
    finally:
        for peer in peers:
            peer.kill()
    assert "the game ends unfinished, a win for nobody" in host.output(), host.output()
    entries = read_log(host.log_path())
    assert all(entry.kind != ABORT for entry in entries)
    verdict = cfnet_verify(host.log_path())
    assert verdict.returncode == 1 and "unfinished" in verdict.stdout, verdict.stdout
    assert re.search(r"seat 1 \(\S+\) was due", verdict.stdout), verdict.stdout
    assert "to blame" not in verdict.stdout and "INVALID" not in verdict.stdout
