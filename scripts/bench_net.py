"""Benchmark of LAN play on loopback: the wall time of a complete 10-round game between
computer players that think instantly, each a separate `cfnet` process (a host and bots that
find it by mDNS), for 4 and 8 peers; and the time from starting `cfnet host` to the table
showing in an mDNS browser (what `cfnet tables` runs); and the same games with `cfnet watch`
spectators (--watchers, default 2) linked to the host from the start, timed to the last
player's exit: watching must not delay the players. The watchers check every entry and hop
proof, which on a LAN they do on their own machines: here they run only when a core is idle
(SCHED_IDLE, below nice 19) so as not to take the players' cores. Only 127.0.0.1 is used.

Run: .venv/bin/python scripts/bench_net.py [--rounds 10] [--peers 4 8] [--watchers 2] [--by-name]
Targets: 4 peers within 5 s, 8 peers within 15 s, discovery within 1 s; with the watchers,
within 10% of the time without (the best of --repeat runs of each, alternated; on this
shared 2-core machine the load of other work moves single runs by 20%). Here every peer shares
this machine's cores and checks every other seat's hop proofs, so a game's CPU seconds over
the cores bound its wall time from below: the line says that bound beside the time (target:
within 1.25x of it), and each peer's CPU seconds. A game of one round is timed too: the rounds
after the first, the difference of the two, show the play against its floor without the start
(process start-up, the table's mDNS announcement, the lobby) and the end (the last audit, the
peers' last words, the mDNS goodbyes); the start and the end (the 1-round game less one later
round) are set against their own floor, and the game without them against its. The bots find
the table by its name and the host's whole key, as a person who picked it in the browser does,
so they sit down as soon as they see it; with --by-name by its name alone, as `cfnet bot NAME`
does, which looks for namesakes until 1.5 s after it begins to listen. The same game runs with
the deck's threads turned off (CFNET_THREADS=1): the threads must not add work (target: total
CPU within 10%).
What a LAN of one machine per peer waits for in a round's set-up, its critical path (every hop
made, then checked by the next seat, in order), is timed in this process as bench_protocol.py
times it, with the deck's threads and without. The package's bytecode is compiled first, as
installing it does (bytecode.py): the processes are timed as installed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_protocol import critical_path, proof_times
from bytecode import compile_package

from cfnet.deck.pool import THREADS_VARIABLE, default_threads
from cfnet.deck.proofs import remember_proofs
from cfnet.disk.store import load_identity, prepare_home
from cfnet.net.discovery import NAMESAKE_LOOK, Discovery
from cfnet.record.logfile import read_log

LOOPBACK = "127.0.0.1"
CFNET = [sys.executable, "-m", "cfnet"]
TARGETS = {4: 5.0, 8: 15.0}
DISCOVERY_TARGET = 1.0
WATCH_SLOWDOWN = 0.10
FLOOR_RATIO = 1.25
THREADS_EXTRA_CPU = 0.10


def idle_priority() -> None:
    """Run this process only on a core nothing else wants (Linux's SCHED_IDLE)."""
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def game_time(
    peers: int,
    rounds: int,
    work: Path,
    watchers: int = 0,
    threads: int | None = None,
    by_name: bool = False,
) -> tuple[float, list[float], int]:
    """Seconds from starting every player's process to the last one exiting, the CPU seconds
    each used, and the log's entry count; `watchers` spectators (SCHED_IDLE) watch the table
    from before it opens to the end and must print verify's verdict; `threads`: the players'
    CFNET_THREADS (None: the default, one per core). The others find the table by its name and
    the host's whole key (the host's key is made first, as a person's is there before a game),
    or with `by_name` by its name alone, looking for namesakes."""
    name = f"bench-{peers}-{time.monotonic_ns() % 10**6}"
    env = dict(os.environ)
    if threads is not None:
        env[THREADS_VARIABLE] = str(threads)
    key = load_identity(prepare_home(work / f"{name}-0")).fingerprint
    pinned = [] if by_name else ["--fingerprint", key]
    common = ["--interface", LOOPBACK, "--strategy", "greedy"]
    commands = [
        ["host", "--name", name, "--seats", str(peers), "--rule", f"rounds={rounds}", *common]
    ] + [["bot", "--table", name, *pinned, *common] for _ in range(peers - 1)]
    watch = ["watch", name, *pinned, "--plain", "--interface", LOOPBACK]
    watching = [
        subprocess.Popen(
            [*CFNET, *watch, "--home", str(work / f"{name}-w{i}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=idle_priority,
        )
        for i in range(watchers)
    ]
    start = time.perf_counter()
    processes = [
        subprocess.Popen(
            [*CFNET, *command, "--home", str(work / f"{name}-{i}")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i, command in enumerate(commands)
    ]
    cpus: list[float] = []
    for process in processes:
        assert process.stderr is not None
        err = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)  # its own CPU time, as it exits
        process.returncode = os.waitstatus_to_exitcode(status)
        cpus.append(usage.ru_utime + usage.ru_stime)
        if process.returncode != 0:
            raise SystemExit(f"a peer failed ({process.returncode}): {err.decode()[-2000:]}")
    elapsed = time.perf_counter() - start
    for watcher in watching:
        out, _ = watcher.communicate(timeout=600)
        if watcher.returncode != 0 or b"valid: a complete game" not in out:
            raise SystemExit(f"a watcher failed ({watcher.returncode}): {out.decode()[-2000:]}")
    logs = [next((work / f"{name}-{i}").glob("tables/*/table.cflog")) for i in range(peers)]
    blobs = {path.read_bytes() for path in logs}
    if len(blobs) != 1:
        raise SystemExit("the peers' logs differ")
    return elapsed, cpus, len(read_log(logs[0]))


async def discovery_time(work: Path) -> tuple[float, float]:
    """(seconds from starting `cfnet host` to a browser seeing its table, of which the
    host process took to start and open its table)."""
    name = f"bench-disc-{time.monotonic_ns() % 10**6}"
    async with Discovery(LOOPBACK) as discovery:
        browser = discovery.browse()
        start = time.perf_counter()
        host = await asyncio.create_subprocess_exec(
            *CFNET, "host", "--name", name, "--seats", "2", "--interface", LOOPBACK,
            "--strategy", "greedy", "--home", str(work / name),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip

        async def when_open() -> float:
            assert host.stdout is not None
            await host.stdout.readline()  # "table ... open on ..."
            return time.perf_counter() - start

        async def when_seen() -> float:
            await browser.wait_for(lambda t: t.name == name, 10.0)
            return time.perf_counter() - start

        try:
            opened, seen = await asyncio.gather(when_open(), when_seen())
        finally:
            host.terminate()
            await host.wait()
    return seen, opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--peers", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--watchers", type=int, default=2, help="spectators (0: none)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, alternated")
    parser.add_argument(
        "--by-name",
        action="store_true",
        help="the bots find the table by its name alone (and look for namesakes)",
    )
    parser.add_argument(
        "--dir", default=None, help="where the peers' state directories go (default: $TMPDIR)"
    )
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory(prefix="cfnet-bench-", dir=args.dir) as tmp:
        work = Path(tmp)
        seen, opened = asyncio.run(discovery_time(work))
        flag = "ok" if seen <= DISCOVERY_TARGET else "OVER TARGET"
        print(
            f"discovery: table seen {seen:.3f} s after starting cfnet host "
            f"(its lobby was open and announced after {opened:.3f} s); "
            f"target {DISCOVERY_TARGET:g} s: {flag}"
        )
        print(f"load average before the games: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
        remember_proofs(0)  # each peer checks each proof itself
        hop = proof_times({"pool": default_threads(), "1 thread": 1})
        modes = {("pool", 0): None, ("pool", args.watchers): None, ("1 thread", 0): 1}
        first: dict[int, list[tuple[float, list[float], int]]] = {p: [] for p in args.peers}
        for peers in args.peers:
            runs: dict[tuple[str, int], list[tuple[float, list[float], int]]] = {
                mode: [] for mode in modes
            }
            for _ in range(args.repeat):  # alternated: the machine's load moves
                for (label, watchers), threads in modes.items():
                    runs[label, watchers].append(
                        game_time(peers, args.rounds, work, watchers, threads, args.by_name)
                    )
                first[peers].append(game_time(peers, 1, work, by_name=args.by_name))
            elapsed, cpus, entries = min(runs["pool", 0], key=lambda run: run[0])
            cpu = sum(cpus)
            target = TARGETS.get(peers)
            verdict = "" if target is None else f"; target {target:g} s: "
            verdict += "" if target is None else ("ok" if elapsed <= target else "OVER TARGET")
            cores = default_threads()
            floor = cpu / cores
            flag = "ok" if elapsed <= FLOOR_RATIO * floor else "OVER TARGET"
            print(
                f"{peers} peers, {args.rounds} rounds: {elapsed:.2f} s wall from starting the "
                f"processes to the last exit ({cpu:.1f} CPU s in all, so at least {floor:.2f} s "
                f"on {cores} cores), {entries} entries, identical logs{verdict}"
            )
            print(
                f"  wall / CPU floor: {elapsed / floor:.2f} (target at most {FLOOR_RATIO}: "
                f"{flag}); CPU s per peer: {', '.join(f'{c:.2f}' for c in cpus)}"
            )
            one_elapsed, one_cpus, _ = min(first[peers], key=lambda run: run[0])
            later = (elapsed - one_elapsed) / (args.rounds - 1)
            later_floor = (cpu - sum(one_cpus)) / cores / (args.rounds - 1)
            print(
                f"  a 1-round game: {one_elapsed:.2f} s wall, {sum(one_cpus):.1f} CPU s; each "
                f"round after the first: {later:.2f} s wall against a CPU floor of "
                f"{later_floor:.2f} s ({later / later_floor:.2f}x)"
            )
            edges, edges_floor = one_elapsed - later, sum(one_cpus) / cores - later_floor
            looks = (
                f"; the bots look for namesakes until {NAMESAKE_LOOK:g} s after they begin to "
                "listen"
                if args.by_name
                else ""
            )
            print(
                f"  the start and the end (the 1-round game less a later round): {edges:.2f} s "
                f"wall against a CPU floor of {edges_floor:.2f} s{looks}; the game without "
                f"them: {elapsed - edges:.2f} s against "
                f"{floor - edges_floor:.2f} s ({(elapsed - edges) / (floor - edges_floor):.2f}x)"
            )
            off_elapsed, off_cpus, _ = min(runs["1 thread", 0], key=lambda run: run[0])
            extra = cpu / sum(off_cpus) - 1
            flag = "ok" if extra <= THREADS_EXTRA_CPU else "OVER TARGET"
            print(
                f"  without the deck's threads: {off_elapsed:.2f} s wall, {sum(off_cpus):.1f} "
                f"CPU s; with them {extra:+.1%} CPU (target within "
                f"{THREADS_EXTRA_CPU:.0%}: {flag})"
            )
            paths = {label: critical_path(times, peers) for label, times in hop.items()}
            ratio = paths["pool"] / paths["1 thread"]
            print(
                f"  set-up critical path per round (LAN, one machine per peer): "
                f"{paths['pool'] * 1e3:.0f} ms, {paths['1 thread'] * 1e3:.0f} ms on 1 thread "
                f"({ratio:.2f}x; target at most 0.6)"
            )
            if args.watchers:
                watched = min(r[0] for r in runs["pool", args.watchers])
                slower = watched / elapsed - 1
                flag = "ok" if slower <= WATCH_SLOWDOWN else "OVER TARGET"
                print(
                    f"{peers} peers, {args.rounds} rounds, {args.watchers} watchers: "
                    f"{watched:.2f} s wall to the last player's exit, without {elapsed:.2f} s "
                    f"({slower:+.1%}; best of {args.repeat} each); target within "
                    f"{WATCH_SLOWDOWN:.0%}: {flag}"
                )


if __name__ == "__main__":
    main()
