"""`cfnet rules`: the complete rule book in the language in effect, paged on a terminal, the
Markdown as it is in a pipe."""

from __future__ import annotations

import argparse

from cfnet.lang import N_

HELP = N_("Show the complete rules of Chicken Foot in your language, paged on a terminal.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options of its own: `--lang` and `--bidi` choose the language and its direction."""


def run(args: argparse.Namespace) -> int:
    import sys

    from cfnet.ui.rule_book import show_rule_book

    show_rule_book(sys.stdout)
    return 0
