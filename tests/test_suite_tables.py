"""The suite's tables are announced under a service type of its own (conftest.SUITE_SERVICE),
so that `cfnet tables` or the browser of a person on the same machine never lists them, while
every `cfnet` process a test starts sees them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest
from conftest import SUITE_SERVICE

from cfnet.game.rules import RuleOptions
from cfnet.net.discovery import SERVICE_ENV, SERVICE_TYPE, Discovery, TableInfo
from cfnet.record.identity import Identity

LOOPBACK = "127.0.0.1"
CFNET = [sys.executable, "-m", "cfnet"]
DEADLINE = 90.0  # for a listing to show a table advertised before it began (a busy machine)


def _table(name: str) -> TableInfo:
    key = Identity.generate().fingerprint
    return TableInfo(name, os.urandom(16), "alice", key, RuleOptions(), 4, 1, False, port=9)


async def _listing_until(environ: dict[str, str], name: str) -> str:
    """`cfnet tables` on 127.0.0.1 run with `environ`, again until its listing shows `name`."""
    until = time.monotonic() + DEADLINE
    while True:
        process = await asyncio.create_subprocess_exec(
            *CFNET, "tables", "--interface", LOOPBACK, "--wait", "3",
            env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate()
        assert process.returncode == 0, err.decode()
        listed = out.decode()
        if f"\n{name} " in listed or time.monotonic() > until:
            return listed
        await asyncio.sleep(0.5)


async def _both_listings(suite: TableInfo, person: TableInfo) -> tuple[str, str]:
    """The suite's table and a person's table announced at once, each under its own service
    type; what a person's `cfnet tables` lists, and what a test's lists."""
    async with Discovery(LOOPBACK) as suites:
        os.environ[SERVICE_ENV] = SERVICE_TYPE  # as on a person's machine
        try:
            persons = Discovery(LOOPBACK)
        finally:
            os.environ[SERVICE_ENV] = SUITE_SERVICE
        async with persons:
            assert (suites.service, persons.service) == (SUITE_SERVICE, SERVICE_TYPE)
            await suites.advertise(suite, [LOOPBACK])
            await persons.advertise(person, [LOOPBACK])
            own = {key: value for key, value in os.environ.items() if key != SERVICE_ENV}
            seen_by_a_person = await _listing_until(own, person.name)
            seen_by_a_test = await _listing_until(dict(os.environ), suite.name)
    return seen_by_a_person, seen_by_a_test


def test_a_persons_cfnet_tables_lists_none_of_the_suites_tables() -> None:
    mark = os.urandom(3).hex()
    suite, person = _table(f"suite-{mark}"), _table(f"person-{mark}")
    seen_by_a_person, seen_by_a_test = asyncio.run(_both_listings(suite, person))
    assert f"\n{person.name} " in seen_by_a_person, seen_by_a_person
    assert suite.name not in seen_by_a_person, seen_by_a_person
    assert f"\n{suite.name} " in seen_by_a_test, seen_by_a_test
    assert person.name not in seen_by_a_test, seen_by_a_test


@pytest.mark.parametrize("chosen", ["cfnet._tcp.local.", "_a_b._tcp.local.", "_x._udp.local."])
def test_a_service_type_that_is_not_one_is_refused_in_one_line(chosen: str) -> None:
    result = subprocess.run(
        [*CFNET, "tables", "--interface", LOOPBACK, "--wait", "0.1"],
        env={**os.environ, SERVICE_ENV: chosen},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr, result
    assert result.stderr.splitlines() == [
        f"cfnet tables: {SERVICE_ENV}={chosen!r} is not a service type: give one such as "
        "_cfnet-test._tcp.local. (an underscore, 1 to 15 letters, digits or hyphens)"
    ]
