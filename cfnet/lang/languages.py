"""The languages cfnet speaks, and how a code or the environment names one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Language:
    """One language: the code typed after `--lang`, its name in itself, and its CLDR locale."""

    code: str
    name: str
    locale: str
    """The CLDR locale Babel formats numbers, lists and plural rules with."""

    @cached_property
    def rtl(self) -> bool:
        """Whether the language is written right to left (CLDR's character order). The
        source language, English, is not: a command that speaks it need not load Babel's data
        (25 ms) to know."""
        if self.code == SOURCE:
            return False
        from babel import Locale

        return bool(Locale.parse(self.locale).character_order == "right-to-left")


SOURCE = "en"
"""The language the sentences are written in, in the code."""
LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("en", "English", "en"),
        Language("tl", "Tagalog", "fil"),
        Language("ms", "Melayu", "ms"),
        Language("el", "Ελληνικά", "el"),
        Language("fy", "Frysk", "fy"),
        Language("fa", "فارسی", "fa"),
    )
}
ALIASES = {"fil": "tl"}
"""Other codes of the same language: glibc's Filipino locale is fil_PH, CLDR's is fil."""
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Where gettext looks, in its order: the first one set gives a list of languages."""
_SEPARATORS = re.compile(r"[-_.@]")


def known(code: str) -> Language | None:
    """The language a code or locale names (`el`, `EL`, `el_GR.UTF-8`, `fil_PH`), if we have it;
    the C and POSIX locales are English."""
    base = _SEPARATORS.split(code.strip(), maxsplit=1)[0].lower()
    if base in ("c", "posix"):
        return LANGUAGES[SOURCE]
    return LANGUAGES.get(ALIASES.get(base, base))


def from_environment(environ: Mapping[str, str]) -> Language | None:
    """The language the environment asks for, as Python's gettext reads it: the first of
    LANGUAGE, LC_ALL, LC_MESSAGES and LANG that is set is a colon-separated list, and the first
    entry we have wins (C or POSIX is English); None when no entry is ours."""
    for variable in ENVIRONMENT:
        if environ.get(variable):
            for entry in environ[variable].split(":"):
                language = known(entry) if entry else None
                if language is not None:
                    return language
            return None
    return None
