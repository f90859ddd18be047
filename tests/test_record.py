"""`cfnet export` and `cfnet import-check` on a real signed 10-round 4-seat game."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cheaters import plays_the_next_tile, run

from cfnet.cli.main import main
from cfnet.record.logfile import write_log
from cfnet.review.export import check_record

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "record.schema.json").read_text())


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete 10-round game between 4 in-memory peers through the full protocol."""
    path = tmp_path_factory.mktemp("record") / "game.cflog"
    args = ["selfplay", "--protocol", "--players", "4", "--seed", "3", "--log", str(path)]
    assert main(args) == 0
    return path


@pytest.fixture(scope="module")
def record(game: Path) -> dict[str, Any]:
    out = game.with_suffix(".json")
    assert main(["export", str(game), "--output", str(out)]) == 0
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def test_the_record_follows_its_schema_and_replays_legal(
    game: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    jsonschema.validate(record, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert len(record["rounds"]) == 10
    assert all(r["revealed"] for r in record["rounds"])
    assert main(["import-check", str(game.with_suffix(".json"))]) == 0
    assert "record ok: 10 rounds" in capsys.readouterr().out


def test_the_totals_and_winners_are_verifys(
    game: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["verify", "--json", str(game)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert record["totals"] == verdict["totals"]
    assert record["winners"] == verdict["winners"]
    assert [r["scores"] for r in record["rounds"]] == [r["scores"] for r in verdict["rounds"]]
    assert record["players"][0]["name"] == verdict["players"][0]
    assert record["finished"] and record["valid"] and record["problem"] is None


def test_every_play_names_its_end_and_number(record: dict[str, Any]) -> None:
    first = record["rounds"][0]
    plays = [m for m in first["moves"] if m["type"] == "play"]
    assert plays[0]["number"] == 9  # the first train goes on the 9-9 centre
    assert all(str(m["number"]) in m["tile"] for m in plays)
    draws = [m for r in record["rounds"] for m in r["moves"] if m["type"] == "draw"]
    assert draws and all(m["tile"] for m in draws)


def _first(record: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(m for m in record["rounds"][0]["moves"] if m["type"] == kind)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: _first(r, "play").update(end="zz"), "illegal"),
        (lambda r: _first(r, "draw").update(tile="0-0"), "the draw gave"),
        (lambda r: _first(r, "play").update(number=7), "the record says 7"),
        (lambda r: r["rounds"][0]["scores"].__setitem__(0, 999), "scores"),
        (lambda r: r["totals"].__setitem__(1, 0), "totals"),
        (lambda r: r.update(winners=[3, 2]), "winners"),
        (lambda r: r["rounds"][0]["yard"].pop(), "whole deck"),
    ],
)
def test_import_check_finds_a_changed_record(
    record: dict[str, Any], change: Any, problem: str
) -> None:
    changed = copy.deepcopy(record)
    change(changed)
    problems = list(check_record(changed))
    assert any(problem in p for p in problems), problems


def test_import_check_refuses_what_is_not_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"format": "cfnet-record", "rules": []}')
    assert main(["import-check", str(path)]) == 1
    assert "'rules' is [], not of the documented type" in capsys.readouterr().err
    path.write_text("not json")
    assert main(["import-check", str(path)]) == 1


def test_a_round_cut_short_keeps_its_secrets(tmp_path: Path) -> None:
    """A round that ends with an abort is never revealed: no hands, no yard, no drawn tile."""
    from cheaters import Cheater, run

    played: list[dict[str, Any]] = []

    def rewrite(c: Cheater, kind: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if kind != "play":
            return None
        if not played:
            played.append(dict(body))
            return None
        return kind, {**played[0], "end": body["end"]}  # a tile already on the board

    network, _ = run(2, 7, 1, rewrite)
    log = tmp_path / "aborted.cflog"
    write_log(log, network.tables[0].entries)
    out = tmp_path / "aborted.json"
    assert main(["export", str(log), "--output", str(out)]) == 0
    record = json.loads(out.read_text())
    jsonschema.validate(record, SCHEMA, cls=jsonschema.Draft202012Validator)
    (cut,) = record["rounds"]
    assert not cut["revealed"] and cut["moves"]
    assert cut["dealt"] is None and cut["yard"] is None and cut["left"] is None
    assert all(m["tile"] is None for m in cut["moves"] if m["type"] == "draw")
    assert not record["valid"] and not record["finished"] and record["winners"] == []
    assert "seat 1" in record["problem"]
    assert list(check_record(record)) == []


def test_a_game_with_a_cheater_removed_exports_its_disqualification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cheater removed in round 1 of 3 seats: the record lists the abandoned deal and the
    deal played, the cheater disqualified, and the winners without it; it checks."""

    network, _ = run(3, 6, 1, plays_the_next_tile, rounds=2)
    log, out = tmp_path / "caught.cflog", tmp_path / "caught.json"
    write_log(log, network.tables[0].entries)
    assert main(["export", str(log), "--output", str(out)]) == 0
    record = json.loads(out.read_text())
    jsonschema.validate(record, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert record["disqualified"] == [1] and 1 not in record["winners"] and record["winners"]
    assert [(r["round"], r["seated"]) for r in record["rounds"]] == [
        (1, [0, 1, 2]),
        (1, [0, 2]),
        (2, [0, 2]),
    ]
    assert list(check_record(record)) == []
    capsys.readouterr()
    assert main(["import-check", str(out)]) == 0
    assert "record ok: 2 rounds (1 dealt again)," in capsys.readouterr().out
    record["winners"] = [1]  # a disqualified seat never wins, whatever its total
    assert any(p.startswith("winners: [1]") for p in check_record(record))
