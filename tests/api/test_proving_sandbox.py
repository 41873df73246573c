"""PG 7 positions and sandboxes, end to end through the HTTP API: a game of the proving ground
starts from its named position "midgame"; a few orders are played; sandboxes are forked at
earlier events and checked against the source: same state, dice of their own that verify, the
mark in their log, left out of the games index and of statistics across games unless asked, and
no hidden information leaked through a fork."""

from __future__ import annotations

import json

from domain.verify import verify_text
from tests.api.conftest import ApiGame, bearer, export_events, umpire
from workers.stats import CrossGame

GAMES = "/api/v1/games"


def joined(client, created: dict) -> ApiGame:
    game = ApiGame(created["game_id"], bearer(created["admin_token"]), invites=created["invites"])
    for seat, code in created["invites"].items():
        r = client.post(f"{GAMES}/{game.game_id}/join", json={"invite_code": code, "handle": seat.lower()})
        assert r.status_code == 201, r.json
        game.seats[seat] = bearer(r.json["token"])
    return game


def from_midgame(client) -> ApiGame:
    """A public proving game from position "midgame", its umpire named at creation, both seats
    joined."""
    r = client.post(GAMES, json={"ruleset": "proving", "position": "midgame", "public": True, "umpire": "Uma"})
    assert r.status_code == 201, r.json
    return joined(client, r.json)


def play(client, game: ApiGame, seat: str, order: dict, key: str) -> list[dict]:
    r = game.order(client, seat, order, key)
    assert r.status_code == 201, r.json
    return r.json["events"]


def fork(client, game: ApiGame, at, headers: dict, **body):
    return client.post(f"{GAMES}/{game.game_id}/sandbox", json={"at": at, **body}, headers=headers)


def state_of(client, game_id: str, headers: dict, at: int | None = None) -> dict:
    r = client.get(f"{GAMES}/{game_id}/state" + (f"?at={at}" if at else ""), headers=headers)
    assert r.status_code == 200, r.json
    return r.json["state"]


def export(client, game_id: str, headers: dict) -> list[dict]:
    r = client.get(f"{GAMES}/{game_id}/export", headers=headers)
    assert r.status_code == 200
    return [json.loads(line) for line in export_events(r.get_data(as_text=True))]


def played(client):
    """The source game: Red's scoring roll (r1), Blue's face-down marker (b1), Red's second roll
    (r2); ``game.spans`` holds the (first, last) seq of each order's events."""
    game = from_midgame(client)
    game.spans = {}
    for seat, order, key in (("Red", {"kind": "roll_score"}, "r1"),
                             ("Blue", {"kind": "take_marker", "marker": "ambush"}, "b1"),
                             ("Red", {"kind": "roll_score"}, "r2")):
        events = play(client, game, seat, order, key)
        game.spans[key] = (events[0]["seq"], events[-1]["seq"])
    return game


def test_pg_7_1_a_game_starts_from_a_named_position_recorded_in_its_log(client):
    listed = client.get("/api/v1/rulesets/proving").json["positions"]
    assert [p["name"] for p in listed] == ["midgame"] and listed[0]["title"] and listed[0]["note"]
    game = from_midgame(client)
    state = state_of(client, game.game_id, game.seats["Red"])
    assert (state["turn"], state["vp"]) == (3, {"Red": 4, "Blue": 2})
    lines = export(client, game.game_id, game.seats["Red"])
    types = [line["type"] for line in lines]
    umpire_at = types.index("UmpireAppointed")  # after the dice commitments, before any seat joins
    assert types[:2] == ["GameCreated", "PositionSet"] and set(types[2:umpire_at]) == {"DiceCommitted"}
    assert types[umpire_at + 1] == "SeatJoined"
    assert lines[0]["data"]["setup"]["vp"] == {"Red": 4, "Blue": 2}
    assert lines[1]["data"]["position"] == "midgame"
    summary = client.get(f"{GAMES}/{game.game_id}").json
    assert summary["position"]["position"] == "midgame" and summary["sandbox"] is None
    assert summary["turn"] == 3 and summary["vp"] == {"Red": 4, "Blue": 2}


def test_pg_7_1_an_unknown_position_or_one_with_options_is_refused_naming_what_is_wrong(client):
    r = client.post(GAMES, json={"ruleset": "proving", "position": "endgame"})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup"
    assert "no position 'endgame'" in r.json["detail"] and "midgame" in r.json["detail"]
    r = client.post(GAMES, json={"ruleset": "falklands", "position": "opening", "options": {"uk_operations": 6}})
    assert r.status_code == 422 and "not both" in r.json["detail"]


def test_pg_7_5_a_sandbox_starts_from_the_source_state_at_the_event_and_is_marked(client):
    game = played(client)
    at = game.spans["r1"][1]  # right after Red's first roll: scored, no marker yet
    source_lines = export(client, game.game_id, umpire(client, game))
    r = fork(client, game, at, game.seats["Red"])
    assert r.status_code == 201, r.json
    sandbox_id = r.json["game_id"]
    assert r.json["sandbox"] == {"source": game.game_id, "at": at, "at_hash": source_lines[at - 1]["hash"],
                                 "by": "Red"}
    assert set(r.json["invites"]) == {"Red", "Blue"} and r.json["admin_token"]
    sandbox = joined(client, r.json)
    # The sandbox's state is the source's right after that event.
    assert state_of(client, sandbox_id, sandbox.seats["Red"]) == state_of(client, game.game_id, game.seats["Red"], at=at)
    lines = export(client, sandbox_id, sandbox.seats["Blue"])
    assert [line["type"] for line in lines[:2]] == ["GameCreated", "SandboxForked"]
    assert lines[1]["data"]["at_hash"] == source_lines[at - 1]["hash"]  # checkable against the source's export
    summary = client.get(f"{GAMES}/{sandbox_id}", headers=sandbox.seats["Red"]).json
    assert summary["sandbox"]["source"] == game.game_id and summary["sandbox"]["at"] == at


def test_pg_7_5_a_sandbox_rolls_its_own_dice_and_they_verify(client):
    game = played(client)
    sandbox = joined(client, fork(client, game, game.spans["r1"][1], game.seats["Red"]).json)
    before = state_of(client, sandbox.game_id, sandbox.seats["Red"])["vp"]["Red"]
    events = play(client, sandbox, "Red", {"kind": "roll_score"}, "s1")
    play(client, sandbox, "Blue", {"kind": "turn_end"}, "s2")  # closes the epoch: its seed is revealed
    scored = next(e for e in events if e["type"] == "VPScored")["data"]
    assert scored["total"] == before + scored["delta"]
    dice = client.get(f"{GAMES}/{sandbox.game_id}/dice", headers=sandbox.seats["Red"]).json
    assert [roll["status"] for roll in dice["rolls"]] == ["verified"]
    source_epochs = client.get(f"{GAMES}/{game.game_id}/dice", headers=game.seats["Red"]).json["epochs"]
    assert dice["epochs"][0]["commitment"] != source_epochs[0]["commitment"]  # a seed of its own
    integrity = client.get(f"{GAMES}/{sandbox.game_id}/integrity", headers=sandbox.seats["Red"]).json
    assert integrity["ok"] and integrity["rolls_verified"] == 1


def test_pg_7_5_sandboxes_are_left_out_of_the_games_index_and_statistics_unless_asked(client):
    game = played(client)
    r = fork(client, game, game.spans["r1"][1], game.seats["Red"], public=True)
    sandbox_id = r.json["game_id"]
    listed = [g["game_id"] for g in client.get(GAMES).json["games"]]
    assert game.game_id in listed and sandbox_id not in listed
    with_sandboxes = client.get(f"{GAMES}?sandbox=true").json["games"]
    assert {game.game_id, sandbox_id} <= {g["game_id"] for g in with_sandboxes}
    assert next(g for g in with_sandboxes if g["game_id"] == sandbox_id)["sandbox"]["at"] == game.spans["r1"][1]
    # Not even the sandbox's own token lists it unasked.
    own = client.get(GAMES, headers=bearer(r.json["admin_token"])).json["games"]
    assert sandbox_id not in [g["game_id"] for g in own]
    games = [export(client, gid, {}) for gid in (game.game_id, sandbox_id)]
    plain, asked = CrossGame("proving"), CrossGame("proving", sandboxes=True)
    for lines in games:
        plain.add(lines)
        asked.add(lines)
    assert plain.result()["rulesets"]["proving"]["games"] == 1 and plain.result()["sandboxes_left_out"] == 1
    assert asked.result()["rulesets"]["proving"]["games"] == 2


def test_pg_7_5_a_bad_fork_point_is_refused_naming_what_is_wrong(client):
    game = played(client)
    red = game.seats["Red"]
    (first, last), end = game.spans["r1"], game.spans["r2"][1]
    r = fork(client, game, 99, red)
    assert r.status_code == 422 and r.json["code"] == "invalid_fork" and f"1 to {end}" in r.json["detail"]
    r = fork(client, game, first + 1, red)
    assert r.status_code == 422 and r.json["code"] == "invalid_fork"
    assert f"inside an order's outcome (events {first}-{last})" in r.json["detail"]
    assert f"at {first - 1} or {last}" in r.json["detail"]
    r = fork(client, game, "nine", red)
    assert r.status_code == 422 and "at" in r.json["detail"]
    ended = played(client)
    assert client.post(f"{GAMES}/{ended.game_id}/concede", headers=ended.seats["Blue"]).status_code == 200
    last = client.get(f"{GAMES}/{ended.game_id}").json["version"]
    r = fork(client, ended, last, ended.seats["Red"])
    assert r.status_code == 422 and "ended" in r.json["detail"]


def test_pg_7_3_a_seat_cannot_learn_hidden_state_through_a_fork_the_umpire_may_fork(client):
    game = played(client)
    marker, end = game.spans["b1"][1], game.spans["r2"][1]
    # After Blue's face-down marker, the state holds what Red may not see.
    r = fork(client, game, marker, game.seats["Red"])
    assert r.status_code == 403 and r.json["code"] == "fork_hidden" and "hidden from Red" in r.json["detail"]
    assert fork(client, game, end, {}).status_code == 403  # a spectator of the public game: the same
    assert fork(client, game, marker, game.seats["Blue"]).status_code == 201  # Blue sees its own marker
    # The umpire may fork there; the sandbox's seats see the marker face down, and in its log the
    # set-up holding it is concealed from them (a commitment): their copy verifies all the same.
    r = fork(client, game, end, umpire(client, game), umpire="Uma", public=True)
    assert r.status_code == 201, r.json
    sandbox = joined(client, r.json)
    assert state_of(client, sandbox.game_id, sandbox.seats["Red"])["markers"]["Blue"] == ["face-down"]
    assert state_of(client, sandbox.game_id, sandbox.seats["Blue"])["markers"]["Blue"] == ["ambush"]
    for headers in (sandbox.seats["Red"], {}, sandbox.admin):
        r = client.get(f"{GAMES}/{sandbox.game_id}/export", headers=headers)
        assert r.status_code == 200 and "ambush" not in r.get_data(as_text=True)
        report, lines = verify_text(r.get_data(as_text=True).splitlines())
        assert report.ok and lines[0]["data"]["concealed"] == {"setup": None}, report.summary()
        r = client.get(f"{GAMES}/{sandbox.game_id}/events", headers=headers)
        assert "ambush" not in r.get_data(as_text=True)
    blue = client.get(f"{GAMES}/{sandbox.game_id}/export", headers=sandbox.seats["Blue"])
    assert "ambush" in blue.get_data(as_text=True)
