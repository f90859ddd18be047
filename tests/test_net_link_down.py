"""Joiners whose network link is down while they join, then comes back (two hosts as network
namespaces joined by a veth pair; needs root and `ip netns`): one dials the table's address
(--connect), one looks for it by name (mDNS). Both say in one line each why they cannot get in
yet (the mDNS socket's error too: no traceback), keep dialling and looking, and are seated once
the link is up; the game is played to its end."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from lan_helpers import CFNET, Peer, same_logs, unique, wait_all, wait_until

SUBNET = "10.79.0"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to build network namespaces"),
    pytest.mark.skipif(shutil.which("ip") is None, reason="needs `ip` (iproute2) for ip netns"),
]


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@contextlib.contextmanager
def two_hosts() -> Iterator[tuple[str, str]]:
    """Namespaces A (SUBNET.1) and B (SUBNET.2), each with an `eth0` of one veth pair (the
    machine's own namespace is never touched); removed at the end."""
    names = (f"cfl-{os.getpid()}-a", f"cfl-{os.getpid()}-b")
    made: list[str] = []
    try:
        for name in names:
            ip("netns", "add", name)
            made.append(name)
            ip("-n", name, "link", "set", "lo", "up")
        ip("-n", names[0], "link", "add", "eth0", "type", "veth", "peer", "name", "eth0",
           "netns", names[1])  # fmt: skip
        for number, name in enumerate(names, 1):
            ip("-n", name, "addr", "add", f"{SUBNET}.{number}/24", "dev", "eth0")
            link_up(name)
        yield names
    finally:
        for name in made:
            pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
            for pid in pids.stdout.split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), 9)
            subprocess.run(["ip", "netns", "del", name], check=False)


def link_up(namespace: str) -> None:
    """Bring eth0 up, with the route mDNS leaves by (a link taken down loses it)."""
    ip("-n", namespace, "link", "set", "eth0", "multicast", "on", "up")
    ip("-n", namespace, "route", "replace", "224.0.0.0/4", "dev", "eth0")


class NsPeer(Peer):
    """A `cfnet` process in a network namespace."""

    namespace = ""

    def start(self, args: Sequence[str] | None = None) -> None:
        self.runs += 1
        self.home.mkdir(parents=True, exist_ok=True)
        command = ["ip", "netns", "exec", self.namespace, *CFNET,
                   *(self.args if args is None else args), "--home", str(self.home)]  # fmt: skip
        with open(self.output_path, "wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


def peer(namespace: str, home: Path, args: list[str]) -> NsPeer:
    made = NsPeer(home, args)
    made.namespace = namespace
    return made


def test_joiners_whose_link_was_down_get_in_once_it_is_up(tmp_path: Path) -> None:
    name = unique("flaky")
    with two_hosts() as (a, b):
        host = peer(a, tmp_path / "host", [
            "host", "--name", name, "--seats", "3", "--rule", "rounds=1", "--timeout", "30",
            "--interface", f"{SUBNET}.1", "--strategy", "greedy",
        ])  # fmt: skip
        host.start()
        wait_until(lambda: "open on" in host.output(), 60, "the table to open")
        found = re.search(rf"open on {SUBNET}\.1:(\d+)", host.output())
        assert found is not None, host.output()
        where = f"{SUBNET}.1:{found[1]}"
        ip("-n", b, "link", "set", "eth0", "down")
        common = ["--interface", f"{SUBNET}.2", "--wait", "150"]
        dialler = peer(b, tmp_path / "dialler", ["bot", "--connect", where, *common])
        looker = peer(b, tmp_path / "looker", ["bot", "--table", name, *common])
        dialler.start()
        looker.start()
        peers = [host, dialler, looker]
        try:
            wait_until(lambda: dialler.output().count("dialling again") >= 2, 60, "refused dials")
            wait_until(lambda: "mDNS cannot use the network now" in looker.output(), 60,
                       "the looker's mDNS to fail")  # fmt: skip
            link_up(b)
            codes = wait_all(peers)
        finally:
            for each in peers:
                each.kill()
    assert codes == [0, 0, 0]
    same_logs(peers)
    assert (
        f"cannot reach the table at {where}: network is unreachable; dialling again in 0.5 s"
        in dialler.output()
    ), dialler.output()
    for each in peers:
        said = each.output()
        assert "Traceback" not in said and "Errno" not in said, said
        assert "verified: the log is a complete, valid game" in said, said
