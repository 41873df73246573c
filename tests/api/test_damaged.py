"""A game whose stored log fails verification, through the HTTP API (issue 29, item 3): once
the integrity check has found it (this process's cached copy reads only the rows after its
version, so it does not notice a row changed beneath it), orders are refused with 409 ``damaged_log`` naming the first bad line; every read says so (the
``Warlog-Damaged`` header, the summary's ``damaged``); the dice audit and the history show what
is stored now, its statuses computed from it, not the projections' earlier fold; an operator's
acceptance (docs/operations.md) lets the game play on and is shown on the summary."""

from __future__ import annotations

import json

from tests.api.conftest import export_events, make_game, umpire
from tests.integration.rawstore import RawStore
from tests.integration.test_tamper import change_die_value, other_face

ORDERS = [("Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire"}),
          ("Red", {"kind": "vp", "side": "Red", "delta": 3, "reason": "town"}),
          ("Blue", {"kind": "advance"}), ("Blue", {"kind": "advance"}),  # turn 2: epoch 0 revealed
          ("Red", {"kind": "note", "text": "dug in"})]


def played(client):
    game = make_game(client, phases=["Move", "Fight"])
    for n, (seat, order) in enumerate(ORDERS):
        assert game.order(client, seat, order, f"o{n}").status_code == 201
    return game


def export_lines(client, game, headers) -> list[dict]:
    r = client.get(f"/api/v1/games/{game.game_id}/export", headers=headers)
    return [json.loads(line) for line in export_events(r.get_data(as_text=True))]


def first_roll(client, game, headers) -> dict:
    return client.get(f"/api/v1/games/{game.game_id}/dice", headers=headers).json["rolls"][0]


def test_a_tampered_game_refuses_orders_and_every_read_says_so(client, api_service, store_config):
    game = played(client)
    ump = umpire(client, game)
    base = f"/api/v1/games/{game.game_id}"
    before = first_roll(client, game, ump)
    assert before["status"] == "verified"
    assert client.get(base, headers=ump).json["damaged"] is None
    with RawStore(store_config) as raw:
        k = change_die_value(raw, game.game_id, export_lines(client, game, ump))
    assert k == before["seq"]
    assert client.get(base + "/integrity", headers=ump).json["ok"] is False

    refused = game.order(client, "Red", {"kind": "note", "text": "after"}, "after")
    assert refused.status_code == 409, refused.json
    assert refused.json["code"] == "damaged_log" and refused.json["line"] == k
    assert f"line {k}:" in refused.json["detail"]

    for path in ("", "/state", "/vp", "/history", "/dice", "/events", "/export", "/take-backs", "/frames"):
        r = client.get(base + path, headers=game.seats["Blue"])
        assert r.status_code == 200, (path, r.data[:300])
        assert r.headers.get("Warlog-Damaged") == str(k), path
    assert client.get(base, headers=game.seats["Red"]).json["damaged"] == {
        "line": k, "accepted": False, "accepted_at": None, "reason": None}
    listed = client.get("/api/v1/games", headers=game.seats["Red"]).json["games"]
    assert [g["damaged"] for g in listed] == [{"line": k, "accepted": False, "accepted_at": None, "reason": None}]

    # The audit shows the stored face, and its status is computed from it: no longer "verified".
    after = first_roll(client, game, ump)
    assert after["dice"][0]["value"] == other_face(before["dice"][0]) != before["dice"][0]["value"]
    assert after["status"] == "failed"
    vp_now = client.get(base + "/state", headers=ump).json["state"]["vp"]
    assert client.get(base + f"/state?at={k + 2}", headers=ump).json["state"]["vp"] == vp_now  # VP scored after k
    history = client.get(base + "/history", headers=ump).json
    texts = [line["text"] for turn in history["turns"] for phase in turn["phases"]
             for op in phase["operations"] for line in op["lines"] if line["seq"] == k]
    assert texts and str(after["dice"][0]["value"]) in texts[0]

    # The operator accepts the damage: orders are taken again, reads carry the decision.
    api_service.accept_damage(game.game_id, "the players agreed the stored face stands")
    again = game.order(client, "Red", {"kind": "note", "text": "after"}, "after")
    assert again.status_code == 201, again.json
    summary = client.get(base, headers=ump)
    assert "Warlog-Damaged" not in summary.headers
    assert summary.json["damaged"]["accepted"] is True
    assert summary.json["damaged"]["reason"] == "the players agreed the stored face stands"
    assert first_roll(client, game, ump)["status"] == "failed"
    assert client.get(base + "/integrity", headers=ump).json["ok"] is False


def test_the_integrity_endpoint_finding_damage_stops_the_game(client, store_config):
    game = played(client)
    ump = umpire(client, game)
    with RawStore(store_config) as raw:
        k = change_die_value(raw, game.game_id, export_lines(client, game, ump))
    report = client.get(f"/api/v1/games/{game.game_id}/integrity", headers=game.seats["Blue"])
    assert report.json["ok"] is False and report.headers.get("Warlog-Damaged") == str(k)
    assert client.get(f"/api/v1/games/{game.game_id}/vp", headers=game.seats["Blue"]).headers["Warlog-Damaged"] == str(k)


def test_no_flag_on_an_intact_game_nor_for_a_caller_not_let_in(client, store_config):
    game = played(client)
    ump = umpire(client, game)
    r = client.get(f"/api/v1/games/{game.game_id}/dice", headers=ump)
    assert r.status_code == 200 and "Warlog-Damaged" not in r.headers
    with RawStore(store_config) as raw:
        change_die_value(raw, game.game_id, export_lines(client, game, ump))
    assert client.get(f"/api/v1/games/{game.game_id}/integrity", headers=ump).json["ok"] is False
    assert game.order(client, "Red", {"kind": "note", "text": "x"}, "x").status_code == 409
    stranger = client.get(f"/api/v1/games/{game.game_id}/dice")
    assert stranger.status_code in (401, 404) and "Warlog-Damaged" not in stranger.headers


def test_a_row_holding_another_events_fields_is_a_damaged_log_to_every_read_not_a_500(client, api_service,
                                                                                    store_config):
    """docs/api.md: a 409 damaged_log is answered to "a read that cannot fold the stored log". A
    row edited to hold another event's fields under its own type (a SeatJoined holding the next
    line's DiceEpochOpened) still decodes, and the folds failed on it: the summary, the state, the
    VP track, the history, the dice audit and the frames answered 500, the games list answered 500
    to every caller it would have listed the game to, and the projector, whose batch held it,
    failed on every batch, so no game's views moved on."""
    from projections.runner import Projections

    game = make_game(client, public=True, phases=["Move", "Fight"])
    for n, (seat, order) in enumerate(ORDERS):
        assert game.order(client, seat, order, f"o{n}").status_code == 201
    other = make_game(client, public=True)
    with RawStore(store_config) as raw:
        assert [line["type"] for line in export_lines(client, game, game.seats["Blue"])][4:6] == [
            "SeatJoined", "DiceEpochOpened"]
        raw.set_state(game.game_id, 5, raw.state(game.game_id, 6))

    assert Projections(api_service).catch_up() > 0  # the projector goes past it; the other game's views move on
    assert client.get(f"/api/v1/games/{other.game_id}/state").status_code == 200
    base = f"/api/v1/games/{game.game_id}"
    for path in ("", "/state", "/state?at=3", "/vp", "/history", "/dice", "/frames"):
        r = client.get(base + path, headers=game.seats["Blue"])
        assert r.status_code == 409 and r.json["code"] == "damaged_log" and r.json["line"] == 5, (path, r.data[:300])
    listed = client.get("/api/v1/games")
    assert listed.status_code == 200, listed.data[:300]
    assert other.game_id in {g["game_id"] for g in listed.json["games"]}
