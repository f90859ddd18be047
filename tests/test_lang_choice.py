"""Which language is in effect: `--lang`, else the one remembered from the browser, else the
environment as gettext reads it, else English; an unknown code is refused in one line that
lists the languages; the choice reaches `--help` and argparse's own words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfnet.cli.main import main
from cfnet.disk.language import LANGUAGE_FILE, remember_language, remembered_language
from cfnet.lang.catalog import language, set_language
from cfnet.lang.choice import UnknownLanguageError, choose
from cfnet.lang.languages import LANGUAGES, SOURCE, from_environment

CFNET = Path(sys.executable).parent / "cfnet"
NO_LOCALE = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}


@pytest.fixture(autouse=True)
def english_after() -> object:
    yield
    set_language(LANGUAGES[SOURCE])


def run_cfnet(args: list[str], home: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    """The real `cfnet` with no locale of the machine's, its state in `home`, plus `environ`."""
    env = {k: v for k, v in os.environ.items() if k not in NO_LOCALE}
    env.update(CFNET_HOME=str(home), PYTHONIOENCODING="utf-8", **environ)
    return subprocess.run(
        [str(CFNET), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("environ", "code"),
    [
        ({"LANGUAGE": "fa"}, "fa"),
        ({"LANGUAGE": "de:el:fa", "LANG": "fy_NL.UTF-8"}, "el"),  # first entry we have
        ({"LC_ALL": "el_GR.UTF-8", "LANG": "ms_MY.UTF-8"}, "el"),  # LC_ALL before LANG
        ({"LC_MESSAGES": "fy_NL", "LANG": "ms_MY"}, "fy"),
        ({"LANG": "fil_PH.UTF-8"}, "tl"),  # glibc's Filipino is our Tagalog
        ({"LANGUAGE": "", "LANG": "ms_MY.UTF-8"}, "ms"),  # an empty variable is not set
        ({"LANGUAGE": "C", "LANG": "el_GR.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, None),
        ({"LANGUAGE": "de", "LANG": "el_GR.UTF-8"}, None),  # gettext reads only the first set
        ({}, None),
    ],
)
def test_the_environment_is_read_as_gettext_reads_it(environ: dict[str, str], code: str) -> None:
    found = from_environment(environ)
    assert (found.code if found else None) == code


def test_lang_beats_the_remembered_choice_which_beats_the_environment() -> None:
    environ = {"LANGUAGE": "el"}
    assert choose("fy", "fa", environ).code == "fy"
    assert choose(None, "fa", environ).code == "fa"
    assert choose(None, None, environ).code == "el"
    assert choose(None, "xx", environ).code == "el"  # a damaged remembered code is ignored
    assert choose(None, None, {"LANG": "de_DE"}).code == "en"
    assert choose("EL", None, {}).code == "el" and choose("fa_IR", None, {}).code == "fa"


def test_an_unknown_code_names_every_language() -> None:
    with pytest.raises(UnknownLanguageError) as error:
        choose("de", None, {})
    message = str(error.value)
    assert "'de'" in message
    assert all(f"{code} (" in message for code in LANGUAGES)


def test_the_remembered_language_survives_and_junk_is_ignored(tmp_path: Path) -> None:
    assert remembered_language(tmp_path) is None
    remember_language(tmp_path, "el_GR")
    assert remembered_language(tmp_path) == "el"
    assert (tmp_path / LANGUAGE_FILE).stat().st_mode & 0o077 == 0
    with pytest.raises(ValueError, match="not one of"):
        remember_language(tmp_path, "klingon")
    (tmp_path / LANGUAGE_FILE).write_bytes(b"\xff\xfe junk")
    assert remembered_language(tmp_path) is None
    (tmp_path / LANGUAGE_FILE).write_text("xx\n")
    assert remembered_language(tmp_path) is None


def test_lang_before_the_command_or_after_it(capsys: pytest.CaptureFixture[str]) -> None:
    for words in (["--lang", "el", "--help"], ["--lang=el", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(words)
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("χρήση: cfnet [-h]") and "επιλογές:" in out  # cfnet's own help
    with pytest.raises(SystemExit):
        main(["verify", "--help", "--lang", "fy"])
    out = capsys.readouterr().out
    assert out.startswith("gebrûk: cfnet verify") and "posysjonele arguminten:" in out
    assert language().code == "fy"


def test_argparse_errors_are_in_the_language(tmp_path: Path) -> None:
    done = run_cfnet(["--lang", "el", "verify"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "cfnet verify: απαιτούνται τα ακόλουθα ορίσματα: LOG (δείτε cfnet verify --help)"
    )


def test_an_unknown_language_is_one_line_listing_the_languages(tmp_path: Path) -> None:
    done = run_cfnet(["--lang", "de", "tables"], tmp_path, LANGUAGE="ms")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("cfnet: bahasa 'de' tidak dikenali")  # in the environment's
    assert "fa (فارسی)" in lines[0] and "el (Ελληνικά)" in lines[0]


def test_language_fa_in_the_environment_chooses_persian(tmp_path: Path) -> None:
    done = run_cfnet(["--help"], tmp_path, LANGUAGE="fa")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("طرز استفاده: cfnet")  # not a terminal: logical order
    assert "دومینوی پای مرغ" in done.stdout and "Peer-to-peer" not in done.stdout


def test_a_language_remembered_in_the_data_directory_is_used(tmp_path: Path) -> None:
    remember_language(tmp_path, "ms")
    assert run_cfnet(["--help"], tmp_path, LANG="el_GR.UTF-8").stdout.startswith("penggunaan:")
    assert run_cfnet(["--help", "--lang", "fy"], tmp_path).stdout.startswith("gebrûk:")
    other = tmp_path / "other"
    other.mkdir()
    done = run_cfnet(["games", "--home", str(other), "--help"], tmp_path, LANG="el_GR.UTF-8")
    assert done.stdout.startswith("χρήση:")  # --home names a directory with no choice in it
