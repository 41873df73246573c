"""A complete Falklands Showdown game through the HTTP API (issue 6): two seats, created to a
declared winner, every order chosen from what legal-orders offers, every decision answered by
its owner; the export verifies under ``warlog verify``.

The UK follows a plan (bring the fleet and the reinforcements to the Falklands, land at San
Carlos, march on Port Stanley); the AR attacks from the air. Dice come from the server, so the
course of the game differs from run to run; what must hold is checked after every order.
"""

from __future__ import annotations

import json

from tests.api.conftest import bearer, export_verifies

TACTICAL = "falklands"


def plan_uk(state: dict, offers: dict) -> list[dict]:
    """The UK plan, most wanted first; the first order the server accepts is played."""
    units = state["units"]
    out: list[dict] = []

    def aboard_in_falklands():
        return [u for u, x in units.items() if x.get("aboard") and not x["eliminated"] and x["in_play"]
                and units[x["aboard"]]["location"] == TACTICAL]

    def move(origin, dest, movers):
        enemy = [u for u, x in units.items() if x["side"] == "AR" and x["location"] == dest and not x["eliminated"]
                 and x["in_play"] and not u.startswith("cdo") and not u.startswith("pucara")]
        order = {"kind": "operation", "op": 24, "origin": origin, "destination": dest, "units": movers}
        return {**order, "attack": True, "fire": "auto"} if enemy else order

    if 24 in offers:
        for origin, o in offers[24]["choices"]["origin"].items():
            for dest in o["destination"]:
                if dest == "port_stanley" or dest == origin:
                    out.append(move(origin, dest, o["units"]))
    if 15 in offers:
        for area, a in offers[15]["choices"]["area"].items():
            out.append({"kind": "operation", "op": 15, "area": area, "units": a["units"], "fire": "auto"})
    if 16 in offers and aboard_in_falklands():
        landing = [u for u in aboard_in_falklands() if not u.startswith("sas") and u != "sbs"]
        if landing:
            out.append({"kind": "operation", "op": 16, "units": landing, "area": "san_carlos"})
    if 24 in offers:
        route = {"san_carlos": "teal_inlet", "teal_inlet": "mount_kent", "mount_kent": "port_stanley",
                 "goose_green": "fitzroy", "fitzroy": "port_stanley"}
        for origin, o in offers[24]["choices"]["origin"].items():
            if origin in route and route[origin] in o["destination"]:
                out.append(move(origin, route[origin], o["units"]))
    if 20 in offers:
        for origin, ships in offers[20]["choices"]["units"].items():
            if origin not in (TACTICAL, "south_georgia"):
                out.append({"kind": "operation", "op": 20, "units": ships, "destination": TACTICAL})
    if 6 in offers:
        out.append({"kind": "operation", "op": 6})
    if 14 in offers:
        for area, a in offers[14]["choices"]["area"].items():
            out.append({"kind": "operation", "op": 14, "area": area, "units": a["units"], "fire": "auto"})
    return out + [{"kind": "pass"}]


def plan_ar(state: dict, offers: dict) -> list[dict]:
    out: list[dict] = []
    if 18 in offers:
        for area, a in offers[18]["choices"]["area"].items():
            if a["aircraft"]:
                refuel = [u for u in a["aircraft"] if u.startswith("a4")][:4]
                out.append({"kind": "operation", "op": 18, "area": area, "aircraft": a["aircraft"],
                            "refuel": refuel, "fire": "auto"})
    if 19 in offers:
        for area, a in offers[19]["choices"]["area"].items():
            if a["aircraft"]:
                out.append({"kind": "operation", "op": 19, "area": area, "aircraft": a["aircraft"][:3],
                            "fire": "auto"})
    if 15 in offers:
        for area, a in offers[15]["choices"]["area"].items():
            out.append({"kind": "operation", "op": 15, "area": area, "units": a["units"], "fire": "auto"})
    return out + [{"kind": "pass"}]


def answer(decision: dict) -> dict:
    """Each seat answers its decisions: fire back, intercept, keep the dice, take what is offered."""
    kind, opts = decision["decision_kind"], decision["options"]
    choice: dict = {
        "defensive_fire": {"fire": "auto"},
        "interception": {"fire": "auto"},
        "carrier_shot": decision["fields"]["choice"][0],  # FS 10.9: the first target offered
        "leadership": {"reroll": None},
        "free_attack": decision["fields"]["choice"][0],  # FS 11.2: made, never declined
        "emergency_rebase": {"destinations": {u: "argentina" for u in opts.get("destinations", {})}},
        "exocet": {"target": (opts.get("target") or [None])[0]},
        "peru_replacement": {"unit": (opts.get("unit") or [None])[0]},
        "sf_compromised": {"unit": (opts.get("unit") or [None])[0]},
    }[kind]
    return {"kind": "decide", "decision": decision["decision"], "choice": choice}


def orders_to_try(state: dict, seat: str, legal: list[dict]) -> list[dict]:
    """The orders ``seat`` tries next, in turn until one is accepted: an answer to the decision
    first offered, the set-up, no submarine moves, else its side's plan among the operations offered."""
    first = legal[0]
    if first["kind"] == "decide":
        return [answer(first)]
    if first["kind"] == "setup":
        return [{"kind": "setup", "submarines": {"spartan": "falklands", "splendid": "sa7"}}]
    if first["kind"] == "submarines":
        return [{"kind": "submarines", "moves": {}}]
    offers = {o["op"]: o for o in legal if o["kind"] == "operation"}
    return (plan_uk if seat == "UK" else plan_ar)(state, offers)


def test_a_whole_falklands_game_over_http_to_a_declared_winner(client, tmp_path, store_config):
    created = client.post("/api/v1/games", json={"ruleset": "falklands", "options": {"bids": [24, 27]}})
    assert created.status_code == 201, created.json
    game_id = created.json["game_id"]
    seats = {}
    for seat, code in created.json["invites"].items():
        joined = client.post(f"/api/v1/games/{game_id}/join", json={"invite_code": code, "handle": seat.lower()})
        assert joined.status_code == 201
        seats[seat] = bearer(joined.json["token"])
    assert set(seats) == {"UK", "AR"}

    state = client.get(f"/api/v1/games/{game_id}/state", headers=seats["UK"]).json["state"]
    assert state["uk_operations_left"] == 24  # FS 4.7: the lower bid
    kinds: set[str] = set()
    refused_rules: set[str] = set()
    for n in range(2000):
        state = client.get(f"/api/v1/games/{game_id}/state", headers=seats["UK"]).json["state"]
        if state["ended"]:
            break
        seat = state["pending"][0]["seat"] if state["pending"] else state["active"][0]
        legal = client.get(f"/api/v1/games/{game_id}/legal-orders", headers=seats[seat]).json["orders"]
        assert legal, f"{seat} must have a legal order in {state['phase']}"
        other = "AR" if seat == "UK" else "UK"
        assert client.get(f"/api/v1/games/{game_id}/legal-orders", headers=seats[other]).json["orders"] == []
        tries = orders_to_try(state, seat, legal)
        for t, order in enumerate(tries):
            r = client.post(f"/api/v1/games/{game_id}/orders", json=order,
                            headers={**seats[seat], "Idempotency-Key": f"o{n}-{t}"})
            assert r.status_code < 500, r.json
            if r.status_code == 201:
                kinds.update(line["type"] for line in r.json["events"])
                break
            assert r.status_code in (409, 422), r.json
            assert r.json.get("rule", "").startswith("FS"), r.json  # every refusal names its rule
            refused_rules.add(r.json["rule"])
        else:
            raise AssertionError(f"no order of the plan was accepted: {tries}")
    ended = state["ended"]
    assert ended and ended["winner"] in ("UK", "AR") and ended["rule"].startswith("FS 4"), ended
    assert {"OperationBegun", "RandomEventDrawn", "DiceRolled", "BattleBegun", "UnitEntered"} <= kinds

    summary = client.get(f"/api/v1/games/{game_id}", headers=seats["AR"]).json
    assert summary["status"] == "ended" and summary["ended"]["winner"] == ended["winner"]
    assert summary["vp"] == state["vp"]
    track = client.get(f"/api/v1/games/{game_id}/vp", headers=seats["AR"]).json
    assert track["totals"] == state["vp"]
    history = client.get(f"/api/v1/games/{game_id}/history", headers=seats["AR"]).json
    assert any("Op #" in str(item) for item in json.dumps(history).split("},"))

    export_verifies(client, game_id, seats["UK"], tmp_path / "falklands.jsonl")
