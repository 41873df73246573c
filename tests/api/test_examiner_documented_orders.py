"""An examiner's check of the documented order formats of `falklands` and `stf` over HTTP.

An examiner who writes hidden scenarios learns the orders from docs/rulesets.md (the Falklands
Showdown and Solitaire Task Force sections), docs/api.md (a refusal is a problem whose `rule`
names the rule, a malformed field adds `field`), the kinds a ruleset declares (`GET
/api/v1/rulesets/{name}`: rule, help, fields) and what legal-orders offers. Each test here sends
those orders as written, through Flask's test client on SQLite, in a position where they apply
(a named position of the ruleset, edited for the example: `POST /api/v1/games` with
`"position"`), and checks that the server does what the doc says.
"""

from __future__ import annotations

import copy
import itertools
import random

import pytest

from domain.rulesets import find_ruleset
from domain.rulesets.falklands import play as fplay
from domain.rulesets.positions import Position
from domain.rulesets.stf import combat as stf_combat
from domain.rulesets.stf import play as splay
from tests.api.conftest import ApiGame, bearer, start_game

FALKLANDS = find_ruleset("falklands")
STF = find_ruleset("stf")
_keys = itertools.count()


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


# --- helpers ---------------------------------------------------------------------------------

def position_game(client, monkeypatch, ruleset, base: str, edit=None) -> ApiGame:
    """A game started from the ruleset's named position ``base``, changed by ``edit(state)``: the
    position an example applies in, created over HTTP like any named position."""
    rules = find_ruleset(ruleset)
    state = copy.deepcopy(rules.position(base).state)
    if edit:
        edit(state)
    rules.check_position(state)
    monkeypatch.setitem(rules.positions(), "examiner", Position("examiner", "examiner", "an example's position", state))
    return start_game(client, {"ruleset": ruleset, "position": "examiner"})


def send(client, game: ApiGame, seat: str, order: dict):
    r = game.order(client, seat, order, f"k{next(_keys)}")
    assert r.status_code < 500, r.json
    return r


def accepted(client, game, seat, order) -> list[dict]:
    r = send(client, game, seat, order)
    assert r.status_code == 201, (order, r.json)
    return r.json["events"]


def refused(client, game, seat, order, status=422) -> dict:
    r = send(client, game, seat, order)
    assert r.status_code == status, (order, r.json)
    assert r.headers["Content-Type"].startswith("application/problem+json")
    return r.json


def state_of(client, game, seat) -> dict:
    return client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats[seat]).json["state"]


def legal(client, game, seat) -> list[dict]:
    r = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats[seat])
    assert r.status_code == 200, r.json
    return r.json["orders"]


def types(events) -> list[str]:
    return [e["type"] for e in events]


def place(state, unit, where, **more):
    state["units"][unit].update({"location": where, "in_play": True, "eliminated": False, "aboard": None, **more})


def rule_ids(rules) -> set[str]:
    """Every rule id of the ruleset, as its rulebook.py names them (its coverage manifest's keys)."""
    return set(rules.coverage()["rules"])


# --- Falklands Showdown: docs/rulesets.md "Orders" ---------------------------------------------

def test_fs_3_3_the_documented_setup_order_places_the_two_submarines(client):
    """docs: {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "falklands"}}
    (FS 3.3: the UK places Spartan and Splendid in the TEZ)."""
    game = start_game(client, {"ruleset": "falklands"})
    offer = legal(client, game, "UK")
    assert offer == [{"kind": "setup", "rule": "FS 3.3", "submarines": {
        "spartan": ["falklands", "sa6", "sa7"], "splendid": ["falklands", "sa6", "sa7"]}}]
    accepted(client, game, "UK", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "falklands"}})
    units = state_of(client, game, "UK")["units"]
    assert (units["spartan"]["location"], units["splendid"]["location"]) == ("sa6", "falklands")


def test_fs_3_3_a_setup_outside_the_tez_is_refused_naming_fs_3_3(client):
    game = start_game(client, {"ruleset": "falklands"})
    problem = refused(client, game, "UK", {"kind": "setup", "submarines": {"spartan": "sa1", "splendid": "sa6"}})
    assert problem["rule"] == "FS 3.3", problem


def test_fs_7_1_op_20_the_documented_move_takes_the_carriers_to_the_falklands(client, monkeypatch):
    """docs: {"kind": "operation", "op": 20, "units": ["hermes", "invincible"], "destination": "falklands"}"""
    game = position_game(client, monkeypatch, "falklands", "opening")
    events = accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["hermes", "invincible"],
                                           "destination": "falklands"})
    assert types(events).count("UnitMoved") == 2
    units = state_of(client, game, "UK")["units"]
    assert units["hermes"]["location"] == units["invincible"]["location"] == "falklands"


def test_fs_7_1_op_20_the_documented_submarine_attack_with_op_10(client, monkeypatch):
    """docs: {"kind": "operation", "op": 20, "units": ["conqueror"], "destination": "sa2", "attack": true,
    "support": [], "fire": [{"unit": "conqueror", "at": "belgrano"}], "with_op_10": true}; FS 7.1 Op #10:
    "all AR sinkings, no matter in which sea area they occur, generate the negative VP described in 4.4/3"."""
    def edit(state):
        place(state, "conqueror", "sa3")
        place(state, "belgrano", "sa2")
    game = position_game(client, monkeypatch, "falklands", "opening", edit)
    events = accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["conqueror"], "destination": "sa2",
                                           "attack": True, "support": [],
                                           "fire": [{"unit": "conqueror", "at": "belgrano"}], "with_op_10": True})
    assert "BattleBegun" in types(events) and "EffectGained" in types(events)
    shots = [e for e in events if e["type"] == "DiceRolled"]
    assert shots and "Belgrano" in shots[0]["text"]
    assert state_of(client, game, "UK")["units"]["conqueror"]["location"] == "sa2"
    for e in events:
        if e["type"] == "VPScored" and "Belgrano" in e["text"]:
            assert e["data"]["delta"] < 0  # 4.4/3's negative VP, never 4.4/2's positive


def test_fs_7_1_op_10_on_a_plain_move_is_refused_naming_op_10(client, monkeypatch):
    """docs: `"with_op_10"` on any other order is refused (`FS 7.1 Op #10`)."""
    game = position_game(client, monkeypatch, "falklands", "opening")
    problem = refused(client, game, "UK", {"kind": "operation", "op": 20, "units": ["hermes"], "destination": "sa5",
                                           "with_op_10": True})
    assert problem["rule"] == "FS 7.1 Op #10", problem


def _ships_at_the_falklands(state):
    for ship in ["hermes", "invincible", "coventry", "sheffield", "glamorgan"]:
        place(state, ship, "falklands")


def test_fs_7_1_op_18_the_documented_a4_strike_with_refuelling_and_its_decisions(client, monkeypatch):
    """docs: {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["a4_1", "a4_2"],
    "refuel": ["a4_1", "a4_2"], "fire": "auto"}; "auto": each unit at the first target it may fire
    at, spread round the targets, unprotected ships first. Then the UK's interception
    ({"fire": "auto"}) and the defender's defensive fire (every unit able fires: no [])."""
    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
    events = accepted(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands",
                                           "aircraft": ["a4_1", "a4_2"], "refuel": ["a4_1", "a4_2"], "fire": "auto"})
    assert types(events)[-1] == "DecisionPending"
    pending = state_of(client, game, "UK")["pending"][0]
    assert pending["kind"] == "interception" and pending["seat"] == "UK"
    battle = next(s for s in pending["context"]["stack"] if s["step"] == "battle")
    targets = [shot["at"] for shot in battle["fire"]]
    assert len(set(targets)) == 2 and not set(targets) & {"hermes", "invincible"}  # spread, unprotected first
    assert legal(client, game, "AR") == []
    offer = legal(client, game, "UK")
    assert [o["kind"] for o in offer] == ["decide"] and {"fire": []} in offer[0]["fields"]["choice"]
    accepted(client, game, "UK", {"kind": "decide", "decision": pending["id"], "choice": {"fire": "auto"}})
    for _ in range(6):  # defensive fire and re-rolls, as they come
        st = state_of(client, game, "UK")
        if not st["pending"]:
            break
        p = st["pending"][0]
        if p["kind"] == "defensive_fire":
            problem = refused(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": {"fire": []}})
            assert problem["rule"] == "FS 10.2", problem
            accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": {"fire": "auto"}})
        elif p["kind"] == "leadership":
            accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": {"reroll": None}})
        else:
            raise AssertionError(p)
    assert not state_of(client, game, "UK")["pending"]


def test_fs_9_4_an_a4_without_refuelling_cannot_reach_the_falklands(client, monkeypatch):
    """docs: `FS 9.4: A-4 1 cannot reach the Falkland Islands Sea Area from Argentina`."""
    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
    problem = refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands",
                                           "aircraft": ["a4_1"], "fire": "auto"})
    assert problem["rule"] == "FS 9.4" and "A-4 Skyhawk 1 cannot reach Falkland Islands Sea Area from Argentina" in problem["detail"], problem


def test_fs_7_1_op_6_is_never_twice_in_a_row(client, monkeypatch):
    """docs: `FS 7.1 Op #6: never twice in a row`."""
    def edit(state):
        state["ops_log"]["UK"] = [20, 6]
    game = position_game(client, monkeypatch, "falklands", "opening", edit)
    problem = refused(client, game, "UK", {"kind": "operation", "op": 6, "entry": {}})
    assert problem["rule"] == "FS 7.1 Op #6" and "never twice in a row" in problem["detail"], problem


def test_fs_10_4_a_protected_target_before_an_unprotected_one_is_refused_naming_it(client, monkeypatch):
    """docs: `FS 10.4: Hermes is a protected target: every unprotected ship must be fired at first
    (not fired at: Coventry)`."""
    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
    problem = refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands",
                                           "aircraft": ["dagger_1", "dagger_2", "mirage_3"],
                                           "fire": [{"unit": "dagger_1", "at": "hermes"},
                                                    {"unit": "dagger_2", "at": "sheffield"},
                                                    {"unit": "mirage_3", "at": "glamorgan"}]})
    assert problem["rule"] == "FS 10.4", problem
    assert problem["detail"].startswith("FS 10.4: Hermes is a protected target: every unprotected ship must be fired "
                                        "at first (not fired at: Coventry"), problem


def test_fs_7_1_op_24_the_documented_march_takes_2_para_to_teal_inlet(client, monkeypatch):
    """docs: {"kind": "operation", "op": 24, "origin": "san_carlos", "destination": "teal_inlet", "units": ["2_para"]}"""
    def edit(state):
        place(state, "2_para", "san_carlos")
        state["control"]["san_carlos"] = "UK"
    game = position_game(client, monkeypatch, "falklands", "opening", edit)
    events = accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "san_carlos",
                                           "destination": "teal_inlet", "units": ["2_para"]})
    assert "UnitMoved" in types(events)
    st = state_of(client, game, "UK")
    assert st["units"]["2_para"]["location"] == "teal_inlet"
    assert st["control"]["teal_inlet"] == "UK"  # FS 3.6: alone in an area, it takes it


def test_fs_7_1_op_17_the_documented_assault_on_port_stanley(client, monkeypatch):
    """docs: {"kind": "operation", "op": 17, "area": "port_stanley", "wave": ["40_cdo"], "bombard": ["glamorgan"],
    "bombard_fire": "auto", "fire": "auto", "second_wave": ["42_cdo"]}: the second wave lands only if a
    first-wave unit survived, from transport vessels (A or T ships)."""
    def edit(state):
        for ship in ("fearless", "canberra", "glamorgan"):
            place(state, ship, "falklands")
        place(state, "40_cdo", None, aboard="fearless")
        place(state, "42_cdo", None, aboard="canberra")
    game = position_game(client, monkeypatch, "falklands", "opening", edit)
    events = accepted(client, game, "UK", {"kind": "operation", "op": 17, "area": "port_stanley", "wave": ["40_cdo"],
                                           "bombard": ["glamorgan"], "bombard_fire": "auto", "fire": "auto",
                                           "second_wave": ["42_cdo"]})
    for _ in range(8):
        st = state_of(client, game, "UK")
        if not st["pending"]:
            break
        p = st["pending"][0]
        choice = {"reroll": None} if p["kind"] == "leadership" else {"fire": "auto"}
        events += accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": choice})
    st = state_of(client, game, "UK")
    assert not st["pending"]
    assert any(e["type"] == "BattleBegun" and "Port Stanley" in e["text"] for e in events)
    landed = [e["data"]["unit"] for e in events if e["type"] == "UnitDisembarked"]
    assert landed[:1] == ["40_cdo"]
    if "42_cdo" in landed:  # only while a first-wave unit survives
        at = next(i for i, e in enumerate(events) if e["type"] == "UnitDisembarked" and e["data"]["unit"] == "42_cdo")
        assert not any(e["type"] == "UnitEliminated" and e["data"].get("unit") == "40_cdo" for e in events[:at])


def test_fs_11_3_6_4_the_documented_held_exocet_strikes_sheffield(client, monkeypatch):
    """docs: {"kind": "operation", "op": "exocet", "target": "sheffield"}: 6-4's Exocet held for later
    costs an operation (FS 11.3 6-4)."""
    def edit(state):
        state["exocet"] = "held"
        place(state, "sheffield", "falklands")
    game = position_game(client, monkeypatch, "falklands", "midgame", edit)
    offered = [o for o in legal(client, game, "AR") if o.get("op") == "exocet"]
    assert offered and "sheffield" in offered[0]["choices"]["target"], offered
    events = accepted(client, game, "AR", {"kind": "operation", "op": "exocet", "target": "sheffield"})
    assert any(e["type"] == "DiceRolled" and "Sheffield" in e["text"] for e in events), [e["text"] for e in events]
    assert state_of(client, game, "AR")["exocet"] != "held"


def test_fs_5_3_the_documented_pass_spends_a_uk_operation(client, monkeypatch):
    """docs: {"kind": "pass"}: a UK pass still spends one (FS 5.3)."""
    game = position_game(client, monkeypatch, "falklands", "midgame", lambda st: st.update(
        phase="UK Operations", active=["UK"]))
    before = state_of(client, game, "UK")["uk_operations_left"]
    accepted(client, game, "UK", {"kind": "pass"})
    assert state_of(client, game, "UK")["uk_operations_left"] == before - 1


def test_fs_8_1_the_documented_submarine_move(client, monkeypatch):
    """docs: {"kind": "submarines", "moves": {"conqueror": "sa7"}}."""
    game = position_game(client, monkeypatch, "falklands", "midgame", lambda st: st.update(
        phase="UK Submarine", active=["UK"]))
    offer = legal(client, game, "UK")
    assert offer[0]["kind"] == "submarines" and "sa7" in offer[0]["moves"]["conqueror"], offer
    accepted(client, game, "UK", {"kind": "submarines", "moves": {"conqueror": "sa7"}})
    assert state_of(client, game, "UK")["units"]["conqueror"]["location"] == "sa7"


# --- legal orders sent back as offered (both games) -------------------------------------------

def sandbox(client, game: ApiGame, seat: str) -> ApiGame:
    """A sandbox of ``game`` at its present version, every seat joined: where one offered order is
    tried without changing the game the others are tried in."""
    version = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats[seat]).json["version"]
    r = client.post(f"/api/v1/games/{game.game_id}/sandbox", json={"at": version}, headers=game.seats[seat])
    assert r.status_code == 201, r.json
    fork = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    for s, code in r.json["invites"].items():
        j = client.post(f"/api/v1/games/{fork.game_id}/join", json={"invite_code": code, "handle": s.lower()})
        assert j.status_code == 201, j.json
        fork.seats[s] = bearer(j.json["token"])
    return fork


def assert_refusal_names_a_rule(problem: dict, rules, prefix: str) -> None:
    """docs/api.md: a rule violation adds `rule`, as rulebook.py spells it; a malformed field adds `field`."""
    assert problem["code"] in ("rule_violation", "invalid_order", "not_your_move"), problem
    if problem["code"] != "not_your_move":
        assert problem.get("rule", "").startswith(prefix), problem
        assert problem["rule"] in rule_ids(rules), problem


def falklands_points(client, monkeypatch):
    """A few points of real Falklands games: the opening, the midgame and that midgame after some
    orders drawn from the offer and played with the server's dice."""
    yield position_game(client, monkeypatch, "falklands", "opening")
    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
    yield game
    rng = random.Random(7)
    for n in range(12):
        st = state_of(client, game, "UK")
        if st["ended"]:
            return
        seat = st["pending"][0]["seat"] if st["pending"] else st["active"][0]
        for order in fplay.candidates(FALKLANDS, st, seat, rng):
            if send(client, game, seat, order).status_code == 201:
                break
        if n % 4 == 3:
            yield game


def test_fs_every_offered_falklands_order_is_accepted_or_refused_naming_its_rule(client, monkeypatch):
    """Every order legal-orders offers, built from its template's choices (the random orders of
    falklands/play.py), is accepted, or refused as a 422 problem naming an FS rule id in `rule`;
    a decision's every offered `choice` and the set-up's and submarines' offered choices are
    accepted as offered."""
    seen = 0
    for game in falklands_points(client, monkeypatch):
        st = state_of(client, game, "UK")
        seat = st["pending"][0]["seat"] if st["pending"] else st["active"][0]
        offer = legal(client, game, seat)
        assert offer, st["phase"]
        for template in offer:
            fork = sandbox(client, game, seat)
            fst = state_of(client, fork, seat)
            if template["kind"] == "decide":
                for choice in template["fields"]["choice"]:
                    fork = sandbox(client, game, seat)
                    accepted(client, fork, seat, {"kind": "decide", "decision": template["decision"], "choice": choice})
                    seen += 1
                continue
            order = fplay.order_for(template, fst, seat, random.Random(seen))
            r = send(client, fork, seat, order)
            if template["kind"] in ("setup", "submarines", "pass") or template.get("op") in (6, 9):
                assert r.status_code == 201, (order, r.json)
            elif r.status_code != 201:
                assert r.status_code == 422, (order, r.json)
                assert_refusal_names_a_rule(r.json, FALKLANDS, "FS ")
            seen += 1
    assert seen > 10


# --- Solitaire Task Force: docs/rulesets.md ---------------------------------------------------

def stf_game(client) -> ApiGame:
    return start_game(client, {"ruleset": "stf"})


def test_stf_1_1_the_documented_campaign_order_and_its_enum_values(client):
    """docs: {"kind": "campaign", "map": "caribbean" | "giuk" | "mediterranean" | "random", "side": "US" | "Soviet"};
    the kind's fields: map "caribbean, giuk, mediterranean or random", side "US or Soviet"; every
    pair is offered and accepted, and the order ends with the Forces phase (STF 1.7)."""
    kinds = {k["kind"]: k for k in client.get("/api/v1/rulesets/stf").json["order_kinds"]}
    assert kinds["campaign"]["fields"]["map"] == "caribbean, giuk, mediterranean or random"
    game = stf_game(client)
    offer = legal(client, game, "Player")
    pairs = {(o["map"], o["side"]) for o in offer}
    assert pairs == {(m, s) for m in ("caribbean", "giuk", "mediterranean", "random") for s in ("US", "Soviet")}
    for m, s in sorted(pairs):
        fork = sandbox(client, game, "Player")
        events = accepted(client, fork, "Player", {"kind": "campaign", "map": m, "side": s})
        st = state_of(client, fork, "Player")
        assert st["campaign"]["player_side"] == s
        if m != "random":
            assert st["campaign"]["map"] == m
        if not st["pending"]:
            assert events[-1]["type"] == "PhaseAdvanced" and st["phase"] == "Forces"
    problem = refused(client, game, "Player", {"kind": "campaign", "map": "pacific", "side": "US"})
    assert problem["rule"] == "STF 1.1", problem
    problem = refused(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "NATO"})
    assert problem["rule"] == "STF 1.1", problem


def test_stf_2_2_the_documented_airbases_field_is_optional_and_bounded(client):
    """docs: "airbases": ["Malta", "Haifa"]; `airbases` is optional and only with a named map; more
    than two refused under STF 2.2, one not on the list under STF 2.3, 2.4 or 2.5, naming them with
    "map": "random" refused; an explicit empty list is the Player's choice of none."""
    game = stf_game(client)
    fork = sandbox(client, game, "Player")
    accepted(client, fork, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US",
                                      "airbases": ["Malta", "Haifa"]})
    st = state_of(client, fork, "Player")
    assert sorted(st["campaign"]["player_airbases"]) == ["Haifa", "Malta"] and not st["pending"]
    fork = sandbox(client, game, "Player")
    accepted(client, fork, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US", "airbases": []})
    assert state_of(client, fork, "Player")["campaign"]["player_airbases"] == []
    problem = refused(client, game, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US",
                                               "airbases": ["Malta", "Haifa", "Naples"]})
    assert problem["rule"] == "STF 2.2", problem
    problem = refused(client, game, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US",
                                               "airbases": ["Reykjavik"]})
    assert problem["rule"] in ("STF 2.3", "STF 2.4", "STF 2.5"), problem
    problem = refused(client, game, "Player", {"kind": "campaign", "map": "random", "side": "US", "airbases": ["Malta"]})
    assert problem["rule"] == "STF 2.2", problem


def play_stf_until(client, game, done, rng_seed=33, most=400, player=None):
    """Play the random Player's offered orders (domain/rulesets/stf/play.py) until ``done(state)``;
    ``player``: one that goes on from an earlier call (else a new one from ``rng_seed``)."""
    player = player or splay.RandomPlayer(random.Random(rng_seed))

    class Offer:
        def legal_orders(self, state, seat):
            return legal(client, game, seat)

    for n in range(most):
        st = state_of(client, game, "Player")
        if done(st) or st["ended"]:
            return st
        for order in player.candidates(Offer(), st):
            r = send(client, game, "Player", order)
            if r.status_code == 201:
                player.accepted(st, order)
                break
            assert r.status_code == 422, r.json
            assert_refusal_names_a_rule(r.json, STF, "STF ")
        else:
            raise AssertionError(f"nothing accepted in {st['turn']} {st['phase']}")
    raise AssertionError("not reached")


def test_stf_6_1_7_1_8_3_the_documented_campaign_walk_giuk(client):
    """docs, "A Player's campaign, step by step" and "Maps, deployment and movement": campaign giuk/US,
    draw_carriers, buy, form_groups, {"kind": "deploy", "group": "P1", "megahex": 46, "hex": "1810"},
    {"kind": "deploy", "sosus": "SOSUS1", "megahex": 30}, deploy_done; then each phase ended with
    {"kind": "end_phase"}, the random event declared ({"kind": "declare", "decision": ID, "value": "none"}),
    {"kind": "move", "group": "P1", "path": ["1811", "1911"]} and {"kind": "search", "group": "TF3",
    "search_value": 5} (the Search Value declared, ResultDeclared)."""
    game = stf_game(client)
    accepted(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "US"})
    while state_of(client, game, "Player")["pending"]:  # the airbase pair, if any (GIUK has two: none)
        d = legal(client, game, "Player")[0]
        accepted(client, game, "Player", {"kind": "decide", "decision": d["decision"], "choice": d["choice"]})
    if any(o["kind"] == "draw_carriers" for o in legal(client, game, "Player")):  # none when Y is 0
        accepted(client, game, "Player", {"kind": "draw_carriers"})
    buys = [o for o in legal(client, game, "Player") if o["kind"] == "buy"]
    buy = next((o for o in buys if o["sosus"]), buys[0])
    accepted(client, game, "Player", buy)
    accepted(client, game, "Player", next(o for o in legal(client, game, "Player") if o["kind"] == "form_groups"))
    st = state_of(client, game, "Player")
    assert st["phase"] == "Deployment" and st["groups"]["P1"]["kind"] == "tf"
    events = accepted(client, game, "Player", {"kind": "deploy", "group": "P1", "megahex": 46, "hex": "1810"})
    assert state_of(client, game, "Player")["groups"]["P1"]["hex"] == "1810", events
    if buy["sosus"]:
        accepted(client, game, "Player", {"kind": "deploy", "sosus": "SOSUS1", "megahex": 30})
        sosus = state_of(client, game, "Player")["units"]["SOSUS1"]
        assert sosus["megahex"] == 30
    for g in sorted(st["groups"]):
        if g != "P1" and state_of(client, game, "Player")["phase"] == "Deployment":
            offered = next(o for o in legal(client, game, "Player") if o.get("group") == g)
            accepted(client, game, "Player", {"kind": "deploy", "group": g, "megahex": offered["megahex"]})
    if state_of(client, game, "Player")["phase"] == "Deployment":
        accepted(client, game, "Player", {"kind": "deploy_done"})
    st = state_of(client, game, "Player")
    assert st["turn"] == 1, (st["turn"], st["phase"])
    moved = searched = False
    for _ in range(40):
        st = state_of(client, game, "Player")
        if st["pending"]:
            p = st["pending"][0]
            offer = legal(client, game, "Player")
            if offer[0]["kind"] == "declare":
                accepted(client, game, "Player", {"kind": "declare", "decision": p["id"], "value": "none"})
            else:
                accepted(client, game, "Player", {k: offer[0][k] for k in ("kind", "decision", "choice")})
            continue
        if st["phase"] == "Movement" and not moved:
            events = accepted(client, game, "Player", {"kind": "move", "group": "P1", "path": ["1811", "1911"]})
            assert state_of(client, game, "Player")["groups"]["P1"]["hex"] == "1911", events
            moved = True
        if st["phase"] == "Patrol" and not searched:
            tf3 = st["groups"].get("TF3")
            if tf3 and tf3.get("hex") and tf3.get("intel") != "precise":
                events = accepted(client, game, "Player", {"kind": "search", "group": "TF3", "search_value": 5})
                assert "ResultDeclared" in types(events)
                searched = True
        if moved and searched:
            break
        if st["turn"] > 1 and moved:
            break
        accepted(client, game, "Player", {"kind": "end_phase"})
    assert moved


# --- declared fields against what the rules code takes ---------------------------------------

def test_fs_7_1_each_operation_field_is_required_or_optional_as_its_template_declares(client, monkeypatch):
    """A field the template marks optional may be left out (the order is taken, or refused for a
    rule, never because the field is missing); a field it does not mark optional is required: left
    out, the order is a 422 problem whose `field` names it and whose `rule` is the operation's."""
    for base, seat in (("opening", "UK"), ("midgame", "AR")):
        game = position_game(client, monkeypatch, "falklands", base, _ships_at_the_falklands)
        st = state_of(client, game, seat)
        for template in legal(client, game, seat):
            if template["kind"] != "operation":
                continue
            order = fplay.order_for(template, st, seat, random.Random(1))
            for name, spec in template["fields"].items():
                if name == "op" or name not in order:
                    continue
                r = send(client, sandbox(client, game, seat), seat, {k: v for k, v in order.items() if k != name})
                if isinstance(spec, dict) and spec.get("optional"):
                    assert r.status_code == 201 or (r.json.get("field") != name
                                                    and f"'{name}' is required" not in r.json["detail"]), (name, r.json)
                else:
                    assert r.status_code == 422 and r.json["field"] == name, (template["op"], name, r.json)
                    assert r.json["rule"] == template["rule"], r.json


def test_fs_11_3_3_2_target_of_opportunity_is_a_declared_field_and_waives_10_4(client, monkeypatch):
    """docs: 3-2/3-3 waive FS 10.4 for one named protected ship in an AR Op #14, #18 or #20
    (`"target_of_opportunity"`). The text: "the AR player may attack any one UK protected vessel
    ... without having to first attack all unprotected vessels". The field is offered (warlog legal
    lists a template's fields) and taken."""
    def edit(state):
        _ships_at_the_falklands(state)
        state["effects"]["AR"]["ar_target_of_opportunity"] = {}
    game = position_game(client, monkeypatch, "falklands", "midgame", edit)
    op18 = next(o for o in legal(client, game, "AR") if o.get("op") == 18)
    field = op18["fields"]["target_of_opportunity"]
    assert field["optional"] and {"hermes", "invincible"} <= set(field["choices"]), field
    accepted(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["dagger_1"],
                                  "fire": [{"unit": "dagger_1", "at": "hermes"}], "target_of_opportunity": "hermes"})


def test_fs_and_stf_an_unknown_field_is_refused_naming_it(client, monkeypatch):
    """A field the kind does not have (a misspelt optional field) is a 422 invalid_order naming it
    in `field`, with the kind's rule, never dropped in silence; a template's `title`, `rule` and
    `note` sent back with it are taken (docs/rulesets.md, Templates)."""
    game = position_game(client, monkeypatch, "falklands", "opening")
    for order, bad, rule in [
        ({"kind": "operation", "op": 20, "units": ["hermes"], "destination": "sa5", "with_op10": True}, "with_op10",
         "FS 7.1 Op #20"),
        ({"kind": "pass", "units": []}, "units", "FS 5.3"),
        ({"kind": "operation", "op": 9, "target": "port_stanley"}, "target", "FS 7.1 Op #9"),
    ]:
        problem = refused(client, game, "UK", order)
        assert (problem["code"], problem["field"], problem["rule"]) == ("invalid_order", bad, rule), problem
    accepted(client, game, "UK", {"kind": "pass", "rule": "FS 5.3", "note": "no operation this phase"})
    stf = stf_game(client)
    problem = refused(client, stf, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US",
                                              "airbase": ["Malta", "Haifa"]})
    assert (problem["code"], problem["field"], problem["rule"]) == ("invalid_order", "airbase", "STF 1.1"), problem
    accepted(client, stf, "Player", {"kind": "campaign", "map": "giuk", "side": "US", "title": "campaign", "rule": "STF 1.1"})


MALFORMED_STF = [  # (order, the field the problem names)
    ({"kind": "campaign", "map": "giuk"}, "side"),
    ({"kind": "campaign", "side": "US"}, "map"),
    ({"kind": "campaign", "map": 5, "side": "US"}, "map"),
    ({"kind": "campaign", "map": ["giuk"], "side": "US"}, "map"),
    ({"kind": "campaign", "map": {"giuk": 1}, "side": "US"}, "map"),
    ({"kind": "campaign", "map": None, "side": "US"}, "map"),
    ({"kind": "campaign", "map": "giuk", "side": ["US"]}, "side"),
    ({"kind": "campaign", "map": "giuk", "side": "US", "airbases": "Sumburgh"}, "airbases"),
    ({"kind": "campaign", "map": "giuk", "side": "US", "airbases": [5]}, "airbases"),
    ({"kind": "campaign", "map": "giuk", "side": "US", "airbases": [["Sumburgh"]]}, "airbases"),
    ({"kind": "campaign", "map": "giuk", "side": "US", "airbases": 2 ** 53 - 1}, "airbases"),
    ({"kind": "campaign", "map": "giuk", "side": "US", "extra": 1}, "extra"),
    ({"kind": "nonesuch"}, "kind"),
]


@pytest.mark.parametrize("order,field", MALFORMED_STF)
def test_stf_1_1_a_malformed_campaign_order_is_a_4xx_naming_the_field(client, order, field):
    game = stf_game(client)
    r = send(client, game, "Player", order)
    assert 400 <= r.status_code < 500 and r.json["field"] == field, r.json
    assert r.json["rule"] in rule_ids(STF) | {"STF 6.7"}, r.json


def test_fs_and_stf_malformed_bodies_are_4xx_problems_never_500(client, monkeypatch):
    """Wrong types, missing fields, huge numbers and lists where strings are expected, in every
    field of the kinds both games declare: each is a 4xx problem (api.md: invalid_request with
    `errors`, or invalid_order / rule_violation naming the rule), never a 500."""
    junk = [None, 2 ** 53 - 1, -(2 ** 53 - 1), 1e300, True, "x" * 4000, ["x"], [["x"]], {"x": {"y": 1}}, [], {}, ""]
    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
    orders = [fplay.order_for(t, state_of(client, game, "AR"), "AR", random.Random(3))
              for t in legal(client, game, "AR")]
    orders += [{"kind": "setup", "submarines": {}}, {"kind": "submarines", "moves": {}},
               {"kind": "decide", "decision": "x", "choice": {}}]
    for order in orders:
        for name in [k for k in order if k != "kind"] + ["kind"]:
            for value in junk:
                r = send(client, game, "AR", {**order, name: value})
                if r.status_code == 201:  # an optional field's value that means "none" or "auto" (fire: null)
                    assert value in (None, [], {}, ""), (order, name, value)
                    game = position_game(client, monkeypatch, "falklands", "midgame", _ships_at_the_falklands)
                    continue
                assert 400 <= r.status_code < 500, (order, name, value, r.json)
                assert r.json.get("rule") or r.json.get("errors"), r.json
    stf = stf_game(client)
    for kind in STF.order_kinds():
        for name in list(kind["fields"]) + ["kind"]:
            for value in junk:
                r = send(client, stf, "Player", {"kind": kind["kind"], name: value})
                assert 400 <= r.status_code < 500, (kind["kind"], name, value, r.json)
                assert r.json.get("rule") or r.json.get("errors"), r.json


def test_stf_6_7_every_offered_template_is_accepted_as_offered_at_points_of_a_campaign(client):
    """Every template legal-orders offers (without its `title` and `rule`, and with them) names only
    fields its kind declares (`GET /api/v1/rulesets/stf`), and each, sent back as offered in a
    sandbox of the campaign at that point, is accepted, or refused with a 422 naming an STF rule id
    (a decision's `choices` are what it takes, the search value of 0 is the least of its range)."""
    kinds = {k["kind"]: set(k["fields"]) for k in client.get("/api/v1/rulesets/stf").json["order_kinds"]}
    game = stf_game(client)
    stops = [lambda st: st["phase"] == "Forces", lambda st: st["phase"] == "Deployment",
             lambda st: st["turn"] == 1 and st["phase"] == "Movement",
             lambda st: st["turn"] == 2 and st["pending"], lambda st: st["turn"] == 2 and st["phase"] == "Strike",
             lambda st: st["turn"] == 2 and st["phase"] == "Combat", lambda st: st["turn"] == 3 and st["phase"] == "Patrol"]
    tried = refusals = 0
    points = [game]
    for stop in stops:
        st = play_stf_until(client, game, lambda s: stop(s) or s["turn"] > 4)
        if st["ended"]:
            break
        offer = legal(client, game, "Player")
        assert offer, (st["turn"], st["phase"])
        for template in offer[:12]:
            assert set(template) - {"kind", "title", "rule"} <= kinds[template["kind"]], template
            fork = sandbox(client, game, "Player")
            r = send(client, fork, "Player", template)
            tried += 1
            if r.status_code != 201:
                refusals += 1
                assert r.status_code == 422, r.json
                assert_refusal_names_a_rule(r.json, STF, "STF ")
            elif template["kind"] == "end_phase" or template.get("title"):
                order = {k: v for k, v in template.items() if k not in ("title", "rule")}
                accepted(client, sandbox(client, game, "Player"), "Player", order)
        points.append(st)
    assert tried > 10 and refusals < tried


# --- Falklands: docs/rulesets.md "Pending decisions" -------------------------------------------

def pending_position(client, monkeypatch, seat, kind, rule, options, frame, edit=None) -> ApiGame:
    """The midgame at the Random Event phase with decision ``kind`` waiting for ``seat``: its asking
    step ``frame`` on the stack, as the step leaves it when it asks (engine.Ctx.ask)."""
    def make(state):
        state.update(phase="Random Event", active=[seat])
        if edit:
            edit(state)
        state["pending"] = [{"id": f"{kind}-1", "seat": seat, "kind": kind, "rule": rule, "prompt": kind,
                             "options": options, "context": {"stack": [frame]}}]
    return position_game(client, monkeypatch, "falklands", "midgame", make)


def test_fs_11_3_6_3_the_documented_peru_replacement_answer(client, monkeypatch):
    """docs: `peru_replacement` | AR | event 6-3 | {"unit": id} (FS 11.2: not declined)."""
    game = pending_position(client, monkeypatch, "AR", "peru_replacement", "FS 11.3 6-3", {"unit": ["pucara_2"]},
                            {"step": "peru"})
    offer = legal(client, game, "AR")
    assert offer[0]["kind"] == "decide" and offer[0]["decision"] == "peru_replacement-1", offer
    problem = refused(client, game, "AR", {"kind": "decide", "decision": "peru_replacement-1", "choice": {"unit": None}})
    assert problem["rule"] == "FS 11.3 6-3", problem
    events = accepted(client, game, "AR", {"kind": "decide", "decision": "peru_replacement-1",
                                           "choice": {"unit": "pucara_2"}})
    assert "UnitEntered" in types(events)
    unit = state_of(client, game, "AR")["units"]["pucara_2"]
    assert unit["location"] == "argentina" and not unit["eliminated"]


def test_fs_11_3_6_4_the_documented_exocet_answer_fires_now(client, monkeypatch):
    """docs: `exocet` | AR | event 6-4 with a target in the Falkland Islands Sea Area | {"target": id},
    fired now (FS 11.2: not declined)."""
    game = pending_position(client, monkeypatch, "AR", "exocet", "FS 11.3 6-4", {"target": ["sheffield"]},
                            {"step": "exocet_now"}, _ships_at_the_falklands)
    problem = refused(client, game, "AR", {"kind": "decide", "decision": "exocet-1", "choice": {"target": None}})
    assert problem["rule"] == "FS 11.3 6-4", problem
    events = accepted(client, game, "AR", {"kind": "decide", "decision": "exocet-1", "choice": {"target": "sheffield"}})
    assert any(e["type"] == "DiceRolled" and "Sheffield" in e["text"] for e in events), [e["text"] for e in events]


def test_fs_11_3_2_4_the_documented_sf_compromised_answer(client, monkeypatch):
    """docs: `sf_compromised` | the unaffected side | event 2-4 | {"unit": id}."""
    def edit(state):
        place(state, "sas_d", "port_stanley")
    game = pending_position(client, monkeypatch, "AR", "sf_compromised", "FS 11.3 2-4", {"unit": ["sas_d"]},
                            {"step": "sf_compromised", "stage": "choose", "affected": "UK",
                             "shots": [{"side": "UK", "value": 2, "index": 0, "purpose": "SF team compromised"}]}, edit)
    events = accepted(client, game, "AR", {"kind": "decide", "decision": "sf_compromised-1", "choice": {"unit": "sas_d"}})
    assert "UnitEliminated" in types(events)
    assert state_of(client, game, "AR")["units"]["sas_d"]["eliminated"]


def test_fs_11_3_2_1_the_documented_free_attack_answer(client, monkeypatch):
    """docs: `free_attack` | UK or AR | {"area", "units", "carriers", "aircraft", "fire"}; never declined
    (FS 11.2)."""
    def edit(state):
        _ships_at_the_falklands(state)
        place(state, "trinidad", "falklands")
    game = pending_position(client, monkeypatch, "UK", "free_attack", "FS 11.3 2-1", {"areas": {}},
                            {"step": "free_attack", "side": "UK", "kind": "surface", "rule": "FS 11.3 2-1"}, edit)
    problem = refused(client, game, "UK", {"kind": "decide", "decision": "free_attack-1", "choice": {}})
    assert problem["rule"] == "FS 11.3 2-1", problem
    events = accepted(client, game, "UK", {"kind": "decide", "decision": "free_attack-1", "choice": {
        "area": "falklands", "units": ["glamorgan"], "carriers": [], "aircraft": [], "fire": "auto"}})
    assert "BattleBegun" in types(events), [e["text"] for e in events]


def test_fs_9_6_the_documented_emergency_rebase_answer(client, monkeypatch):
    """docs: `emergency_rebase` | AR | AR aircraft on a base the UK now holds (FS 6.3, 9.6) |
    {"destinations": {aircraft: base}}."""
    def edit(state):
        state["control"]["pebble_island"] = "UK"
    game = position_game(client, monkeypatch, "falklands", "midgame", edit)
    accepted(client, game, "AR", {"kind": "pass"})
    pending = state_of(client, game, "AR")["pending"]
    assert pending and pending[0]["kind"] == "emergency_rebase", pending
    assert "argentina" in pending[0]["options"]["destinations"]["pucara_3"]
    events = accepted(client, game, "AR", {"kind": "decide", "decision": pending[0]["id"],
                                           "choice": {"destinations": {"pucara_3": "argentina"}}})
    assert state_of(client, game, "AR")["units"]["pucara_3"]["location"] == "argentina", [e["text"] for e in events]


def test_fs_11_3_4_1_the_documented_leadership_answers(client, monkeypatch):
    """docs: `leadership` | the holder of a Decisive Leader marker | after any dice of a battle |
    {"reroll": i} or {"reroll": null}; a re-roll is a new DiceRolled whose `replaces` is the seq of
    the die it replaces; both stay in the log."""
    from domain.rulesets.falklands.combat import LEADER_MARKER

    def edit(state):
        _ships_at_the_falklands(state)
        state["markers"]["AR"] = [LEADER_MARKER["AR"]]
    game = position_game(client, monkeypatch, "falklands", "midgame", edit)
    events = accepted(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands",
                                           "aircraft": ["a4_1", "a4_2"], "refuel": ["a4_1", "a4_2"], "fire": "auto"})
    rerolled = None
    for _ in range(10):
        st = state_of(client, game, "UK")
        if not st["pending"]:
            break
        p = st["pending"][0]
        if p["kind"] == "leadership" and rerolled is None:
            choice = {"reroll": p["options"]["reroll"][0]["die"]}  # the die asked about (one the AR may dislike)
            rerolled = True
        elif p["kind"] == "leadership":
            choice = {"reroll": None}
        elif p["kind"] == "interception":
            choice = {"fire": []}
        else:
            choice = {"fire": "auto"}
        events += accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": choice})
    assert rerolled, "the marker's holder was asked"
    replaced = [e for e in events if e["type"] == "DiceRolled" and e["data"].get("replaces")]
    assert replaced and any(e["seq"] == replaced[0]["data"]["replaces"] for e in events)


def stf_combat_position(client, monkeypatch, edit, phase="Combat", campaign=None, wanted=lambda st: True) -> ApiGame:
    """A real campaign (``campaign``: its first order, else the random Player's) played to turn 2's
    ``phase`` by the random Player, its state (as the Player reads it: STF hides nothing) changed by
    ``edit`` and started as a position."""
    for seed in range(33, 45):
        game = stf_game(client)
        if campaign:
            accepted(client, game, "Player", campaign)
        st = play_stf_until(client, game, lambda s: (s["turn"] == 2 and s["phase"] == phase and not s["pending"])
                            or s["turn"] > 2, rng_seed=seed)
        if st["turn"] == 2 and st["phase"] == phase and wanted(st):
            break
    else:
        raise AssertionError(f"no campaign reached turn 2's {phase} phase")
    state = copy.deepcopy(st)
    edit(state)
    monkeypatch.setitem(STF.positions(), "examiner", Position("examiner", "examiner", "a combat position", state))
    return start_game(client, {"ruleset": "stf", "position": "examiner"})


def player_has_ssm(state) -> bool:
    return any(stf_combat.ssm_left(u) for g in state["groups"].values() if g.get("owner") == "Player"
               and stf_combat.in_play(g) for u in stf_combat.units_of(state, g["id"]))


def _system_tf(state) -> str:
    return next(g for g, x in sorted(state["groups"].items()) if x.get("owner") == "system" and x["kind"] == "tf"
                and x.get("hex") and x.get("status") == "on map")


def test_stf_11_1_the_documented_ssm_order_at_accurate_precise_and_unknown_targets(client, monkeypatch):
    """docs: {"kind": "ssm", "target": "TF3", "hits": n, "spent": {unit: n}} (Combat phase): refused unless the
    target is Accurate or Precise. At an Accurate target: SystemActs "one-off SSM defence"; with a hit the
    target becomes Precise at once and each hit falls on a unit drawn by a die ("hits placed"). A
    Precise target's hits are reported with `report` (an ssm order's hits at it are refused)."""
    chosen = {}

    def edit(state):
        tf = chosen["tf"] = _system_tf(state)
        state["groups"][tf].update(intel="accurate", chit="Commodore", size="medium")
    game = stf_combat_position(client, monkeypatch, edit, wanted=player_has_ssm)  # a hit is a missile (11.1)
    tf = chosen["tf"]
    events = accepted(client, sandbox(client, game, "Player"), "Player", {"kind": "ssm", "target": tf, "hits": 0,
                                                                           "spent": {}})
    assert [e["data"]["what"] for e in events if e["type"] == "SystemActs"] == ["one-off SSM defence"]
    fork = sandbox(client, game, "Player")
    events = accepted(client, fork, "Player", {"kind": "ssm", "target": tf, "hits": 1, "spent": {}})
    whats = [e["data"]["what"] for e in events if e["type"] == "SystemActs"]
    assert whats[0] == "one-off SSM defence" and "hits placed" in whats, whats
    assert state_of(client, fork, "Player")["groups"][tf]["intel"] == "precise"
    problem = refused(client, fork, "Player", {"kind": "ssm", "target": tf, "hits": 1, "spent": {}})
    assert (problem["rule"], problem["field"]) == ("STF 11.1", "hits"), problem
    accepted(client, fork, "Player", {"kind": "placement", "group": tf})


def test_stf_11_1_an_ssm_at_a_contact_less_than_accurate_is_refused(client, monkeypatch):
    chosen = {}

    def edit(state):
        tf = chosen["tf"] = _system_tf(state)
        state["groups"][tf].update(intel="good", chit="Tracked")
    game = stf_combat_position(client, monkeypatch, edit)
    problem = refused(client, game, "Player", {"kind": "ssm", "target": chosen["tf"], "hits": 1, "spent": {}})
    assert problem["rule"] == "STF 11.1", problem


def test_stf_11_1_the_documented_report_sinks_a_unit_and_scores_its_vp(client, monkeypatch):
    """docs: {"kind": "report", "sunk": [...], "hits": {unit: n}, ...} in the Strike and Combat phases:
    ResultDeclared (rule STF 11.1), then a UnitChanged per change; a GameSystem unit sunk scores its
    countermix `vp` on the Player's track. A unit that is not in play is refused naming STF 11.1."""
    chosen = {}

    def edit(state):
        tf = chosen["tf"] = _system_tf(state)
        state["groups"][tf].update(intel="accurate", chit="Commodore", size="medium")
    # a campaign whose Player still has an SSM aboard: an ssm order's hit is a missile that hit (STF 11.1)
    game = stf_combat_position(client, monkeypatch, edit, wanted=player_has_ssm)
    tf = chosen["tf"]
    accepted(client, game, "Player", {"kind": "ssm", "target": tf, "hits": 1, "spent": {}})
    st = state_of(client, game, "Player")
    unit = next(u for u, x in st["units"].items() if x.get("group") == tf and not x.get("sunk"))
    before = st["vp"]["Player"]
    events = accepted(client, game, "Player", {"kind": "report", "sunk": [unit], "hits": {}, "squadrons_destroyed": [],
                                               "airbase_hits": {}, "flight_deck_inoperable": [], "spent": {}})
    assert types(events)[1] == "ResultDeclared" and events[1]["data"]["rule"] == "STF 11.1", types(events)
    st = state_of(client, game, "Player")
    assert st["units"][unit]["sunk"] and st["vp"]["Player"] == before + st["units"][unit]["vp"]
    accepted(client, sandbox(client, game, "Player"), "Player", {"kind": "report", "sunk": [], "rule": "STF 11.1"})
    problem = refused(client, game, "Player", {"kind": "report", "sunk": ["no-such-unit"]})
    assert problem["rule"] == "STF 11.1", problem


def test_stf_5_1_the_documented_declare_values(client):
    """docs: {"kind": "declare", "decision": ID, "value": V}, V one of `none`, `squall`, `Player command
    control loss`, `GameSystem command control loss`; a value not on the list is refused naming STF 5.1; a
    wrong decision id is invalid_order (field `decision`) naming the decision's rule; answering a
    `declare` with `decide` is rule_violation naming it. STF 5.2: a GameSystem command control loss
    records CampaignFixed(system_ccl_turn)."""
    game = stf_game(client)
    st = play_stf_until(client, game, lambda s: bool(s["pending"]) and s["pending"][0]["rule"] == "STF 5.1")
    d = st["pending"][0]
    offered = {o["value"] for o in legal(client, game, "Player") if o["kind"] == "declare"}
    values = {"none", "squall", "Player command control loss", "GameSystem command control loss"}
    assert offered == values
    for value in sorted(values):
        events = accepted(client, sandbox(client, game, "Player"), "Player",
                          {"kind": "declare", "decision": d["id"], "value": value})
        assert "ResultDeclared" in types(events)
        fixed = [e["data"] for e in events if e["type"] == "CampaignFixed"]
        assert any(f["key"] == "system_ccl_turn" and f["value"] == st["turn"] for f in fixed) == \
            (value == "GameSystem command control loss"), fixed
    problem = refused(client, game, "Player", {"kind": "declare", "decision": d["id"], "value": "typhoon"})
    assert (problem["code"], problem["rule"]) == ("rule_violation", "STF 5.1"), problem
    problem = refused(client, game, "Player", {"kind": "declare", "decision": "declare-9999", "value": "none"})
    assert (problem["code"], problem["rule"], problem["field"]) == ("invalid_order", "STF 5.1", "decision"), problem
    problem = refused(client, game, "Player", {"kind": "decide", "decision": d["id"], "choice": "none"})
    assert (problem["code"], problem["rule"]) == ("rule_violation", "STF 5.1"), problem
    problem = refused(client, game, "Player", {"kind": "end_phase"})
    assert problem["rule"] == "STF 5.1" and "answer the pending decision first" in problem["detail"], problem


def test_stf_8_3_the_documented_search_order_and_its_bounds(client):
    """docs: {"kind": "search", "group": "TF3", "search_value": N} in the Patrol phase, N declared
    (ResultDeclared), 0-20 (the kind's field: "a whole number from 0 to 20"); the Player searches only
    the GameSystem's groups (his own: refused, STF 8.2)."""
    game = stf_game(client)
    st = play_stf_until(client, game, lambda s: s["phase"] == "Patrol" and not s["pending"] and any(
        g.get("owner") == "system" and g.get("hex") and g.get("intel") != "precise" for g in s["groups"].values()))
    target = next(g for g, x in sorted(st["groups"].items()) if x.get("owner") == "system" and x.get("hex")
                  and x.get("intel") != "precise")
    for value in (0, 20):
        events = accepted(client, sandbox(client, game, "Player"), "Player",
                          {"kind": "search", "group": target, "search_value": value})
        declared = [e for e in events if e["type"] == "ResultDeclared"]
        assert declared and declared[0]["data"]["rule"] == "STF 8.3", events
    for value in (21, -1, 2 ** 53 - 1, "5", 5.5, [5], None):
        r = send(client, game, "Player", {"kind": "search", "group": target, "search_value": value})
        assert r.status_code == 422 and r.json["rule"] == "STF 8.3", (value, r.json)
    problem = refused(client, game, "Player", {"kind": "search", "group": "P1", "search_value": 5})
    assert problem["rule"] == "STF 8.2", problem


def test_stf_2_6_1_the_documented_lbna_patrol(client):
    """docs: {"kind": "lbna_patrol", "unit": "backfire"|"badger", "megahex": N, "target"?: group}, Patrol
    phase, a Soviet Player only, one a turn: a Precise search report on every GameSystem group in
    megahex N (PlayerAirAction "LBNA patrol"); `target` is optional."""
    game = stf_game(client)
    accepted(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "Soviet"})
    st = play_stf_until(client, game, lambda s: s["phase"] == "Patrol" and not s["pending"] and s["turn"] >= 1
                        and any(g.get("owner") == "system" and g.get("hex") for g in s["groups"].values()))
    from domain.rulesets.stf import maps
    group = next(g for g, x in sorted(st["groups"].items()) if x.get("owner") == "system" and x.get("hex"))
    megahex = maps.megahex_number("giuk", st["groups"][group]["hex"])
    fork = sandbox(client, game, "Player")
    events = accepted(client, fork, "Player", {"kind": "lbna_patrol", "unit": "badger", "megahex": megahex})
    acts = [e["data"] for e in events if e["type"] == "PlayerAirAction"]
    assert acts and acts[-1]["what"] == "LBNA patrol" and group in acts[-1]["detail"]["groups"], acts
    problem = refused(client, fork, "Player", {"kind": "lbna_patrol", "unit": "backfire", "megahex": megahex})
    assert problem["rule"] == "STF 2.6.1", problem
    problem = refused(client, game, "Player", {"kind": "lbna_patrol", "unit": "bear", "megahex": megahex})
    assert (problem["rule"], problem["field"]) == ("STF 2.6.1", "unit"), problem


def _player_cv_tf(state) -> str | None:
    return next((g for g, x in sorted(state["groups"].items()) if x.get("owner") == "Player" and x.get("hex")
                 and any(state["units"][u]["class"] == "CV" and not state["units"][u].get("sunk")
                         for u in x.get("units", []))), None)


def test_stf_10_1_9_2_9_7_the_documented_air_strike_orders(client, monkeypatch):
    """docs: {"kind": "air_strike", "from": CV task force or airbase, "target": group or airbase} (Strike
    phase) refused on a GameSystem group less than Accurate (STF 10.1); a strike on an airbase flies from
    a CV task force only (STF 9.2); `"tomahawk": true` at an airbase only (STF 9.7); `"asm"` at an
    airbase refused (STF 9.6)."""
    chosen = {}

    def edit(state):
        chosen["tf"] = _system_tf(state)
        chosen["cv"] = _player_cv_tf(state)
        chosen["base"] = state["campaign"]["system_airbase"]
        state["groups"][chosen["tf"]].update(intel="accurate", chit="Commodore", size="medium")
    game = stf_combat_position(client, monkeypatch, edit, phase="Strike",
                               campaign={"kind": "campaign", "map": "mediterranean", "side": "US",
                                         "airbases": ["Malta", "Haifa"]},
                               wanted=lambda st: _player_cv_tf(st) is not None and st["campaign"]["system_airbase"])
    cv, tf, base = chosen["cv"], chosen["tf"], chosen["base"]
    events = accepted(client, sandbox(client, game, "Player"), "Player",
                      {"kind": "air_strike", "from": cv, "target": tf})
    acts = [e["data"] for e in events if e["type"] == "PlayerAirAction"]
    assert acts[0]["what"] == "air strike" and acts[0]["rule"] == "STF 10.1" and "cap" in acts[0]["detail"], acts
    events = accepted(client, sandbox(client, game, "Player"), "Player",
                      {"kind": "air_strike", "from": cv, "target": base})
    assert [e["data"]["rule"] for e in events if e["type"] == "PlayerAirAction"] == ["STF 9.2"]
    assert any(e["type"] == "AirbaseChanged" for e in events)
    problem = refused(client, game, "Player", {"kind": "air_strike", "from": "Malta", "target": base})
    assert problem["rule"] == "STF 9.2", problem
    problem = refused(client, game, "Player", {"kind": "air_strike", "from": cv, "target": tf, "tomahawk": True})
    assert problem["rule"] == "STF 9.7", problem
    problem = refused(client, game, "Player", {"kind": "air_strike", "from": cv, "target": base,
                                               "asm": [{"aircraft": "A-6 Intruder", "damage": 0}]})
    assert problem["rule"] in ("STF 9.6", "STF 13.11"), problem
    other = next((g for g, x in sorted(state_of(client, game, "Player")["groups"].items())
                  if x.get("owner") == "system" and x.get("hex") and x.get("intel") in (None, "unknown", "approximate",
                                                                                          "good")), None)
    if other:
        problem = refused(client, game, "Player", {"kind": "air_strike", "from": cv, "target": other})
        assert problem["rule"] == "STF 10.1", problem


def test_stf_6_7_a_field_declared_optional_may_be_left_out_and_the_others_may_not(client):
    """The fields `GET /api/v1/rulesets/stf` declares: one whose description says it is optional (or
    gives its default) may be left out of an offered order without the order being refused for it;
    any other, left out, gets the order refused (a 422 naming an STF rule)."""
    kinds = {k["kind"]: k["fields"] for k in client.get("/api/v1/rulesets/stf").json["order_kinds"]}
    checked: dict[tuple, int] = {}
    for campaign in ({"kind": "campaign", "map": "mediterranean", "side": "US"},
                     {"kind": "campaign", "map": "giuk", "side": "Soviet"}):
        game = stf_game(client)
        accepted(client, game, "Player", campaign)
        for stop in (lambda s: s["phase"] == "Forces", lambda s: s["phase"] == "Deployment",
                     lambda s: s["turn"] == 1 and s["phase"] == "Patrol", lambda s: s["turn"] == 2 and s["pending"],
                     lambda s: s["turn"] == 2 and s["phase"] == "Strike", lambda s: s["turn"] == 2 and s["phase"] == "Combat"):
            st = play_stf_until(client, game, lambda s: stop(s) or s["turn"] > 3)
            if st["ended"] or st["turn"] > 3:
                break
            for template in legal(client, game, "Player"):
                order = {k: v for k, v in template.items() if k not in ("title", "rule")}
                for name, words in kinds[order["kind"]].items():
                    if name not in order or checked.get((order["kind"], name), 0) >= 2:
                        continue
                    checked[(order["kind"], name)] = checked.get((order["kind"], name), 0) + 1
                    r = send(client, sandbox(client, game, "Player"), "Player",
                             {k: v for k, v in order.items() if k != name})
                    if words.startswith("optional") or "(default" in words:
                        assert r.status_code == 201 or r.json.get("field") != name, (order, name, r.json)
                    elif not (order["kind"] == "deploy" and name == "sosus"):  # instead of a group: the group is missing
                        assert r.status_code == 422, (order, name, words)
                        assert_refusal_names_a_rule(r.json, STF, "STF ")
    assert len(checked) > 12, checked


def test_fs_9_6_a_misspelt_answer_field_is_refused_not_read_as_its_default(client, monkeypatch):
    """docs: `emergency_rebase` | {"destinations": {aircraft: base}}: {"destination": …} is no field of
    the answer; taken, it would send every aircraft to Argentina (the default) in silence."""
    def edit(state):
        state["control"]["pebble_island"] = "UK"
    game = position_game(client, monkeypatch, "falklands", "midgame", edit)
    accepted(client, game, "AR", {"kind": "pass"})
    pending = state_of(client, game, "AR")["pending"][0]
    problem = refused(client, game, "AR", {"kind": "decide", "decision": pending["id"],
                                           "choice": {"destination": {"pucara_3": "port_stanley"}}})
    assert (problem["code"], problem["rule"]) == ("rule_violation", "FS 9.6"), problem
    assert "'destination' is not a field of the emergency_rebase answer" in problem["detail"], problem


@pytest.mark.parametrize("options,left", [({"uk_operations": 1}, 1), ({"uk_operations": 30}, 30), ({}, 30),
                                          ({"bids": [27, 25]}, 25), ({"bids": [5, 5]}, 5)])
def test_fs_4_7_the_documented_options_at_creation(client, options, left):
    """docs: `uk_operations` (1-30, default 30, FS 3.5/5.3) or `bids: [a, b]`, the two players' secret
    numbers of FS 4.7 ("a number of their own choosing between 1 and 30"; the lower one is the UK
    operation count)."""
    game = start_game(client, {"ruleset": "falklands", "options": options})
    assert state_of(client, game, "UK")["uk_operations_left"] == left


@pytest.mark.parametrize("options", [{"uk_operations": 0}, {"uk_operations": 31}, {"uk_operations": "5"},
                                     {"bids": [0, 5]}, {"bids": [31, 2]}, {"bids": [5]}, {"bids": "5,6"},
                                     {"bids": [2 ** 53 - 1, 3]}, {"uk_operations": 5, "bids": [3, 4]}, {"bid": [3, 4]}])
def test_fs_4_7_options_out_of_the_text_are_refused_at_creation(client, options):
    r = client.post("/api/v1/games", json={"ruleset": "falklands", "options": options})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup", r.json


def test_fs_5_4_two_operations_for_the_price_of_one_in_the_first_uk_phase(client, monkeypatch):
    """docs, Sequence: `UK Operations` (one operation, two for the price of one under 1-1…1-5, in effect at
    the start, FS 5.4); "the first of the pair is free, the second is charged". The text, 5.4: "Random
    Event 1-1/1-5 is in effect at the start of the first turn"."""
    game = position_game(client, monkeypatch, "falklands", "opening")
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["hermes", "invincible"],
                                  "destination": "falklands"})
    st = state_of(client, game, "UK")
    assert (st["phase"], st["uk_operations_left"]) == ("UK Operations", 30)
    accepted(client, game, "UK", {"kind": "pass"})
    st = state_of(client, game, "UK")
    assert (st["phase"], st["uk_operations_left"]) == ("AR Operations", 29)
