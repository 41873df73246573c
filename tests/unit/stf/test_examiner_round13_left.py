"""Examiner round 13, STF: what the earlier rounds left open, read against the text.

Each test names the rule it checks; docs/rulesets.md ("Solitaire Task Force", the readings of
round 13) writes down the readings chosen."""

from __future__ import annotations

import copy

from domain.rulesets.stf import maps, movement
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx, run
from tests.unit.stf.helpers import (R, FixedDice, NoDice, add_group, combat_state, events_of, pending, play, rolls_of,
                                    run_step, search_state, ship, system_group)
from tests.unit.stf.test_air import add as add_air, built, ship as air_ship
from tests.unit.stf.test_movement import add as add_mv, battle, cv_tf, d, deployment_state, player_tf, state
from tests.unit.stf.test_movement import ship as mv_ship

HEX = "0101"


def _battle(phase: str) -> dict:
    st = combat_state(phase)
    add_group(st, "P1", "Player", HEX, {"nimitz": ship("CV", 20, nation="US"),
                                         "spruance": ship("DD", 4, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF1", "system", "0505", {"kiev": ship("CV", 15, air={"L": 0, "M": 3, "H": 2, "EW": 0, "AEW": 0}),
                                            "krivak": ship("FF", 3), "sovremenny": ship("DD", 4)})
    return st


# ---- STF 8.11, 12.5-12.7 and the Terminal phase: the base game's results can still be reported ------
def test_stf_11_1_the_terminal_phase_offers_and_takes_the_report_of_results_not_yet_reported():
    """The GameSystem's surface combat runs after the Player's Combat orders (STF 6.7), and its
    questions ask only which unit sank: hits, squadrons and flight decks the base game gave in it
    have no report window left in the turn unless the Terminal phase takes one, and its steps
    (8.11's degradation, 9.5's repair, 12.5-12.7's retirement) read them. The report is offered
    and taken there, before ``end_phase`` runs those steps."""
    st = _battle("Terminal")
    offer = R.legal_orders(st, "Player")
    assert {"kind": "report", "sunk": []} in [{k: v for k, v in o.items() if k not in ("title", "rule")} for o in offer]
    out, after = play(st, {"kind": "report", "flight_deck_inoperable": ["kiev"], "sunk": ["krivak"]})
    assert after["units"]["kiev"]["flight_deck_inoperable"] and after["units"]["krivak"]["sunk"]
    assert after["vp"]["Player"] == 3


# ---- STF 1.9 with 1.10, 1.11: a total that already fills the surface share ---------------------------
def test_stf_1_10_a_game_whose_surface_points_already_fill_the_share_stops_task_forces_at_its_next_reinforcements():
    """A game recorded before the surface limit was flagged (commit 7f2fb48) holds a total whose
    surface points fill 1.10's share with no ``surface_limit_reached``: the flag came only with the
    next change of the total, so until then 6.4 kept deploying task forces. 1.9's "once ... no further
    task force ... can be deployed ... immediately removed": the next reinforcements record the flag
    first (its removal of task forces at Good or lower with it), then deploy subrons only. The
    recorded events fold as they were; only the new step's outcomes differ."""
    st = search_state(system_group("TF1", intel="good", chit="Tracked"),
                      system_group("TF2", intel="precise", size="small", chit="Captain"),
                      system_group("TF7", hex=None, status="off map"),
                      system_group("SR3", "subron", hex=None, status="off map"), phase="Random Events")
    st["turn"] = 2
    # commitment 45: the surface share is 30; 32 surface points counted, no flag (as recorded before)
    st["deployment"] = {"total": 30, "groups": {"TF2": {"part": "surface", "points": 32}}}
    assert not st["campaign"].get("surface_limit_reached")
    assert not movement.may_deploy(st, "tf"), "the limit is read off the total, not only off the flag"
    out, after = run_step(st, "reinforcements", FixedDice(4, 2))  # SR3: the Starting Megahex d10, the d6
    fixed = [e for e in events_of(out, "CampaignFixed") if e["key"] == "surface_limit_reached"]
    assert [(e["value"], e["rule"]) for e in fixed] == [(True, "STF 1.10")]
    assert [(e["group"], e["rule"]) for e in events_of(out, "GroupRemoved")] == [("TF1", "STF 1.10")]
    assert [p["group"]["id"] for p in events_of(out, "GroupPlaced")] == ["SR3"]
    assert after["groups"]["TF7"]["hex"] is None
    # a game whose flag is recorded gets nothing new from the catch-up
    out2, _ = run_step(after, "reinforcements", FixedDice(4, 2))
    assert not events_of(out2, "CampaignFixed") and not events_of(out2, "GroupRemoved")


# ---- STF 6.1: a group's deploy offer -------------------------------------------------------------------
def test_stf_6_1_a_group_is_offered_every_sea_hex_of_each_megahex_of_its_column():
    """6.1 "may be placed in ANY of the relevant Megahexes", and the order takes any sea hex of the
    megahex (its ``hex``): the offer gave the centre only, so a Player choosing from the offer (the
    game page, ``warlog legal``) could not place a group on an outer hex. Every sea hex is offered,
    the centre first, and each is taken."""
    st = deployment_state()
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "deploy" and o.get("group") == "P1"]
    for number in movement.starting_megahexes("giuk", "US", "TF"):
        hexes = [o["hex"] for o in offered if o["megahex"] == number]
        assert hexes == maps.sea_hexes_of("giuk", number), number
    assert any(len(maps.sea_hexes_of("giuk", n)) > 1 for n in movement.starting_megahexes("giuk", "US", "TF"))
    outer = next(o for o in offered if o["hex"] != maps.sea_hexes_of("giuk", o["megahex"])[0])
    _, after = play(st, outer, FixedDice(default=1))
    assert after["groups"]["P1"]["hex"] == outer["hex"]


# ---- STF 2.6.4: the LBNA's SSM attack asks for its result ---------------------------------------------
def test_stf_2_6_4_the_lbna_ssm_attack_asks_which_ship_it_sank_as_the_gamesystems_ssm_waves_do():
    """2.6.4 "will conduct a SSM attack, resolved normally": the Player resolves it with the base
    game, and what it sank decides the rest of the turn (12.3-12.6's index, 11.2's targets in the
    Combat phase). The step recorded the attack and asked nothing, so its result waited for an
    unasked ``report``; it now asks, as each SSM wave of 11.2 does: a ``combat`` decision of rule
    STF 2.6.4 whose choices are the located task force's ships, one at a time, then none."""
    st = built()
    add_air(st, "P2", "Player", "2005", [air_ship("p2", "DD", vp=4), air_ship("p3", "FF", vp=3)])
    out, after = run_step(st, "lbna_strike", FixedDice(1, 1))  # a Backfire, located
    assert [e["what"] for e in events_of(out, "SystemActs")] == ["LBNA missile attack"]
    d = pending(after)
    assert d is not None and d["kind"] == "combat" and d["rule"] == "STF 2.6.4", d
    assert {"sunk": "p2"} in d["options"]["choices"] and {"sunk": "p3"} in d["options"]["choices"]
    assert "Backfire" in d["prompt"] and "P2" in d["prompt"]
    out, after = play(after, {"kind": "decide", "decision": d["id"], "choice": {"sunk": "p3"}})
    assert after["units"]["p3"]["sunk"] and after["vp"]["system"] == 3
    assert [e["rule"] for e in events_of(out, "ResultDeclared")] == ["STF 2.6.4"]
    d2 = pending(after)
    assert d2 is not None and d2["id"] != d["id"] and {"sunk": "p3"} not in d2["options"]["choices"]
    _, after = play(after, {"kind": "decide", "decision": d2["id"], "choice": {"sunk": None}})
    assert not after.get("pending")
    # a unit that fails to locate asks nothing
    _, none = run_step(st, "lbna_strike", FixedDice(1, 2))
    assert not none.get("pending")


def test_stf_2_6_4_the_base_game_ending_the_lbna_attack_leaves_the_gamesystems_air_attacks_to_follow():
    """``{"ended": true}`` ends the LBNA attack's questions and tells no other step: the Strike
    phase's air attacks (10.3) still run after it."""
    st = built()
    add_air(st, "P2", "Player", "2005", [air_ship("p2", "DD", vp=4)])
    ctx = Ctx(copy.deepcopy(st), FixedDice(1, 1), stf_rules.HOOKS)
    run(ctx, [{"step": "air_attacks"}, {"step": "lbna_strike"}])
    d = pending(ctx.state)
    assert d["rule"] == "STF 2.6.4"
    stack = d["context"]["stack"]
    assert [f["step"] for f in stack] == ["air_attacks", "results"]
    _, after = play(ctx.state, {"kind": "decide", "decision": d["id"], "choice": {"ended": True}})
    assert not after.get("pending")


# ---- STF 12.5: the retiring group's die for a choice of hexes ---------------------------------------
def test_stf_12_5_a_retiring_groups_die_for_equally_good_hexes_names_12_5_not_7_5():
    """12.5: "If there is a choice of hexes to move into, they will keep as far away from player's
    task forces and subrons as possible"; hexes still equal after that are a die's, which the
    retiring move rolls under its own rule (it was labelled 7.5, the approach's). Recorded rolls
    keep their stored rule; only new rolls name 12.5."""
    st = battle(p1="1506")
    add_mv(st, "TF1", "system", "tf", "0708", retiring=True)  # 0807 and 0808: as near its base, as far from P1
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    rolls = rolls_of(out)
    assert rolls and [r.rule for r in rolls] == ["STF 12.5"]
    assert "retiring" in rolls[0].purpose and "0807, 0808" in rolls[0].purpose
    assert [e["rule"] for e in events_of(out, "GroupMoved")] == ["STF 12.5"]


# ---- STF 7.9: a carrier task force closer than 3 hexes to a Player subron -----------------------------
def test_stf_7_9_a_cv_task_force_closer_than_3_hexes_to_a_player_subron_moves_away_to_3():
    """7.9 "will try to move so as to be no closer than 3 hexes from a player subron". A carrier 2
    hexes from the Player's subron, which lies toward the Player task force it makes for (7.5),
    held still: every step toward P1 came closer to the subron, and nothing moved it out. It now
    moves away until 3 hexes off (``GroupMoved`` rule STF 7.9). At 3 hexes it may hold still: the
    rule is kept (no closer than 3), and its other rules move it only nearer their target; the
    history says why it stays, under 7.9 (a ``GroupChanged`` with no change naming the subron and
    the 7.5 move it gives up, as a group 7.8 or 5.2 holds records; before, nothing was recorded).
    With the subron out of the way it moves by 7.5 and no such record is made."""
    st = state()
    player_tf(st, "P1", "1206")
    add_mv(st, "P2", "Player", "subron", "2006", [mv_ship("ssn", "SSN", 2)])
    cv_tf(st, "TF1", "2206")
    assert d("2206", "2006") == 2
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    moved = [e for e in events_of(out, "GroupMoved") if e["group"] == "TF1"]
    assert [e["rule"] for e in moved] == ["STF 7.9"] and "P2" in moved[0]["why"]
    assert d(after["groups"]["TF1"]["hex"], "2006") == 3
    # 3 hexes off with the subron between it and P1: no closer, so it stays
    st["groups"]["P2"]["hex"] = "1906"
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert after["groups"]["TF1"]["hex"] == "2206" and not events_of(out, "GroupMoved")
    held = [e for e in events_of(out, "GroupChanged") if e["group"] == "TF1"]
    assert [(e["rule"], e["changes"]) for e in held] == [("STF 7.9", {})]
    assert "P2" in held[0]["why"] and "STF 7.5" in held[0]["why"] and "3 hexes" in held[0]["why"]
    st["groups"]["P2"]["hex"] = "2210"  # off the way to P1
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert [e["rule"] for e in events_of(out, "GroupMoved") if e["group"] == "TF1"] == ["STF 7.5"]
    assert not [e for e in events_of(out, "GroupChanged") if e["group"] == "TF1" and e["rule"] == "STF 7.9"]


# ---- STF 11.2: after the target carrier sinks ----------------------------------------------------------
def _two_carrier_groups() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"nimitz": ship("CV", 20, nation="US"), "ff1": ship("FF", 3, nation="US")})
    add_group(st, "P2", "Player", "0102", {"vinson": ship("CV", 20, nation="US"), "dd2": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", HEX, {"k1": ship("CG", 8, ssm=10, ssm_loads=1)})
    add_group(st, "TF2", "system", HEX, {"k2": ship("CG", 8, ssm=10, ssm_loads=1)})
    return st


def _answer(st: dict, choice: dict, dice=None):
    d = pending(st)
    assert d is not None and choice in d["options"]["choices"], (d, choice)
    return play(st, {"kind": "decide", "decision": d["id"], "choice": choice}, dice or NoDice())


def _waves(out: list) -> list[dict]:
    return [e["detail"] for e in events_of(out, "SystemActs") if e["what"] == "SSM wave"]


def test_stf_11_2_once_its_target_carrier_is_sunk_the_next_group_fires_at_a_player_cv_still_in_range():
    """11.2 "If the friendly player has a CV task force in range, a GameSystem task force ... will
    fire every SSM it can ... with the CV as its target": TF1's wave sinks P1's carrier; TF2, whose
    salvo had not begun, still has P2's carrier in range, so it fires at it, in waves of 10, not 4
    per ship at P1's escort (its target was chosen before the carrier sank)."""
    out, st = run_step(_two_carrier_groups(), "surface_combat", FixedDice(1))
    assert [(w["group"], w["target_group"], w["target"], w["missiles"]) for w in _waves(out)] == [("TF1", "P1", "nimitz", 10)]
    out, st = _answer(st, {"sunk": "nimitz"}, FixedDice(2))
    assert [(w["group"], w["target_group"], w["target"], w["missiles"]) for w in _waves(out)] == [("TF2", "P2", "vinson", 10)]


def test_stf_11_2_a_group_whose_own_target_carrier_sinks_goes_on_at_that_task_force_four_per_ship():
    """The reading kept (docs): "If the CV is destroyed ... it will fire 4 SSMs per player ship" is
    the rest of the same salvo, at the same task force's ships, even with another Player carrier in
    range; the next group's salvo chooses afresh (above)."""
    st = _two_carrier_groups()
    st["units"]["k1"].update(ssm=20)
    del st["groups"]["TF2"]
    out, st = run_step(st, "surface_combat", FixedDice(1))
    out, st = _answer(st, {"sunk": "nimitz"}, FixedDice(2))
    assert [(w["group"], w["target_group"], w["target"], w["missiles"]) for w in _waves(out)] == [("TF1", "P1", "ff1", 4)]


# ---- STF 10.8 with 11: a carrier set aside for an air strike does not fight alone -----------------------
def test_stf_10_8_a_task_force_known_only_by_its_set_aside_carrier_fights_no_surface_combat():
    """10.8 sets a CV aside "as the CV for the attacking (but not as yet Precisely identified) task
    force": no composition yet (its ships are drawn at Precise, 8.7, the CV filling one of its CVs).
    A contact whose ships are not known has no units to fight with (the 8.14 reading); the carrier
    set aside fired the task force's SSMs and would fight its gunnery alone, as if it were the whole
    force. It now fights no surface combat until the ships are drawn; drawn, it fights."""
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"dd": ship("DD", 4, nation="US", gun="B"), "ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", HEX, {"kiev": ship("CV", 15, ssm=4, ssm_loads=2, gun="B", set_aside=True)},
              intel="accurate", chit="Rear Admiral", size="large")
    out, after = run_step(st, "surface_combat", FixedDice(default=1))
    assert not events_of(out, "SystemActs") and not after.get("pending")
    st["units"]["kiev"]["set_aside"] = False  # its composition drawn (8.7): the CV is one of its ships
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    assert [e["what"] for e in events_of(out, "SystemActs")][:1] == ["SSM wave"]


# ---- STF 1.9 "once": a task force degraded to Good after the limit stays --------------------------------
def test_stf_1_9_an_accurate_task_force_degraded_to_good_after_the_surface_limit_stays_in_play():
    """1.9: "Once the value ... has increased to ... the commitment level, no further task force or
    subron counters can be deployed and all counters which are at 'Good' or lower ... are
    immediately removed from play": one removal, at that moment. An Accurate task force kept then
    (its estimate counted, 8.12) that 8.11 degrades to Good later is a force in the total, not a
    contact of the kind removed: it stays, through the degradation and the next reinforcements
    (whose catch-up of the limit finds it recorded and removes nothing). The reading is kept."""
    st = search_state(system_group("TF1", intel="accurate", chit="Commodore", size="medium"),
                      phase="Terminal", surface_limit_reached=True)
    st["deployment"] = {"total": 30, "groups": {"TF1": {"part": "surface", "points": 32}}}
    out, after = run_step(st, "intelligence_degradation", FixedDice(1))
    assert after["groups"]["TF1"]["intel"] == "good" and after["groups"]["TF1"]["status"] == "on map"
    assert not events_of(out, "GroupRemoved")
    after = copy.deepcopy(after)
    after["turn"], after["phase"] = 2, "Random Events"
    out, again = run_step(after, "reinforcements", FixedDice(default=1))
    assert not events_of(out, "GroupRemoved") and again["groups"]["TF1"]["status"] == "on map"
