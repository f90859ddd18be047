"""A sentence kept in English with what it needs to be said again in another language.

The engine and the protocol give reasons that go on the wire, into a signed abort and into
`--json`, which stay in English whatever language a player reads; the same reasons are shown to
that player in their language. A `Sentence` is that English text (it is a `str`, so it goes
everywhere text goes) that also keeps its marked template and its values: `said()` gives it in
the language in effect. Mark the template where it is written, `Sentence(N_("..."), name=...)`,
or `Sentence.counted(...)` for a sentence with a count (extracted with `-k counted:1,2`); give a
number as an `int` or a `float` (English writes it as `:g` does, other languages in their
digits)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfnet.lang.catalog import N_, _, ngettext
from cfnet.lang.formatting import native_digits, quantity


class Sentence(str):
    """English text (the `str` itself) that `said()` gives in the language in effect."""

    template: str
    plural: str | None
    number: int
    values: dict[str, Any]

    def __new__(cls, template: str, /, **values: Any) -> Sentence:
        """`template` (a marked sentence with named placeholders) filled with `values`."""
        return cls._made(template, None, 0, values)

    @classmethod
    def counted(cls, singular: str, plural: str, count: int, /, **values: Any) -> Sentence:
        """A sentence with a count: `singular` or `plural` by the language's plural rule for
        `count` (English: singular for 1)."""
        return cls._made(singular, plural, count, values)

    @classmethod
    def _made(
        cls, template: str, plural: str | None, count: int, values: dict[str, Any]
    ) -> Sentence:
        english = plural if plural is not None and count != 1 else template
        plain = {k: f"{v:g}" if isinstance(v, float) else v for k, v in values.items()}
        sentence = super().__new__(cls, english.format(**plain))
        sentence.template, sentence.plural, sentence.number = template, plural, count
        sentence.values = values
        return sentence

    def __reduce__(self) -> tuple[Any, ...]:
        return Sentence._made, (self.template, self.plural, self.number, self.values)


def clauses(parts: Sequence[str]) -> str:
    """Clauses in one sentence, `first; second; ...`, each said in the language in effect when
    the whole is; '' for none."""
    joined = ""
    for part in parts:
        joined = Sentence(N_("{first}; {then}"), first=joined, then=part) if joined else part
    return joined


def listed(items: Sequence[str]) -> str:
    """Items one after another, `a, b, c`, each said in the language in effect when the whole
    is (with the language's comma); '' for none."""
    joined = ""
    for item in items:
        joined = Sentence(N_("{first}, {then}"), first=joined, then=item) if joined else item
    return joined


def _said_value(value: Any) -> Any:
    """A value as the sentence in the language in effect holds it: a number in the language's
    digits (a float as `:g` writes it: `2.5`, `60`), a nested `Sentence` said too."""
    if isinstance(value, int) and not isinstance(value, bool):
        return native_digits(str(value))
    if isinstance(value, float):
        return quantity(value)
    return said(value) if isinstance(value, str) else value


def said(text: str) -> str:
    """`text` in the language in effect when it is a `Sentence` (its values too), else as it is
    (a peer's words, or text already translated)."""
    if not isinstance(text, Sentence):
        return text
    values = {k: _said_value(v) for k, v in text.values.items()}
    if text.plural is None:
        return _(text.template).format(**values)
    return ngettext(text.template, text.plural, text.number).format(**values)
