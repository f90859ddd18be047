"""What `cfnet host`, `join`, `bot` and `resume` are asked to do, as typed values: the command
line (cli/) and the table browser (ui/) build them; nothing below reads an argv."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cfnet.game.expert_bot import DEFAULT_THINK
from cfnet.protocol.wire import DEFAULT_TIMEOUT

Address = tuple[str, int]


@dataclass(frozen=True, slots=True)
class PeerConfig:
    """What every seated peer has: its state directory (None: the default one), the interface
    for mDNS and TCP (None: the LAN one), the strategy of a computer seat (None: a person plays
    it in the game screen) and its thinking budget, the player's name (None: chosen from the
    login or the strategy), whether every link event is logged."""

    home: Path | None = None
    interface: str | None = None
    strategy: str | None = None
    think: float = DEFAULT_THINK
    rollouts: int | None = None
    player: str | None = None
    verbose: bool = False


@dataclass(frozen=True, slots=True)
class HostConfig:
    """`cfnet host`: the table's name, seats, rule assignments (`NAME=VALUE`), join code, the
    computer players it starts (`bots` of `bot_strategy`), its lobby port (0: any), whether
    it takes watchers, its timeout in seconds."""

    name: str
    peer: PeerConfig
    seats: int = 4
    rules: tuple[str, ...] = ()
    code: str | None = None
    bots: int = 0
    bot_strategy: str = "greedy"
    port: int = 0
    watchers: bool = True
    timeout: int = DEFAULT_TIMEOUT


@dataclass(frozen=True, slots=True)
class JoinConfig:
    """`cfnet join` / `cfnet bot`: the table by name (looked for on the LAN for `wait` s; of
    namesakes the one at `host` or whose key starts with `fingerprint`) or at `connect` (a
    table that cannot be reached is dialled again until `wait` s have passed); its join
    code."""

    peer: PeerConfig
    table: str | None = None
    connect: Address | None = None
    wait: float = 5.0
    host: Address | None = None
    fingerprint: str | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True)
class ResumeConfig:
    """`cfnet resume`: which unfinished table (a name or the start of its id; None: the only
    one); how long to wait for a peer to give us the chain before giving up (nothing is posted
    before)."""

    peer: PeerConfig
    table: str | None = None
    wait: float = 120.0
