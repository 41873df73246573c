"""Rules coverage over HTTP and on the command line: GET /api/v1/rulesets/<name>/rules and
``warlog rules NAME`` give a ruleset's manifest with its counts (domain/rulesets/toolkit/coverage.py)."""

from __future__ import annotations

import json

import pytest

from api.cli import main
from domain.rulesets import find_ruleset
from domain.rulesets.toolkit import coverage
from tests.api.test_openapi import Checker


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


@pytest.fixture
def check(client):
    return Checker(client, client.get("/api/v1/openapi.json").json)


def test_the_rules_read_gives_the_manifest_and_its_counts_as_documented(check):
    body = check("get", "/api/v1/rulesets/falklands/rules").json
    manifest = find_ruleset("falklands").coverage()
    assert body["name"] == "falklands" and body["text"] == manifest["text"]
    assert body["rules"]["FS 7.1 Op #6"]["status"] == "adjudicated"
    assert body["counts"]["rules"] == coverage.counts(manifest)
    assert sum(body["counts"]["rules"].values()) == len(body["rules"]) == len(manifest["rules"])
    proving = check("get", "/api/v1/rulesets/proving/rules").json
    assert proving["counts"]["rules"] == coverage.counts(find_ruleset("proving").coverage())


def test_the_rules_read_of_an_unknown_ruleset_is_404_naming_the_known_ones(check):
    r = check("get", "/api/v1/rulesets/chess/rules")
    assert r.status_code == 404 and "freeform" in r.json["detail"]


def test_warlog_rules_prints_each_rule_and_the_counts_offline(capsys):
    assert main(["rules", "freeform", "--tests"]) == 0
    out = capsys.readouterr().out
    assert "  FF 7 adjudicated     3 tests" in out
    assert "tests/unit/test_game.py::test_FF_7_a_private_note_is_hidden_from_everyone_but_its_author_and_umpires" in out
    assert out.rstrip().splitlines()[-2] == "rules: 9 in all; adjudicated 9, declared 0, not applicable 0, pending 0"


def test_warlog_rules_json_is_the_reads_body_and_an_unknown_ruleset_fails(capsys):
    assert main(["rules", "falklands", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == coverage.summary(find_ruleset("falklands").coverage())
    assert main(["rules", "chess"]) == 1
    assert "unknown ruleset 'chess'" in capsys.readouterr().err


def test_warlog_rules_stf_prints_its_130_rule_numbers_and_the_counts_of_its_manifest(capsys):
    assert main(["rules", "stf", "--tests"]) == 0
    out = capsys.readouterr().out
    counts = coverage.counts(find_ruleset("stf").coverage())
    assert out.rstrip().splitlines()[-2] == ("rules: 130 in all; " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    assert "  STF 6.7 " in out and "tests/unit/stf/test_turn.py::test_stf_6_7_" in out
    assert "  STF 5.1 " in out and "declared" in out.split("  STF 5.1 ")[1].splitlines()[0]
