"""What a peer's or a file's bad bytes are refused for, said in the reader's language: a frame,
a msgpack value, an entry, a deck point or proof, an identity key, a name that cannot be shown.
The reason itself stays English (it goes on the wire, into a signed abort and into `--json`);
`describe` says it in the language in effect, its numbers in the reader's digits."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cfnet.deck.sra import DeckError, check_deck
from cfnet.errors import LocalProtocolError, describe
from cfnet.lang.catalog import set_language
from cfnet.lang.languages import LANGUAGES, SOURCE
from cfnet.net.discovery import check_name
from cfnet.net.framing import FrameError, decode_body
from cfnet.record.codec import DecodeError, decode_bounded
from cfnet.record.entry import MalformedEntry, decode_entry
from cfnet.record.identity import Identity, IdentityError


def _bad_identity(tmp: Path) -> None:
    (tmp / "identity.key").write_bytes(b"short")
    Identity.load_or_create(tmp / "identity.key")


CASES: dict[str, Callable[[Path], object]] = {
    "trailing bytes": lambda _: decode_bounded(b"\x01\x02"),
    "a float": lambda _: decode_bounded(b"\xcb" + bytes(8)),
    "a frame": lambda _: decode_body(b"\x01"),
    "an entry": lambda _: decode_entry(b"\x92\x01\x02"),
    "a deck": lambda _: check_deck([bytes(32)] * 3, 2),
    "an identity key": _bad_identity,
}
ERRORS = (DecodeError, FrameError, MalformedEntry, DeckError, IdentityError)


@pytest.fixture
def persian() -> Iterator[None]:
    yield
    set_language(LANGUAGES[SOURCE])


@pytest.mark.parametrize("case", CASES)
def test_a_refusal_is_english_in_the_error_and_persian_on_screen(
    case: str, tmp_path: Path, persian: None
) -> None:
    with pytest.raises(ERRORS) as refused:
        CASES[case](tmp_path)
    english = describe(refused.value)
    set_language(LANGUAGES["fa"])
    shown = describe(refused.value)
    assert str(refused.value.args[0]) == english  # the reason as it is kept and sent
    assert re.search(r"[\u0600-\u06ff]", shown), shown
    plain = shown.replace(str(tmp_path), "")
    assert not re.search(r"\b(the|is|not|of|must|bytes?|after|starts)\b", plain), shown
    assert not re.search(r"[0-9]", re.sub(r"0x[0-9a-f]+|\d+\.\.\S+", "", plain)), shown


def test_a_name_that_cannot_be_shown_is_refused_in_the_readers_language(persian: None) -> None:
    with pytest.raises(LocalProtocolError) as refused:
        check_name("a\tb")
    assert describe(refused.value) == (
        "table name 'a\\tb': use 1 to 40 printable characters (no control characters)"
    )
    set_language(LANGUAGES["fa"])
    shown = describe(refused.value)
    assert shown.startswith("نام میز 'a\\tb': از 1 تا 40 نویسهٔ چاپ‌پذیر"), shown  # a typed range
