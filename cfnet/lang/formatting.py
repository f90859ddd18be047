"""Numbers and lists as the language in effect writes them (Babel, from CLDR): its separators,
its digits (Persian: ۰-۹) and its word for "and"."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from cfnet.lang.catalog import language
from cfnet.lang.languages import SOURCE

ZERO = {"latn": "0", "arab": "\u0660", "arabext": "\u06f0"}
"""The digit zero of each numbering system our languages use (CLDR's names); 1-9 follow it."""


def native_digits(text: str) -> str:
    """`text` with its ASCII digits in the digits of the language in effect."""
    if language().code == SOURCE:  # English: the digits as they are, no CLDR data to read
        return text
    zero = _zero(language().locale)
    if zero == "0":
        return text
    return text.translate({ord("0") + d: ord(zero) + d for d in range(10)})


def digits(value: int) -> str:
    """A count, a seat or a round as the language in effect writes its digits (Persian: ۱۲),
    without grouping, so it takes as many cells as in English."""
    return native_digits(str(value))


@cache
def _zero(locale: str) -> str:
    """The digit zero of `locale`'s numbering system (CLDR's data read once per locale)."""
    from babel import Locale

    return ZERO[Locale.parse(locale).default_numbering_system]


def number(value: int) -> str:
    """A whole number as the language writes it: `1,234` in English, `1.234` in Greek,
    `۱٬۲۳۴` in Persian."""
    from babel.numbers import format_decimal

    return native_digits(
        format_decimal(value, locale=language().locale, numbering_system="default")
    )


def decimal(value: float, places: int) -> str:
    """A number with exactly `places` decimals, as the language writes it (`12.5`, `12,5`)."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * places if places else "")
    return native_digits(
        format_decimal(value, format=pattern, locale=language().locale, numbering_system="default")
    )


def quantity(value: float) -> str:
    """A number as Python's `:g` writes it (`60`, `2.5`), in the language's digits and decimal
    sign (`2,5` in Greek, `۲٫۵` in Persian), without grouping: seconds, a limit."""
    text = f"{value:g}"
    if language().code == SOURCE:
        return text
    from babel.numbers import get_decimal_symbol

    point = get_decimal_symbol(language().locale, numbering_system="default")
    return native_digits(text.replace(".", point))


def percent(value: float, places: int = 0) -> str:
    """A share (0.448) as a percentage with `places` decimals, as the language writes it
    (`44.8%` in English, `44,8%` in Greek, `۴۴٫۸%` in Persian)."""
    from babel import Locale
    from babel.numbers import format_percent

    locale = Locale.parse(language().locale)
    pattern = locale.percent_formats[None].pattern.replace(
        "#,##0", "#,##0" + ("." + "0" * places if places else ""), 1
    )
    return native_digits(
        format_percent(value, format=pattern, locale=locale, numbering_system="default")
    )


def word_list(items: Sequence[str]) -> str:
    """Items joined as the language joins them: `a, b, and c`; `a, b και c`."""
    from babel.lists import format_list

    return format_list(list(items), locale=language().locale)


def or_list(items: Sequence[str]) -> str:
    """Items as the language offers a choice between them: `a or b`; `a ή b`."""
    from babel.lists import format_list

    return format_list(list(items), style="or", locale=language().locale)
