"""Value types for command-line options that several commands share."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def seconds_type(low: float, high: float, *, zero_ok: bool = False) -> Callable[[str], float]:
    """An argparse `type=`: a number of seconds above `low` (or equal, with `zero_ok`) and at
    most `high`, refused with a message that gives the range."""
    allowed = f"{low} to {high}" if zero_ok else f"{low} < S <= {high}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = low - 1
        if not (low <= value if zero_ok else low < value) or value > high:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds, {allowed}")
        return value

    return parse
