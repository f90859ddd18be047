"""`cfnet export LOG`: the game as a plain JSON record for other programs (docs/record.md)."""

from __future__ import annotations

import argparse

from cfnet.lang import N_, _, said

HELP = N_("Write a saved game as a plain JSON record (docs/record.md) for other programs.")
EPILOG = N_(
    "Exit status: 0 once the record is written; 1 if it cannot be, or if the log is damaged "
    "(the record is written up to the damage, with valid false)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cfnet.cli.options import add_home_argument

    parser.epilog = _(EPILOG)
    parser.add_argument(
        "log", metavar="LOG", help=_("a game log file, or a table name or id from `cfnet games`")
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help=_("write the record to FILE (default: stdout)")
    )
    add_home_argument(parser)


def run(args: argparse.Namespace) -> int:
    import hashlib
    import json
    import sys
    from pathlib import Path

    from cfnet.disk.home import default_home
    from cfnet.disk.saved_games import GameLookupError, find_log
    from cfnet.errors import PeerProtocolError, cannot_write, describe
    from cfnet.game.text import SENTENCE_CHARS, escaped
    from cfnet.record.logfile import LogFileError
    from cfnet.review.export import export_record
    from cfnet.review.timeline import read_timeline

    def fail(message: str) -> int:
        print(f"cfnet export: {escaped(message, SENTENCE_CHARS, isolates=True)}", file=sys.stderr)
        return 1

    try:
        path = find_log(args.log, (args.home or default_home()).expanduser())
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with path.open("rb") as f:
            timeline = read_timeline(f, str(path))
    except (OSError, GameLookupError, LogFileError) as error:
        return fail(describe(error))
    except PeerProtocolError as error:
        return fail(_("entry 0 is not a valid table: {reason}").format(reason=error.reason))
    text = json.dumps(export_record(timeline, digest), indent=1) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            return fail(cannot_write(Path(args.output), error))
    verdict = timeline.verdict()
    if verdict.damaged:  # the record is written: it holds the game up to the damage
        damaged = _("{file} is damaged: {problem}; the record stops there")
        return fail(damaged.format(file=path, problem=said(verdict.problem)))
    return 0
