"""The catalogs: each language translates every sentence the code and argparse mark (nothing
untranslated, nothing fuzzy), keeps exactly the placeholders of its source, has CLDR's plural
rule in its header and as many forms as that rule has, and translates every line of the
top-level `--help`."""

from __future__ import annotations

import argparse
import gettext
import re
import string
from collections import Counter
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir, extract_from_file
from babel.messages.pofile import read_po
from babel.plural import to_gettext

from cfnet.cli.main import _command_modules
from cfnet.lang import _
from cfnet.lang.catalog import catalog_path, set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.lang.typed import translated_commands

PACKAGE = Path(__file__).resolve().parent.parent / "cfnet"
TRANSLATED = [code for code in LANGUAGES if code != SOURCE]
PERCENT = re.compile(r"%(?:\([a-z_]+\))?[#0 +-]*\d*(?:\.\d+)?[sdrifx%]")


def read(code: str) -> Catalog:
    with catalog_path(code, ".po").open("rb") as f:
        return read_po(f)


KEYWORDS = {**DEFAULT_KEYWORDS, "counted": (1, 2)}
"""What marks a sentence: gettext's names, and `Sentence.counted` (README: `-k counted:1,2`)."""


def template() -> set[tuple[str | None, str]]:
    """(context, msgid) of every sentence marked in cfnet and in this Python's argparse, as
    `pybabel extract -F babel.cfg -k counted:1,2` finds them."""
    found = set()
    extracted = [
        (m, c) for _file, _line, m, _comments, c in extract_from_dir(PACKAGE, keywords=KEYWORDS)
    ] + [(m, c) for _line, m, _comments, c in extract_from_file("python", argparse.__file__)]
    for message, context in extracted:
        found.add((context, message[0] if isinstance(message, tuple) else message))
    return found


def placeholders(text: str) -> Counter[str]:
    """The `{name}` fields and `%` conversions of a sentence (ValueError if its braces are
    broken)."""
    fields = Counter(
        f"{{{name}{'!' + conv if conv else ''}}}"
        for _, name, _spec, conv in string.Formatter().parse(text)
        if name is not None
    )
    return fields + Counter(m for m in PERCENT.findall(text) if m != "%%")


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_marked_sentence_is_translated_and_none_is_fuzzy(code: str) -> None:
    catalog = read(code)
    have = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}
    assert sorted(template() - have, key=str) == []
    untranslated = [m.id for m in catalog if m.id and not all(_forms(m))]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert (untranslated, fuzzy, list(catalog.obsolete)) == ([], [], [])


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple) else [message.string]


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_translation_keeps_the_placeholders_of_its_source(code: str) -> None:
    wrong = []
    for message in read(code):
        if not message.id:
            continue
        source = message.id[-1] if isinstance(message.id, tuple) else message.id
        for form in _forms(message):
            if placeholders(form) != placeholders(source):
                wrong.append((source, form))
    assert wrong == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_forms_are_cldrs_for_the_language(code: str) -> None:
    catalog = read(code)
    cldr = to_gettext(Locale.parse(LANGUAGES[code].locale).plural_form)
    expected_n, expected_rule = _rule(cldr)
    header_n, header_rule = _rule(catalog.plural_forms)
    assert header_n == expected_n
    assert [header_rule(n) for n in range(10_000)] == [expected_rule(n) for n in range(10_000)]
    plural = [m for m in catalog if isinstance(m.id, tuple)]
    assert plural, "no plural entry to check"
    assert all(len(m.string) == header_n for m in plural)


def _rule(header: str) -> tuple[int, object]:
    fields = dict(part.strip().split("=", 1) for part in header.strip().rstrip(";").split(";"))
    return int(fields["nplurals"]), gettext.c2py(fields["plural"])


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_top_level_help_has_no_english_line_left(code: str) -> None:
    set_language(LANGUAGES[code])
    try:
        untranslated = [m.HELP for m in _command_modules().values() if _(m.HELP) == m.HELP]
    finally:
        set_language(LANGUAGES[SOURCE])
    assert untranslated == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_command_words_are_one_word_each_and_name_one_command(code: str) -> None:
    set_language(LANGUAGES[code])
    try:
        words = translated_commands()
    finally:
        set_language(LANGUAGES[SOURCE])
    assert all(len(word.split()) == 1 for word in words.values()), words
    assert len(set(words.values())) == len(words), words
    clashes = {n: w for n, w in words.items() if w in words and w != n}
    assert clashes == {}  # a word that is another command's English word would be ambiguous
    assert words != {n: n for n in words}  # translated, not the English words again
