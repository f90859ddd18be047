"""The `cfnet` command: finds the sub-commands in `cfnet.commands` and dispatches to one."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from cfnet import __version__, commands

DEFAULT_COMMAND = "play"
_OWN_OPTIONS = ("-h", "--help", "--version")


def _command_modules() -> dict[str, ModuleType]:
    """Every sub-command module, keyed by its command name (module name, `_` as `-`)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        found[info.name.replace("_", "-")] = module
    return found


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one sub-parser per command module."""
    parser = argparse.ArgumentParser(
        prog="cfnet",
        description="Peer-to-peer Chicken Foot dominoes on your LAN.",
        epilog=f"Plain `cfnet [OPTIONS]` runs `cfnet {DEFAULT_COMMAND} [OPTIONS]`: the table "
        "browser. `cfnet demo` shows a whole game between computer players on this machine.",
    )
    parser.add_argument("--version", action="version", version=f"cfnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _command_modules().items():
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or (words[0].startswith("-") and words[0] not in _OWN_OPTIONS):
        words = [DEFAULT_COMMAND, *words]  # `cfnet [--interface ADDR ...]` opens the browser
    args = parser.parse_args(words)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
