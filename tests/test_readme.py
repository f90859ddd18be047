"""The README's commands work as printed: after its first line, it says how to put `cfnet` on
PATH (the venv's activation) before any plain `cfnet` command; every `cfnet` command it prints
is accepted by the real parser; the log-checking commands run as printed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cfnet.cli.main import DEFAULT_COMMAND, build_parser

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)


def commands() -> list[tuple[int, str]]:
    """Each command line of the README's shell blocks, with its offset in the file."""
    text = README.read_text()
    found = []
    for block in BLOCK.finditer(text):
        offset = block.start(1)
        for line in block.group(1).splitlines(keepends=True):
            if line.strip():
                found.append((offset, line.split(" #", 1)[0].strip()))
            offset += len(line)
    return found


def test_cfnet_is_put_on_path_before_a_plain_cfnet_command() -> None:
    lines = commands()
    activate = [offset for offset, line in lines if line == ". .venv/bin/activate"]
    plain = [offset for offset, line in lines if line.split()[0] == "cfnet"]
    assert activate and plain and activate[0] < min(plain)
    first, second = (line for _, line in lines[:2])  # a fresh machine: no PATH needed
    assert first.endswith(".venv/bin/cfnet demo") and second.endswith(".venv/bin/pytest -q -n 3")
    ci = (Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert f"\n{second}\n" in ci  # CI runs the README's test command, as written


@pytest.mark.parametrize("line", [line for _, line in commands() if line.startswith("cfnet")])
def test_every_cfnet_command_is_accepted_by_the_parser(line: str) -> None:
    words = shlex.split(line)[1:]
    if not words or words[0].startswith("-"):
        words = [DEFAULT_COMMAND, *words]
    build_parser().parse_args(words)  # a usage error exits (SystemExit): the test fails


def test_the_log_checking_commands_run_as_printed(tmp_path: Path) -> None:
    text = README.read_text()
    block = text[text.index("## Checking a game afterwards") :]
    lines = BLOCK.search(block)
    assert lines is not None
    activated = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for line in lines.group(1).splitlines():
        command = line.split(" #", 1)[0].strip()
        done = subprocess.run(
            shlex.split(command), cwd=tmp_path, env=activated, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (command, done.stdout, done.stderr)
