"""PG 2 tabled rolls end to end through the HTTP API: a fire order is read on the PG 2 combat
results table by column and modified 2d6, the result is applied, the roll records the table
reading, and the statistics compute the roll's expected distribution from the table."""

from __future__ import annotations

import pytest

from domain.rulesets.proving.tables import CRT
from domain.rulesets.toolkit import tables
from tests.api.conftest import ApiGame, export_events, proving_game
from workers import stats


def export_lines(client, game: ApiGame) -> list[dict]:
    import json
    r = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Red"])
    assert r.status_code == 200
    return [json.loads(x) for x in export_events(r.get_data(as_text=True))]


def test_pg_2_fire_is_read_on_the_table_by_column_and_modified_roll_and_applied(client):
    game = proving_game(client)
    legal = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Red"])
    fire = next(o for o in legal.json["orders"] if o["kind"] == "fire")
    assert fire["fields"]["odds"]["choices"] == ["1:2", "1:1", "2:1", "3:1"]
    r = game.order(client, "Red", {"kind": "fire", "odds": "2:1", "cover": True}, "f1")
    assert r.status_code == 201, r.json
    rolled = next(e for e in r.json["events"] if e["type"] == "DiceRolled")["data"]
    target = rolled["target"]
    total = sum(d["value"] for d in rolled["dice"])
    assert rolled["notation"] == "2d6" and rolled["rule"] == "PG 2"
    assert target["table"] == "PG 2 combat results" and target["column"] == "2:1"
    assert target["roll"] == total and target["modified"] == total - 1
    assert target["modifiers"] == [{"value": -1, "reason": "cover (PG 2)"}]
    # The row read is the one the modified roll falls in (clamped to the first/last row).
    expected = tables.read(CRT, total, "2:1", target["modifiers"])
    assert (target["row"], rolled["outcome"]) == (expected.row, expected.outcome)
    vp = [e["data"] for e in r.json["events"] if e["type"] == "VPScored"]
    if rolled["outcome"] in ("D", "DE"):
        assert vp == [{"side": "Red", "delta": 1 if rolled["outcome"] == "D" else 2,
                       "total": vp[0]["total"], "reason": vp[0]["reason"], "rule": "PG 2"}]
    elif rolled["outcome"] == "A":
        assert vp[0]["side"] == "Blue" and vp[0]["delta"] == 1
    else:
        assert vp == []
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Red"]).json
    text = " ".join(str(x) for x in [history])
    assert "on the PG 2 combat results table, column 2:1, row" in text


def test_pg_2_a_column_not_on_the_table_is_refused_naming_pg_2(client):
    game = proving_game(client)
    r = game.order(client, "Red", {"kind": "fire", "odds": "9:1"}, "f1")
    assert r.status_code == 422 and "PG 2" in str(r.json), r.json


def test_pg_2_the_statistics_give_each_result_its_probability_from_the_table(client):
    """Column 2:1 with cover (−1): A on a modified 2- (2d6 2 or 3: 3/36), - on 3-6 (4-7: 18/36),
    D on 7-10 (8-11: 14/36), DE on 11+ (12: 1/36)."""
    game = proving_game(client)
    for i in range(6):
        r = game.order(client, "Red", {"kind": "fire", "odds": "2:1", "cover": True}, f"f{i}")
        assert r.status_code == 201, r.json
    lines = export_lines(client, game)
    outcomes = [ln["data"]["outcome"] for ln in lines if ln["type"] == "DiceRolled"]
    block = stats.game_statistics(lines)["tables"]["Red"]["PG 2 combat results"]
    assert block["rolls"] == 6
    per_roll = {"A": 3 / 36, "-": 18 / 36, "D": 14 / 36, "DE": 1 / 36}
    for result, p in per_roll.items():
        assert block["results"][result]["expected"] == pytest.approx(6 * p, abs=1e-6)
        assert block["results"][result]["achieved"] == outcomes.count(result)
        assert block["results"][result]["luck"] == pytest.approx(outcomes.count(result) - 6 * p, abs=1e-6)
