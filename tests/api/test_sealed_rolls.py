"""Sealed rolls through the API (freeform FF 9; docs/dice.md, "Sealed rolls"), on SQLite and
PostgreSQL: the other seat reads that a sealed roll was made, never its faces, in any read, until
the game ends; then it reads them, and ``warlog verify`` checks them in its export."""

from __future__ import annotations

import json

from domain.verify import verify_text
from tests.api.conftest import export_verifies, make_game, umpire
from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)

BLUE_ROLL = {"kind": "roll", "dice": "2d6", "sealed": True, "purpose": "refit at Truk",
             "target": {"compare": ">=", "value": 7}}
RED_ROLL = {"kind": "roll", "dice": "d66", "sealed": True, "purpose": "hidden reinforcements"}


def url(game, tail=""):
    return f"/api/v1/games/{game.game_id}{tail}"


def reads(client, game, headers, monkeypatch) -> dict:
    """Every read a seat has of a game: summary, state, events, export, history, dice audit, stream."""
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "1")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    got = {path: client.get(url(game, path), headers=headers) for path in
           ("", "/state", "/events", "/export", "/history", "/dice")}
    assert all(r.status_code == 200 for r in got.values()), {p: r.status_code for p, r in got.items()}
    stream = client.get(url(game, "/events/stream"), headers=headers, buffered=False)
    text = b"".join(stream.response).decode()
    return {"text": "\n".join([r.get_data(as_text=True) for r in got.values()] + [text]),
            "events": got["/events"].json["events"],
            "export": [json.loads(t) for t in got["/export"].get_data(as_text=True).splitlines()][1:],  # less the header
            "history": [line for turn in got["/history"].json["turns"] for phase in turn["phases"]
                        for op in phase["operations"] for line in op["lines"]],
            "dice": got["/dice"].json,
            "stream": [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]}


def at(items: list[dict], seq: int) -> dict:
    return next(item for item in items if item["seq"] == seq)


def test_FF_9_the_other_seat_sees_a_sealed_roll_was_made_and_its_faces_only_after_the_end(
        client, api_service, monkeypatch, tmp_path):
    game = make_game(client)
    r = game.order(client, "Blue", BLUE_ROLL, "blue-1")
    assert r.status_code == 201, r.json
    blue = r.json["events"][-1]
    assert blue["type"] == "SealedDiceRolled" and len(blue["data"]["dice"]) == 2  # the roller sees its faces
    assert blue["data"]["outcome"] in ("success", "failure") and blue["text"].startswith("Sealed: Blue rolled 2d6")
    r = game.order(client, "Red", RED_ROLL, "red-1")
    assert r.status_code == 201, r.json
    red = r.json["events"][-1]
    secret = api_service.seeds.seed_for(game.game_id, -1).hex()
    hidden_text = "Blue rolled 2d6 sealed for refit at Truk: the dice are hidden until the game ends"

    # Before the end: Red, and a spectator-like reader (the umpire excepted), read no face of Blue's roll.
    seen = reads(client, game, game.seats["Red"], monkeypatch)
    assert secret not in seen["text"]
    for source in ("events", "export", "stream"):
        line = at(seen[source], blue["seq"])
        # concealed: each field's commitment in its place, its salt withheld (docs/dice.md, "Concealed fields")
        assert all(line["data"]["concealed"][k] is None for k in ("dice", "target", "outcome")), source
        assert all(isinstance(line["data"][k], str) and len(line["data"][k]) == 64 for k in ("dice", "target", "outcome")), source
        assert line["data"]["purpose"] == "refit at Truk" and line["data"]["notation"] == "2d6"
        assert at(seen[source], red["seq"])["data"]["dice"] == red["data"]["dice"], source  # its own roll
    assert at(seen["events"], blue["seq"])["text"] == at(seen["history"], blue["seq"])["text"] == hidden_text
    audit = at(seen["dice"]["rolls"], blue["seq"])
    assert (audit["dice"], audit["outcome"], audit["status"], audit["sealed"]) == (None, None, "sealed", True)
    assert audit["text"] == hidden_text
    assert seen["dice"]["sealed"]["seed"] is None and seen["dice"]["sealed"]["status"] == "open"
    assert "dice" not in json.dumps(client.get(url(game, "/state"), headers=game.seats["Red"]).json["state"]["last_roll"])
    for headers in (game.seats["Blue"], umpire(client, game)):  # the roller and the umpire see it
        audit = at(client.get(url(game, "/dice"), headers=headers).json["rolls"], blue["seq"])
        assert audit["dice"] == blue["data"]["dice"] and audit["status"] == "sealed"

    r = game.order(client, "Blue", {"kind": "end", "winner": None, "reason": "the campaign is over"}, "blue-end")
    assert r.status_code == 201, r.json
    assert [e["type"] for e in r.json["events"][-2:]] == ["DiceEpochRevealed", "SealedDiceRevealed"]

    # After the end: the seed is out, and Red reads Blue's faces everywhere, verified.
    seen = reads(client, game, game.seats["Red"], monkeypatch)
    assert secret in seen["text"]
    for source in ("events", "export", "stream"):
        assert at(seen[source], blue["seq"])["data"] == blue["data"], source
    assert at(seen["history"], blue["seq"])["text"] == blue["text"]
    page = client.get(url(game, f"/events?after={blue['seq'] - 1}&limit=1"), headers=game.seats["Red"]).json
    assert page["events"][0]["data"] == blue["data"]  # a page without the reveal line: revealed all the same
    assert [(roll["status"], roll["sealed"]) for roll in seen["dice"]["rolls"]] == [("verified", True)] * 2
    assert seen["dice"]["sealed"]["seed"] == secret and seen["dice"]["sealed"]["status"] == "revealed"
    report, _ = verify_text([json.dumps(line) for line in seen["export"]])
    assert report.ok and (report.sealed_rolls_verified, report.sealed_dice_verified) == (2, 4), report.summary()
    export_verifies(client, game.game_id, game.seats["Red"], tmp_path / "red.jsonl")


def test_FF_9_a_malformed_sealed_flag_is_a_422_naming_the_rule(client):
    game = make_game(client)
    r = game.order(client, "Blue", {**BLUE_ROLL, "sealed": "yes"}, "blue-1")
    assert r.status_code == 422 and r.json["rule"] == "FF 9", r.json


def test_FF_9_warlog_order_roll_sealed_makes_a_sealed_roll_the_opponent_reads_as_sealed(server, alice, bob):
    game_id = started_game(server, alice, bob)  # signed orders: a sealed roll is signed as any order
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "scouting", "--sealed")
    assert code == 0 and "Sealed: Blue rolled 2d6 for scouting: " in out, err
    code, out, err = bob("dice", game_id)
    assert code == 0 and "Blue rolled 2d6 sealed for scouting: the dice are hidden until the game ends" in out, err
    assert "[sealed]" in out
    code, out, err = alice("order", game_id, "note", "quiet", "--sealed")
    assert code == 2 and "--sealed go with a roll" in err


def test_FF_9_a_shown_sealed_roll_is_read_in_full_by_the_other_seat_before_the_end(client, monkeypatch, tmp_path):
    game = make_game(client)
    blue = game.order(client, "Blue", BLUE_ROLL, "blue-1").json["events"][-1]
    later = game.order(client, "Blue", {**BLUE_ROLL, "purpose": "second refit"}, "blue-2").json["events"][-1]
    r = game.order(client, "Red", {"kind": "show", "roll": blue["seq"]}, "red-show")
    assert r.status_code == 422 and r.json["rule"] == "FF 9" and "only the seat that made" in r.json["detail"], r.json
    r = game.order(client, "Blue", {"kind": "show", "roll": blue["seq"]}, "blue-show")
    assert r.status_code == 201, r.json
    show = r.json["events"][-1]
    assert show["type"] == "SealedRollShown" and show["data"]["roll"] == blue["seq"]
    assert show["text"].startswith(f"Blue shows sealed roll #{blue['seq']}: ")

    seen = reads(client, game, game.seats["Red"], monkeypatch)
    for source in ("events", "export", "stream"):
        assert at(seen[source], blue["seq"])["data"] == blue["data"], source  # in full, salts and all
        assert at(seen[source], later["seq"])["data"]["concealed"]["dice"] is None, source  # the other stays sealed
    assert at(seen["dice"]["rolls"], blue["seq"])["dice"] == blue["data"]["dice"]
    assert at(seen["dice"]["rolls"], later["seq"])["dice"] is None
    page = client.get(url(game, f"/events?after={blue['seq'] - 1}&limit=1"), headers=game.seats["Red"]).json
    assert page["events"][0]["data"] == blue["data"]  # a page without the show line: shown all the same
    report, _ = verify_text([json.dumps(line) for line in seen["export"]])
    assert report.ok and report.sealed_rolls_shown == 1, report.summary()
    export_verifies(client, game.game_id, game.seats["Red"], tmp_path / "red.jsonl")
    r = game.order(client, "Blue", {"kind": "show", "roll": blue["seq"]}, "blue-show-2")
    assert r.status_code == 422 and "already public" in r.json["detail"], r.json


def test_FF_9_warlog_order_show_shows_a_sealed_roll_to_the_opponent(server, alice, bob):
    game_id = started_game(server, alice, bob)
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "scouting", "--sealed", "--json")
    assert code == 0, err
    seq = next(e["seq"] for e in json.loads(out)["events"] if e["type"] == "SealedDiceRolled")
    code, out, err = alice("order", game_id, "show", str(seq))
    assert code == 0 and f"Blue shows sealed roll #{seq}: " in out, err
    code, out, err = bob("dice", game_id)
    assert code == 0 and "Blue rolled 2d6 for scouting: " in out and "hidden until the game ends" not in out, out
    code, out, err = alice("order", game_id, "show", "first")
    assert code == 2 and "a whole number" in err
