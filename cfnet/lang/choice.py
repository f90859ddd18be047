"""The choice of the language in effect: `--lang`, else the language chosen in the browser
(remembered in the state directory), else the environment as gettext reads it, else English."""

from __future__ import annotations

from collections.abc import Mapping

from cfnet.lang.catalog import _
from cfnet.lang.languages import LANGUAGES, SOURCE, Language, from_environment, known


class UnknownLanguageError(ValueError):
    """A language code cfnet has no translation for; the message lists the languages."""

    def __init__(self, code: str) -> None:
        super().__init__(
            _("unknown language {code!r}: choose one of {languages}").format(
                code=code, languages=language_list()
            )
        )


def language_list() -> str:
    """Every language as it is offered: `en (English), tl (Tagalog), ...`."""
    return ", ".join(f"{language.code} ({language.name})" for language in LANGUAGES.values())


def choose(option: str | None, remembered: str | None, environ: Mapping[str, str]) -> Language:
    """The language in effect: `option` (from `--lang`; UnknownLanguageError if we lack it),
    else `remembered` (a code saved by the browser; ignored unless ours), else the environment,
    else English."""
    if option is not None:
        language = known(option)
        if language is None:
            raise UnknownLanguageError(option)
        return language
    return (
        (known(remembered) if remembered else None)
        or from_environment(environ)
        or LANGUAGES[SOURCE]
    )
