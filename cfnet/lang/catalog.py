"""The translation in effect and the functions that look a sentence up in it.

A module marks a sentence with `_("...")` where it is shown, a module-level constant with
`N_("...")` (translated later, where it is shown, by `_(CONSTANT)`), a sentence with a count
with `ngettext`, and a short word that could mean two things with `pgettext(context, word)`.
Placeholders are named, `{count}`, and filled by `.format()` after the lookup.

The catalogs are GNU gettext catalogs of the domain `cfnet`, in `cfnet/locale/<code>/
LC_MESSAGES/`: the `.po` sources in the repository, the `.mo` files compiled when the package is
built. Where a `.po` has no `.mo` beside it at least as new (a source tree, an editable install),
the `.po` is compiled in memory when the language is chosen, so what is shown is always the
catalog as it stands.
"""

from __future__ import annotations

import gettext
import io
from pathlib import Path

from cfnet.lang.languages import LANGUAGES, SOURCE, Language

DOMAIN = "cfnet"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_language: Language = LANGUAGES[SOURCE]
_translations: gettext.NullTranslations = gettext.NullTranslations()
"""The catalog of `_language` (English: none, the sentences are the source)."""


def set_language(language: Language) -> None:
    """Make `language` the one every later lookup answers in; OSError if its catalog cannot be
    read (the language in effect is then unchanged)."""
    global _language, _translations
    _translations = gettext.NullTranslations() if language.code == SOURCE else load(language.code)
    _language = language


def language() -> Language:
    """The language in effect."""
    return _language


def catalog_path(code: str, suffix: str) -> Path:
    """Where the catalog of `code` is kept, as `.po` (source) or `.mo` (compiled)."""
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


def load(code: str) -> gettext.GNUTranslations:
    """The catalog of `code`: its `.mo` when that is at least as new as its `.po` (or there is
    no `.po`, as in a wheel), else its `.po` compiled now. OSError if it has neither."""
    po, mo = catalog_path(code, ".po"), catalog_path(code, ".mo")
    if po.exists() and not (mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime):
        return gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    with mo.open("rb") as compiled:
        return gettext.GNUTranslations(compiled)


def compile_po(po: Path) -> bytes:
    """The `.mo` form of a `.po` catalog, fuzzy entries left out (Babel reads and writes it)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as source:
        catalog = read_po(source)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    return compiled.getvalue()


def _(message: str) -> str:
    """`message` in the language in effect (itself where the catalog lacks it)."""
    return _translations.gettext(message)


def N_(message: str) -> str:
    """`message` itself: marks a constant for extraction (gettext's name for it); `_(constant)`
    translates it where it is shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a sentence for a count of `n`, by the plural rule of the language in effect."""
    return _translations.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the sense `context` gives it (a command word, a table heading, ...)."""
    return _translations.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """`ngettext` in the sense `context` gives it."""
    return _translations.npgettext(context, singular, plural, n)
