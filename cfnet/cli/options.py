"""Value types for command-line options that several commands share."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Callable
from pathlib import Path

from cfnet.errors import describe
from cfnet.lang import _


class OptionValueError(argparse.ArgumentTypeError, ValueError):
    """A typed value that is not of the form asked for; the message says the form."""


def seconds_type(low: float, high: float, *, zero_ok: bool = False) -> Callable[[str], float]:
    """An argparse `type=`: a number of seconds above `low` (or equal, with `zero_ok`) and at
    most `high`, refused with a message that gives the range."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = low - 1
        if not (low <= value if zero_ok else low < value) or value > high:
            allowed = (
                _("{text!r}: give a number of seconds, {low} to {high}")
                if zero_ok
                else _("{text!r}: give a number of seconds, {low} < S <= {high}")
            )
            raise OptionValueError(allowed.format(text=text, low=low, high=high))
        return value

    return parse


def machine_ipv4() -> list[str]:
    """Every IPv4 address of this machine's interfaces, loopback included, sorted."""
    import ifaddr

    found = {
        ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips if isinstance(ip.ip, str)
    }
    return sorted(found, key=ipaddress.IPv4Address)


def ipv4(text: str) -> str:
    """An argparse `type=`: the IPv4 address of one of this machine's interfaces."""
    try:
        address = str(ipaddress.IPv4Address(text))
    except ValueError:
        raise OptionValueError(
            _("{text!r}: give the IPv4 address of an interface, e.g. 192.168.1.20").format(
                text=text
            )
        ) from None
    mine = machine_ipv4()
    if address not in mine:
        raise OptionValueError(
            _("{address} is not an address of this machine: give one of {addresses}").format(
                address=address, addresses=", ".join(mine)
            )
        )
    return address


def host_port(text: str) -> tuple[str, int]:
    """An argparse `type=`: `HOST:PORT`, the address of a table to join directly."""
    from cfnet.net.address import parse_host_port

    try:
        return parse_host_port(text)
    except ValueError as exc:
        raise OptionValueError(describe(exc)) from None


def port_number(text: str) -> int:
    """An argparse `type=`: a TCP port, 0 (any free one) to 65535."""
    if not text.isdecimal() or int(text) > 0xFFFF:
        raise OptionValueError(
            _("{text!r}: give a TCP port, 1 to 65535 (0: any free one)").format(text=text)
        )
    return int(text)


def add_think_arguments(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """The expert's budget: `--think SECONDS` per decision (`args.think`) and, for
    reproducible play, `--rollouts N` (`args.rollouts`); `scope` is a note for the help, as
    translated."""
    from cfnet.game.expert_bot import DEFAULT_THINK, MAX_THINK

    parser.add_argument(
        "--think",
        type=seconds_type(0, MAX_THINK),
        default=DEFAULT_THINK,
        metavar="SECONDS",
        help=(
            _("how long an expert computer player thinks per move {scope} (default {default})")
            if scope
            else _("how long an expert computer player thinks per move (default {default})")
        ).format(scope=scope, default=f"{DEFAULT_THINK:g}"),
    )
    parser.add_argument(
        "--rollouts",
        type=count_type(1, 10**7),
        default=None,
        metavar="N",
        help=_("an expert plays exactly N rollouts per move instead (same seed, same moves)"),
    )


def count_type(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type=`: a whole number from `low` to `high`, refused with the range."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or not low <= int(text) <= high:
            raise OptionValueError(
                _("{text!r}: give a whole number, {low} to {high}").format(
                    text=text, low=low, high=high
                )
            )
        return int(text)

    return parse


def add_rule_argument(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """The repeatable `--rule NAME=VALUE` option (collected in `args.rule`); `scope` is a
    note for the help as translated, e.g. `(offline)`."""
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=(
            _(
                "rule option {scope}: rounds=1..10, start_trains=N..8 (the trains the centre"
                " needs before other plays; N: the number of players), double_blank_50=on|off"
            )
            if scope
            else _(
                "rule option: rounds=1..10, start_trains=N..8 (the trains the centre needs before"
                " other plays; N: the number of players), double_blank_50=on|off"
            )
        ).format(scope=scope),
    )


def add_home_argument(parser: argparse.ArgumentParser) -> None:
    """The `--home DIR` option every command that keeps state offers (default: default_home())."""
    from cfnet.disk.home import HOME_ENV, default_home

    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        metavar="DIR",
        help=_("state directory (default: ${variable} if set, else {directory})").format(
            variable=HOME_ENV, directory=default_home()
        ),
    )
