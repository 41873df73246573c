"""An examiner's STF campaign over HTTP, as a scenario author plays it: the one Player's orders sent
through Flask's test client on SQLite, the GameSystem's part (its dice, its questions) read back
through the projections (state, version, dice audit, VP, history).

What is checked here, beside tests/api/test_examiner_documented_orders.py (the documented order
formats) and tests/api/test_stf_campaign.py (a whole campaign to its end):

- an order the text forbids, or a malformed one, is a 4xx problem naming the rule (STF ids as
  rulebook.py spells them), in every phase of a campaign, and changes nothing: the game's version
  and its state are the same after it;
- every die the server rolls for the campaign is in the dice audit with the rule (or table) it is
  rolled for;
- the GameSystem's question of STF 11.2 (an SSM wave's result, which only the base game gives) is
  offered by legal-orders and answered through the API; a wrong answer is refused naming STF 11.2.
"""

from __future__ import annotations

import random
import re

import pytest

from domain.rulesets import find_ruleset
from domain.rulesets.stf import maps
from domain.rulesets.stf import play as splay
from tests.api.test_examiner_documented_orders import (accepted, legal, play_stf_until, sandbox, send, state_of,
                                                       stf_combat_position, stf_game, types)

STF = find_ruleset("stf")
RULE_IDS = set(STF.coverage()["rules"])
BIG = 2 ** 63  # beyond any whole number a JSON body may carry (docs/api.md: ±2**53 − 1)


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


def version(client, game) -> int:
    return client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Player"]).json["version"]


def play_until(client, game, player, done, most=600) -> dict:
    """The random Player's offered orders (domain/rulesets/stf/play.py) until ``done(state)``."""
    return play_stf_until(client, game, done, most=most, player=player)


def all_events(client, game) -> list[dict]:
    out, after = [], 0
    while after is not None:
        page = client.get(f"/api/v1/games/{game.game_id}/events?after={after}&limit=500",
                          headers=game.seats["Player"]).json
        out += page["events"]
        after = page["next_after"]
    return out


def refused_changes_nothing(client, game, order, rule=None, field=None) -> dict:
    """``order`` is a 4xx problem naming an STF rule id (``rule`` if given, and ``field``), and the
    game's version and state are as they were."""
    before, st = version(client, game), state_of(client, game, "Player")
    r = send(client, game, "Player", order)
    assert 400 <= r.status_code < 500, (order, r.status_code, r.json)
    assert r.headers["Content-Type"].startswith("application/problem+json")
    problem = r.json
    if problem["code"] in ("rule_violation", "invalid_order"):
        assert problem["rule"] in RULE_IDS, (order, problem)
        assert problem["detail"].startswith(problem["rule"] + ":"), problem
    else:  # a body no order can be (a number beyond JSON's safe range): refused before the rules
        assert problem["code"] == "invalid_request" and rule is None, (order, problem)
    if rule is not None:
        assert problem["rule"] == rule, (order, problem)
    if field is not None:
        assert problem.get("field") == field, (order, problem)
    assert version(client, game) == before, order
    assert state_of(client, game, "Player") == st, order
    return problem


def test_stf_6_7_refused_and_malformed_orders_are_4xx_naming_the_rule_and_change_nothing(client):
    """STF 6.7 "the player always goes first in each phase": an order of another phase is refused
    naming its kind's rule; a malformed field names the field; a forbidden one the rule it breaks
    (STF 1.1, 1.7, 2.2, 2.6, 6.1, 7.1, 8.2, 8.3, 10.1, 11.1, 11.7, 9.8). Nothing is recorded: the
    version and the state are unchanged, at each phase of a campaign."""
    game = stf_game(client)
    for order, rule, field in [
        ({"kind": "campaign", "map": 3, "side": "US"}, "STF 1.1", "map"),
        ({"kind": "campaign", "map": "giuk", "side": None}, "STF 1.1", "side"),
        ({"kind": "campaign", "map": "giuk", "side": "US", "airbases": "Keflavik"}, "STF 2.2", "airbases"),
        ({"kind": "campaign", "map": "giuk", "side": "US", "sides": "US"}, "STF 1.1", "sides"),
        ({"kind": "move", "group": "P1", "path": ["0101"]}, "STF 7.1", None),  # not the Campaign phase
        ({"kind": "end_phase"}, "STF 6.7", None),
        ({"kind": "decide", "decision": "x", "choice": 1}, "STF 6.7", None),  # nothing is pending
        ({"kind": "nope"}, "STF 6.7", "kind"),
        ({"kind": None}, None, None),
        ({}, None, None),
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    accepted(client, game, "Player", {"kind": "campaign", "map": "giuk", "side": "Soviet"})
    player = splay.RandomPlayer(random.Random(11))
    play_until(client, game, player, lambda s: s["phase"] == "Forces" and not s["pending"])
    for order, rule, field in [
        ({"kind": "draw_carriers", "n": 3}, "STF 1.7", "n"),
        ({"kind": "deploy", "group": "P1", "megahex": 1}, "STF 6.1", None),
        ({"kind": "end_phase"}, "STF 6.7", None),
        ({"kind": "buy", "sosus": BIG}, None, None),
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    st = play_until(client, game, player, lambda s: s["phase"] == "Deployment")
    mine = sorted(g for g, x in st["groups"].items() if x.get("owner") == "Player")
    offered = next(o for o in legal(client, game, "Player") if o.get("group") == mine[0])
    foreign = next(h for m in maps.megahex_numbers("giuk") if m != offered["megahex"]
                   for h in maps.sea_hexes_of("giuk", m))
    for order, rule, field in [
        ({"kind": "deploy", "group": mine[0], "megahex": "46"}, "STF 6.1", "megahex"),
        ({"kind": "deploy", "group": "P99", "megahex": offered["megahex"]}, "STF 6.1", "group"),
        ({"kind": "deploy", "group": "TF1", "megahex": offered["megahex"]}, "STF 6.1", "group"),
        ({"kind": "deploy", "group": mine[0], "megahex": offered["megahex"], "hex": "9999"}, "STF 6.1", None),
        ({"kind": "deploy", "group": mine[0], "megahex": offered["megahex"], "hex": foreign}, "STF 6.1", None),
        ({"kind": "deploy", "group": mine[0], "megahex": offered["megahex"], "hex": 1810}, "STF 6.1", None),
        ({"kind": "deploy_done", "x": 1}, "STF 6.1", "x"),
        ({"kind": "deploy", "group": mine[0], "megahex": BIG}, None, None),
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    st = play_until(client, game, player, lambda s: s["phase"] == "Movement" and not s["pending"])
    g = next(g for g in mine if st["groups"][g].get("hex"))
    here = st["groups"][g]["hex"]
    system = sorted(x for x, v in st["groups"].items() if v.get("owner") == "system" and v.get("hex"))
    for order, rule, field in [
        ({"kind": "move", "group": g, "path": []}, "STF 7.1", "path"),
        ({"kind": "move", "group": g, "path": "1811"}, "STF 7.1", "path"),
        ({"kind": "move", "group": g, "path": [here]}, "STF 7.1", None),  # not adjacent to itself
        ({"kind": "move", "group": g, "path": ["9999"]}, "STF 7.1", "path"),
        ({"kind": "move", "group": g, "path": [1811]}, "STF 7.1", "path"),
        ({"kind": "move", "group": system[0], "path": [here]}, "STF 7.1", "group"),  # the GameSystem's
        ({"kind": "move", "group": "nope", "path": [here]}, "STF 7.1", "group"),
        ({"kind": "move", "group": g}, "STF 7.1", "path"),
        ({"kind": "search", "group": system[0], "search_value": 3}, "STF 8.3", None),  # the Patrol phase's
        ({"kind": "ssm", "target": system[0]}, "STF 11.1", None),
        ({"kind": "end_phase", "extra": True}, "STF 6.7", "extra"),
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    st = play_until(client, game, player, lambda s: s["phase"] == "Patrol" and not s["pending"])
    # a contact still to search: one Precisely identified (8.14, by a subron near it) is refused under
    # 8.7 before its search value is read, and the campaign's dice decide whether there is one
    system = sorted(x for x, v in st["groups"].items() if v.get("owner") == "system" and v.get("hex")
                    and v.get("intel") != "precise")
    for order, rule, field in [
        ({"kind": "search", "group": "nope", "search_value": 3}, "STF 8.2", "group"),
        ({"kind": "search", "group": g, "search_value": 3}, "STF 8.2", None),  # the Player's own group
        ({"kind": "search", "group": system[0]}, "STF 8.3", "search_value"),
        ({"kind": "search", "group": system[0], "search_value": True}, "STF 8.3", "search_value"),
        ({"kind": "search", "group": system[0], "search_value": 21}, "STF 8.3", None),
        ({"kind": "search", "group": system[0], "search_value": BIG}, None, None),
        ({"kind": "report", "sunk": []}, "STF 11.1", None),  # the Strike or Combat phase's
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    play_until(client, game, player, lambda s: s["phase"] == "Strike" and not s["pending"])
    for order, rule, field in [
        ({"kind": "air_strike"}, "STF 10.1", "from"),
        ({"kind": "air_strike", "from": "nope", "target": "nope"}, "STF 10.1", None),
        ({"kind": "placement"}, "STF 11.7", "group"),
        ({"kind": "report", "sunk": [1]}, "STF 11.1", "sunk"),
        ({"kind": "report", "hits": []}, "STF 11.1", "hits"),
        ({"kind": "report", "sunk": ["nope"]}, "STF 11.1", None),
        ({"kind": "report", "airbase_hits": {"nope": 3}}, "STF 9.4", None),
        ({"kind": "report", "hits": {"x": BIG}}, None, None),
    ]:
        refused_changes_nothing(client, game, order, rule, field)
    play_until(client, game, player, lambda s: s["phase"] == "Combat" and not s["pending"])
    for order, rule, field in [
        ({"kind": "ssm", "target": "nope"}, "STF 11.1", "target"),
        ({"kind": "bombard"}, "STF 9.8", "from"),
        ({"kind": "bombard", "unit": "nope", "target": "nope"}, "STF 9.8", "unit"),
    ]:
        refused_changes_nothing(client, game, order, rule, field)




def test_stf_6_7_every_die_of_a_campaign_is_the_servers_and_names_its_rule_in_the_dice_audit(client):
    """"the GameSystem" rolls every die of the campaign (docs/rulesets.md: the server rolls every
    die): each roll in the dice audit (`GET …/dice`) names the rule it is rolled for, an STF rule id
    (the search ladder's roll the one of 8.3-8.7 its result read), its line says so, and a roll on a table names the table; once turn 1 begins the set-up's dice are
    revealed and verified."""
    game = stf_game(client)
    play_until(client, game, splay.RandomPlayer(random.Random(7)), lambda s: s["turn"] >= 3)
    audit = client.get(f"/api/v1/games/{game.game_id}/dice", headers=game.seats["Player"]).json
    rolls = audit["rolls"]
    assert len(rolls) > 30
    events = all_events(client, game)
    assert len(rolls) == sum(1 for e in events if e["type"] == "DiceRolled")
    rules = set()
    for r in rolls:
        rule = r["rule"]
        assert rule in RULE_IDS, r
        assert r["seat"] in ("system", "Player") and r["text"].endswith(f"({rule})"), r
        if (r.get("target") or {}).get("table"):
            assert r["target"]["table"] in r["text"], r
        rules.add(rule)
        if r["turn"] == 0:  # the campaign's generation, revealed when turn 1 began
            assert r["status"] == "verified", r
    assert {"STF 1.2", "STF 1.5", "STF 6.2"} <= rules, rules  # the mission, the commitment, deployment


def _combat_question(client):
    """A campaign played by the random Player until the GameSystem asks for a combat result."""
    for seed in range(3, 40):
        game = stf_game(client)
        st = play_until(client, game, splay.RandomPlayer(random.Random(seed)),
                        lambda s: (bool(s["pending"]) and s["pending"][0]["kind"] == "combat") or s["turn"] > 4)
        if st["pending"] and st["pending"][0]["kind"] == "combat" and st["pending"][0]["rule"] == "STF 11.2":
            return game, st
    pytest.fail("no campaign reached an SSM wave")


def test_stf_11_2_the_ssm_wave_question_is_offered_and_answered_over_http(client):
    """STF 11.2: "a GameSystem task force or subron will fire every SSM it can, in waves … targeting
    Freighters, BB, CG, DD, FF and PC in that order": the server fires each wave (SystemActs "SSM
    wave", its entry sector rolled by 1D6) and asks the Player what the base game's missiles did.
    The question is a pending decision that legal-orders offers one template per answer; wrong
    answers are refused naming STF 11.2 and change nothing; the answer "it sank the target" sinks
    the unit (ResultDeclared and UnitChanged naming STF 11.2, the rule it was asked under) and
    scores its VP on the GameSystem's track (STF 12.4: the Player's losses)."""
    game, st = _combat_question(client)
    p = st["pending"][0]
    offer = legal(client, game, "Player")
    assert [o["choice"] for o in offer] == p["options"]["choices"], (offer, p)
    assert all(o["kind"] == "decide" and o["decision"] == p["id"] for o in offer)
    waves = [e for e in all_events(client, game) if e["type"] == "SystemActs" and e["data"]["what"] == "SSM wave"]
    aim = waves[-1]["data"]["detail"]["target"]
    assert {"sunk": aim} in p["options"]["choices"] and aim in p["prompt"] and p["prompt"].endswith("(STF 11.2)")
    for order, field in [
        ({"kind": "decide", "decision": p["id"], "choice": {"sunk": "nope"}}, None),
        ({"kind": "decide", "decision": p["id"], "choice": "x"}, "choice"),
        ({"kind": "decide", "decision": p["id"], "choice": {"sunk": None, "x": 1}}, "choice"),
        ({"kind": "decide", "decision": p["id"]}, "choice"),
        ({"kind": "decide", "decision": "combat-999", "choice": {"sunk": None}}, "decision"),
        ({"kind": "declare", "decision": p["id"], "value": "none"}, None),
        ({"kind": "end_phase"}, None),
        ({"kind": "report", "sunk": [aim]}, None),
    ]:
        refused_changes_nothing(client, game, order, "STF 11.2", field)
    vp = client.get(f"/api/v1/games/{game.game_id}/vp", headers=game.seats["Player"])
    assert vp.status_code == 200
    before = st["vp"]["system"]
    fork = sandbox(client, game, "Player")
    events = accepted(client, fork, "Player", {"kind": "decide", "decision": p["id"], "choice": {"sunk": aim}})
    assert types(events)[:3] == ["OrderAccepted", "DecisionResolved", "ResultDeclared"], types(events)
    sunk = [e for e in events if e["type"] == "UnitChanged" and e["data"]["unit"] == aim]
    assert sunk and sunk[0]["data"]["changes"] == {"sunk": True}, events
    scored = [e["data"] for e in events if e["type"] == "VPScored"]
    assert [(v["side"], v["delta"], v["rule"]) for v in scored] == [("system", st["units"][aim]["vp"], "STF 12.4")], scored
    after = state_of(client, fork, "Player")
    assert after["units"][aim]["sunk"] and after["vp"]["system"] == before + st["units"][aim]["vp"]
    assert events[2]["data"]["decision"] == p["id"]  # the result names the question it answers
    # and the rule it was asked under (STF 11.2's wave, not the report order's STF 11.1)
    assert events[2]["data"]["rule"] == sunk[0]["data"]["rule"] == "STF 11.2", (events[2], sunk)
    assert all(d["id"] != p["id"] for d in after["pending"]), (p["id"], after["pending"])  # the next is another
    events = accepted(client, game, "Player", {"kind": "decide", "decision": p["id"], "choice": {"sunk": None}})
    after = state_of(client, game, "Player")
    assert not after["units"][aim].get("sunk") and after["vp"]["system"] == before
    resolved = [e["data"] for e in events if e["type"] == "DecisionResolved"]
    assert resolved and resolved[0]["decision_id"] == p["id"], resolved
    assert all(d["id"] != p["id"] for d in after["pending"]), (p["id"], after["pending"])  # the next is another
    # the question answered is gone: its id, sent again, answers nothing now
    late = send(client, game, "Player", {"kind": "decide", "decision": p["id"], "choice": {"sunk": None}})
    assert late.status_code == 422, late.json


def test_stf_6_7_every_question_of_a_campaign_has_an_id_of_its_own(client):
    """docs/rulesets.md, Answers: an answer names the decision it answers ("a wrong decision id is
    invalid_order"). Over a campaign the GameSystem asks many questions (the random event each
    turn, STF 5.1; each SSM wave, gunnery round and torpedo attack, STF 11.2, 11.3, 11.6): each
    has an id no other question of the game has, so an answer sent for one is never taken for
    another, and the ResultDeclared of each answer names its question."""
    game, _ = _combat_question(client)
    play_until(client, game, splay.RandomPlayer(random.Random(5)), lambda s: s["turn"] >= 5)
    events = all_events(client, game)
    ids = [e["data"]["decision"]["id"] for e in events if e["type"] == "DecisionPending"]
    # questions of one kind asked again (a declare each turn, until the campaign ends) and a combat's
    assert sum(i.startswith("declare-") for i in ids) >= 2 and any(i.startswith("combat-") for i in ids), ids
    assert len(ids) == len(set(ids)), sorted(ids)
    answered = [e["data"]["decision"] for e in events if e["type"] == "ResultDeclared" and e["data"].get("decision")]
    assert len(answered) == len(set(answered)) and set(answered) <= set(ids), answered


def _terminal_with_losses(client, monkeypatch, case: str):
    """Turn 2's Terminal phase of a real campaign, one more GameSystem ship (a DD of 100 VP) recorded
    sunk and the GameSystem's commitment on the 1.5 table set from the retirement index I and net
    losses N it then has: "exceeds" (2I − 1: the limit I − 0.5 is exceeded, N is under 66%),
    "heavy" (N·100/66 rounded down: N reaches 66%) or "at" (2I: the index equals the limit)."""
    from domain.rulesets.stf import retirement

    def edit(state):
        state["campaign"].pop("system_retiring", None)
        state["units"]["examiner-dd"] = {"id": "examiner-dd", "class": "DD", "name": "Examiner", "nation": "Soviet",
                                         "vp": 100, "owner": "system", "group": None, "sunk": True}
        i, n = retirement.index(state), retirement.net_vp(state)
        c = {"exceeds": 2 * i - 1, "heavy": n * 100 // 66, "at": 2 * i}[case]
        state["campaign"]["commitment_table"] = {**state["campaign"].get("commitment_table", {}), "system": c}
        assert (retirement.index(state) > retirement.limit(state)) == (case != "at")
        assert (n * 100 >= c * 66) == (case == "heavy")
    return stf_combat_position(client, monkeypatch, edit, phase="Terminal",
                               wanted=lambda st: not st["campaign"].get("system_retiring"))


@pytest.mark.parametrize("case,rule,retire_on", [("exceeds", "STF 12.5", {1}), ("heavy", "STF 12.6", {1, 2, 3, 4, 5})])
def test_stf_12_5_12_6_the_terminal_phase_retirement_die_over_http(client, monkeypatch, case, rule, retire_on):
    """STF 12.5: "In the Terminal Phase of each turn that the retirement index exceeds the retirement
    limit, roll 1D6. If the result is a '1' then the all the GameSystem units retire"; 12.6: "If net
    GameSystem losses reach 66% of their original commitment, then retirement will commence on any
    die roll except a '6'"; 12.2: the limit is 50% of the 1.5 commitment. The Player ends the
    Terminal phase; the server rolls the die (seat system, the dice audit names the rule) and the
    log shows what the die decided."""
    game = _terminal_with_losses(client, monkeypatch, case)
    events = accepted(client, game, "Player", {"kind": "end_phase"})
    rolls = [e["data"] for e in events if e["type"] == "DiceRolled" and e["data"]["purpose"] == "retirement"]
    assert len(rolls) == 1 and rolls[0]["seat"] == "system" and rolls[0]["rule"] == rule, rolls
    value = rolls[0]["dice"][0]["value"]
    checks = [e["data"] for e in events if e["type"] == "SystemActs" and e["data"]["what"] == "retirement check"]
    assert checks and checks[0]["rule"] == rule and checks[0]["detail"]["retire"] == (value in retire_on), checks
    retiring = [e["data"] for e in events if e["type"] == "CampaignFixed" and e["data"]["key"] == "system_retiring"]
    assert bool(retiring) == (value in retire_on), (value, retiring)
    st = state_of(client, game, "Player")
    on_map = [g for g in st["groups"].values() if g.get("owner") == "system" and g.get("status") == "on map"]
    if value in retire_on:
        assert all(g.get("retiring") for g in on_map), on_map
    audit = client.get(f"/api/v1/games/{game.game_id}/dice", headers=game.seats["Player"]).json["rolls"]
    assert [r["rule"] for r in audit if r["purpose"] == "retirement"] == [rule]


def test_stf_12_5_no_retirement_die_while_the_index_does_not_exceed_the_limit(client, monkeypatch):
    """STF 12.5 "each turn that the retirement index exceeds the retirement limit": an index equal
    to the limit does not exceed it: no die is rolled."""
    game = _terminal_with_losses(client, monkeypatch, "at")
    events = accepted(client, game, "Player", {"kind": "end_phase"})
    assert not [e for e in events if e["type"] == "DiceRolled" and e["data"]["purpose"] == "retirement"]
    assert not [e for e in events if e["type"] == "SystemActs" and e["data"]["what"] == "retirement check"]


def test_stf_12_4_the_last_terminal_phase_ends_the_campaign_on_the_net_vp_and_nothing_is_taken_after(client,
                                                                                                  monkeypatch):
    """The end (docs/rulesets.md, STF "the end"): after the Terminal phase of the last turn
    (data/sequence.json `length.turns`) `GameEnded` with the level read off the net VP of STF 12.4
    ("adding all GameSystem losses and subtracting all player losses": the Player's track less the
    GameSystem's). After it every order is a 4xx and changes nothing."""
    from domain.rulesets.stf.turn import SEQUENCE
    last = SEQUENCE["length"]["turns"]

    def edit(state):
        state["turn"] = last
    game = stf_combat_position(client, monkeypatch, edit, phase="Terminal")
    st = state_of(client, game, "Player")
    net = st["vp"]["Player"] - st["vp"]["system"]
    level = next(lv for lv in SEQUENCE["victory"]["levels"] if net >= lv["net_vp_at_least"])
    events = accepted(client, game, "Player", {"kind": "end_phase"})
    ended = [e["data"] for e in events if e["type"] == "GameEnded"]
    assert ended and ended[0]["rule"] == "STF 12.4" and ended[0]["level"] == level["level"], (ended, level)
    assert ended[0]["winner"] == level["winner"]
    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Player"]).json
    assert summary["status"] == "ended" and summary["ended"]["level"] == level["level"]
    before = version(client, game)
    for order in ({"kind": "end_phase"}, {"kind": "move", "group": "P1", "path": ["0101"]}):
        r = send(client, game, "Player", order)
        assert 400 <= r.status_code < 500, r.json
    assert version(client, game) == before
    assert legal(client, game, "Player") == []


@pytest.mark.parametrize("rules,rule", [({"STF 8.14": 1}, "STF 8.14"), ({"STF 8.15": 1}, "STF 8.15")])
def test_stf_8_14_8_15_an_action_lost_is_one_move_fewer_over_http(client, monkeypatch, rules, rule):
    """STF 8.14 "the player task force loses one action in the following turn for each task force or
    subron revealed in this manner"; 8.15 "the player loses one action in the following turn".
    With one action lost in turn 2 and N Player groups on the map, N − 1 move; the N-th move is
    refused naming the rule that cost it, legal-orders offers no more moves, and nothing changes."""
    def edit(state):
        state["campaign"]["actions_lost"] = {"turn": 2, "count": 1, "rules": rules}
    game = stf_combat_position(client, monkeypatch, edit, phase="Movement",
                               wanted=lambda st: sum(1 for g in st["groups"].values() if g.get("owner") == "Player"
                                                     and g.get("hex") and g.get("moved") != 2) >= 2)
    st = state_of(client, game, "Player")
    mine = [g for g, x in sorted(st["groups"].items()) if x.get("owner") == "Player"]
    movable = [g for g in mine if st["groups"][g].get("hex")]
    may = len(mine) - 1
    moved = 0
    for g in movable:
        if moved == may:
            break
        offer = next((o for o in legal(client, game, "Player") if o["kind"] == "move" and o["group"] == g), None)
        if offer is None:
            continue
        accepted(client, game, "Player", {"kind": "move", "group": g, "path": offer["path"]})
        moved += 1
    left = [g for g in movable if state_of(client, game, "Player")["groups"][g].get("moved") != 2]
    if moved < may or not left:
        pytest.skip("no group left to move in this campaign")
    here = state_of(client, game, "Player")["groups"][left[0]]["hex"]
    step = maps.sea_neighbours(st["campaign"]["map"], here)[0]
    problem = refused_changes_nothing(client, game, {"kind": "move", "group": left[0], "path": [step]}, rule)
    assert "lost 1 action" in problem["detail"], problem
    assert not [o for o in legal(client, game, "Player") if o["kind"] == "move"]


def test_stf_2_2_the_airbases_question_takes_at_most_two_over_http(client):
    """STF 2.2 "A player may not have more than two land airbases"; 2.5 lists the US/NATO airbases of
    the Mediterranean (five). With more than two and none named, the campaign order stops on a
    question legal-orders offers as every answer it takes (each pair, each single airbase, none:
    16, or 11 when 1.11 bars one); the answer may be a pair (in either order), one airbase, or none. More than two, one twice, one of the other side (Benghazi: STF 2.5) or no
    list of names is refused and changes nothing."""
    game = stf_game(client)
    accepted(client, game, "Player", {"kind": "campaign", "map": "mediterranean", "side": "US"})
    st = state_of(client, game, "Player")
    p = st["pending"][0]
    assert (p["kind"], p["rule"], st["phase"]) == ("airbases", "STF 2.2", "Campaign"), p
    assert p["prompt"].endswith("(STF 2.2)"), p  # the history's "Waiting for Player: …" line names the rule
    offer = legal(client, game, "Player")
    assert [o["choice"] for o in offer] == p["options"]["choices"]
    # The five, less one 1.11 bars when the invasion target rolled is next to it (a die of the campaign).
    bases = [o["choice"][0] for o in offer if len(o["choice"]) == 1]
    assert len(bases) in (4, 5) and len(offer) == len(bases) * (len(bases) - 1) // 2 + len(bases) + 1, offer
    assert [o["choice"] for o in offer if len(o["choice"]) == 2] == \
        [[a, b] for i, a in enumerate(bases) for b in bases[i + 1:]] and offer[-1]["choice"] == []
    first, second, third = bases[:3]
    for choice, rule, field in [([first, second, third], "STF 2.2", None), ([first, first], "STF 2.2", None),
                                ([first, "Benghazi"], "STF 2.5", None), (first, "STF 2.2", None),
                                ({"airbases": [first]}, "STF 2.2", None), (None, "STF 2.2", None)]:
        refused_changes_nothing(client, game, {"kind": "decide", "decision": p["id"], "choice": choice}, rule, field)
    for choice, expected in [([second, first], [first, second]), ([third], [third]), ([], [])]:
        fork = sandbox(client, game, "Player")
        events = accepted(client, fork, "Player", {"kind": "decide", "decision": p["id"], "choice": choice})
        fixed = [e["data"] for e in events if e["type"] == "CampaignFixed"]
        assert fixed == [{"key": "player_airbases", "value": expected, "rule": "STF 2.2"}], fixed
        after = state_of(client, fork, "Player")
        assert after["campaign"]["player_airbases"] == expected and after["phase"] == "Forces" and not after["pending"]


def _lines(x):
    if isinstance(x, dict):
        if "text" in x and "type" in x and "seq" in x:
            yield x
        for v in x.values():
            yield from _lines(v)
    elif isinstance(x, list):
        for v in x:
            yield from _lines(v)


RULED = {"CampaignFixed", "GroupPlaced", "GroupMoved", "GroupChanged", "GroupRemoved", "UnitsAssigned", "UnitChanged",
         "SystemActs", "PoolSet", "AirbaseChanged", "LbnaChanged", "StrikeFlown", "PlayerAirAction", "DeploymentChanged",
         "ResultDeclared", "DiceRolled", "VPScored", "DecisionPending", "GameEnded"}


def test_stf_6_7_the_history_tells_each_thing_the_gamesystem_did_with_its_rule(client):
    """docs/rulesets.md: "Every event carries its rule, and each choice of the GameSystem a `why`, so
    a replay shows why a group went where it went". `GET …/history` (turn by turn, phase by
    phase) tells each of the campaign's events; every line of what the GameSystem (or the
    Player's declaration) did, and every question put to the Player, names its STF rule."""
    game, _ = _combat_question(client)  # a campaign in which the GameSystem asks for combat results
    play_until(client, game, splay.RandomPlayer(random.Random(3)), lambda s: s["turn"] >= 6)
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Player"])
    assert history.status_code == 200
    lines = list(_lines(history.json))
    assert len(lines) == len(all_events(client, game))
    ruled = [li for li in lines if li["type"] in RULED]
    assert {"CampaignFixed", "GroupPlaced", "DiceRolled", "ResultDeclared", "DecisionPending"} <= {li["type"] for li in ruled}
    assert any(li["type"] == "DecisionPending" and "sink" in li["text"] for li in ruled)
    unnamed = [(li["type"], li["text"]) for li in ruled if not re.search(r"\(STF \d", li["text"])]
    assert not unnamed, unnamed
