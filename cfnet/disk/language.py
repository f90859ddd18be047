"""The language a player chose in the browser, remembered in the state directory (`language`,
one code) for the next start."""

from __future__ import annotations

from pathlib import Path

from cfnet.lang.languages import known

LANGUAGE_FILE = "language"


def remember_language(home: Path, code: str) -> None:
    """Keep `code` (one of cfnet's languages; ValueError otherwise) as the chosen language."""
    from cfnet.record.logfile import write_atomically  # every start reads; only a choice writes

    language = known(code)
    if language is None:
        raise ValueError(f"{code!r} is not one of cfnet's languages")
    write_atomically(home / LANGUAGE_FILE, f"{language.code}\n".encode(), 0o600)


def remembered_language(home: Path) -> str | None:
    """The language code remembered in `home`, or None (none chosen, or the file unreadable or
    not one of cfnet's languages)."""
    try:
        text = (home / LANGUAGE_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    language = known(text) if text else None
    return language.code if language is not None else None
