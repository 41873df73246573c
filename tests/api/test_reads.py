"""The read side of the API (api/reads.py) through the Flask test client, on SQLite and PostgreSQL:
each endpoint's contract, time travel, take-backs in the VP track and the dice audit, dice
statuses across a reveal, access rules, query-string errors, and hidden-information filtering."""

from __future__ import annotations

import copy
import json

import pytest

from api import reads
from domain import dice
from domain.rulesets.freeform.rules import Freeform
from domain.rulesets.toolkit.hidden import ORDER_FIELDS
from domain.verify import verify_text
from tests.api.conftest import bearer, export_events, make_game, umpire
from tests.integration.rawstore import RawStore

ENDPOINTS = ["state", "vp", "history", "dice", "events", "export", "take-backs", "integrity"]
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


def url(game, path: str) -> str:
    return f"/api/v1/games/{game.game_id}/{path}"


def ok(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.json


def problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.json
    assert PROBLEM_KEYS <= set(body) and body["code"] == code
    return body


def order(client, game, seat, body, key) -> dict:
    r = game.order(client, seat, body, key)
    assert r.status_code == 201, r.json
    return r.json


def played(client, **options):
    """Turn 1 (Move, Fight) with rolls, VP and advances, then turn 2 begun (epoch 0 revealed)."""
    game = make_game(client, phases=["Move", "Fight"], **options)
    order(client, game, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "Artillery barrage",
                                 "target": {"compare": ">=", "value": 7}}, "r1")
    order(client, game, "Red", {"kind": "vp", "side": "Red", "delta": 3, "reason": "took the hill"}, "v1")
    order(client, game, "Blue", {"kind": "advance"}, "a1")  # turn 1, Fight
    order(client, game, "Red", {"kind": "roll", "dice": "d6", "purpose": "morale"}, "r2")
    order(client, game, "Red", {"kind": "advance"}, "a2")  # turn 2, Move: epoch 0 revealed, 1 opened
    return game


def export_lines(api_service, game) -> list[dict]:
    return [json.loads(t) for t in api_service.export(game.game_id)]


def seq_of(lines: list[dict], type_: str, n: int = 0, **data) -> int:
    found = [line["seq"] for line in lines
             if line["type"] == type_ and all(line["data"].get(k) == v for k, v in data.items())]
    return found[n]


# ----------------------------------------------------------------------------------- state --
def test_state_now_has_the_contract_fields_and_the_version_as_etag(client):
    game = played(client)
    last = order(client, game, "Blue", {"kind": "note", "text": "dig in"}, "n1")
    r = client.get(url(game, "state"), headers=game.seats["Blue"])
    body = ok(r)
    assert set(body) == {"game_id", "version", "turn", "phase", "whose_move", "ended", "sealed", "state"}
    assert body["sealed"] is None  # no sealed-orders round in a game without them
    assert body["version"] == last["version"] and r.headers["ETag"] == f'"{last["version"]}"'
    assert (body["turn"], body["phase"], body["ended"]) == (2, "Move", None)
    assert body["whose_move"] == ["Blue", "Red"] and body["state"]["vp"] == {"Blue": 0, "Red": 3}


def test_state_at_every_seq_equals_the_state_read_right_after_that_event(client):
    """Past the snapshot interval (20), so loading an old version starts from a snapshot."""
    game = make_game(client, phases=["Move", "Fight"])
    seen = {}

    def look():
        body = ok(client.get(url(game, "state"), headers=game.seats["Red"]))
        seen[body["version"]] = body

    look()
    for i in range(12):
        order(client, game, "Blue", {"kind": "vp", "side": "Blue", "delta": i + 1, "reason": f"r{i}"}, f"v{i}")
        look()
        order(client, game, "Red", {"kind": "roll", "dice": "d6", "purpose": f"p{i}"} if i % 3
              else {"kind": "advance"}, f"o{i}")
        look()
    current = max(seen)
    assert current > 40
    for version, then in seen.items():
        r = client.get(url(game, f"state?at={version}"), headers=game.seats["Red"])
        assert ok(r) == then, f"state at {version} differs from what it was"
        assert r.headers["ETag"] == f'"{current}"'
    first = ok(client.get(url(game, "state?at=1"), headers=game.seats["Red"]))
    assert first["version"] == 1 and first["whose_move"] == []  # nobody has joined yet
    assert first["state"]["vp"] == {"Blue": 0, "Red": 0}


def test_state_at_the_start_of_a_turn_and_phase(client, api_service):
    game = played(client)
    lines = export_lines(api_service, game)

    def version(query):
        return ok(client.get(url(game, f"state?{query}"), headers=game.seats["Blue"]))

    turn1 = version("turn=1")
    assert turn1["version"] == seq_of(lines, "OrderAccepted") - 1  # set-up done, before the first order
    assert (turn1["turn"], turn1["phase"], turn1["state"]["last_roll"]) == (1, "Move", None)
    assert version("turn=1&phase=Move")["version"] == turn1["version"]
    fight = version("turn=1&phase=fight")  # phase names match case-insensitively
    assert fight["version"] == seq_of(lines, "PhaseAdvanced") and fight["phase"] == "Fight"
    assert fight["state"]["vp"] == {"Blue": 0, "Red": 3}
    turn2 = version("turn=2")
    assert turn2["version"] == seq_of(lines, "TurnAdvanced") and (turn2["turn"], turn2["phase"]) == (2, "Move")
    assert version("turn=2&phase=MOVE")["version"] == turn2["version"]


def test_state_of_a_turn_or_phase_not_reached_is_404(client):
    game = played(client)
    body = problem(client.get(url(game, "state?turn=3"), headers=game.seats["Blue"]), 404, "not_found")
    assert "turn 3" in body["detail"]
    body = problem(client.get(url(game, "state?turn=2&phase=Fight"), headers=game.seats["Blue"]), 404, "not_found")
    assert "Fight" in body["detail"]
    problem(client.get(url(game, "state?turn=1&phase=Retreat"), headers=game.seats["Blue"]), 404, "not_found")


def test_state_at_the_start_of_a_turn_skips_an_advance_that_was_taken_back(client, api_service):
    game = played(client)
    order(client, game, "Blue", {"kind": "advance"}, "a3")  # turn 2, Fight
    r = client.post(url(game, "take-backs"), json={"reason": "too early"}, headers=game.seats["Blue"])
    assert r.status_code == 201, r.json
    assert client.post(url(game, "take-backs/answer"), json={"accept": True}, headers=game.seats["Red"]).status_code == 200
    problem(client.get(url(game, "state?turn=2&phase=Fight"), headers=game.seats["Blue"]), 404, "not_found")
    # Back in turn 2, Move: what happens now is filed there, not in the phase taken back.
    order(client, game, "Blue", {"kind": "vp", "side": "Blue", "delta": 1, "reason": "patrol"}, "v2")
    entry = ok(client.get(url(game, "vp"), headers=game.seats["Blue"]))["track"][-1]
    assert (entry["reason"], entry["turn"], entry["phase"]) == ("patrol", 2, "Move")
    turn2 = ok(client.get(url(game, "history"), headers=game.seats["Blue"]))["turns"][1]
    assert [p["phase"] for p in turn2["phases"]] == ["Move", "Fight"]
    assert [o["order_id"] for o in turn2["phases"][0]["operations"]] == ["a3", "v2"]
    assert [o["order_id"] for o in turn2["phases"][1]["operations"]] == [None, None]  # the take-back, asked and granted in Fight
    order(client, game, "Red", {"kind": "advance"}, "a4")  # Fight again, for real this time
    lines = export_lines(api_service, game)
    again = ok(client.get(url(game, "state?turn=2&phase=Fight"), headers=game.seats["Blue"]))
    assert again["version"] == seq_of(lines, "PhaseAdvanced", 1, turn=2)


@pytest.mark.parametrize("query, field", [
    ("at=0", "at"), ("at=-3", "at"), ("at=abc", "at"), ("at=2.5", "at"), ("at=", "at"), ("at=1e3", "at"),
    ("at=99999", "at"), ("at=99999999999999999999999999", "at"), ("turn=-1", "turn"), ("turn=x", "turn"),
    ("at=3&turn=1", "at"), ("phase=Move", "phase"), ("turn=1&phase=", "phase"), ("seq=3", "seq"),
])
def test_state_bad_query_is_422_naming_the_field(client, query, field):
    game = played(client)
    body = problem(client.get(url(game, f"state?{query}"), headers=game.seats["Blue"]), 422, "invalid_request")
    assert field in body["errors"], body


# -------------------------------------------------------------------------------------- vp --
def test_vp_track_and_totals_with_turn_and_phase(client, api_service):
    game = played(client)
    order(client, game, "Blue", {"kind": "vp", "side": "Blue", "delta": 2, "reason": "bridge", "rule": "SC 4"}, "v2")
    lines = export_lines(api_service, game)
    r = client.get(url(game, "vp"), headers=game.seats["Red"])
    body = ok(r)
    assert set(body) == {"game_id", "totals", "track"} and body["game_id"] == game.game_id
    assert body["totals"] == {"Blue": 2, "Red": 3}
    assert r.headers["ETag"] == f'"{lines[-1]["seq"]}"'
    assert body["track"] == [
        {"seq": seq_of(lines, "VPScored", side="Red"), "turn": 1, "phase": "Move", "side": "Red", "delta": 3,
         "total": 3, "reason": "took the hill", "rule": "FF 4", "superseded": False},
        {"seq": seq_of(lines, "VPScored", side="Blue"), "turn": 2, "phase": "Move", "side": "Blue", "delta": 2,
         "total": 2, "reason": "bridge", "rule": "SC 4", "superseded": False},
    ]


def test_a_taken_back_vp_is_superseded_and_leaves_the_totals(client, api_service):
    game = played(client)
    order(client, game, "Red", {"kind": "vp", "side": "Red", "delta": 5, "reason": "miscounted"}, "v2")
    assert client.post(url(game, "take-backs"), json={"reason": "oops"}, headers=game.seats["Red"]).status_code == 201
    assert client.post(url(game, "take-backs/answer"), json={"accept": True}, headers=game.seats["Blue"]).status_code == 200
    body = ok(client.get(url(game, "vp"), headers=game.seats["Blue"]))
    assert body["totals"] == {"Blue": 0, "Red": 3} and body["track"][-1]["superseded"] is True
    order(client, game, "Red", {"kind": "vp", "side": "Red", "delta": 1, "reason": "recounted"}, "v3")
    body = ok(client.get(url(game, "vp"), headers=game.seats["Blue"]))
    assert [(e["reason"], e["total"], e["superseded"]) for e in body["track"]] == [
        ("took the hill", 3, False), ("miscounted", 8, True), ("recounted", 4, False)]
    assert body["totals"] == {"Blue": 0, "Red": 4}
    state = ok(client.get(url(game, "state"), headers=game.seats["Blue"]))
    assert state["state"]["vp"] == body["totals"]


def test_vp_totals_of_a_game_without_scores_are_the_set_up(client):
    game = make_game(client, sides=("A", "B", "C"))
    body = ok(client.get(url(game, "vp"), headers=game.seats["A"]))
    assert body == {"game_id": game.game_id, "totals": {"A": 0, "B": 0, "C": 0}, "track": []}


# --------------------------------------------------------------------------------- history --
def test_history_groups_lines_by_turn_phase_and_operation(client, api_service):
    game = played(client)
    lines = export_lines(api_service, game)
    r = client.get(url(game, "history"), headers=game.seats["Blue"])
    body = ok(r)
    assert set(body) == {"game_id", "turns"} and r.headers["ETag"] == f'"{lines[-1]["seq"]}"'
    shape = [(t["turn"], [(p["phase"], [(o["order_id"], o["seat"], [ln["type"] for ln in o["lines"]])
                                        for o in p["operations"]]) for p in t["phases"]]) for t in body["turns"]]
    assert shape == [(1, [
        ("Move", [(None, None, ["GameCreated", "DiceCommitted", "DiceCommitted"]),
                  (None, "Blue", ["SeatJoined"]),
                  (None, "Red", ["SeatJoined", "DiceEpochOpened", "DiceCommitted"]),
                  ("r1", "Blue", ["OrderAccepted", "DiceRolled"]),
                  ("v1", "Red", ["OrderAccepted", "VPScored"]),
                  ("a1", "Blue", ["OrderAccepted", "PhaseAdvanced"])]),
        ("Fight", [("r2", "Red", ["OrderAccepted", "DiceRolled"]),
                   # an order that ends the turn stays whole, in the phase it was given in
                   ("a2", "Red", ["OrderAccepted", "TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened",
                                  "DiceCommitted"])]),
    ])]
    every = [ln for t in body["turns"] for p in t["phases"] for o in p["operations"] for ln in o["lines"]]
    assert [ln["seq"] for ln in every] == [line["seq"] for line in lines]  # each line once, in order
    assert all(set(ln) == {"seq", "type", "text", "annotations", "superseded"} and ln["text"] and ln["annotations"] == []
               and ln["superseded"] is False for ln in every)
    ops = [o for t in body["turns"] for p in t["phases"] for o in p["operations"]]
    assert all(o["first_seq"] == o["lines"][0]["seq"] for o in ops)
    assert "Artillery barrage" in ops[3]["lines"][1]["text"]


def test_history_files_take_backs_and_later_orders_by_when_they_happened(client):
    game = played(client)
    order(client, game, "Blue", {"kind": "note", "text": "move out"}, "n1")
    client.post(url(game, "take-backs"), json={"reason": "typo"}, headers=game.seats["Blue"])
    client.post(url(game, "take-backs/answer"), json={"accept": False}, headers=game.seats["Red"])
    order(client, game, "Red", {"kind": "note", "text": "hold"}, "n2")
    body = ok(client.get(url(game, "history"), headers=game.seats["Red"]))
    turn2 = body["turns"][1]
    assert turn2["turn"] == 2 and [p["phase"] for p in turn2["phases"]] == ["Move"]
    ops = [(o["order_id"], o["seat"], [ln["type"] for ln in o["lines"]]) for o in turn2["phases"][0]["operations"]]
    assert ops == [("n1", "Blue", ["OrderAccepted"]), (None, "Blue", ["TakeBackRequested"]),
                   (None, "Red", ["TakeBackDeclined"]), ("n2", "Red", ["OrderAccepted"])]


# ------------------------------------------------------------------------------------ dice --
def test_dice_are_unrevealed_with_no_seed_until_the_turn_ends_then_verified(client, api_service):
    game = make_game(client, phases=["Move", "Fight"])
    order(client, game, "Blue", {"kind": "roll", "dice": "3d6", "purpose": "barrage"}, "r1")
    order(client, game, "Red", {"kind": "roll", "dice": "d66", "purpose": "weather"}, "r2")
    before = ok(client.get(url(game, "dice"), headers=game.seats["Blue"]))
    assert set(before) == {"game_id", "rolls", "epochs", "sealed"}
    assert before["sealed"]["seed"] is None and before["sealed"]["status"] == "open"  # the sealed stream (FF 9)
    assert [r["status"] for r in before["rolls"]] == ["unrevealed", "unrevealed"]
    [epoch] = before["epochs"]
    assert epoch["seed"] is None and epoch["revealed_seq"] is None and epoch["status"] == "open"
    assert set(epoch) == {"epoch", "opened_seq", "commitment", "client_entropy", "revealed_seq", "seed", "status"}
    assert epoch["client_entropy"] == dice.client_entropy_v2([], {"Blue": "cs-Blue", "Red": "cs-Red"})
    assert len(epoch["commitment"]) == 64
    unrevealed = "\n".join(api_service.export(game.game_id))
    assert '"DiceEpochRevealed"' not in unrevealed

    order(client, game, "Blue", {"kind": "advance"}, "a1")
    still = ok(client.get(url(game, "dice"), headers=game.seats["Blue"]))
    assert [r["status"] for r in still["rolls"]] == ["unrevealed", "unrevealed"]  # a phase is no turn end
    order(client, game, "Red", {"kind": "advance"}, "a2")  # turn 2: epoch 0 revealed

    lines = export_lines(api_service, game)
    after = ok(client.get(url(game, "dice"), headers=game.seats["Blue"]))
    assert [r["status"] for r in after["rolls"]] == ["verified", "verified"]
    first, second = after["epochs"]
    revealed = lines[seq_of(lines, "DiceEpochRevealed") - 1]
    assert first["seed"] == revealed["data"]["seed"] and first["revealed_seq"] == revealed["seq"]
    assert first["status"] == "revealed" and first["opened_seq"] == epoch["opened_seq"]
    assert (second["epoch"], second["seed"], second["status"]) == (1, None, "open")
    roll = after["rolls"][0]
    assert set(roll) == {"seq", "epoch", "turn", "phase", "seat", "purpose", "rule", "units", "dice", "target",
                         "outcome", "replaces", "superseded", "status", "sealed", "text"}
    assert roll["sealed"] is False
    assert (roll["seq"], roll["seat"], roll["purpose"], roll["turn"], roll["phase"], roll["epoch"]) == \
        (seq_of(lines, "DiceRolled"), "Blue", "barrage", 1, "Move", 0)
    assert [d["nonce"] for d in roll["dice"]] == [0, 1, 2] and "barrage" in roll["text"]


def test_dice_audit_fails_a_die_that_does_not_match_the_revealed_seed(client, api_service):
    """The fold over export lines: a forged face (or a seed that breaks its commitment) fails."""
    game = played(client)
    lines = export_lines(api_service, game)
    rolls, epochs = reads.dice_audit(lines)
    assert [r["status"] for r in rolls] == ["verified", "verified"]
    forged = copy.deepcopy(lines)
    k = seq_of(lines, "DiceRolled", 1)
    die = forged[k - 1]["data"]["dice"][0]
    die["value"] = die["value"] % 6 + 1
    assert [r["status"] for r in reads.dice_audit(forged)[0]] == ["verified", "failed"]
    wrong_seed = copy.deepcopy(lines)
    wrong_seed[seq_of(lines, "DiceEpochRevealed") - 1]["data"]["seed"] = "00" * 32
    rolls, epochs = reads.dice_audit(wrong_seed)
    assert [r["status"] for r in rolls] == ["failed", "failed"] and epochs[0]["status"] == "failed"


def test_dice_filters_by_seat_turn_and_purpose(client):
    game = played(client)
    order(client, game, "Blue", {"kind": "roll", "dice": "d10", "purpose": "Counter-barrage"}, "r3")

    def purposes(query):
        return [r["purpose"] for r in ok(client.get(url(game, f"dice?{query}"), headers=game.seats["Red"]))["rolls"]]

    assert purposes("") == ["Artillery barrage", "morale", "Counter-barrage"]
    assert purposes("seat=Blue") == ["Artillery barrage", "Counter-barrage"]
    assert purposes("turn=1") == ["Artillery barrage", "morale"]
    assert purposes("turn=2") == ["Counter-barrage"]
    assert purposes("purpose=BARRAGE") == ["Artillery barrage", "Counter-barrage"]
    assert purposes("purpose=barrage&seat=Blue&turn=1") == ["Artillery barrage"]
    assert purposes("turn=3") == []
    body = ok(client.get(url(game, "dice?turn=3"), headers=game.seats["Red"]))
    assert len(body["epochs"]) == 2  # filters select rolls, never epochs
    # a seat the game has not is no filter that matches nothing: it is refused, naming the seats
    body = problem(client.get(url(game, "dice?seat=Green"), headers=game.seats["Red"]), 422, "invalid_request")
    assert body["errors"] == {"seat": ["no seat 'Green' in this game: its seats are Blue, Red"]}


def test_a_taken_back_roll_is_superseded_in_the_dice_audit_and_still_verified(client, api_service):
    game = played(client)
    order(client, game, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "assault"}, "r3")
    assert client.post(url(game, "take-backs"), json={"reason": "wrong unit"}, headers=game.seats["Blue"]).status_code == 201
    assert client.post(url(game, "take-backs/answer"), json={"accept": True}, headers=game.seats["Red"]).status_code == 200
    order(client, game, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "assault"}, "r4")
    body = ok(client.get(url(game, "dice?purpose=assault"), headers=game.seats["Red"]))
    assert [(r["superseded"], r["status"]) for r in body["rolls"]] == [(True, "unrevealed"), (False, "unrevealed")]
    taken = export_lines(api_service, game)
    accepted = taken[seq_of(taken, "TakeBackAccepted") - 1]
    assert accepted["data"]["superseded_rolls"] == [body["rolls"][0]["seq"]]
    order(client, game, "Red", {"kind": "advance"}, "a3")
    order(client, game, "Red", {"kind": "advance"}, "a4")  # turn 3: epoch 1 revealed
    body = ok(client.get(url(game, "dice?purpose=assault"), headers=game.seats["Red"]))
    assert [(r["superseded"], r["status"]) for r in body["rolls"]] == [(True, "verified"), (False, "verified")]


def test_history_marks_the_events_of_a_taken_back_order_superseded_as_the_dice_audit_does(client, api_service):
    """The taken-back order's events (TakeBackAccepted's superseded_from..superseded_to, its rolls
    among them) are marked in the history, as its rolls are in the dice audit; nothing else is."""
    game = played(client)
    order(client, game, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "assault"}, "r3")
    assert client.post(url(game, "take-backs"), json={"reason": "wrong unit"}, headers=game.seats["Blue"]).status_code == 201
    assert client.post(url(game, "take-backs/answer"), json={"accept": True}, headers=game.seats["Red"]).status_code == 200
    order(client, game, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "assault"}, "r4")
    taken = export_lines(api_service, game)
    accepted = taken[seq_of(taken, "TakeBackAccepted") - 1]["data"]
    gone = set(range(accepted["superseded_from"], accepted["superseded_to"] + 1))
    body = ok(client.get(url(game, "history"), headers=game.seats["Red"]))
    every = [ln for t in body["turns"] for p in t["phases"] for o in p["operations"] for ln in o["lines"]]
    assert {ln["seq"] for ln in every if ln["superseded"]} == gone
    rolls = ok(client.get(url(game, "dice"), headers=game.seats["Red"]))["rolls"]
    assert {r["seq"] for r in rolls if r["superseded"]} == set(accepted["superseded_rolls"]) <= gone


# ---------------------------------------------------------------------------------- events --
def test_events_page_through_the_log_with_next_after_and_a_link(client, api_service):
    game = played(client)
    lines = export_lines(api_service, game)
    seen, after, pages = [], 0, 0
    while True:
        r = client.get(url(game, f"events?after={after}&limit=4"), headers=game.seats["Blue"])
        body = ok(r)
        pages += 1
        assert set(body) == {"game_id", "events", "next_after"} and len(body["events"]) <= 4
        assert r.headers["ETag"] == f'"{lines[-1]["seq"]}"'
        seen += body["events"]
        if body["next_after"] is None:
            assert "Link" not in r.headers
            break
        assert body["next_after"] == body["events"][-1]["seq"]
        assert r.headers["Link"] == (f'</api/v1/games/{game.game_id}/events?after={body["next_after"]}&limit=4>; '
                                     'rel="next"')
        after = body["next_after"]
    assert pages == -(-len(lines) // 4)
    assert [{k: v for k, v in e.items() if k != "text"} for e in seen] == lines
    assert all(e["text"] for e in seen)


def test_events_default_limit_and_an_exact_last_page(client, api_service):
    game = played(client)
    n = len(export_lines(api_service, game))
    body = ok(client.get(url(game, "events"), headers=game.seats["Blue"]))
    assert len(body["events"]) == n and body["next_after"] is None  # default 100 > n
    body = ok(client.get(url(game, f"events?limit={n}"), headers=game.seats["Blue"]))
    assert len(body["events"]) == n and body["next_after"] is None  # nothing more: no next page
    body = ok(client.get(url(game, f"events?after={n - 2}&limit=500"), headers=game.seats["Blue"]))
    assert [e["seq"] for e in body["events"]] == [n - 1, n]
    body = ok(client.get(url(game, "events?after=100000"), headers=game.seats["Blue"]))
    assert body["events"] == [] and body["next_after"] is None


@pytest.mark.parametrize("query, field", [
    ("limit=0", "limit"), ("limit=501", "limit"), ("limit=x", "limit"), ("after=-1", "after"),
    ("after=1.5", "after"), ("after=99999999999999999999999", "after"), ("page=2", "page"),
])
def test_events_bad_query_is_422_naming_the_field(client, query, field):
    game = played(client)
    body = problem(client.get(url(game, f"events?{query}"), headers=game.seats["Blue"]), 422, "invalid_request")
    assert field in body["errors"]


# ---------------------------------------------------------------------------------- export --
def test_an_umpires_export_is_the_exact_log_and_verifies(client, api_service):
    game = played(client)
    r = client.get(url(game, "export"), headers=umpire(client, game))
    assert r.status_code == 200 and r.is_streamed
    assert r.mimetype == "application/x-ndjson"
    assert r.headers["Content-Disposition"] == f'attachment; filename="game-{game.game_id}.jsonl"'
    text = r.get_data(as_text=True)
    assert text.endswith("\n")
    assert text.splitlines()[1:] == list(api_service.export(game.game_id))
    assert json.loads(text.splitlines()[0]) == {"warlog_export": {"version": 2, "server_key": r.headers["Warlog-Server-Key"]}}
    report, lines = verify_text(text.splitlines())
    assert report.ok, report.summary()
    assert report.epochs_revealed == 1 and r.headers["ETag"] == f'"{lines[-1]["seq"]}"'


def test_export_of_a_long_game_streams_every_page(client, api_service, monkeypatch):
    monkeypatch.setattr(reads, "EXPORT_PAGE", 3)
    game = played(client)
    text = client.get(url(game, "export"), headers=game.seats["Red"]).get_data(as_text=True)
    assert export_events(text) == list(api_service.export(game.game_id))
    assert verify_text(text.splitlines())[0].ok


# ------------------------------------------------------------------------------ take-backs --
def test_take_backs_list_requests_and_their_answers(client, api_service):
    game = played(client)
    order(client, game, "Blue", {"kind": "note", "text": "a"}, "n1")
    client.post(url(game, "take-backs"), json={"reason": "first"}, headers=game.seats["Blue"])
    client.post(url(game, "take-backs/answer"), json={"accept": False}, headers=game.seats["Red"])
    client.post(url(game, "take-backs"), json={"reason": "please"}, headers=game.seats["Blue"])
    client.post(url(game, "take-backs/answer"), json={"accept": True}, headers=game.seats["Red"])
    order(client, game, "Red", {"kind": "note", "text": "b"}, "n2")
    client.post(url(game, "take-backs"), json={}, headers=game.seats["Red"])
    lines = export_lines(api_service, game)
    body = ok(client.get(url(game, "take-backs"), headers=game.seats["Blue"]))
    assert set(body) == {"game_id", "requests"}
    assert body["requests"] == [
        {"seq": seq_of(lines, "TakeBackRequested", 0), "seat": "Blue", "order_id": "n1", "reason": "first",
         "answer": "declined", "answered_by": "Red", "answer_seq": seq_of(lines, "TakeBackDeclined")},
        {"seq": seq_of(lines, "TakeBackRequested", 1), "seat": "Blue", "order_id": "n1", "reason": "please",
         "answer": "accepted", "answered_by": "Red", "answer_seq": seq_of(lines, "TakeBackAccepted")},
        {"seq": seq_of(lines, "TakeBackRequested", 2), "seat": "Red", "order_id": "n2", "reason": "",
         "answer": None, "answered_by": None, "answer_seq": None},
    ]


# ------------------------------------------------------------------------------- integrity --
def test_integrity_of_an_intact_game(client, api_service):
    game = played(client)
    lines = export_lines(api_service, game)
    r = client.get(url(game, "integrity"), headers=game.seats["Red"])
    body = ok(r)
    assert body == {"game_id": game.game_id, "ok": True, "events": len(lines), "chain_head": lines[-1]["hash"],
                    "epochs_revealed": 1, "rolls_verified": 2, "failures": []}
    assert r.headers["ETag"] == f'"{len(lines)}"'


def test_integrity_names_a_line_edited_in_the_store(client, api_service, store_config):
    game = played(client)
    k = seq_of(export_lines(api_service, game), "VPScored")
    with RawStore(store_config) as raw:
        stored = raw.state(game.game_id, k)
        assert b"took the hill" in stored
        raw.set_state(game.game_id, k, stored.replace(b"took the hill", b"took the town"))
    body = ok(client.get(url(game, "integrity"), headers=game.seats["Red"]))
    assert body["ok"] is False
    assert body["failures"][0]["line"] == k and "hash does not match" in body["failures"][0]["message"]


# ---------------------------------------------------------------------------------- access --
def _paths(game):
    return [url(game, p) for p in ENDPOINTS]


def test_a_spectator_of_a_private_game_gets_404_everywhere(client):
    game = played(client)
    other = make_game(client, public=True)
    for path in _paths(game):
        problem(client.get(path), 404, "game_not_found")
        problem(client.get(path, headers=other.seats["Blue"]), 404, "game_not_found")  # a token for another game
        problem(client.get(path + "?at=abc"), 404, "game_not_found")  # no 422 gives the game away


def test_a_spectator_of_a_public_game_reads_everything(client):
    game = played(client, public=True)
    for path in _paths(game):
        r = client.get(path)
        assert r.status_code == 200, (path, r.get_data(as_text=True))
        assert r.headers["ETag"].strip('"').isdigit()
    state = client.get(url(game, "state")).json
    assert state["state"]["vp"] == {"Blue": 0, "Red": 3}


def test_seats_umpires_and_the_admin_read_every_endpoint(client):
    game = played(client)
    for headers in [game.seats["Blue"], game.seats["Red"], umpire(client, game), game.admin]:
        for path in _paths(game):
            assert client.get(path, headers=headers).status_code == 200, path


@pytest.mark.parametrize("public", [False, True])
def test_an_invalid_token_is_401_everywhere(client, public):
    game = played(client, public=public)
    for path in _paths(game):
        r = client.get(path, headers=bearer("wls_not-a-token"))
        problem(r, 401, "unauthorized")
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
        problem(client.get(path, headers={"Authorization": "Basic abc"}), 401, "unauthorized")


def test_an_unknown_or_malformed_game_id_is_404(client):
    for gid in ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]:
        for path in ENDPOINTS:
            problem(client.get(f"/api/v1/games/{gid}/{path}"), 404, "game_not_found")


# ---------------------------------------------------------------------- no query is a 500 --
ODD = ["at=%00", "turn=%FF%FE", "phase=%F0%9F%8E%B2&turn=1", "purpose=%25%5C%27%22", "seat=&turn=1",
       "limit=500&limit=0", "after=%20", "at=%D9%A3", "x" * 3000 + "=1", "a=1&a=2&a=3", "=", "&&&", "turn=1&phase=" + "p" * 201,
       "purpose=" + "p" * 5000, "after=nan", "limit=inf", "at=0x10", "turn=-0"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_odd_query_strings_never_get_a_5xx(client, endpoint):
    game = played(client)
    for q in ODD:
        r = client.get(url(game, f"{endpoint}?{q}"), headers=game.seats["Blue"])
        assert r.status_code in (200, 400, 404, 422), (q, r.status_code, r.get_data(as_text=True)[:300])
        if r.status_code != 200:
            assert r.mimetype == "application/problem+json"
    # Endpoints without parameters refuse any, rather than ignoring a typo.
    if endpoint not in ("state", "dice", "events"):
        problem(client.get(url(game, f"{endpoint}?at=3"), headers=game.seats["Blue"]), 422, "invalid_request")


# --------------------------------------------------------------------- hidden information ----
@pytest.fixture
def secret_purposes(monkeypatch):
    """Freeform hides nothing; this makes it hide roll purposes (in the order and the roll) from everyone
    but the roller, VP orders and scores from spectators, and the VP part of the state from spectators, to show that every endpoint
    filters through domain/visibility."""

    vp_fields = ("side", "delta", "total", "reason", "rule")

    def concealable(self, event_type, data):
        if event_type == "DiceRolled":
            return ("purpose",)
        if event_type == "OrderAccepted" and ("purpose" in data["order"] or data["order"].get("kind") == "vp"):
            return ORDER_FIELDS
        return vp_fields if event_type == "VPScored" else ()

    def hidden_fields(self, event_type, data, viewer):
        if event_type == "DiceRolled" and viewer != data["seat"]:
            return {"purpose"}
        if event_type == "OrderAccepted" and "purpose" in data["order"] and viewer != data["seat"]:
            return set(ORDER_FIELDS)
        if viewer is None and (event_type == "VPScored"  # an event spectators may not know of at all
                               or event_type == "OrderAccepted" and data["order"].get("kind") == "vp"):
            return set(concealable(self, event_type, data))
        return set()

    def view(self, state, viewer):
        return state if viewer is not None else {k: v for k, v in state.items() if k != "vp"}

    monkeypatch.setattr(Freeform, "concealable", concealable)
    monkeypatch.setattr(Freeform, "hidden_fields", hidden_fields)
    monkeypatch.setattr(Freeform, "view", view)


def test_every_read_filters_hidden_information_for_the_viewer(client, secret_purposes):
    game = played(client, public=True)
    blue, ump = game.seats["Blue"], umpire(client, game)

    def purposes(headers):
        return [r["purpose"] for r in client.get(url(game, "dice"), headers=headers).json["rolls"]]

    assert purposes(blue) == ["Artillery barrage", None]
    assert purposes(game.seats["Red"]) == [None, "morale"]
    assert purposes(ump) == ["Artillery barrage", "morale"]
    events = client.get(url(game, "events"), headers=blue).json["events"]
    rolled = [e for e in events if e["type"] == "DiceRolled"]
    assert [list(e["data"]["concealed"].values()) == [None] for e in rolled] == [False, True]
    assert "morale" not in json.dumps(events) and not any("redacted" in e for e in events)
    history = json.dumps(client.get(url(game, "history"), headers=blue).json)
    assert "morale" not in history and "Artillery barrage" in history

    # Spectators see that VP events happened, nothing of them.
    assert [(e["side"], e["delta"], e["reason"]) for e in client.get(url(game, "vp")).json["track"]] == [(None,) * 3]
    assert "vp" not in client.get(url(game, "state")).json["state"]
    assert "vp" not in client.get(url(game, "state?at=5")).json["state"]
    assert "took the hill" not in json.dumps(client.get(url(game, "history")).json)
    assert client.get(url(game, "vp"), headers=blue).json["totals"] == {"Blue": 0, "Red": 3}

    mine = client.get(url(game, "export"), headers=blue).get_data(as_text=True).splitlines()
    assert "morale" not in "\n".join(mine) and verify_text(mine)[0].ok  # commitments: it verifies
    public = client.get(url(game, "export")).get_data(as_text=True).splitlines()
    assert "took the hill" not in "\n".join(public) and verify_text(public)[0].ok
    full = client.get(url(game, "export"), headers=ump).get_data(as_text=True).splitlines()
    assert "morale" in "\n".join(full) and verify_text(full)[0].fields_concealed == 0 and verify_text(full)[0].ok


def test_integrity_withholds_failure_details_about_lines_hidden_from_the_caller(client, api_service,
                                                                                store_config, secret_purposes):
    game = played(client, public=True)
    ump = umpire(client, game)  # appointed by the seats' orders, which a damaged log no longer takes
    k = seq_of(export_lines(api_service, game), "VPScored")
    with RawStore(store_config) as raw:
        raw.set_state(game.game_id, k, raw.state(game.game_id, k).replace(b"took the hill", b"took the town"))
    seen = client.get(url(game, "integrity")).json
    assert seen["ok"] is False and seen["failures"][0]["line"] == k
    assert "hash does not match" not in seen["failures"][0]["message"]
    told = client.get(url(game, "integrity"), headers=ump).json
    assert "hash does not match" in told["failures"][0]["message"]


def test_a_private_note_ff7_is_read_only_by_its_author_and_umpires(client):
    """The real hidden information of freeform, end to end through the reads."""
    game = played(client, public=True)
    ump = umpire(client, game)  # the seats agree to an umpire before the note, which stays the last operation
    order(client, game, "Blue", {"kind": "note", "text": "flank march at dawn", "private": True}, "secret")
    for headers, sees in [(game.seats["Blue"], True), (ump, True), (game.seats["Red"], False), ({}, False),
                          (game.admin, False)]:
        for path in ["events", "history", "export"]:
            text = client.get(url(game, path), headers=headers).get_data(as_text=True)
            assert ("flank march" in text) is sees, (headers, path)
    red = verify_text(client.get(url(game, "export"), headers=game.seats["Red"]).get_data(as_text=True).splitlines())[0]
    full = verify_text(client.get(url(game, "export"), headers=ump).get_data(as_text=True).splitlines())[0]
    # Red's copy holds the note's order, digest and salt as commitments, and verifies; the umpire's opens them.
    assert red.ok and full.ok and red.chain_head == full.chain_head, red.summary()
    assert (red.fields_concealed, full.fields_concealed, full.fields_opened) == (3, 0, 3)
    history = client.get(url(game, "history"), headers=game.seats["Red"]).json
    last = history["turns"][-1]["phases"][-1]["operations"][-1]
    assert (last["order_id"], last["seat"], [ln["type"] for ln in last["lines"]]) == ("secret", "Blue", ["OrderAccepted"])
    assert last["lines"][0]["text"] == "Blue gives an order (hidden)"
