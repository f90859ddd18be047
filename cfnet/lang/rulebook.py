"""The rule book (docs/rules.md) in each language, kept beside the catalogs as
`cfnet/locale/<code>/rules.md`; English's is docs/rules.md itself (a link to it, which the
package build copies)."""

from __future__ import annotations

from cfnet.lang.catalog import LOCALE_DIR
from cfnet.lang.languages import SOURCE, Language


def rule_book(language: Language) -> tuple[str, bool]:
    """The rule book's Markdown in `language`, and whether it is in that language: the English
    one (and False) while the language has none yet."""
    translated = LOCALE_DIR / language.code / "rules.md"
    if translated.exists():
        return translated.read_text(encoding="utf-8"), True
    return (LOCALE_DIR / SOURCE / "rules.md").read_text(encoding="utf-8"), language.code == SOURCE
