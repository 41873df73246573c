"""Solitaire Task Force over HTTP (issue 33), on SQLite and PostgreSQL: one human seat, the
Player; the GameSystem is the server (seat ``system``, never joined). A whole campaign played
with the random Player's choices (domain/rulesets/stf/play.py) from what legal-orders offers, to
a declared result, exported and verified by ``warlog verify``; the ruleset's reads (order kinds,
board, rules coverage)."""

from __future__ import annotations

import random

from domain import dice
from domain.rulesets import find_ruleset
from domain.rulesets.stf import play
from domain.rulesets.toolkit import coverage
from tests.api.conftest import export_verifies, start_game
from tests.unit.stf.test_play import missing_parts

R = find_ruleset("stf")


def stf_game(client):
    return start_game(client, {"ruleset": "stf"})


def events(client, game) -> list[dict]:
    return client.get(f"/api/v1/games/{game.game_id}/events?limit=500", headers=game.seats["Player"]).json["events"]


def test_an_stf_game_has_one_human_seat_and_dice_epoch_0_opens_when_the_player_joins(client):
    created = client.post("/api/v1/games", json={"ruleset": "stf"})
    assert created.status_code == 201, created.json
    assert created.json["seats"] == ["Player"] and list(created.json["invites"]) == ["Player"]
    game = stf_game(client)
    lines = events(client, game)
    assert [line["type"] for line in lines] == ["GameCreated", "DiceCommitted", "DiceCommitted", "SeatJoined",
                                                "DiceEpochOpened", "DiceCommitted"]
    assert lines[0]["data"]["seats"] == ["Player", "system"]
    assert lines[-2]["data"]["epoch"] == 0
    # a solitaire game's one seat counts: its client seed is the whole of epoch 0's (system has none)
    assert lines[-2]["data"]["client_entropy"] == dice.client_entropy_v2([], {"Player": lines[3]["data"]["client_seed"]})
    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Player"]).json
    assert summary["status"] != "waiting" and summary["whose_move"] == ["Player"]
    assert [s["seat"] for s in summary["seats"]] == ["Player"]
    assert (summary["turn"], summary["phase"]) == (0, "Campaign")


def test_an_order_of_another_phase_is_refused_over_http_naming_stf_6_7(client):
    game = stf_game(client)
    refused = game.order(client, "Player", {"kind": "end_phase"}, "p-1")
    assert refused.status_code == 422 and refused.json["rule"] == "STF 6.7", refused.json
    assert "not in the Campaign phase" in refused.json["detail"]
    legal = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Player"]).json["orders"]
    assert all(o["kind"] != "end_phase" for o in legal)


def test_the_ruleset_read_serves_stf_order_kinds_and_board_and_the_rules_read_its_coverage(client):
    body = client.get("/api/v1/rulesets/stf").json
    assert body["name"] == "stf" and body["title"] == R.title
    assert body["order_kinds"] == R.order_kinds()
    kinds = {k["kind"]: k for k in body["order_kinds"]}
    assert kinds["end_phase"]["rule"] == "STF 6.7" and kinds["declare"]["fields"]["value"]
    assert body["board"] == R.board()
    rules = client.get("/api/v1/rulesets/stf/rules").json
    manifest = R.coverage()
    assert rules["counts"]["rules"] == coverage.counts(manifest)
    assert sum(rules["counts"]["rules"].values()) == len(rules["rules"]) == 130
    assert rules["rules"]["STF 6.7"]["status"] == "adjudicated"
    assert rules["rules"]["STF 5.1"]["status"] == "declared"


class OverHttp:
    """What the random Player reads, read over HTTP: the legal orders of the Player's seat."""

    def __init__(self, client, game):
        self.client, self.game = client, game

    def legal_orders(self, state, seat):
        r = self.client.get(f"/api/v1/games/{self.game.game_id}/legal-orders", headers=self.game.seats[seat])
        assert r.status_code == 200, r.json
        return r.json["orders"]


def test_a_whole_stf_campaign_over_http_to_a_declared_result_that_verifies(client, tmp_path, store_config):
    assert missing_parts() == []  # every set-up order and GameSystem step is registered
    game = stf_game(client)
    player = play.RandomPlayer(random.Random(33))
    offer = OverHttp(client, game)
    seen: set[str] = set()
    for n in range(3000):
        state = client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats["Player"]).json["state"]
        if state["ended"]:
            break
        for t, order in enumerate(player.candidates(offer, state)):
            r = game.order(client, "Player", order, f"o{n}-{t}")
            assert r.status_code < 500, r.json
            if r.status_code == 201:
                player.accepted(state, order)
                seen.update(line["type"] for line in r.json["events"])
                assert all(line["text"] for line in r.json["events"])  # every event reads
                break
            assert r.status_code == 422 and r.json["rule"].startswith("STF "), r.json  # a refusal names its rule
        else:
            raise AssertionError(f"no order accepted in turn {state['turn']}, {state['phase']}")
    else:
        raise AssertionError("the campaign did not end")
    ended = state["ended"]
    assert ended["rule"].startswith("STF ") and ended["winner"] in ("Player", "system", None), ended
    assert {"DiceRolled", "DiceEpochRevealed", "TurnAdvanced", "PhaseAdvanced", "ResultDeclared",
            "GameEnded"} <= seen

    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Player"]).json
    assert summary["status"] == "ended" and summary["ended"]["level"] == ended["level"]
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Player"])
    assert history.status_code == 200

    export_verifies(client, game.game_id, game.seats["Player"], tmp_path / "stf.jsonl")
