"""The `cfnet` command line: sub-commands, and plain `cfnet` opening the table browser."""

import argparse

import pytest

from cfnet.cli.main import main
from cfnet.cli.options import host_port, ipv4, seconds_type


def test_options_without_a_command_go_to_the_browser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--interface", "127.0.0.1", "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("usage: cfnet play")


def test_an_unknown_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bogus"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in error and "demo" in error and "verify" in error


def test_version_and_help_stay_cfnets_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith(
        "usage: cfnet [-h] [--version] [--lang CODE] [--bidi MODE] COMMAND"
    )


def test_seconds_options_refuse_what_is_out_of_range() -> None:
    wait = seconds_type(0, 600)
    delay = seconds_type(0, 10, zero_ok=True)
    assert wait("2.5") == 2.5 and delay("0") == 0
    for parse, text in ((wait, "0"), (wait, "601"), (wait, "soon"), (delay, "-1"), (delay, "11")):
        with pytest.raises(argparse.ArgumentTypeError, match="give a number of seconds"):
            parse(text)


def test_addresses_are_checked_where_they_are_typed() -> None:
    assert ipv4("127.0.0.1") == "127.0.0.1"
    assert host_port(" 192.168.1.20:40123 ") == ("192.168.1.20", 40123)
    for parse, text in ((ipv4, "my-laptop"), (host_port, "192.168.1.20"), (host_port, "h:99999")):
        with pytest.raises(ValueError, match="give"):
            parse(text)
