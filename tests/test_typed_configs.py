"""Below the command line everything takes typed configs: only cli/ reads an argv (argparse),
and the options of `cfnet host|join|bot|resume` arrive as the frozen configs of seat/config.py."""

from __future__ import annotations

import argparse
import ast
import dataclasses
from pathlib import Path

import pytest

from cfnet.cli.commands import bot, host, join, resume
from cfnet.cli.seat_options import host_config, join_config, resume_config
from cfnet.seat.config import HostConfig, JoinConfig, PeerConfig, ResumeConfig

PACKAGE = Path(__file__).resolve().parent.parent / "cfnet"


def _imports_argparse(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "argparse":
            return True
    return False


def test_only_the_command_line_imports_argparse() -> None:
    importing = sorted(
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if _imports_argparse(path)
    )
    assert importing and all(name.startswith("cli/") for name in importing), importing


def _parsed(command: object, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)  # type: ignore[attr-defined]
    return parser.parse_args(argv)


def test_the_seated_commands_options_become_frozen_configs(tmp_path: Path) -> None:
    args = _parsed(
        host,
        ["--name", "Kitchen", "--seats", "3", "--rule", "rounds=2", "--bots", "2", "--code",
         "blue", "--no-watchers", "--timeout", "60", "--strategy", "expert", "--think", "0.5",
         "--home", str(tmp_path), "--player", "Ann"],
    )  # fmt: skip
    peer = PeerConfig(home=tmp_path, strategy="expert", think=0.5, player="Ann")
    assert host_config(args) == HostConfig(
        "Kitchen", peer, seats=3, rules=("rounds=2",), code="blue", bots=2, watchers=False,
        timeout=60,
    )  # fmt: skip
    args = _parsed(join, ["Kitchen", "--host", "10.0.0.2:4000", "--fingerprint", "abcd"])
    assert join_config(args, args.table) == JoinConfig(
        PeerConfig(), table="Kitchen", host=("10.0.0.2", 4000), fingerprint="abcd"
    )
    args = _parsed(bot, ["--connect", "127.0.0.1:4000"])
    assert join_config(args, args.table) == JoinConfig(
        PeerConfig(strategy="greedy"), connect=("127.0.0.1", 4000), wait=30.0
    )
    assert resume_config(_parsed(resume, ["--table", "Kitchen"])) == ResumeConfig(
        PeerConfig(), table="Kitchen"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        host_config(args=_parsed(host, ["--name", "x"])).name = "y"  # type: ignore[misc]
