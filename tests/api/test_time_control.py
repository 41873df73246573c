"""Time control over the API (issue 35, "Time"; docs/api.md "Time control"), on SQLite and
PostgreSQL: set at creation, read by all in the summary's clock, vacations and claims recorded
(signed by a keyed seat), and every new line taken by ``warlog verify``. The server's clock is the
service's ``now``, moved by the test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain import clock as clocks
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


# ------------------------------------------------- a vacation or extension sent again (Idempotency) ----
def test_a_vacation_sent_again_with_its_key_is_recorded_once_and_its_first_answer_replayed(client, clock, tmp_path):
    """docs/api.md, Idempotency: without a key, {"days": 2} sent twice would spend four days."""
    game, _ = turns_game(client, {"days": 2, "vacation_days": 5})
    url = f"/api/v1/games/{game.game_id}/vacation"
    first = client.post(url, json={"days": 2}, headers={**game.seats["White"], "Idempotency-Key": "away-1"})
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers, first.json
    assert first.json["events"][0]["data"]["command_id"] == "away-1"
    clock.at = T0 + timedelta(hours=1)  # the answer was lost; the client sends it again later
    again = client.post(url, json={"days": 2}, headers={**game.seats["White"], "Idempotency-Key": "away-1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.json
    assert again.json["events"] == first.json["events"] and again.json["version"] == first.json["version"]
    found = summary(client, game)
    assert found["version"] == first.json["version"]
    assert found["clock"]["vacations"]["White"]["used"] == 2 and found["clock"]["deadline"] == "2026-11-05T12:00:00+00:00"
    other = client.post(url, json={"days": 1}, headers={**game.seats["White"], "Idempotency-Key": "away-1"})
    assert other.status_code == 422 and other.json["code"] == "idempotency_conflict", other.json
    by_black = client.post(url, json={"days": 2}, headers={**game.seats["Black"], "Idempotency-Key": "away-1"})
    assert by_black.status_code == 422 and by_black.json["code"] == "idempotency_conflict", by_black.json
    # Another key is another vacation; none at all is too, and records no command_id.
    assert client.post(url, json={"days": 1}, headers={**game.seats["White"], "Idempotency-Key": "away-2"}
                       ).status_code == 201
    bare = client.post(url, json={"days": 1}, headers=game.seats["White"])
    assert bare.status_code == 201 and "command_id" not in bare.json["events"][0]["data"], bare.json
    assert summary(client, game)["clock"]["vacations"]["White"]["used"] == 4
    for bad in ("", " ", "a" * 201, "tab\there"):
        r = client.post(url, json={"days": 1}, headers={**game.seats["White"], "Idempotency-Key": bad})
        assert r.status_code == 400 and r.json["code"] == "idempotency_key_required", (bad, r.json)
    assert summary(client, game)["clock"]["vacations"]["White"]["used"] == 4
    assert "failed" not in export_verifies(client, game.game_id, game.admin, tmp_path / "g.jsonl")


def test_a_signed_extension_sent_again_with_its_key_is_replayed_not_refused_as_a_reused_signature(client, clock,
                                                                                                  tmp_path):
    game, key = turns_game(client, {"days": 2}, keyed=True)
    url = f"/api/v1/games/{game.game_id}/extension"

    def extension(days, head, command_key="more-1", signer=key):
        return client.post(url, json={"days": days}, headers={
            **game.seats["Black"], "Idempotency-Key": command_key, "Warlog-Head": head,
            "Warlog-Signature": signatures.sign_command(signer, game.game_id, "extension", "Black", {"days": days},
                                                        head)})

    head = summary(client, game)["chain_head"]
    first = extension(1, head)
    assert first.status_code == 201, first.json
    assert [line["type"] for line in first.json["events"]] == ["ExtensionGranted", "CommandSigned", "DeadlineExtended"]
    same = extension(1, head)  # the very request again: its signature is in the log, its key too
    assert same.status_code == 200 and same.json["events"] == first.json["events"], same.json
    resigned = extension(1, first.json["chain_head"])  # signed again over the head the game is at now
    assert resigned.status_code == 200 and resigned.json["events"] == first.json["events"], resigned.json
    forged = extension(1, head, signer=signatures.new_private_key())
    assert forged.status_code == 422 and forged.json["code"] == "bad_signature", forged.json
    assert summary(client, game)["clock"]["deadline"] == "2026-11-04T12:00:00+00:00"
    # Without the key, the same signed request is refused: its signature is in the log.
    r = client.post(url, json={"days": 1}, headers={**game.seats["Black"], "Warlog-Head": head,
                                                    "Warlog-Signature": signatures.sign_command(
                                                        key, game.game_id, "extension", "Black", {"days": 1}, head)})
    assert r.status_code == 422 and r.json["code"] == "signature_reused", r.json
    report, _ = verify_text(export_text(client, game, game.seats["White"]))
    assert report.ok and report.command_signatures_verified == 1, report.summary()


def test_a_vacations_key_is_known_to_another_process_and_the_loser_of_a_race_gets_the_winners_result(sqlite_config):
    """A process that did not record the vacation (its own cache, a fresh load) answers its key too."""
    from api.app import migrate
    from domain.service import Warlog

    migrate(sqlite_config)
    here, elsewhere = Warlog(sqlite_config), Warlog(sqlite_config)
    try:
        gid = here.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move"]},
                               time_control={"days": 3, "vacation_days": 6, "on_timeout": "pass"}).game_id
        for i, side in enumerate(("Blue", "Red")):
            here.join(gid, side, f"player{i}")
        won = elsewhere.take_vacation(gid, "Blue", 2, command_id="v-1")
        here._catch_up = lambda cached: None  # the other process recorded between this one's read and save
        lost = here.take_vacation(gid, "Blue", 2, command_id="v-1")
        assert lost.replayed and lost.events == won.events and lost.version == won.version, lost
        fresh = Warlog(sqlite_config)
        try:
            assert fresh.take_vacation(gid, "Blue", 2, command_id="v-1").events == won.events
            assert fresh.get_game(gid).clock["vacations"]["Blue"]["used"] == 2
        finally:
            fresh.close()
    finally:
        here.close()
        elsewhere.close()


def test_tc_4_an_imported_games_summary_does_not_show_it_timed_out_by_this_servers_clock(client, clock, api_service,
                                                                                         tmp_path):
    """docs/operations.md, "The clock sweep": an imported game's clock does not run here (its dice
    seeds are not held here: ``Game.dice_held``). Its deadline, set where it was played, is long
    past by this server's clock, and the summary said ``timed_out: true`` with 0 seconds left, a
    timeout this server never records. It now shows the clock as the log left it, not running."""
    from api.auth import access
    from domain.service import Warlog
    from domain.storage import config_from_env

    elsewhere = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "elsewhere")}), create_tables=True)
    elsewhere.now = lambda: T0 - timedelta(days=10)
    gid = elsewhere.create_game("toy_turns", time_control={"days": 3, "on_timeout": "claim"}).game_id
    for seat in ("White", "Black"):
        elsewhere.join(gid, seat, seat.lower())
    text = list(elsewhere.export(gid, header=True))
    elsewhere.close()
    api_service.import_lines(text)
    with client.application.app_context():
        access().register_game(str(gid), True, [])  # readable here, as a public record
    r = client.get(f"/api/v1/games/{gid}")
    assert r.status_code == 200, r.json
    found = r.json["clock"]
    assert found["deadline"] == "2026-10-25T12:00:00+00:00"  # White's, set where it was played
    assert found["timed_out"] is False and found["seconds_left"] is None and found["running"] is False
    assert len(api_service.lines(gid)) == len(text) - 1  # the read recorded nothing
    game, _ = turns_game(client, {"days": 3})  # a game played here: its clock runs
    played = summary(client, game)["clock"]
    assert played["running"] is True and played["seconds_left"] == 3 * 86400


def test_tc_5_an_extension_past_the_last_day_a_deadline_can_have_is_refused_not_a_500(client, clock):
    """Extensions add up without a bound (each from the deadline, 60 days at most): some 48,700 of
    them, which the seat not to move may give, bring a deadline to the year 9999, and the next one
    raised OverflowError (500). The server's clock is moved there instead of giving them all."""
    clock.at = datetime(9999, 10, 1, tzinfo=timezone.utc)
    game, _ = turns_game(client, {"days": 60})
    before = summary(client, game)
    r = client.post(f"/api/v1/games/{game.game_id}/extension", json={"days": 60}, headers=game.seats["Black"])
    assert r.status_code == 422 and r.json["code"] == "rule_violation", r.get_data(as_text=True)
    assert r.json["rule"] == clocks.RULE and "9999" in r.json["detail"], r.json
    assert summary(client, game)["version"] == before["version"]  # nothing recorded
    r = client.post(f"/api/v1/games/{game.game_id}/extension", json={"days": 1}, headers=game.seats["Black"])
    assert r.status_code == 201, r.json  # a day still fits
