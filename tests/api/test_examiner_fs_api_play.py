"""Falklands Showdown played as two PBEM players would, through the HTTP API (Flask's test client on
SQLite): a scenario author's check of the text's set-up (FS 3), victory (FS 4), sequence of play
(FS 5), operations (FS 7.1) and random events (FS 11), sentence by sentence.

For each sentence: what a player sends works end to end and the state (units, control), the VP
track, the history and the dice audit show what the text says happened; an order the text forbids is
a 4xx problem naming the most specific rule, and it changes nothing (the game's version is the
same); a pending decision is offered to its owner alone and answered there.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from domain.rulesets import find_ruleset
from domain.rulesets.positions import Position
from tests.api.conftest import ApiGame, bearer, start_game
from tests.api.test_examiner_documented_orders import place
from tests.api.test_falklands_game import answer

FALKLANDS = find_ruleset("falklands")
_keys = itertools.count()


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


# --- helpers ---------------------------------------------------------------------------------

def game_at(client, monkeypatch, base: str, *edits) -> ApiGame:
    """A game over HTTP from the named position ``base`` changed by ``edits`` (each edits the state)."""
    state = copy.deepcopy(FALKLANDS.position(base).state)
    for edit in edits:
        edit(state)
    FALKLANDS.check_position(state)
    monkeypatch.setitem(FALKLANDS.positions(), "scenario", Position("scenario", "scenario", "a scenario", state))
    return start_game(client, {"ruleset": "falklands", "position": "scenario"})


def uk_to_move(state):
    state.update(phase="UK Operations", active=["UK"])
    state["phase_ops"] = {"allowed": 1, "done": 0, "free": 0}


def at(unit, where, **more):
    return lambda state: place(state, unit, where, **more)


def held(area, side):
    return lambda state: state["control"].update({area: side})


def ar_leader(state):
    state["markers"]["AR"] = ["ar_decisive_leader"]


def version(client, game) -> int:
    return client.get(f"/api/v1/games/{game.game_id}", headers=game.admin).json["version"]


def state_of(client, game, seat="UK") -> dict:
    return client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats[seat]).json["state"]


def legal(client, game, seat) -> list[dict]:
    r = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats[seat])
    assert r.status_code == 200, r.json
    return r.json["orders"]


def accepted(client, game, seat, order) -> list[dict]:
    r = game.order(client, seat, order, f"p{next(_keys)}")
    assert r.status_code == 201, (order, r.json)
    return r.json["events"]


def refused(client, game, seat, order, rule: str | None = None) -> dict:
    """The order is a 4xx problem (never a 500), naming ``rule`` when given, and the game is as it was."""
    before = version(client, game)
    r = game.order(client, seat, order, f"p{next(_keys)}")
    assert 400 <= r.status_code < 500, (order, r.status_code, r.json)
    assert r.headers["Content-Type"].startswith("application/problem+json")
    if rule is not None:
        assert r.json.get("rule") == rule, (order, r.json)
    assert version(client, game) == before, "a refused order changes nothing"
    return r.json


def vp_track(client, game) -> dict:
    return client.get(f"/api/v1/games/{game.game_id}/vp", headers=game.seats["AR"]).json


def dice(client, game) -> list[dict]:
    return client.get(f"/api/v1/games/{game.game_id}/dice", headers=game.seats["AR"]).json["rolls"]


def answer_all(client, game, choose=None, most=12) -> list[dict]:
    """Each pending decision answered by its owner (fire "auto", no re-roll), as legal-orders offers
    it to that seat alone."""
    events: list[dict] = []
    for _ in range(most):
        st = state_of(client, game)
        if not st["pending"]:
            return events
        p = st["pending"][0]
        other = "AR" if p["seat"] == "UK" else "UK"
        assert legal(client, game, other) == [], "a decision is offered to its owner alone"
        offer = legal(client, game, p["seat"])
        assert [o["kind"] for o in offer] == ["decide"] and offer[0]["decision"] == p["id"], offer
        order = answer(offer[0])  # the whole-game test's answers: fire "auto", keep the dice, take the offer
        if p["kind"] in (choose or {}):
            order["choice"] = choose[p["kind"]]
        events += accepted(client, game, p["seat"], order)
    raise AssertionError("decisions did not end")


# --- FS 3: set up and control ----------------------------------------------------------------

def test_fs_3_1_to_3_6_a_new_game_is_set_up_as_the_text_says(client):
    """3.1 "The AR player sets up his side's forces first" (printed, 3.2), 3.3 "The UK starting force
    is placed in Sea Area 4, with the special forces (SF) unit loaded onboard the Hermes ... Spartan
    and Splendid, are placed in any one or two of the three sea areas within the TEZ", 3.5 "UK
    Operations Remaining marker in the '30' box ... VP marker ... in the '8' box", 3.6 "At the start of
    play, the AR player controls all land areas", 5.4 "Random Event 1-1/1-5 is in effect at the start
    of the first turn"."""
    game = start_game(client, {"ruleset": "falklands"})
    st = state_of(client, game)
    assert st["phase"] == "Set-Up" and legal(client, game, "AR") == []
    refused(client, game, "AR", {"kind": "pass"}, "FS 5.2")
    units = st["units"]
    assert units["ri_3"]["location"] == "port_stanley" and units["25_de_mayo"]["location"] == "argentina"
    assert units["hermes"]["location"] == "sa4" and units["sas_d"]["aboard"] == "hermes"
    assert not units["2_para"]["in_play"]  # a reinforcement (3.4)
    assert st["uk_operations_left"] == 30 and st["vp"] == {"VP": 8}
    assert set(st["control"].values()) == {"AR"}
    accepted(client, game, "UK", {"kind": "setup", "submarines": {"spartan": "sa7", "splendid": "sa7"}})
    st = state_of(client, game)
    assert (st["turn"], st["phase"], st["active"]) == (1, "UK Operations", ["UK"])
    assert st["units"]["spartan"]["location"] == st["units"]["splendid"]["location"] == "sa7"  # "one or two"
    assert st["phase_ops"]["free"] == 1  # 5.4: two operations for the price of one
    refused(client, game, "UK", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa6"}}, "FS 3.3")


@pytest.mark.parametrize("submarines", [
    {"spartan": "sa6"},  # one of the two
    {"spartan": "sa6", "splendid": "sa6", "conqueror": "sa6"},  # a third
    {"spartan": "sa6", "splendid": "sa4"},  # outside the TEZ
    {"spartan": "sa6", "splendid": "argentina"},
    {"spartan": "sa6", "splendid": "atlantis"},
    {"spartan": "sa6", "splendid": 6},
    {"spartan": "sa6", "splendid": ["sa6"]},
    ["spartan", "splendid"],
    "sa6",
    None,
])
def test_fs_3_3_a_malformed_or_forbidden_setup_is_refused_naming_3_3_and_changes_nothing(client, submarines):
    game = start_game(client, {"ruleset": "falklands"})
    refused(client, game, "UK", {"kind": "setup", "submarines": submarines}, "FS 3.3")
    refused(client, game, "UK", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa6"}, "extra": 1},
            "FS 3.3")


def test_fs_3_7_no_ar_unit_but_submarines_moves_into_south_georgia(client, monkeypatch):
    """3.7 "no AR units may be moved into or out of that box except submarines"; 9.5 "All AR aircraft
    flying from bases in the Falklands have an unlimited range, except they may not enter the South
    Georgia Holding Box"."""
    game = game_at(client, monkeypatch, "midgame", at("glamorgan", "south_georgia"))
    refused(client, game, "AR", {"kind": "operation", "op": 20, "units": ["drummond"], "destination": "south_georgia"},
            "FS 3.7")
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["dagger_1"], "origin": "argentina",
                                 "destination": "south_georgia"}, "FS 3.7")
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "south_georgia", "aircraft": ["pucara_1"],
                                 "fire": "auto"}, "FS 3.7")  # 9.5 says it too, of aircraft from the Falklands
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "south_georgia", "aircraft": ["dagger_1"],
                                 "fire": "auto"}, "FS 3.7")
    accepted(client, game, "AR", {"kind": "operation", "op": 20, "units": ["san_luis"], "destination": "south_georgia"})
    assert state_of(client, game)["units"]["san_luis"]["location"] == "south_georgia"


# --- FS 5: the sequence of play --------------------------------------------------------------

def test_fs_5_2_a_whole_turn_goes_uk_ops_ar_ops_uk_subs_ar_subs_random_event(client, monkeypatch):
    """5.2 "I. UK Operations Phase II. AR Operations Phase III. UK Submarine Phase IV. AR Submarine
    Phase V. Random Event Phase"; 11.2 "the UK player always going first ... The first (UK) die rolled
    is the first digit of the event, and the second (AR) die ... the second number"; at each phase
    the other seat's order is refused and changes nothing."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move)
    st = state_of(client, game)
    turn, left = st["turn"], st["uk_operations_left"]
    refused(client, game, "AR", {"kind": "pass"}, "FS 5.2")
    refused(client, game, "UK", {"kind": "submarines", "moves": {}}, "FS 8.1")
    accepted(client, game, "UK", {"kind": "pass"})
    st = state_of(client, game)
    assert (st["phase"], st["uk_operations_left"]) == ("AR Operations", left - 1)  # 5.3
    refused(client, game, "UK", {"kind": "pass"}, "FS 5.2")
    accepted(client, game, "AR", {"kind": "pass"})
    assert state_of(client, game)["phase"] == "UK Submarine"
    refused(client, game, "UK", {"kind": "operation", "op": 20, "units": ["conqueror"], "destination": "sa1"})
    refused(client, game, "AR", {"kind": "submarines", "moves": {}}, "FS 5.2")
    accepted(client, game, "UK", {"kind": "submarines", "moves": {"conqueror": "sa7"}})
    st = state_of(client, game)
    assert st["phase"] == "AR Submarine" and st["units"]["conqueror"]["location"] == "sa7"
    before = len(dice(client, game))
    events = accepted(client, game, "AR", {"kind": "submarines", "moves": {"san_luis": "sa1"}})
    moved = [e["data"] for e in events if e["type"] == "UnitMoved"]
    assert moved[0]["unit"] == "san_luis" and moved[0]["destination"] == "sa1", moved  # 8.1, before the event
    drawn = [e for e in events if e["type"] == "RandomEventDrawn"]
    assert len(drawn) == 1, [e["text"] for e in events]
    rolls = dice(client, game)[before:]
    assert [r["seat"] for r in rolls[:2]] == ["UK", "AR"], rolls  # 11.2: the UK die first
    first, second = rolls[0]["dice"][0]["value"], rolls[1]["dice"][0]["value"]
    assert f"{first}-{second}" in drawn[0]["text"], (drawn[0]["text"], first, second)
    answer_all(client, game)
    st = state_of(client, game)
    if not st["ended"] and not st["pending"]:
        assert st["turn"] == turn + 1 and st["phase"] == "UK Operations"


def test_fs_8_2_no_attack_and_no_surface_ship_moves_in_a_submarine_phase(client, monkeypatch):
    """8.1 "you may choose to move none, one, some, or all or your submarines"; 8.2 "No attacks are made
    during these phases, just submarine moves"."""
    game = game_at(client, monkeypatch, "midgame", lambda st: st.update(phase="AR Submarine", active=["AR"]))
    refused(client, game, "AR", {"kind": "submarines", "moves": {"drummond": "sa1"}}, "FS 8.1")
    refused(client, game, "AR", {"kind": "submarines", "moves": {"spartan": "sa1"}}, "FS 8.1")
    refused(client, game, "AR", {"kind": "submarines", "moves": {"san_luis": "atlantis"}}, "FS 9.1")
    refused(client, game, "AR", {"kind": "submarines", "moves": ["san_luis"]}, "FS 8.1")
    refused(client, game, "AR", {"kind": "operation", "op": 14, "area": "sa2", "units": ["san_luis"], "fire": "auto"})
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})  # none


def test_fs_5_3_the_last_uk_operation_ends_the_game_and_nothing_more_is_taken(client, monkeypatch):
    """5.3 "Keep working through the turns ... until the UK player has expended his final operation.
    At that time play stops"; 4.2 "if the UK player fails to control Port Stanley, there is no VP
    reckoning: in such cases the AR player has won both the war and the game"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, lambda st: st.update(uk_operations_left=1))
    accepted(client, game, "UK", {"kind": "pass"})
    st = state_of(client, game)
    assert st["ended"]["winner"] == "AR" and st["ended"]["rule"] == "FS 4.2", st["ended"]
    assert client.get(f"/api/v1/games/{game.game_id}", headers=game.admin).json["status"] == "ended"
    assert legal(client, game, "AR") == [] and legal(client, game, "UK") == []
    refused(client, game, "AR", {"kind": "pass"})
    refused(client, game, "UK", {"kind": "pass"})


def _uk_holds_port_stanley(state):
    for u, x in state["units"].items():
        if x["side"] == "AR" and x["location"] == "port_stanley":
            x.update(location="argentina")
    place(state, "2_para", "port_stanley")
    state["control"]["port_stanley"] = "UK"


@pytest.mark.parametrize("vp,winner", [(0, "UK"), (-1, "UK"), (1, "AR")])
def test_fs_4_6_holding_port_stanley_at_the_end_the_vp_decide(client, monkeypatch, vp, winner):
    """4.6 "provided he controls Port Stanley at that time ... If the VP tally is at zero or is in
    negative numbers, the UK player has won the competitive game. If the VP tally is in positive
    numbers, the AR player has won." (A UK surface ship in the TEZ keeps 4.4(1)'s point away.)"""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, _uk_holds_port_stanley, at("glamorgan", "falklands"),
                   lambda st: st.update(uk_operations_left=1, vp={"VP": vp}))
    accepted(client, game, "UK", {"kind": "pass"})
    st = state_of(client, game)
    assert st["vp"] == {"VP": vp} and st["ended"]["winner"] == winner and st["ended"]["rule"].startswith("FS 4.6"), st


def test_fs_4_4_1_and_4_5_the_ar_point_for_an_empty_tez_can_end_the_game_at_plus_20(client, monkeypatch):
    """4.4(1) "The AR player will add one positive VP ... every time a UK operation is completed and, at
    that instant, there are no UK surface ships in any of the three sea areas within the Total
    Exclusion Zone ... Submarines never count for this"; 4.5 "If the VP tally ever reaches +20, play
    stops immediately and the AR player is declared the winner"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("splendid", "falklands"),
                   lambda st: st.update(vp={"VP": 19}))
    accepted(client, game, "UK", {"kind": "pass"})
    track = vp_track(client, game)
    assert track["totals"] == {"VP": 20}
    assert track["track"][-1]["delta"] == 1 and track["track"][-1]["rule"] == "FS 4.4(1)", track
    st = state_of(client, game)
    assert st["ended"]["winner"] == "AR" and st["ended"]["rule"] == "FS 4.5", st["ended"]
    refused(client, game, "AR", {"kind": "pass"})


def test_fs_4_4_1_a_uk_surface_ship_in_the_tez_keeps_the_point_away(client, monkeypatch):
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("glamorgan", "sa6"))
    accepted(client, game, "UK", {"kind": "pass"})
    assert vp_track(client, game)["track"] == []


def test_fs_4_5_minus_5_ends_the_game_for_the_uk_and_7_1_op_2_scores_it(client, monkeypatch):
    """Op #2 "The UK player adds one negative VP to the overall VP total each time this event is put
    into effect"; 4.5 "If the VP tally ever reaches -5, play stops immediately and the UK player is
    declared the winner"."""
    game = game_at(client, monkeypatch, "midgame", lambda st: st.update(vp={"VP": -4}))
    accepted(client, game, "AR", {"kind": "operation", "op": 2, "unit": "sf_anf"})
    track = vp_track(client, game)
    assert track["track"][-1]["rule"] == "FS 7.1 Op #2" and track["totals"] == {"VP": -5}
    st = state_of(client, game)
    assert st["units"]["sf_anf"]["location"] == "argentina"  # "placed in Argentina when activated"
    assert st["ended"]["winner"] == "UK" and st["ended"]["rule"] == "FS 4.5"


def test_fs_4_3_a_player_may_concede_the_game_and_the_war(client, monkeypatch):
    """4.3 "you may concede the game and the war to your opponent"."""
    game = game_at(client, monkeypatch, "midgame")
    r = client.post(f"/api/v1/games/{game.game_id}/concede", headers=game.seats["UK"])
    assert r.status_code in (200, 201), r.json
    assert state_of(client, game, "AR")["ended"]["winner"] == "AR"
    refused(client, game, "AR", {"kind": "pass"})


# --- FS 4.4(5): territorial VP ---------------------------------------------------------------

def _goose_green_empty(state):
    for u, x in state["units"].items():
        if x["side"] == "AR" and x["location"] == "goose_green":
            x.update(location="argentina")


def test_fs_4_4_5_taking_goose_green_scores_minus_one_and_the_ar_takes_it_back_for_plus_one(client, monkeypatch):
    """4.4(5) "he will add one negative VP, each, when he takes control of any of the following
    areas: Goose Green ... If the AR player manages to recapture any VP area, he immediately adds back
    the corresponding number"; 3.6 "A contested or enemy controlled land area comes under your control
    the instant your side is the only one to have one or more ground units in it"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, _goose_green_empty, at("2_para", "lafonia"),
                   held("lafonia", "UK"), at("glamorgan", "falklands"))
    accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "lafonia", "destination": "goose_green",
                                  "units": ["2_para"]})
    st = state_of(client, game)
    assert st["control"]["goose_green"] == "UK" and st["vp"] == {"VP": 11}
    assert vp_track(client, game)["track"][-1]["rule"] == "FS 4.4(5)"
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["AR"]).json
    assert "Goose Green" in str(history)


def test_fs_4_4_5_the_ar_recaptures_an_area_the_uk_left_and_adds_back_its_points(client, monkeypatch):
    game = game_at(client, monkeypatch, "midgame", _goose_green_empty, held("goose_green", "UK"),
                   at("ri_8", "lafonia"), lambda st: st.update(vp={"VP": 5}))
    accepted(client, game, "AR", {"kind": "operation", "op": 24, "origin": "lafonia", "destination": "goose_green",
                                  "units": ["ri_8"]})
    st = state_of(client, game)
    assert st["control"]["goose_green"] == "AR" and st["vp"] == {"VP": 6}


# --- FS 7.1: the operations ------------------------------------------------------------------

@pytest.mark.parametrize("seat,op,rule", [("UK", 1, "FS 7.1 Op #1"), ("UK", 2, "FS 7.1 Op #2"),
                                          ("AR", 4, "FS 7.1 Op #4"), ("AR", 5, "FS 7.1 Op #5"),
                                          ("AR", 6, "FS 7.1 Op #6"), ("AR", 7, "FS 7.1 Op #7"),
                                          ("AR", 8, "FS 7.1 Op #8"), ("AR", 9, "FS 7.1 Op #9"),
                                          ("AR", 12, "FS 7.1 Op #12"), ("AR", 13, "FS 7.1 Op #13"),
                                          ("UK", 11, "FS 7.1 Op #11"), ("AR", 11, "FS 7.1 Op #11"),
                                          ("UK", 10, "FS 7.1 Op #10")])
def test_fs_7_1_an_operation_of_the_other_side_only_is_refused_naming_it(client, monkeypatch, seat, op, rule):
    """Op #1 "(AR Only)", Op #4-#9, #11-#13 "(UK Only)"; Op #11 "may be conducted only ... provided only
    that the AR action currently underway is 3, 17, 18, 19 or 20" (never chosen as a phase's op); Op #10
    "freely tacked onto any other combat event"."""
    game = game_at(client, monkeypatch, "midgame", *([uk_to_move] if seat == "UK" else []))
    problem = refused(client, game, seat, {"kind": "operation", "op": op}, rule)
    assert op not in [o.get("op") for o in legal(client, game, seat)]
    assert problem["code"] in ("rule_violation", "invalid_order"), problem


def test_fs_7_1_op_1_airlifts_at_most_two_ground_units_from_argentina(client, monkeypatch):
    """Op #1 "The AR player may move up to two ground units from Argentina to Port Stanley airfield."
    (and it is not intercepted: no decision for the UK)."""
    edits = [at("ri_2", "argentina"), at("sf_anf", "argentina"), at("hermes", "falklands"), at("invincible", "sa6")]
    game = game_at(client, monkeypatch, "midgame", *edits)
    refused(client, game, "AR", {"kind": "operation", "op": 1, "units": ["bim_3", "ri_2", "sf_anf"]}, "FS 7.1 Op #1")
    refused(client, game, "AR", {"kind": "operation", "op": 1, "units": ["ri_3"]}, "FS 7.1 Op #1")  # not in Argentina
    refused(client, game, "AR", {"kind": "operation", "op": 1, "units": ["dagger_1"]}, "FS 7.1 Op #1")
    accepted(client, game, "AR", {"kind": "operation", "op": 1, "units": ["bim_3", "ri_2"]})
    st = state_of(client, game)
    assert st["units"]["bim_3"]["location"] == st["units"]["ri_2"]["location"] == "port_stanley"
    assert not st["pending"] and st["phase"] == "UK Submarine"


def test_fs_7_1_op_2_at_most_three_times_once_for_each_unit(client, monkeypatch):
    """Op #2 "This op may be conducted up to three times during each game, once for each of those units"."""
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": 2, "unit": "bim_3"}, "FS 7.1 Op #2")
    refused(client, game, "AR", {"kind": "operation", "op": 2, "unit": "ri_3"}, "FS 7.1 Op #2")
    game = game_at(client, monkeypatch, "midgame", lambda st: st.update(op2_done=["bim_3", "ri_2", "sf_anf"]))
    refused(client, game, "AR", {"kind": "operation", "op": 2, "unit": "ri_2"}, "FS 7.1 Op #2")


def test_fs_7_1_op_4_takes_south_georgia_and_eliminates_the_ar_submarine_there(client, monkeypatch):
    """Op #4 "a force consisting of any three surface vessels, a submarine and two special forces units
    into the South George Holding Box, thereby automatically gaining control of it. Any AR submarine(s)
    there at the time of this operation are automatically eliminated ... only be conducted once per
    game"; 4.4(3) an AR ship sunk in the South Georgia Holding Box scores one negative VP."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move)
    refused(client, game, "UK", {"kind": "operation", "op": 4, "ships": ["antrim", "glamorgan"], "submarine": "conqueror",
                                 "sf": ["sas_g", "sas_d"]}, "FS 7.1 Op #4")
    refused(client, game, "UK", {"kind": "operation", "op": 4, "ships": ["antrim", "glamorgan", "coventry"],
                                 "submarine": "conqueror", "sf": ["sas_g"]}, "FS 7.1 Op #4")
    accepted(client, game, "UK", {"kind": "operation", "op": 4, "ships": ["antrim", "glamorgan", "coventry"],
                                  "submarine": "conqueror", "sf": ["sas_g", "sas_d"]})
    st = state_of(client, game)
    assert st["control"]["south_georgia"] == "UK"
    assert st["units"]["santa_fe"]["eliminated"]
    assert {st["units"][u]["location"] for u in ("antrim", "glamorgan", "coventry", "conqueror")} == {"south_georgia"}
    assert st["units"]["sas_g"]["aboard"] == "antrim"  # "doesn't actually disembark any ground units"
    track = vp_track(client, game)["track"]
    assert [(e["delta"], e["rule"]) for e in track] == [(-1, "FS 4.4(3)"), (1, "FS 4.4(1)")], track
    game = game_at(client, monkeypatch, "midgame", uk_to_move, lambda st: st["ops_log"]["UK"].append(4))
    refused(client, game, "UK", {"kind": "operation", "op": 4, "ships": ["antrim", "glamorgan", "coventry"],
                                 "submarine": "conqueror", "sf": ["sas_g", "sas_d"]}, "FS 7.1 Op #4")


def test_fs_7_1_op_5_repairs_only_in_south_georgia_after_op_4(client, monkeypatch):
    """Op #5 "A damaged vessel must be in the South Georgia Holding Box in order to be repaired ... This
    operation may not be conducted until after Op #4 has been conducted"."""
    hit = lambda st: st["units"]["glamorgan"].update(steps=1)  # noqa: E731
    game = game_at(client, monkeypatch, "midgame", uk_to_move, hit, at("glamorgan", "south_georgia", steps=1))
    refused(client, game, "UK", {"kind": "operation", "op": 5, "unit": "glamorgan"}, "FS 7.1 Op #5")
    after_4 = lambda st: (st["ops_log"]["UK"].append(4), st["control"].update(south_georgia="UK"))  # noqa: E731
    game = game_at(client, monkeypatch, "midgame", uk_to_move, after_4, at("coventry", "sa4", steps=1),
                   at("glamorgan", "south_georgia", steps=1))
    refused(client, game, "UK", {"kind": "operation", "op": 5, "unit": "coventry"}, "FS 7.1 Op #5")
    refused(client, game, "UK", {"kind": "operation", "op": 5, "unit": "antrim"}, "FS 7.1 Op #5")  # not damaged
    accepted(client, game, "UK", {"kind": "operation", "op": 5, "unit": "glamorgan"})
    assert state_of(client, game)["units"]["glamorgan"]["steps"] == 2


def test_fs_7_1_op_6_enters_the_lowest_group_whole_with_its_cargo(client, monkeypatch):
    """Op #6 "enter the lowest-numbered reinforcement group ... via Sea Area 4 ... transported units must
    arrive with their designated ships ... No unit(s) within any entered group may be left behind ...
    nor may it ever be chosen twice in a row"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, lambda st: st["ops_log"]["UK"].append(20))
    refused(client, game, "UK", {"kind": "operation", "op": 6, "entry": {"fearless": "south_georgia"}}, "FS 7.1 Op #6")
    refused(client, game, "UK", {"kind": "operation", "op": 6, "entry": {"qe2": "sa4"}}, "FS 7.1 Op #6")
    accepted(client, game, "UK", {"kind": "operation", "op": 6})
    st = state_of(client, game)
    assert "R2" in st["groups_entered"]
    assert st["units"]["fearless"]["location"] == "sa4" and st["units"]["2_para"]["aboard"] == "fearless"
    assert st["units"]["42_cdo"]["aboard"] == "canberra" and not st["units"]["qe2"]["in_play"]


def test_fs_7_1_op_7_the_raid_removes_an_aircraft_and_a_six_loses_the_sf(client, monkeypatch):
    """Op #7 "The result is he eliminates any one AR aircraft unit from any airfield on the Tactical Map.
    Immediately after removing the AR aircraft, roll a die. On a result of six, the involved UK SF unit
    is eliminated. This op may not be picked more than once per game." The die is in the dice audit."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, lambda st: st["ops_log"]["UK"].remove(7))
    refused(client, game, "UK", {"kind": "operation", "op": 7, "sf": "sas_g", "target": "dagger_1"}, "FS 7.1 Op #7")
    refused(client, game, "UK", {"kind": "operation", "op": 7, "sf": "glamorgan", "target": "pucara_1"},
            "FS 7.1 Op #7")
    before = len(dice(client, game))
    accepted(client, game, "UK", {"kind": "operation", "op": 7, "sf": "sas_g", "target": "pucara_1"})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["pucara_1"]["eliminated"]
    rolls = [r for r in dice(client, game)[before:] if r["seat"] == "UK"]
    assert rolls and rolls[-1]["rule"] == "FS 7.1 Op #7", rolls
    assert st["units"]["sas_g"]["eliminated"] == (rolls[-1]["dice"][0]["value"] == 6)


def test_fs_7_1_op_9_black_buck_sends_all_but_pucaras_home_and_keeps_them_there(client, monkeypatch):
    """Op #9 "All AR aircraft, other than Pucaras, on any Falkland Island airbase at this time are moved
    back to Argentina ... once chosen, the only AR aircraft that may thereafter base anywhere in the
    Falklands are Pucaras."""
    def before_black_buck(st):
        st["ops_log"]["UK"].remove(9)
        st["effects"]["UK"].pop("black_buck")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, before_black_buck, at("dagger_1", "port_stanley"),
                   at("a4_1", "goose_green"))
    accepted(client, game, "UK", {"kind": "operation", "op": 9})
    st = state_of(client, game)
    assert st["units"]["dagger_1"]["location"] == st["units"]["a4_1"]["location"] == "argentina"
    assert st["units"]["pucara_1"]["location"] == "port_stanley" and st["phase"] == "AR Operations"
    assert st["ops_log"]["AR"] == ["pass", 22, 2]  # "That evacuation doesn't count as an operation for the AR"
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["dagger_1"], "origin": "argentina",
                                 "destination": "port_stanley"}, "FS 7.1 Op #9")
    accepted(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_1"], "origin": "port_stanley",
                                  "destination": "goose_green"})  # Pucaras still base there


def test_fs_7_1_op_9_rebasing_after_black_buck_is_refused_naming_op_9(client, monkeypatch):
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["dagger_1"], "origin": "argentina",
                                 "destination": "port_stanley"}, "FS 7.1 Op #9")
    refused(client, game, "AR", {"kind": "operation", "op": 9}, "FS 7.1 Op #9")


def test_fs_6_2_4_goose_green_and_pebble_island_base_two_aircraft(client, monkeypatch):
    """6.2(4) "Goose Green and Pebble Island airbases can each base a total of two AR aircraft counters"."""
    def no_black_buck(st):
        st["ops_log"]["UK"].remove(9)
        st["effects"]["UK"].pop("black_buck")
    game = game_at(client, monkeypatch, "midgame", no_black_buck, at("pucara_1", "pebble_island"),
                   at("pucara_2", "argentina"))
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_2"], "origin": "argentina",
                                 "destination": "pebble_island"}, "FS 6.2(4)")
    accepted(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_2"], "origin": "argentina",
                                  "destination": "goose_green"})


def test_fs_7_1_op_16_lands_into_an_empty_area_which_the_uk_then_controls(client, monkeypatch):
    """Op #16 "into any friendly controlled land area ... or one that's presently already contested or,
    alternatively, into a land area that's devoid of both sides' ground units ... there is no immediate
    combat"; 3.6 control passes to the only side there; an enemy-held area takes Op #17."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("fearless", "falklands"),
                   at("2_para", None, aboard="fearless"), at("40_cdo", None, aboard="fearless"))
    refused(client, game, "UK", {"kind": "operation", "op": 16, "units": ["2_para"], "area": "port_stanley"},
            "FS 7.1 Op #16")
    events = accepted(client, game, "UK", {"kind": "operation", "op": 16, "units": ["2_para", "40_cdo"],
                                           "area": "san_carlos"})
    assert "BattleBegun" not in [e["type"] for e in events]
    st = state_of(client, game)
    assert st["units"]["2_para"]["location"] == "san_carlos" and st["control"]["san_carlos"] == "UK"


def test_fs_7_1_op_17_needs_an_assault_ship_and_an_enemy_area(client, monkeypatch):
    """Op #17 "you must have one or more assault ships (Intrepid and Fearless for the UK ...) in the
    Falkland Islands Sea Area ... The assault may be into any enemy controlled land area. No more than
    five steps may be landed from Fearless and Intrepid (each) in the first wave"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("canberra", "falklands"),
                   at("2_para", None, aboard="canberra"))
    refused(client, game, "UK", {"kind": "operation", "op": 17, "area": "fox_bay", "wave": ["2_para"], "fire": "auto"},
            "FS 7.1 Op #17")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("fearless", "falklands"),
                   at("2_para", None, aboard="fearless"), held("san_carlos", "UK"))
    refused(client, game, "UK", {"kind": "operation", "op": 17, "area": "san_carlos", "wave": ["2_para"],
                                 "fire": "auto"}, "FS 7.1 Op #17")


def test_fs_7_1_op_19_and_op_21_never_hit_sf(client, monkeypatch):
    """Op #19 "Neither side's SF units may ever be hit by air-to-ground attack"; Op #21 "Neither side's
    SF units may ever be hit by this kind of fire"; 10.8 "SF units may only be eliminated via SF vs. SF
    combat in Op #25, or via OP #7, or via random event 2-4". An area with SF alone is no target of
    the operation (its rule); a shot at SF in a mixed fight breaks 10.8 (the reading of
    tests/unit/falklands/test_rules_ops_14_25.py); the detail names the unit."""
    game = game_at(client, monkeypatch, "midgame", at("sas_g", "san_carlos"), held("san_carlos", "UK"))
    refused(client, game, "AR", {"kind": "operation", "op": 19, "area": "san_carlos", "aircraft": ["pucara_1"],
                                 "fire": [{"unit": "pucara_1", "at": "sas_g"}]}, "FS 7.1 Op #19")
    game = game_at(client, monkeypatch, "midgame", at("2_para", "san_carlos"), at("sas_g", "san_carlos"),
                   held("san_carlos", "UK"))
    problem = refused(client, game, "AR", {"kind": "operation", "op": 19, "area": "san_carlos",
                                           "aircraft": ["pucara_1"], "fire": [{"unit": "pucara_1", "at": "sas_g"}]},
                      "FS 10.8")
    assert "22 SAS, G Squadron" in problem["detail"], problem
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("glamorgan", "falklands"))
    refused(client, game, "UK", {"kind": "operation", "op": 21, "area": "port_stanley", "units": ["glamorgan"],
                                 "fire": [{"unit": "glamorgan", "at": "cdo_601"}]}, "FS 10.8")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("2_para", "goose_green"))
    refused(client, game, "UK", {"kind": "operation", "op": 15, "area": "goose_green", "units": ["2_para"],
                                 "fire": [{"unit": "2_para", "at": "cdo_601"}]}, "FS 10.8")


def test_fs_7_1_op_22_carries_two_uk_or_one_ar_infantry_or_sf(client, monkeypatch):
    """Op #22 "The UK player may move up to two infantry and/or SF units (total) ... The AR player may do
    the same, but his limit is one infantry or SF unit per op"."""
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": 22, "origin": "port_stanley", "destination": "fitzroy",
                                 "units": ["ri_3", "ri_6"]}, "FS 7.1 Op #22")
    refused(client, game, "AR", {"kind": "operation", "op": 22, "origin": "port_stanley", "destination": "fitzroy",
                                 "units": ["armd_10"]}, "FS 7.1 Op #22")
    accepted(client, game, "AR", {"kind": "operation", "op": 22, "origin": "port_stanley", "destination": "fox_bay",
                                  "units": ["ri_3"]})
    assert state_of(client, game)["units"]["ri_3"]["location"] == "fox_bay"
    three = [at(u, "san_carlos") for u in ("2_para", "3_para", "40_cdo")]
    game = game_at(client, monkeypatch, "midgame", uk_to_move, *three, held("san_carlos", "UK"))
    refused(client, game, "UK", {"kind": "operation", "op": 22, "origin": "san_carlos", "destination": "teal_inlet",
                                 "units": ["2_para", "3_para", "40_cdo"]}, "FS 7.1 Op #22")


def test_fs_6_2_and_7_1_op_23_load_limits(client, monkeypatch):
    """Op #23 "Load limits must be observed for all involved ships"; 6.2(1) "Every surface ship has the
    ability to transport one friendly SF unit"; 6.2(2) "Fearless and Intrepid can each carry up to five
    steps ... Elk, Fearless and Intrepid ... the only transports able to" carry the B&R; Op #23 loads
    in "the Argentine mainland" for the AR only."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("canberra", "falklands"), at("fearless", "falklands"),
                   at("b_r", "san_carlos"), at("sas_g", "san_carlos"), at("coventry", "falklands"),
                   *[at(u, "san_carlos") for u in ("2_para", "3_para", "40_cdo")], held("san_carlos", "UK"))
    refused(client, game, "UK", {"kind": "operation", "op": 23, "loads": {"b_r": "canberra"}}, "FS 6.2(2)")
    refused(client, game, "UK", {"kind": "operation", "op": 23, "loads": {"sas_g": "glamorgan"}})  # not there
    refused(client, game, "UK", {"kind": "operation", "op": 23, "loads": {"2_para": "coventry"}}, "FS 6.5")
    refused(client, game, "UK", {"kind": "operation", "op": 23,
                                 "loads": {"2_para": "fearless", "3_para": "fearless", "40_cdo": "fearless"}},
            "FS 6.2(2)")
    accepted(client, game, "UK", {"kind": "operation", "op": 23, "loads": {"b_r": "fearless", "sas_g": "coventry"}})
    st = state_of(client, game)
    assert st["units"]["b_r"]["aboard"] == "fearless" and st["units"]["sas_g"]["aboard"] == "coventry"


def test_fs_9_2_and_7_1_op_24_moves_only_into_an_adjoining_area(client, monkeypatch):
    """Op #24 "the Lafonia area is adjoining only to the Goose Green area"; 9.2 "one area entered per
    operation"."""
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "lafonia",
                                 "units": ["ri_3"]}, "FS 9.2")
    accepted(client, game, "AR", {"kind": "operation", "op": 24, "origin": "goose_green", "destination": "lafonia",
                                  "units": ["ri_12"]})
    assert state_of(client, game)["units"]["ri_12"]["location"] == "lafonia"


def test_fs_7_1_op_25_needs_sf_of_both_sides(client, monkeypatch):
    """Op #25 "You may use all the SF units you have in any one Falkland Islands land area to attack the
    enemy SF units located there"."""
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": 25, "area": "goose_green", "fire": "auto"}, "FS 7.1 Op #25")
    refused(client, game, "AR", {"kind": "operation", "op": 25, "area": "port_stanley", "fire": "auto"})


# --- pending decisions: offered to their owner, answered there --------------------------------

def test_fs_10_2_defensive_fire_is_asked_of_the_defender_alone(client, monkeypatch):
    """10.2 "In turn, each of your firing units may be fired at by one or more opposing units in that
    same battle"; docs: `defensive_fire` | the defender. The attacker cannot answer it, a wrong id is
    refused naming the decision's rule, and nothing changes until the defender answers."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("drummond", "sa4"))
    accepted(client, game, "UK", {"kind": "operation", "op": 14, "area": "sa4", "units": ["glamorgan"], "fire": "auto"})
    st = state_of(client, game)
    p = st["pending"][0]  # Drummond can fire back
    assert (p["kind"], p["seat"]) == ("defensive_fire", "AR"), p
    assert legal(client, game, "UK") == []
    refused(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"fire": "auto"}}, p["rule"])
    refused(client, game, "AR", {"kind": "decide", "decision": "nonesuch", "choice": {"fire": "auto"}}, p["rule"])
    refused(client, game, "AR", {"kind": "pass"}, p["rule"])
    refused(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": "auto"}, p["rule"])
    refused(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": {"fire": "auto", "decline": True}},
            p["rule"])
    before = len(dice(client, game))
    answer_all(client, game)
    rolls = dice(client, game)[before:]
    assert {r["seat"] for r in rolls} >= {"UK", "AR"}, rolls  # both sides' dice of the one battle
    assert not state_of(client, game)["pending"]


def test_fs_10_9_a_carriers_later_shots_are_aimed_by_the_uk_as_they_are_fired(client, monkeypatch):
    """10.9 "each time a British carrier fires ... they may fire three times ... they need not assign
    each shot beforehand. All shots would have to be taken, though, at enemy units in the same battle
    area": Hermes strikes Port Stanley's airfield (Op #13) with one shot assigned; it downs the
    Pucara, and the UK alone is asked to aim each of the two others, knowing the dice so far."""
    dice_come_up(monkeypatch, 1, 6, default=1)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("hermes", "falklands"),
                   at("dagger_1", "port_stanley"), at("dagger_2", "port_stanley"))
    accepted(client, game, "UK", {"kind": "operation", "op": 13, "carriers": ["hermes"], "airbase": "port_stanley",
                                  "fire": [{"unit": "hermes", "at": "pucara_1"}]})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"], p["rule"]) == ("carrier_shot", "UK", "FS 10.9"), p
    assert sorted(p["options"]["standing"]) == ["dagger_1", "dagger_2"] and p["options"]["shot"] == 2
    assert legal(client, game, "AR") == []
    offer = legal(client, game, "UK")[0]
    assert sorted(c["at"] for c in offer["fields"]["choice"]) == sorted(p["options"]["at"])
    for choice, rule in (({"at": "ri_3"}, "FS 10.9"), ({}, "FS 10.9"), ({"at": 5}, "FS 10.9"),
                         ({"target": "dagger_1"}, "FS 10.9")):
        refused(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": choice}, rule)
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"at": "dagger_2"}})
    p = state_of(client, game)["pending"][0]
    assert p["kind"] == "carrier_shot" and p["options"]["shot"] == 3
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"at": "dagger_1"}})
    st = state_of(client, game)
    assert not st["pending"]
    assert [st["units"][u]["eliminated"] for u in ("pucara_1", "dagger_1", "dagger_2")] == [True, True, False]
    shots = [r["units"] for r in dice(client, game) if r["rule"] == "FS 7.1 Op #13"]
    assert shots == [["hermes", "pucara_1"], ["hermes", "dagger_2"], ["hermes", "dagger_1"]]


def keep_die(client, game, seat="AR") -> dict:
    """The holder of a Decisive Leader marker keeps the die just rolled (FS 11.3 4-1/4-3 "after any
    die roll": each die is offered as it is rolled); returns the decision answered."""
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("leadership", seat), p
    accepted(client, game, seat, {"kind": "decide", "decision": p["id"], "choice": {"reroll": None}})
    return p


def test_fs_11_3_4_3_a_re_roll_after_carrier_shots_aimed_as_fired_names_the_die_it_replaces(client, monkeypatch):
    """11.3 4-3 with 10.9: the AR holds a Decisive Leader marker and is offered each of Hermes's hits
    as it is rolled (its miss, which goes his way, is not asked about); the UK aims Hermes's later
    shots (``carrier_shot``), each answer an order of its own. The AR has the third die (a hit on Dagger 1, rolled by the order that aimed it) rolled
    again: the re-roll names that die's seq (docs/rulesets.md: "a new Roll with replaces = the seq
    of the roll it replaces")."""
    dice_come_up(monkeypatch, 1, 6, 1, 6, default=6)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, ar_leader, at("hermes", "falklands"),
                   at("dagger_1", "port_stanley"), at("dagger_2", "port_stanley"))
    accepted(client, game, "UK", {"kind": "operation", "op": 13, "carriers": ["hermes"], "airbase": "port_stanley",
                                  "fire": [{"unit": "hermes", "at": "pucara_1"}]})
    assert keep_die(client, game)["options"]["reroll"][0]["at"] == "pucara_1"
    for target in ("dagger_2", "dagger_1"):
        p = state_of(client, game)["pending"][0]
        assert p["kind"] == "carrier_shot", p
        accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"at": target}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("leadership", "AR") and p["options"]["reroll"][0]["at"] == "dagger_1"
    accepted(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": {"reroll": 2}})
    rolls = dice(client, game)
    first = next(r for r in rolls if r["units"] == ["hermes", "dagger_1"] and not r.get("replaces"))
    (again,) = [r for r in rolls if r.get("replaces")]
    assert again["replaces"] == first["seq"], (again, first)
    st = state_of(client, game)
    assert [st["units"][u]["eliminated"] for u in ("pucara_1", "dagger_1", "dagger_2")] == [True, False, False]


def test_fs_7_1_op_11_interception_of_a_rebase_is_offered_to_the_uk(client, monkeypatch):
    """Op #11 "provided only that the AR action currently underway is 3 ... If the movement of those AR
    aircraft takes them into or adjacent to one or more sea areas containing UK aircraft carriers ...
    those UK units may ... interrupt the AR operation"; "Pucara and stealth aircraft ... may never be
    intercepted"."""
    def no_black_buck(st):
        st["ops_log"]["UK"].remove(9)
        st["effects"]["UK"].pop("black_buck")
    game = game_at(client, monkeypatch, "midgame", no_black_buck, at("hermes", "falklands"),
                   at("invincible", "falklands"))
    accepted(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["dagger_1"], "origin": "argentina",
                                  "destination": "goose_green"})
    st = state_of(client, game)
    assert st["pending"] and st["pending"][0]["kind"] == "interception" and st["pending"][0]["seat"] == "UK"
    assert legal(client, game, "AR") == []
    accepted(client, game, "UK", {"kind": "decide", "decision": st["pending"][0]["id"], "choice": {"fire": []}})
    answer_all(client, game)
    assert state_of(client, game)["units"]["dagger_1"]["location"] == "goose_green"  # let pass
    game = game_at(client, monkeypatch, "midgame", no_black_buck, at("hermes", "falklands"),
                   at("invincible", "falklands"), at("pucara_2", "argentina"))
    accepted(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_2"], "origin": "argentina",
                                  "destination": "goose_green"})
    assert not state_of(client, game)["pending"]  # a Pucara is never intercepted


def take_back(client, game, seat: str, other: str) -> None:
    url = f"/api/v1/games/{game.game_id}/take-backs"
    assert client.post(url, json={"reason": "misclick"}, headers=game.seats[seat]).status_code == 201
    assert client.post(f"{url}/answer", json={"accept": True}, headers=game.seats[other]).status_code == 200


def hermes_aims(client, monkeypatch):
    """Hermes's aircraft strike Port Stanley (FS 7.1 Op #13) with two Daggers there: the game and
    the UK's first carrier shot to aim (FS 10.9), the AR's leader ready to re-roll (FS 11.3 4-3): each
    of Hermes's dice hits, a die the AR may dislike."""
    dice_come_up(monkeypatch, 1, 1, 1, 6, default=6)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, ar_leader, at("hermes", "falklands"),
                   at("dagger_1", "port_stanley"), at("dagger_2", "port_stanley"))
    accepted(client, game, "UK", {"kind": "operation", "op": 13, "carriers": ["hermes"], "airbase": "port_stanley",
                                  "fire": [{"unit": "hermes", "at": "pucara_1"}]})
    keep_die(client, game)  # Hermes's first die, offered to the AR as it is rolled
    shot = state_of(client, game)["pending"][0]
    return game, shot


def test_fs_5_1_an_answer_to_a_decision_taken_back_is_refused_not_taken_for_the_one_asked_again(client, monkeypatch):
    """Hermes's aimed shot (FS 10.9) leaves the AR a leadership decision on its die (FS 11.3 4-3). The
    UK takes that shot back (FS 5.1) and aims it again, which asks the AR again: the AR's answer to the
    first leadership decision is refused, naming it as taken back and the decision now waiting."""
    game, shot = hermes_aims(client, monkeypatch)
    accepted(client, game, "UK", {"kind": "decide", "decision": shot["id"], "choice": {"at": "dagger_2"}})
    first = state_of(client, game)["pending"][0]
    assert (first["kind"], first["seat"]) == ("leadership", "AR"), first
    take_back(client, game, "UK", "AR")
    aimed = state_of(client, game)["pending"][0]  # the shot is to be aimed again, under an id of its own
    assert aimed["kind"] == shot["kind"] and aimed["id"] != shot["id"], aimed
    accepted(client, game, "UK", {"kind": "decide", "decision": aimed["id"], "choice": {"at": "dagger_1"}})
    again = state_of(client, game)["pending"][0]
    assert (again["kind"], again["seat"]) == ("leadership", "AR") and again["id"] != first["id"]
    stale = refused(client, game, "AR", {"kind": "decide", "decision": first["id"], "choice": {"reroll": 0}},
                    again["rule"])
    assert stale["code"] == "invalid_order" and stale["field"] == "decision", stale
    assert f"{first['id']!r} was taken back (FS 5.1)" in stale["detail"], stale
    assert repr(again["id"]) in stale["detail"], stale
    accepted(client, game, "AR", {"kind": "decide", "decision": again["id"],
                                  "choice": {"reroll": again["options"]["reroll"][0]["die"]}})


def test_fs_5_1_a_duplicate_of_the_answer_taken_back_sent_before_the_take_back_is_refused(client, monkeypatch):
    """The UK aims Hermes's shot (FS 10.9) and its client sends the answer twice (a second key: a
    double click, a resend after a lost answer); the first is recorded and taken back (FS 5.1).
    The duplicate, arriving after the take-back without If-Match, was taken as the answer to the
    shot asked again (201), the very answer the UK had taken back. The shot asked again now has an
    id of its own, so the duplicate is refused saying its decision was taken back, and an answer to
    the new id is taken."""
    game, shot = hermes_aims(client, monkeypatch)
    aim = {"kind": "decide", "decision": shot["id"], "choice": {"at": "dagger_2"}}
    accepted(client, game, "UK", aim)
    take_back(client, game, "UK", "AR")
    again = state_of(client, game)["pending"][0]
    assert (again["kind"], again["seat"]) == (shot["kind"], "UK") and again["id"] != shot["id"], again
    stale = refused(client, game, "UK", aim, again["rule"])
    assert stale["code"] == "invalid_order" and stale["field"] == "decision", stale
    assert f"{shot['id']!r} was taken back (FS 5.1)" in stale["detail"] and repr(again["id"]) in stale["detail"], stale
    accepted(client, game, "UK", {**aim, "decision": again["id"], "choice": {"at": "dagger_1"}})


# --- FS 11.3: random events over HTTP --------------------------------------------------------

def test_fs_11_3_1_6_poor_uk_staff_work_refuses_movement_naming_1_6(client, monkeypatch):
    """1-6 "The UK player may not conduct any air, sea or land movement during his next Operations
    Phase"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move,
                   lambda st: st["effects"]["UK"].update(poor_uk_staff_work={}))
    refused(client, game, "UK", {"kind": "operation", "op": 20, "units": ["glamorgan"], "destination": "sa6"},
            "FS 11.3 1-6")
    accepted(client, game, "UK", {"kind": "pass"})


def test_fs_11_3_4_6_and_5_1_ar_restrictions_name_their_event(client, monkeypatch):
    """4-6 "The AR player may not move or fight any aircraft units during his next Operations Phase";
    5-1 "The AR player may not conduct any kind of attack during his next Operations Phase"."""
    game = game_at(client, monkeypatch, "midgame", at("glamorgan", "falklands"),
                   lambda st: st["effects"]["AR"].update(ar_air_mechanical={}))
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["pucara_1"],
                                 "fire": "auto"}, "FS 11.3 4-6")
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_1"], "origin": "port_stanley",
                                 "destination": "argentina"}, "FS 11.3 4-6")
    game = game_at(client, monkeypatch, "midgame", at("2_para", "fitzroy"),
                   lambda st: st["effects"]["AR"].update(poor_ar_logistics={}))
    refused(client, game, "AR", {"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy",
                                 "units": ["ri_3"], "attack": True, "fire": "auto"}, "FS 11.3 5-1")
    accepted(client, game, "AR", {"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy",
                                  "units": ["ri_3"]})  # a move is no attack


def test_fs_10_5_the_stealth_aircraft_is_removed_after_its_fifth_attack(client, monkeypatch):
    """10.5 "this aircraft unit may never make more than five attacks during an entire game, after which
    it's simply removed. Keep a record on the UK Operations Remaining Track"; "this unit also may never
    be intercepted"."""
    game = game_at(client, monkeypatch, "midgame", at("glamorgan", "falklands"), at("hermes", "falklands"),
                   at("invincible", "falklands"), lambda st: st.update(stealth_attacks=4))
    accepted(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["super_etendard"],
                                  "fire": "auto"})
    assert state_of(client, game)["pending"][0]["kind"] != "interception"
    events = answer_all(client, game)
    st = state_of(client, game)
    assert st["stealth_attacks"] == 5
    unit = st["units"]["super_etendard"]
    assert unit["eliminated"] or not unit["in_play"] or unit["location"] is None, unit
    assert any(e["type"] in ("UnitWithdrawn", "UnitEliminated") and "Entendard" in e["text"] or
               "tendard" in e["text"] for e in events), [e["text"] for e in events]


# --- malformed orders: a clear 4xx, nothing changed ------------------------------------------

MALFORMED = [
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": ["nonesuch"]},
     "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "atlantis", "units": ["ri_3"]},
     "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": ["glamorgan"]},
     "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy"}, "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": "ri_3"},
     "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": ["ri_3", "ri_3"]},
     "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": 7, "units": ["ri_3"]}, "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": ["ri_3"],
      "speed": 2}, "FS 7.1 Op #24"),
    ({"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy", "units": ["ri_3"],
      "attack": "yes"}, "FS 7.1 Op #24"),
    ({"kind": "operation", "op": "24", "origin": "port_stanley", "destination": "fitzroy", "units": ["ri_3"]},
     "FS 7.1"),
    ({"kind": "operation", "op": 26}, "FS 7.1"),
    ({"kind": "operation", "op": 0}, "FS 7.1"),
    ({"kind": "operation", "op": True}, "FS 7.1"),
    ({"kind": "operation", "op": 2 ** 53 - 1}, "FS 7.1"),
    ({"kind": "operation"}, "FS 7.1"),
    ({"kind": "operation", "op": 2, "unit": "ri_2", "units": ["ri_2"]}, "FS 7.1 Op #2"),
    ({"kind": "operation", "op": 2, "unit": ["ri_2"]}, "FS 7.1 Op #2"),
    ({"kind": "operation", "op": 2, "unit": "x" * 5000}, None),
    ({"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["pucara_1"], "fire": 3}, None),
    ({"kind": "concede"}, "FS 5.2"),
    ({"kind": None}, None),
    ({}, None),
    ({"kind": "pass", "op": 3}, "FS 5.3"),
]


@pytest.mark.parametrize("order,rule", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_fs_7_1_a_malformed_operation_is_a_4xx_and_changes_nothing(client, monkeypatch, order, rule):
    """Wrong types, unknown units or areas, missing, extra and huge fields: each is a clear 4xx (naming
    the operation's rule where the order reached the rules), never a 500, and the version is unchanged."""
    game = game_at(client, monkeypatch, "midgame", at("glamorgan", "falklands"))
    problem = refused(client, game, "AR", order, rule)
    assert problem.get("detail") or problem.get("errors"), problem


def test_fs_5_1_a_token_of_another_game_or_none_orders_nothing(client, monkeypatch):
    """An order is a seat's: without its token, or with another game's, it is a 4xx and changes nothing."""
    game = game_at(client, monkeypatch, "midgame")
    other = start_game(client, {"ruleset": "falklands"})
    before = version(client, game)
    for headers in ({}, other.seats["AR"], bearer("wls_nonesuch"), game.admin):
        r = client.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "pass"},
                        headers={**headers, "Idempotency-Key": f"t{next(_keys)}"})
        assert 400 <= r.status_code < 500, r.json
    assert version(client, game) == before


# --- with the server's dice fixed: what the text says happens, on the track and in the log ----

def dice_come_up(monkeypatch, *faces: int, default: int = 1) -> None:
    """The server's dice come up ``faces``, in order, then ``default`` (a test double for
    domain.dice.face2, which the roller calls for every die; the dice audit still lists each roll)."""
    from domain import dice as dice_module
    queue = list(faces)
    monkeypatch.setattr(dice_module, "face2", lambda *args: queue.pop(0) if queue else default)


def track_entries(client, game) -> list[tuple[int, str]]:
    return [(e["delta"], e["rule"]) for e in vp_track(client, game)["track"]]


def test_fs_4_4_2_an_ar_ship_sunk_outside_the_tez_scores_the_ar_one_vp(client, monkeypatch):
    """4.4(2) "The AR player will add one or two positive VP ... for every AR ship sunk in any sea areas
    other than those within the Total Exclusion Zone"; 10.11 "When any AR unit is hit, it's
    eliminated. When a two-step UK unit is hit, place a marker on it"; 10.2 all fire simultaneous."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("drummond", "sa4"),
                   *[at(s, "sa6") for s in ("hermes", "invincible", "broadsword", "alacrity", "yarmouth", "coventry",
                                            "sheffield", "glasgow", "arrow", "antrim", "plymouth", "brilliant",
                                            "conqueror")])
    accepted(client, game, "UK", {"kind": "operation", "op": 14, "area": "sa4", "units": ["glamorgan"], "fire": "auto"})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["drummond"]["eliminated"]
    assert st["units"]["glamorgan"]["steps"] == 1  # Drummond's defensive fire hit too (10.2: simultaneous)
    assert (1, "FS 4.4(2)") in track_entries(client, game)
    audit = [r for r in dice(client, game) if r["rule"] in ("FS 7.1 Op #14", "FS 10.2")]
    assert {r["seat"] for r in audit} == {"UK", "AR"}, audit


def test_fs_4_4_3_the_belgrano_sunk_in_the_tez_scores_the_uk_two_vp(client, monkeypatch):
    """4.4(3) "The UK player will add one or two negative VP ... for every AR ship sunk within the Total
    Exclusion Zone ... The AR ships 25 de Mayo and Belgrano each yield two VP"."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("belgrano", "sa6"), at("conqueror", "sa6"))
    accepted(client, game, "UK", {"kind": "operation", "op": 14, "area": "sa6", "units": ["conqueror"],
                                  "fire": [{"unit": "conqueror", "at": "belgrano"}]})
    answer_all(client, game)
    assert state_of(client, game)["units"]["belgrano"]["eliminated"]
    assert (-2, "FS 4.4(3)") in track_entries(client, game)


def test_fs_4_4_4_and_6_5_a_sunk_transport_scores_two_and_takes_its_troops_with_it(client, monkeypatch):
    """4.4(4) "two positive VP ... whenever and wherever he sinks any of the following UK ships: ...
    Canberra"; 6.5 "if their transporting unit comes under attack ... they simply and fully share the
    fate of that transporting unit"; 10.4: with no unprotected ship there, Canberra may be attacked."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", at("canberra", "falklands"), at("42_cdo", None, aboard="canberra"))
    accepted(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["dagger_1", "dagger_2"],
                                  "fire": [{"unit": "dagger_1", "at": "canberra"}, {"unit": "dagger_2", "at": "canberra"}]})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["canberra"]["eliminated"] and st["units"]["42_cdo"]["eliminated"]
    assert (2, "FS 4.4(4)") in track_entries(client, game)


def test_fs_10_9_the_rendezvous_removes_the_conveyor_without_vp_and_gives_the_carriers_four_shots(client, monkeypatch):
    """10.9 "Prior to rendezvousing with the Atlantic Conveyor, each time a British carrier fires ...
    they may fire three times. Once they've rendezvoused with the Conveyor - which is defined as all three
    ships being in the same sea area at the end of any UK operation - that number of shots is increased
    from three to four and the Conveyor is removed from play (without yielding any VP)"."""
    dice_come_up(monkeypatch)
    edits = [uk_to_move, at("hermes", "falklands"), at("invincible", "sa6"), at("atlantic_conveyor", "sa6"),
             at("glamorgan", "falklands"), at("a4_1", "port_stanley"), at("dagger_1", "port_stanley"),
             lambda st: (st["ops_log"]["UK"].remove(9), st["effects"]["UK"].pop("black_buck"))]
    game = game_at(client, monkeypatch, "midgame", *edits)
    four = [{"unit": "hermes", "at": t} for t in ("pucara_1", "a4_1", "dagger_1", "pucara_1")]
    refused(client, game, "UK", {"kind": "operation", "op": 13, "airbase": "port_stanley", "carriers": ["hermes"],
                                 "fire": four}, "FS 10.9")
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["invincible", "atlantic_conveyor"],
                                  "destination": "falklands"})
    st = state_of(client, game)
    conveyor = st["units"]["atlantic_conveyor"]
    assert st["rendezvous"] and conveyor["location"] is None and not conveyor["eliminated"], conveyor
    assert all(rule != "FS 4.4(4)" for _, rule in track_entries(client, game))
    for seat, order in (("AR", {"kind": "pass"}), ("UK", {"kind": "submarines", "moves": {}}),
                        ("AR", {"kind": "submarines", "moves": {}})):
        accepted(client, game, seat, order)
    answer_all(client, game)  # the event dice came up 1-1: two UK operations for the price of one
    events = accepted(client, game, "UK", {"kind": "operation", "op": 13, "airbase": "port_stanley",
                                           "carriers": ["hermes"], "fire": four})
    assert "DecisionPending" not in [e["type"] for e in events]  # Op #13: "There is no AR return fire"
    st = state_of(client, game)
    assert all(st["units"][u]["eliminated"] for u in ("pucara_1", "a4_1", "dagger_1"))


def test_fs_7_1_op_13_one_or_both_carriers_no_return_fire(client, monkeypatch):
    """Op #13 "use one or both of your in-range aircraft carriers to attack the AR aircraft on the ground
    at any one Falkland Islands airbase. The attacking ships use their anti-air combat factor. There is
    no AR return fire"."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("hermes", "falklands"), at("invincible", "sa3"))
    refused(client, game, "UK", {"kind": "operation", "op": 13, "airbase": "fox_bay", "carriers": ["hermes"],
                                 "fire": "auto"}, "FS 7.1 Op #13")  # no aircraft there
    refused(client, game, "UK", {"kind": "operation", "op": 13, "airbase": "pebble_island",
                                 "carriers": ["hermes", "invincible"], "fire": "auto"}, "FS 9.3")
    events = accepted(client, game, "UK", {"kind": "operation", "op": 13, "airbase": "pebble_island",
                                           "carriers": ["hermes"], "fire": "auto"})
    assert "DecisionPending" not in [e["type"] for e in events]
    assert state_of(client, game)["units"]["pucara_3"]["eliminated"]


def test_fs_7_1_op_21_bombardment_has_no_return_fire(client, monkeypatch):
    """Op #21 "use a force of friendly surface ships already within the Falkland Islands Sea Area to
    attack enemy ground units and/or land-based aircraft in any land area on the Tactical Map. There's no
    return fire"."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("glamorgan", "falklands"))
    events = accepted(client, game, "UK", {"kind": "operation", "op": 21, "area": "fox_bay", "units": ["glamorgan"],
                                           "fire": "auto"})
    assert "DecisionPending" not in [e["type"] for e in events]
    st = state_of(client, game)
    assert st["units"]["ri_8"]["eliminated"] and st["units"]["glamorgan"]["steps"] == 2


def test_fs_7_1_op_8_regroups_a_stricken_unit_on_a_ship_or_in_a_quiet_friendly_area(client, monkeypatch):
    """Op #8 "remove the hit marker from - any one stricken ground unit. The regrouped unit must presently
    be on a UK vessel or in an uncontested and friendly controlled land area"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("2_para", "san_carlos", steps=1),
                   held("san_carlos", "UK"), at("3_para", "goose_green", steps=1))
    refused(client, game, "UK", {"kind": "operation", "op": 8, "unit": "3_para"}, "FS 7.1 Op #8")
    accepted(client, game, "UK", {"kind": "operation", "op": 8, "unit": "2_para"})
    assert state_of(client, game)["units"]["2_para"]["steps"] == 2


def test_fs_7_1_op_12_cross_decks_within_one_sea_area(client, monkeypatch):
    """Op #12 "switch around ground units from naval vessels to other naval vessels in the same sea
    area ... as long as load limits are observed"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("canberra", "sa4"), at("fearless", "sa4"),
                   at("norland", "sa3"), at("2_para", None, aboard="canberra"))
    refused(client, game, "UK", {"kind": "operation", "op": 12, "moves": {"2_para": "norland"}}, "FS 7.1 Op #12")
    accepted(client, game, "UK", {"kind": "operation", "op": 12, "moves": {"2_para": "fearless"}})
    assert state_of(client, game)["units"]["2_para"]["aboard"] == "fearless"


def test_fs_7_1_op_25_sf_fight_sf_alone(client, monkeypatch):
    """Op #25 "use all the SF units you have in any one Falkland Islands land area to attack the enemy SF
    units located there. All other units are ignored"; 10.8 "the involved SF units shoot at each other
    as if they were regular units"."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("sas_g", "mount_kent"))
    accepted(client, game, "UK", {"kind": "operation", "op": 25, "area": "mount_kent", "fire": "auto"})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["cdo_602"]["eliminated"] and st["units"]["sas_g"]["eliminated"]
    assert not st["units"]["ri_4"]["eliminated"]  # all other units are ignored


def test_fs_9_6_a_uk_move_onto_a_lone_airbase_asks_the_ar_to_rebase(client, monkeypatch):
    """Op #24 "If only enemy land-based aircraft units are located in the area moved into, they make an
    immediate emergency rebasing"; 9.6 "The AR player should move the rebasing to another friendly
    controlled or contested base area or to Argentina ... Emergency rebasing doesn't count as an
    operation"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, _goose_green_empty, at("pucara_2", "goose_green"),
                   at("2_para", "lafonia"), held("lafonia", "UK"), at("glamorgan", "falklands"))
    accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "lafonia", "destination": "goose_green",
                                  "units": ["2_para"]})
    st = state_of(client, game)
    p = st["pending"][0]
    assert (p["kind"], p["seat"]) == ("emergency_rebase", "AR") and legal(client, game, "UK") == []
    refused(client, game, "AR", {"kind": "decide", "decision": p["id"],
                                 "choice": {"destinations": {"pucara_2": "goose_green"}}}, p["rule"])
    for empty in ({}, None):  # no answer: not read as "every aircraft to Argentina"
        refused(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": empty}, p["rule"])
    accepted(client, game, "AR", {"kind": "decide", "decision": p["id"],
                                  "choice": {"destinations": {"pucara_2": "port_stanley"}}})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["pucara_2"]["location"] == "port_stanley" and st["control"]["goose_green"] == "UK"
    assert st["phase"] == "AR Operations" and st["ops_log"]["AR"] == ["pass", 22, 2]  # no AR operation spent


# --- FS 11.3 with the event dice fixed ---------------------------------------------------------

def to_the_event(client, monkeypatch, uk_die, ar_die, *edits) -> ApiGame:
    """A game at the AR Submarine phase whose event dice come up ``uk_die`` then ``ar_die``."""
    game = game_at(client, monkeypatch, "midgame", lambda st: st.update(phase="AR Submarine", active=["AR"]), *edits)
    dice_come_up(monkeypatch, uk_die, ar_die)
    return game


def test_fs_11_3_5_3_severe_weather_spends_a_uk_operation(client, monkeypatch):
    """5-3 "Mark one UK operation as having been expended with no effect. This doesn't cancel the UK
    player's next Operations Phase"."""
    game = to_the_event(client, monkeypatch, 5, 3)
    left = state_of(client, game)["uk_operations_left"]
    events = accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    assert any(e["type"] == "RandomEventDrawn" and "5-3" in e["text"] for e in events), [e["text"] for e in events]
    st = state_of(client, game)
    assert st["uk_operations_left"] == left - 1 and st["phase"] == "UK Operations"


def test_fs_11_3_1_1_two_uk_operations_for_the_price_of_one(client, monkeypatch):
    """1-1 "When next up, the UK player may conduct any two operations for the price of one. He need not
    announce his second op ahead of time"."""
    game = to_the_event(client, monkeypatch, 1, 1)
    left = state_of(client, game)["uk_operations_left"]
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["glamorgan"], "destination": "sa3"})
    st = state_of(client, game)
    assert (st["phase"], st["uk_operations_left"]) == ("UK Operations", left)
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["coventry"], "destination": "sa3"})
    st = state_of(client, game)
    assert (st["phase"], st["uk_operations_left"]) == ("AR Operations", left - 1)


def test_fs_11_3_4_5_political_pressure_two_vp_after_three_ops_without_a_landing(client, monkeypatch):
    """4-5 "The UK player must conduct an amphibious landing and/or ground attack sometime within his
    next three operations or the AR player is awarded two VP at the end of that third UK operation"."""
    game = to_the_event(client, monkeypatch, 4, 5, at("glamorgan", "falklands"))
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    dice_come_up(monkeypatch, 6, 6)  # the next event dice: 6-6, nothing to attack with
    for n in range(3):
        assert state_of(client, game)["phase"] == "UK Operations", n
        accepted(client, game, "UK", {"kind": "pass"})
        if n < 2:
            assert (2, "FS 11.3 4-5") not in track_entries(client, game)
            for seat, order in (("AR", {"kind": "pass"}), ("UK", {"kind": "submarines", "moves": {}}),
                                ("AR", {"kind": "submarines", "moves": {}})):
                accepted(client, game, seat, order)
            answer_all(client, game)
            dice_come_up(monkeypatch, 6, 6)
    assert (2, "FS 11.3 4-5") in track_entries(client, game), vp_track(client, game)


# --- more of FS 7.1's sentences: refused naming the operation, nothing changed -----------------

def test_fs_7_1_op_14_never_at_enemy_submarines(client, monkeypatch):
    """Op #14 "use your surface vessels and/or submarines to attack enemy surface vessels (but not enemy
    submarines)": a shot at a submarine is refused under Op #14 itself."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("glamorgan", "sa2"), at("drummond", "sa2"))
    refused(client, game, "UK", {"kind": "operation", "op": 14, "area": "sa2", "units": ["glamorgan"],
                                 "fire": [{"unit": "glamorgan", "at": "san_luis"}]}, "FS 7.1 Op #14")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("glamorgan", "sa2"))
    refused(client, game, "UK", {"kind": "operation", "op": 14, "area": "sa2", "units": ["glamorgan"],
                                 "fire": [{"unit": "glamorgan", "at": "san_luis"}]}, "FS 7.1 Op #14")


def test_fs_7_1_op_15_the_ar_carrier_only_and_every_unit_fires(client, monkeypatch):
    """Op #15 "along with any in-range planes and carrier (AR carrier only)"; 10.1 "Combat is voluntary
    except when Op #15 is chosen"; 10.2 "it's not allowed to withhold units"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("hermes", "falklands"), at("2_para", "goose_green"))
    refused(client, game, "UK", {"kind": "operation", "op": 15, "area": "goose_green", "units": ["2_para"],
                                 "carriers": ["hermes"], "fire": "auto"}, "FS 7.1 Op #15")
    refused(client, game, "UK", {"kind": "operation", "op": 15, "area": "goose_green", "units": ["2_para"],
                                 "fire": []}, "FS 10.2")
    refused(client, game, "UK", {"kind": "operation", "op": 15, "area": "fox_bay", "units": ["2_para"],
                                 "fire": "auto"}, "FS 7.1 Op #15")


def test_fs_7_1_op_17_only_a_uk_assault_lands_a_second_wave(client, monkeypatch):
    """Op #17 "no more than two units may be landed from Cabo San Antonio ... In a UK operation, provided at
    least one unit from the first wave survives that combat, an additional one to 10 steps may then be
    landed"."""
    edits = [at("cabo_san_antonio", "falklands"), at("ri_3", None, aboard="cabo_san_antonio"),
             at("ri_6", None, aboard="cabo_san_antonio"), at("2_para", "san_carlos"), held("san_carlos", "UK")]
    game = game_at(client, monkeypatch, "midgame", *edits)
    refused(client, game, "AR", {"kind": "operation", "op": 17, "area": "san_carlos", "wave": ["ri_3"],
                                 "fire": "auto", "second_wave": ["ri_6"]}, "FS 7.1 Op #17")
    accepted(client, game, "AR", {"kind": "operation", "op": 17, "area": "san_carlos", "wave": ["ri_3", "ri_6"],
                                  "fire": "auto"})


def test_fs_9_4_and_7_1_op_18_aircraft_the_uk_has_none_and_four_a4s_refuel(client, monkeypatch):
    """Op #18 "If you have one or more carriers in range ..." (the UK's air power; it has no aircraft
    counters, 1.2); 9.4 "up to four Argentina-based A-4 units may be designated as using aerial
    refuelling"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("hermes", "falklands"), at("drummond", "falklands"))
    refused(client, game, "UK", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["a4_1"],
                                 "carriers": ["hermes"], "fire": "auto"}, "FS 7.1 Op #18")
    game = game_at(client, monkeypatch, "midgame", at("glamorgan", "falklands"))
    five = ["a4_1", "a4_2", "a4_3", "a4_4", "dagger_1"]  # the game has four A-4 counters
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": five,
                                 "refuel": five, "fire": "auto"}, "FS 9.4")
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["dagger_1"],
                                 "refuel": ["dagger_1"], "fire": "auto"}, "FS 9.4")
    refused(client, game, "AR", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": ["dagger_1"],
                                 "refuel": ["a4_1"], "fire": "auto"}, "FS 9.4")


def test_fs_7_1_op_22_into_an_enemy_area_is_refused(client, monkeypatch):
    """Op #22 "to any other friendly controlled or contested land area in the Falklands"."""
    game = game_at(client, monkeypatch, "midgame", held("fitzroy", "UK"))
    refused(client, game, "AR", {"kind": "operation", "op": 22, "origin": "port_stanley", "destination": "fitzroy",
                                 "units": ["ri_3"]}, "FS 7.1 Op #22")
    refused(client, game, "AR", {"kind": "operation", "op": 22, "origin": "port_stanley", "destination": "argentina",
                                 "units": ["ri_3"]}, "FS 7.1 Op #22")


def test_fs_7_1_op_16_from_the_falkland_islands_sea_area_only_and_never_into_argentina(client, monkeypatch):
    """Op #16 "disembark ... ground units being transported by your ships within the Falkland Islands Sea
    Area"; 9.7 "no UK movement or combat may ever take place in that area"."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("fearless", "sa4"), at("2_para", None, aboard="fearless"))
    refused(client, game, "UK", {"kind": "operation", "op": 16, "units": ["2_para"], "area": "san_carlos"},
            "FS 7.1 Op #16")
    refused(client, game, "UK", {"kind": "operation", "op": 16, "units": ["2_para"], "area": "argentina"}, "FS 9.7")


def test_fs_11_3_6_4_the_exocet_is_the_ar_s_and_strikes_the_falklands_sea_area_only(client, monkeypatch):
    """6-4 "He selects any one UK surface vessel in the Falklands Sea Area ... If the attack is saved and
    made later, it will then count as an operation"."""
    game = game_at(client, monkeypatch, "midgame")
    refused(client, game, "AR", {"kind": "operation", "op": "exocet", "target": "glamorgan"}, "FS 11.3 6-4")
    game = game_at(client, monkeypatch, "midgame", lambda st: st.update(exocet="held"))
    refused(client, game, "AR", {"kind": "operation", "op": "exocet", "target": "glamorgan"}, "FS 11.3 6-4")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, lambda st: st.update(exocet="held"))
    refused(client, game, "UK", {"kind": "operation", "op": "exocet", "target": "glamorgan"}, "FS 11.3 6-4")


def test_fs_11_3_5_6_panache_both_ops_must_be_air_only(client, monkeypatch):
    """5-6 "The AR player may conduct two ops instead of one during his next Operations Phase, provided
    they're both ops involving only the moving and/or fighting of aircraft (Op #1 is allowed)"."""
    game = game_at(client, monkeypatch, "midgame", lambda st: st["effects"]["AR"].update(ar_air_panache={}),
                   lambda st: st["phase_ops"].update(allowed=2))
    accepted(client, game, "AR", {"kind": "operation", "op": 1, "units": ["bim_3"]})
    assert state_of(client, game)["phase"] == "AR Operations"
    refused(client, game, "AR", {"kind": "operation", "op": 24, "origin": "port_stanley", "destination": "fitzroy",
                                 "units": ["ri_3"]}, "FS 11.3 5-6")
    accepted(client, game, "AR", {"kind": "pass"})
    assert state_of(client, game)["phase"] == "UK Submarine"


# --- FS 11.3's decisions, offered to their owner over HTTP --------------------------------------

def _event_position(*edits):
    return [lambda st: st.update(phase="AR Submarine", active=["AR"]), *edits]


def test_fs_11_3_2_1_the_uk_free_attack_is_the_uk_s_to_answer_and_costs_no_operation(client, monkeypatch):
    """2-1 "The UK player may immediately conduct an attack on the AR surface ship(s) in any one presently
    contested sea area. Normal VP awards and debits pertain for each sinking. This attack doesn't count
    as using up a UK operation. Normal defensive fires are made"; 11.2 "no activated event may be
    declined"."""
    game = game_at(client, monkeypatch, "midgame", *_event_position(at("glamorgan", "falklands"),
                                                                     at("drummond", "falklands")))
    left = state_of(client, game)["uk_operations_left"]
    dice_come_up(monkeypatch, 2, 1)
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"], p["rule"]) == ("free_attack", "UK", "FS 11.3 2-1")
    assert legal(client, game, "AR") == []
    refused(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": {"area": "falklands"}}, p["rule"])
    refused(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"decline": True}}, p["rule"])
    refused(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {
        "area": "sa4", "units": ["broadsword"], "carriers": [], "aircraft": [], "fire": "auto"}}, p["rule"])  # no AR ship there
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {
        "area": "falklands", "units": ["glamorgan"], "carriers": [], "aircraft": [], "fire": "auto"}})
    assert state_of(client, game)["pending"][0]["kind"] == "defensive_fire"  # normal defensive fires
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["drummond"]["eliminated"] and st["uk_operations_left"] == left
    assert (-1, "FS 4.4(3)") in track_entries(client, game)


@pytest.mark.parametrize("die,affected,chooser,unit", [(2, "UK", "AR", "sas_g"), (5, "AR", "UK", "cdo_602")])
def test_fs_11_3_2_4_the_unaffected_player_chooses_the_compromised_sf(client, monkeypatch, die, affected, chooser, unit):
    """2-4 "The UK player rolls another die: on a result of one through three, his side is affected; on a
    four through six, the AR side is affected. The unaffected player chooses any one enemy SF unit located
    in any contested land area. The affected player must permanently remove that unit from play"."""
    game = game_at(client, monkeypatch, "midgame", *_event_position(at("sas_g", "mount_kent")))
    dice_come_up(monkeypatch, 2, 4, die)
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("sf_compromised", chooser), p
    assert legal(client, game, affected) == []
    refused(client, game, chooser, {"kind": "decide", "decision": p["id"], "choice": {"unit": "ri_4"}}, "FS 11.3 2-4")
    accepted(client, game, chooser, {"kind": "decide", "decision": p["id"], "choice": {"unit": unit}})
    st = state_of(client, game)
    assert st["units"][unit]["eliminated"]
    roll = [r for r in dice(client, game) if r["rule"] == "FS 11.3 2-4"]
    assert roll and roll[-1]["seat"] == "UK" and roll[-1]["dice"][0]["value"] == die


def test_fs_11_3_3_4_the_uk_surprise_sub_attack_has_no_ar_answer(client, monkeypatch):
    """3-4 "The UK player may attack any one AR surface vessel, protected or not, that's presently
    co-located in any sea zone with one or more UK submarines. The AR player may not respond to this
    attack with any defensive die rolls"."""
    game = game_at(client, monkeypatch, "midgame", *_event_position(at("drummond", "sa7")))
    dice_come_up(monkeypatch, 3, 4)
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("free_attack", "UK")
    before = len(dice(client, game))
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"],
                                  "choice": {"area": "sa7", "units": ["splendid"], "target": "drummond"}})
    answer_all(client, game)
    assert {r["seat"] for r in dice(client, game)[before:] if r["rule"] != "FS 11.2"} == {"UK"}
    assert state_of(client, game)["units"]["drummond"]["eliminated"]


def test_fs_11_3_6_6_the_ar_surprise_sub_attack_has_no_uk_answer_and_may_hit_a_protected_ship(client, monkeypatch):
    """6-6 "The AR player may attack any one UK surface vessel, protected or not, that's presently
    co-located in any sea zone with one or more of his AR submarines. The UK player may not respond"."""
    game = game_at(client, monkeypatch, "midgame", *_event_position())
    dice_come_up(monkeypatch, 6, 6)
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("free_attack", "AR")
    before = len(dice(client, game))
    accepted(client, game, "AR", {"kind": "decide", "decision": p["id"],
                                  "choice": {"area": "sa4", "units": ["santiago"], "target": "invincible"}})
    answer_all(client, game)
    assert {r["seat"] for r in dice(client, game)[before:] if r["rule"] != "FS 11.2"} == {"AR"}
    assert state_of(client, game)["units"]["invincible"]["steps"] == 1


def test_fs_11_3_4_1_takes_the_ar_marker_away_and_both_are_out_of_play(client, monkeypatch):
    """4-1 "If the AR player has the AR Decisive Leader marker in his possession when this event is
    activated, the effect is to take that marker away from the AR player; however, both markers are then
    out of play until rolled into effect again"."""
    from domain.rulesets.falklands.combat import LEADER_MARKER
    game = game_at(client, monkeypatch, "midgame",
                   *_event_position(lambda st: st["markers"].update(AR=[LEADER_MARKER["AR"]])))
    dice_come_up(monkeypatch, 4, 1)
    events = accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    for _ in range(2):  # "after any die roll ... he doesn't like": the event dice too, each as rolled
        p = state_of(client, game)["pending"][0]
        assert (p["kind"], p["seat"]) == ("leadership", "AR"), p
        events += accepted(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": {"reroll": None}})
    st = state_of(client, game)
    assert st["markers"] == {"UK": [], "AR": []}, (st["markers"], [e["text"] for e in events])


def test_fs_11_3_6_4_happens_once_per_game(client, monkeypatch):
    """6-4 "This event may happen only once per game; treat it as 'no event' if rolled again"."""
    game = game_at(client, monkeypatch, "midgame",
                   *_event_position(at("glamorgan", "falklands"), lambda st: st.update(exocet="used")))
    dice_come_up(monkeypatch, 6, 4)
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    st = state_of(client, game)
    assert not st["pending"] and st["phase"] == "UK Operations" and st["exocet"] == "used"


# --- FS 10: hit numbers as the dice audit shows them ------------------------------------------

def _hit_numbers(client, game, rule) -> dict[tuple[str, str], dict]:
    return {tuple(r["units"]): r["target"] for r in dice(client, game) if r["rule"] == rule}


def test_fs_10_7_10_8_10_10_hit_numbers_in_a_ground_attack_on_goose_green(client, monkeypatch):
    """10.7 "The Port Stanley and Goose Green areas have been fortified with entrenchments. UK units
    attacking in those areas do so with their hit numbers reduced by one ... those entrenchments never
    benefit UK units defending"; 10.8 "If you make a ground attack ... with a force containing SF units
    and other ground units, and your side is the only one with SF units involved, all your other ground
    units in that fight have their hit numbers increased by one ... the SF units don't themselves fire";
    10.10 "Whenever a non-armored ground unit fires at an armored unit, that firing unit's hit number is
    decreased by one". The dice audit shows each shot's hit number and why."""
    dice_come_up(monkeypatch, default=6)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("2_para", "goose_green"), at("sas_g", "goose_green"),
                   at("armd_181", "goose_green"))
    accepted(client, game, "UK", {"kind": "operation", "op": 15, "area": "goose_green", "units": ["2_para", "sas_g"],
                                  "fire": [{"unit": "2_para", "at": "armd_181"}]})
    answer_all(client, game)
    shots = _hit_numbers(client, game, "FS 7.1 Op #15")
    uk = shots[("2_para", "armd_181")]
    assert uk["hit_number"] == 4 - 1 + 1 - 1, uk  # 2 Para's 4: entrenchments, SF, armor
    assert not any(u == "sas_g" for u, _ in shots)  # the SF do not fire
    ar = [t for (u, _), t in shots.items() if u == "ri_12"]
    assert ar and ar[0] == {"hit_number": 2, "modifiers": []}, ar  # the AR defender fires at its printed 2


def test_fs_10_6_and_10_3_mountains_reduce_the_attacker_but_never_to_zero(client, monkeypatch):
    """10.6 "Units of any types, and of either side, which are attacking in an area that contains
    mountains do so with their hit numbers reduced by one. This doesn't apply to units making defensive
    fires"; 10.3 "no printed hit number of one or more may ever be reduced to zero"."""
    dice_come_up(monkeypatch, default=6)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("plymouth", "falklands"), at("glamorgan", "falklands"))
    accepted(client, game, "UK", {"kind": "operation", "op": 21, "area": "mount_kent", "units": ["plymouth", "glamorgan"],
                                  "fire": [{"unit": "plymouth", "at": "ri_4"}, {"unit": "glamorgan", "at": "ri_7"}]})
    shots = _hit_numbers(client, game, "FS 7.1 Op #21")
    assert shots[("plymouth", "ri_4")]["hit_number"] == 1, shots  # 1 - 1 stays 1
    assert shots[("glamorgan", "ri_7")]["hit_number"] == 1, shots  # 2 - 1


# --- malformed answers: a clear 4xx naming the decision's rule, nothing changed ----------------

def test_fs_7_1_op_11_10_2_and_4_1_an_answer_without_its_field_or_with_junk_is_refused(client, monkeypatch):
    """docs, Pending decisions: an interception answers {"fire": [...] / "auto"} or {"fire": []} to let the
    flight pass; a defensive fire {"fire": [...] or "auto"}; a leader {"reroll": i} or {"reroll": null}.
    An answer that leaves its field out ({} or null), or gives it a wrong value, is refused naming the
    decision's rule and changes nothing: it is never read as "pass", "auto" or "keep" in silence. Op #11
    "Pucara and stealth aircraft ... may never be intercepted"; 10.9 three shots a carrier."""
    from domain.rulesets.falklands.combat import LEADER_MARKER
    dice_come_up(monkeypatch, default=6)
    game = game_at(client, monkeypatch, "midgame", at("hermes", "falklands"), at("invincible", "falklands"),
                   at("glamorgan", "falklands"), lambda st: st["markers"].update(UK=[LEADER_MARKER["UK"]]))
    accepted(client, game, "AR", {"kind": "operation", "op": 20, "units": ["drummond"], "destination": "falklands",
                                  "attack": True, "aircraft": ["dagger_1", "pucara_1"], "fire": "auto"})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("interception", "UK")  # the land-based component of Op #20
    assert set(p["options"]["fire"]["hermes"]) == {"dagger_1"}  # never the Pucara
    for bad in ({}, None, {"fire": None}, {"fire": "AUTO"}, {"fire": 0},
                {"fire": [{"unit": "hermes", "at": "pucara_1"}]},
                {"fire": [{"unit": "glamorgan", "at": "dagger_1"}]},
                {"fire": [{"unit": "hermes", "at": "nonesuch"}]},
                {"fire": [{"unit": "hermes", "at": "dagger_1"}] * 4}):
        problem = refused(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": bad})
        assert problem["rule"] in ("FS 7.1 Op #11", "FS 10.9", "FS 10.2"), (bad, problem)
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"fire": "auto"}})
    seen = set()
    for _ in range(40):  # a leadership decision after each die (FS 11.3 4-1 "after any die roll")
        st = state_of(client, game)
        if not st["pending"]:
            break
        p = st["pending"][0]
        seen.add(p["kind"])
        if p["kind"] == "leadership":
            for bad in ({}, None, {"reroll": 99}, {"reroll": -1}, {"reroll": "0"}, {"reroll": True}):
                refused(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": bad}, p["rule"])
            accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": {"reroll": None}})
        elif p["kind"] == "defensive_fire":
            for bad in ({}, None, {"fire": None}, [{"unit": "hermes", "at": "drummond"}],
                        {"fire": [{"unit": "ri_3", "at": "drummond"}]}):
                refused(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": bad}, p["rule"])
            accepted(client, game, p["seat"], {"kind": "decide", "decision": p["id"], "choice": {"fire": "auto"}})
        else:
            raise AssertionError(p)
    assert {"leadership", "defensive_fire"} <= seen and not state_of(client, game)["pending"]


def test_fs_7_1_op_17_the_first_wave_fights_at_minus_one_and_the_second_lands_after(client, monkeypatch):
    """Op #17 "Friendly ships in that same sea area may conduct a naval bombardment of the landing area prior
    to the amphibious assault ... The units that are landed from those vessels are the only ones allowed to
    fight in that land area during this operation. When they attack, their hit numbers are reduced by one
    ... provided at least one unit from the first wave survives that combat, an additional one to 10 steps
    may then be landed"; 6.5 the carrying ship "isn't subject to fire from the enemy units defending"."""
    dice_come_up(monkeypatch, default=6)
    edits = [uk_to_move, at("fearless", "falklands"), at("canberra", "falklands"), at("glamorgan", "falklands"),
             at("40_cdo", None, aboard="fearless"), at("42_cdo", None, aboard="canberra")]
    game = game_at(client, monkeypatch, "midgame", *edits)
    accepted(client, game, "UK", {"kind": "operation", "op": 17, "area": "fox_bay", "wave": ["40_cdo"],
                                  "bombard": ["glamorgan"], "bombard_fire": "auto", "fire": "auto",
                                  "second_wave": ["42_cdo"]})
    answer_all(client, game)
    shots = _hit_numbers(client, game, "FS 7.1 Op #17")
    wave = shots[("40_cdo", "ri_8")]
    assert wave["hit_number"] == 3 and [m["value"] for m in wave["modifiers"]] == [-1], wave
    assert shots[("glamorgan", "ri_8")]["hit_number"] == 2  # the bombardment: Glamorgan's printed 2
    assert ("ri_8", "fearless") not in shots and ("ri_8", "40_cdo") in shots  # the ship is not fired at
    st = state_of(client, game)
    assert st["units"]["40_cdo"]["location"] == st["units"]["42_cdo"]["location"] == "fox_bay"


def test_fs_7_1_op_24_an_attack_after_the_move_with_friends_already_there(client, monkeypatch):
    """Op #24 "If enemy ground units are in the land area being moved into by your force, they may be
    attacked as part of this same op ... Other friendly ground units already in the land area being moved
    into may also be involved in the attack"; 9.2 one area entered per operation."""
    dice_come_up(monkeypatch)
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("2_para", "san_carlos"), held("san_carlos", "UK"),
                   at("3_para", "fox_bay"))
    refused(client, game, "UK", {"kind": "operation", "op": 24, "origin": "san_carlos", "destination": "fitzroy",
                                 "units": ["2_para"], "attack": True, "fire": "auto"}, "FS 9.2")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, at("2_para", "san_carlos"), held("san_carlos", "UK"),
                   at("3_para", "goose_green"), at("40_cdo", "goose_green"))
    accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "san_carlos", "destination": "goose_green",
                                  "units": ["2_para"], "attack": True, "support": ["3_para", "40_cdo"], "fire": "auto"})
    answer_all(client, game)
    shooters = {u for u, _ in _hit_numbers(client, game, "FS 7.1 Op #24")}
    assert {"2_para", "3_para"} <= shooters, shooters
    st = state_of(client, game)
    defenders = [u for u, x in FALKLANDS.position("midgame").state["units"].items()
                 if x["side"] == "AR" and x["location"] == "goose_green"]
    assert len(defenders) == 3 and all(st["units"][u]["eliminated"] for u in defenders)  # three shots, all 1s
    assert st["control"]["goose_green"] == "UK" and (-1, "FS 4.4(5)") in track_entries(client, game)


def test_fs_5_1_an_operation_is_redone_only_if_the_opponent_graciously_permits_it(client, monkeypatch):
    """5.1 "Once a player has finished a particular operation or other activity, he may not redo it unless
    his opponent graciously permits it": the UK asks to take its Op #20 back; it cannot answer its own
    request, the AR's orders wait, and the AR's acceptance puts the ships back and the operation on the
    track again; declined, it stands."""
    for accept in (True, False):
        game = game_at(client, monkeypatch, "midgame", uk_to_move)
        left = state_of(client, game)["uk_operations_left"]
        accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["glamorgan"], "destination": "sa3"})
        r = client.post(f"/api/v1/games/{game.game_id}/take-backs", json={"reason": "misclick"}, headers=game.seats["UK"])
        assert r.status_code == 201, r.json
        refused(client, game, "AR", {"kind": "pass"})
        own = client.post(f"/api/v1/games/{game.game_id}/take-backs/answer", json={"accept": True},
                          headers=game.seats["UK"])
        assert own.status_code == 422 and own.json["rule"] == "FS 5.1", own.json
        r = client.post(f"/api/v1/games/{game.game_id}/take-backs/answer", json={"accept": accept},
                        headers=game.seats["AR"])
        assert r.status_code == 200, r.json
        st = state_of(client, game)
        if accept:
            assert (st["units"]["glamorgan"]["location"], st["phase"], st["uk_operations_left"]) == (
                "sa4", "UK Operations", left)
        else:
            assert (st["units"]["glamorgan"]["location"], st["phase"], st["uk_operations_left"]) == (
                "sa3", "AR Operations", left - 1)
            accepted(client, game, "AR", {"kind": "pass"})


def test_fs_6_3_a_contested_base_is_used_until_the_uk_takes_it(client, monkeypatch):
    """6.3 "If an airbase area becomes contested, he may continue to use the base in that area until the
    instant the area goes over to UK control"; Op #3 "from one land area (friendly or contested) to one
    other friendly (not contested) land area"."""
    dice_come_up(monkeypatch, default=6)
    game = game_at(client, monkeypatch, "midgame", at("2_para", "port_stanley"))
    accepted(client, game, "AR", {"kind": "operation", "op": 19, "area": "port_stanley", "aircraft": ["pucara_1"],
                                  "fire": "auto"})
    answer_all(client, game)
    assert state_of(client, game)["units"]["pucara_1"]["location"] == "port_stanley"
    game = game_at(client, monkeypatch, "midgame", at("2_para", "port_stanley"))
    refused(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_3"], "origin": "pebble_island",
                                 "destination": "port_stanley"}, "FS 7.1 Op #3")
    accepted(client, game, "AR", {"kind": "operation", "op": 3, "aircraft": ["pucara_1"], "origin": "port_stanley",
                                  "destination": "goose_green"})
    assert state_of(client, game)["units"]["pucara_1"]["location"] == "goose_green"


def test_fs_4_4_1_scores_after_each_of_the_two_operations_of_1_1(client, monkeypatch):
    """4.4(1) "every time a UK operation is completed ... This VP may potentially be scored at the end of
    each UK operation"; 1-1 "any two operations for the price of one": two operations, two points."""
    superiority = [uk_to_move, lambda st: st["phase_ops"].update(free=1, allowed=2),
                   lambda st: st["effects"]["UK"].update(uk_operational_superiority={"event": "1-1"})]
    game = game_at(client, monkeypatch, "midgame", *superiority)
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["glamorgan"], "destination": "sa3"})
    assert track_entries(client, game) == [(1, "FS 4.4(1)")]
    accepted(client, game, "UK", {"kind": "operation", "op": 20, "units": ["coventry"], "destination": "sa3"})
    assert track_entries(client, game) == [(1, "FS 4.4(1)"), (1, "FS 4.4(1)")]


def test_fs_11_3_5_3_severe_weather_on_the_last_operation_ends_the_game(client, monkeypatch):
    """5-3 "Mark one UK operation as having been expended"; 5.3 "When the UK player has used up his last
    operation, immediately stop play"; 4.2 without Port Stanley the AR wins."""
    game = to_the_event(client, monkeypatch, 5, 4, lambda st: st.update(uk_operations_left=1))
    accepted(client, game, "AR", {"kind": "submarines", "moves": {}})
    st = state_of(client, game)
    assert st["uk_operations_left"] == 0 and st["ended"]["winner"] == "AR" and st["ended"]["rule"] == "FS 4.2"
    refused(client, game, "UK", {"kind": "pass"})


def test_fs_9_6_an_emergency_rebasing_dagger_may_be_intercepted_a_pucara_never(client, monkeypatch):
    """9.6 "Emergency rebasing doesn't count as an operation, but aircraft other than Pucaras and stealth are
    subject to interception when performing it. Rebasing destinations may be decided on by the AR player on
    a unit-by-unit basis"; Op #11 the UK's carriers "into any area of the Tactical Map while UK aircraft
    carriers are in range of that map"."""
    def no_black_buck(st):
        st["ops_log"]["UK"].remove(9)
        st["effects"]["UK"].pop("black_buck")
    game = game_at(client, monkeypatch, "midgame", uk_to_move, no_black_buck, _goose_green_empty,
                   at("dagger_1", "goose_green"), at("pucara_2", "goose_green"), at("2_para", "lafonia"),
                   held("lafonia", "UK"), at("hermes", "falklands"), at("invincible", "falklands"))
    accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "lafonia", "destination": "goose_green",
                                  "units": ["2_para"]})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("emergency_rebase", "AR")
    accepted(client, game, "AR", {"kind": "decide", "decision": p["id"], "choice": {
        "destinations": {"dagger_1": "argentina", "pucara_2": "port_stanley"}}})
    p = state_of(client, game)["pending"][0]
    assert (p["kind"], p["seat"]) == ("interception", "UK"), p
    targets = {t for ts in p["options"]["fire"].values() for t in ts}
    assert targets == {"dagger_1"}, p["options"]
    accepted(client, game, "UK", {"kind": "decide", "decision": p["id"], "choice": {"fire": []}})
    answer_all(client, game)
    st = state_of(client, game)
    assert st["units"]["dagger_1"]["location"] == "argentina" and st["units"]["pucara_2"]["location"] == "port_stanley"
    assert st["ops_log"]["AR"] == ["pass", 22, 2]


def test_fs_10_2_an_answer_sent_again_for_an_answered_decision_is_refused_not_taken_for_the_next(client, monkeypatch):
    """docs/rulesets.md, Pending decisions: each decision's id is unique in the game. Two UK operations
    in one phase (FS 11.3 1-1) each ask the AR's defensive fire; the AR's answer to the first, sent
    again while the second waits, is refused under the waiting decision's rule, as an unknown id is."""
    def two_ops(state):
        state["phase_ops"] = {"allowed": 2, "done": 0, "free": 0}
    game = game_at(client, monkeypatch, "midgame", uk_to_move, two_ops, at("drummond", "sa4"))
    dice_come_up(monkeypatch, default=6)  # every shot misses: Drummond is there for the second strike
    strike = {"kind": "operation", "op": 14, "area": "sa4", "units": ["glamorgan"], "fire": "auto"}
    accepted(client, game, "UK", strike)
    first = state_of(client, game)["pending"][0]
    assert first["kind"] == "defensive_fire" and legal(client, game, "AR")[0]["decision"] == first["id"]
    late = {"kind": "decide", "decision": first["id"], "choice": {"fire": "auto"}}
    accepted(client, game, "AR", late)
    accepted(client, game, "UK", strike)
    second = state_of(client, game)["pending"][0]
    assert second["kind"] == "defensive_fire" and second["id"] != first["id"]
    before = version(client, game)
    problem = refused(client, game, "AR", late, second["rule"])
    assert problem.get("field", "decision") == "decision", problem
    assert version(client, game) == before
    accepted(client, game, "AR", {**late, "decision": legal(client, game, "AR")[0]["decision"]})
