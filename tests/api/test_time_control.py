"""Time control over the API (issue 35, "Time"; docs/api.md "Time control"), on SQLite and
PostgreSQL: set at creation, read by all in the summary's clock, vacations and claims recorded
(signed by a keyed seat), and every new line taken by ``warlog verify``. The server's clock is the
service's ``now``, moved by the test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain import signatures
from domain.verify import verify_text
from tests.api.conftest import ApiGame, bearer, export_verifies, start_game
from tests.api.test_signatures import export_text
from tests.unit.test_time_control import Turns  # noqa: F401  (registers toy_turns: White and Black alternate)

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock(api_service):
    """The server's clock, at T0 until the test moves it: ``clock.at = …``."""
    class Clock:
        at = T0

    found = Clock()
    api_service.now = lambda: found.at
    return found


def turns_game(client, control: dict, keyed: bool = False) -> tuple[ApiGame, object]:
    """A toy_turns game with ``control``; with ``keyed``, Black registered a key (returned)."""
    r = client.post("/api/v1/games", json={"ruleset": "toy_turns", "time_control": control})
    assert r.status_code == 201, r.json
    game = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    key = signatures.new_private_key() if keyed else None
    for seat in ("White", "Black"):
        body = {"invite_code": game.invites[seat], "handle": seat.lower()}
        if key is not None and seat == "Black":
            body["public_key"] = signatures.public_key_of(key)
        j = client.post(f"/api/v1/games/{game.game_id}/join", json=body)
        assert j.status_code == 201, j.json
        game.seats[seat] = bearer(j.json["token"])
    return game, key


def summary(client, game: ApiGame) -> dict:
    r = client.get(f"/api/v1/games/{game.game_id}", headers=game.admin)
    assert r.status_code == 200, r.json
    return r.json


def test_the_time_control_is_in_the_log_and_the_summary_shows_who_is_to_move_by_when(client, clock):
    game, _ = turns_game(client, {"days": 3, "vacation_days": 4, "reminders": [24, 2]})
    found = summary(client, game)["clock"]
    assert found["control"] == {"days": 3, "per": "move", "reminders": [24, 2], "vacation_days": 4,
                                "on_timeout": "claim"}
    assert found["seats"] == ["White"] and found["deadline"] == "2026-11-04T12:00:00+00:00"
    assert found["seconds_left"] == 3 * 86400 and found["timed_out"] is False
    clock.at = T0 + timedelta(days=1)
    assert summary(client, game)["clock"]["seconds_left"] == 2 * 86400
    listed = client.get("/api/v1/games", headers=game.admin).json["games"]
    assert listed[0]["clock"]["seats"] == ["White"] and listed[0]["whose_move"] == ["White"]
    r = game.order(client, "White", {"kind": "move"}, "w-1")
    assert r.status_code == 201, r.json
    assert [line["type"] for line in r.json["events"]][-1] == "DeadlineSet"
    found = summary(client, game)["clock"]
    assert found["seats"] == ["Black"] and found["deadline"] == "2026-11-05T12:00:00+00:00"


def test_a_bad_time_control_is_a_clear_422(client):
    for control, field in [({"days": 0}, "days"), ({"days": 3, "per": "week"}, "per"),
                           ({"days": "3"}, "days"), ({"days": 3, "vacation_days": 61}, "vacation_days")]:
        r = client.post("/api/v1/games", json={"ruleset": "toy_turns", "time_control": control})
        assert r.status_code == 422 and field in str(r.json), r.json
    r = client.post("/api/v1/games", json={"ruleset": "toy_turns", "time_control": {"days": 3, "on_timeout": "pass"}})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup" and "defines no pass" in r.json["detail"], r.json
    r = client.post("/api/v1/games", json={"ruleset": "toy_turns", "time_control": {"days": 1, "reminders": [30]}})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup" and "reminders" in r.json["detail"], r.json


def test_a_vacation_is_bounded_and_moves_the_deadline(client, clock):
    game, _ = turns_game(client, {"days": 2, "vacation_days": 3})
    url = f"/api/v1/games/{game.game_id}/vacation"
    r = client.post(url, json={"days": 2}, headers=game.seats["White"])
    assert r.status_code == 201, r.json
    assert [line["type"] for line in r.json["events"]] == ["VacationTaken", "DeadlineExtended"]
    found = summary(client, game)["clock"]
    assert found["deadline"] == "2026-11-05T12:00:00+00:00"
    assert found["vacations"]["White"] == {"used": 2, "until": "2026-11-03T12:00:00+00:00", "left": 1}
    r = client.post(url, json={"days": 2}, headers=game.seats["White"])
    assert r.status_code == 422 and r.json["code"] == "rule_violation" and "1 of its 3" in r.json["detail"], r.json
    assert client.post(url, json={"days": 0}, headers=game.seats["White"]).status_code == 422
    assert client.post(url, json={"days": 1}, headers=game.admin).status_code == 403


def test_a_claim_is_refused_before_the_deadline_and_ends_the_game_after(client, clock, tmp_path):
    game, key = turns_game(client, {"days": 3}, keyed=True)
    url = f"/api/v1/games/{game.game_id}"
    head = summary(client, game)["chain_head"]

    def claim():
        return client.post(f"{url}/claim-win", headers={**game.seats["Black"], "Warlog-Head": head,
                                                        "Warlog-Signature": signatures.sign_command(
                                                            key, game.game_id, "claim_win", "Black", {}, head)})

    clock.at = T0 + timedelta(days=2, hours=23)
    r = claim()
    assert r.status_code == 422 and r.json["code"] == "rule_violation" and r.json["rule"] == "time", r.json
    assert client.post(f"{url}/claim-win", headers=game.seats["White"]).status_code == 422  # White is to move
    clock.at = T0 + timedelta(days=3, seconds=1)
    assert summary(client, game)["clock"]["timed_out"] is True
    unsigned = client.post(f"{url}/claim-win", headers=game.seats["Black"])
    assert unsigned.status_code == 422 and unsigned.json["code"] == "signature_required", unsigned.json
    r = claim()
    assert r.status_code == 200, r.json
    assert [line["type"] for line in r.json["events"]][:4] == ["TimedOut", "WinClaimed", "CommandSigned", "GameEnded"]
    ended = summary(client, game)
    assert ended["status"] == "ended" and ended["ended"]["winner"] == "Black" and ended["ended"]["level"] == "timeout"
    assert ended["clock"]["deadline"] is None
    report, _ = verify_text(export_text(client, game, game.seats["White"]))
    assert report.ok and report.command_signatures_verified == 1, report.summary()
    assert "failed" not in export_verifies(client, game.game_id, game.seats["White"], tmp_path / "g.jsonl")


def test_a_freeform_pass_at_a_timeout_is_the_servers_order_and_verifies(client, clock, api_service, tmp_path):
    game = start_game(client, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]},
                               "time_control": {"days": 1, "on_timeout": "pass"}})
    clock.at = T0 + timedelta(days=1, minutes=5)
    result = api_service.sweep_game(game.game_id)
    types = [line["type"] for line in result.events]
    assert types[:3] == ["TimedOut", "OrderAccepted", "PhaseAdvanced"] and types[-1] == "DeadlineSet", types
    assert result.events[1]["data"]["order_id"].startswith("timeout:")
    assert api_service.sweep_game(game.game_id) is None  # nothing due any more
    assert summary(client, game)["phase"] == "Fight"
    export_verifies(client, game.game_id, game.admin, tmp_path / "g.jsonl")


def test_a_signed_extension_from_the_seat_not_to_move_moves_the_deadline_and_verifies(client, clock, tmp_path):
    game, key = turns_game(client, {"days": 2}, keyed=True)
    url = f"/api/v1/games/{game.game_id}/extension"
    head = summary(client, game)["chain_head"]
    r = client.post(url, json={"days": 1}, headers=game.seats["White"])
    assert r.status_code == 422 and r.json["code"] == "rule_violation" and "to move itself" in r.json["detail"], r.json
    r = client.post(url, json={"days": 1}, headers=game.seats["Black"])
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = client.post(url, json={"days": 1}, headers={**game.seats["Black"], "Warlog-Head": head,
                                                    "Warlog-Signature": signatures.sign_command(
                                                        key, game.game_id, "extension", "Black", {"days": 1}, head)})
    assert r.status_code == 201, r.json
    assert [line["type"] for line in r.json["events"]] == ["ExtensionGranted", "CommandSigned", "DeadlineExtended"]
    assert summary(client, game)["clock"]["deadline"] == "2026-11-04T12:00:00+00:00"
    report, _ = verify_text(export_text(client, game, game.seats["White"]))
    assert report.ok and report.command_signatures_verified == 1, report.summary()
