"""The `cfnet` command: finds the sub-commands in `cfnet.cli.commands` and dispatches to one."""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import os
import pkgutil
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn

from cfnet import __version__
from cfnet.cli import commands
from cfnet.cli.language import add_language_arguments, apply, shown, without_language_options
from cfnet.errors import LocalProtocolError, PeerProtocolError, describe, exit_status
from cfnet.game.rules import RuleOptionError
from cfnet.lang import _

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

DEFAULT_COMMAND = "play"
_OWN_OPTIONS = ("-h", "--help", "--version")


EXPECTED = (LocalProtocolError, PeerProtocolError, RuleOptionError, OSError, TimeoutError)
"""Errors a person can cause (a wrong option, a file, the network): one line, no traceback.
Anything else is a bug in cfnet and keeps its traceback."""


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error said in one line (exit status 2, as argparse's), and what
    it writes in visual order where cfnet does the bidi."""

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())
        self.exit(
            2,
            _("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=text) + "\n",
        )

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(shown(message), file)


def invocation() -> str:
    """How a person runs this cfnet again, as printed in a hint: `cfnet` when that is on PATH
    (or cfnet was not started as its console script), else the script's path as it was typed
    (e.g. `.venv/bin/cfnet`, before the venv is activated)."""
    program = Path(sys.argv[0])
    on_path = shutil.which("cfnet")
    if program.name != "cfnet" or (on_path and Path(on_path).resolve() == program.resolve()):
        return "cfnet"
    return shlex.quote(str(program))


def _command_modules() -> dict[str, ModuleType]:
    """Every sub-command module, keyed by its command name (module name, `_` as `-`)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        found[info.name.replace("_", "-")] = module
    return found


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with one sub-parser per command module; only `command`'s options are
    built (all of them when it is None), so that a command loads only what it uses."""
    parser = Parser(
        prog="cfnet",
        description=_("Peer-to-peer Chicken Foot dominoes on your LAN."),
        epilog=_(
            "Plain `cfnet [OPTIONS]` runs `cfnet {command} [OPTIONS]`: the table browser. "
            "`cfnet demo` shows a whole game between computer players on this machine."
        ).format(command=DEFAULT_COMMAND),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"cfnet {__version__}",
        help=_("show cfnet's version and exit"),
    )
    add_language_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _command_modules().items():
        sub_parser = sub.add_parser(name, help=_(module.HELP), description=_(module.HELP))
        if command is None or name == command:
            module.add_arguments(sub_parser)
            add_language_arguments(sub_parser)
            sub_parser.set_defaults(run=module.run)
    return parser


def utf8_output() -> None:
    """Windows writes a pipe or a file in its ANSI code page, which lacks the board's lines and
    most languages' letters: there cfnet's output is UTF-8, as it is on every other system."""
    if sys.platform == "win32":
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    utf8_output()
    words = list(sys.argv[1:] if argv is None else argv)
    apply(words)  # before the parser is built: its help is in the language chosen
    first = next(iter(without_language_options(words)), None)  # the command, if one is named
    if first is None or (first.startswith("-") and first not in _OWN_OPTIONS):
        words = [DEFAULT_COMMAND, *words]  # `cfnet [--interface ADDR ...]` opens the browser
        first = DEFAULT_COMMAND
    args = build_parser(first).parse_args(words)
    command = f"cfnet {args.command}"
    try:
        from cfnet.deck.pool import THREADS_VARIABLE, threads_setting, use_threads

        if threads := os.environ.get(THREADS_VARIABLE):
            use_threads(threads_setting(threads))
        code: int = args.run(args)
        sys.stdout.flush()  # a reader gone away is seen here, not at the interpreter's exit
        return code
    except BrokenPipeError:  # `cfnet replay LOG | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(_("{command}: interrupted").format(command=command), file=sys.stderr)
        return 130
    except EXPECTED as error:
        print(f"{command}: {describe(error)}", file=sys.stderr)
        return exit_status(error)


def console() -> int:
    """The `cfnet` command as its own process (the console script, `python -m cfnet`): `main`,
    then what is alive is kept out of the interpreter's last collection (gc.freeze): it lives
    until the exit anyway, and looking through it took 10-50 ms of every exit."""
    code = main()
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(console())
