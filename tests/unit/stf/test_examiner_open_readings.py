"""STF readings the last rounds left open, each decided from the words of the v1.2 text
(../shared/rules/003_74ca0e4e298164eb.txt) and pinned here: 12.6's "original commitment", 7.8's
invasion column, 11.2's "half its complement", 8.12's "each time", 8.14/8.15 when the Player closes
the distance; and 7.8's move after the SSM salvo, which 1.11 and 8.14 apply to as to any move."""

from __future__ import annotations

import pytest

from domain.rulesets.stf import maps, movement, retirement
from domain.rulesets.stf.rules import SEQUENCE
from tests.unit.stf.helpers import (FixedDice, add_group, answer_waves, combat_state, events_of, play, run_step,
                                    search_state, ship, system_group)
from tests.unit.stf.test_movement import add, battle, cv_tf, player_tf, state
from tests.unit.stf.test_movement import ship as move_ship

M = "giuk"


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 12.6: "their original commitment" -----------------------------------------------------------
def _caribbean_losses(net: int, table: int, adjusted: int) -> dict:
    """A Terminal Phase whose GameSystem lost ships of ``net`` VP (none of the Player's), its
    commitment ``table`` as the 1.5 table gives it and ``adjusted`` after 1.6's Caribbean change."""
    st = combat_state("Terminal", commitment=adjusted)
    st["campaign"]["commitment_table"] = {"Player": {"points": 21, "carriers": 1}, "system": table}
    add_group(st, "P1", "Player", "1212", {"p_ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "1610", {"lost": {**ship("CG", net), "sunk": True}, "afloat": ship("FF", 3)})
    return st


@pytest.mark.parametrize("net, table, adjusted, rule", [
    (33, 52, 47, "STF 12.5"),   # a US Player: 66% of 47 is 31.02, of 52 is 34.32: not yet 12.6
    (35, 52, 47, "STF 12.6"),
    (35, 52, 57, "STF 12.6"),   # a Soviet Player (a US GameSystem +5): 66% of 57 would be 37.62
    (34, 52, 57, "STF 12.5")])
def test_stf_12_6_the_original_commitment_is_the_1_5_tables_not_the_caribbean_adjusted_limit(net, table, adjusted,
                                                                                               rule):
    """12.6: "If net GameSystem losses reach 66% of their original commitment". 12.2 names the
    same commitment "the starting commitment level given in the table at STF rule 1.5"; 1.6 then
    changes the limit in the Caribbean. "Original" is the value before that change, the one 12.2's
    50% is taken of, so the two thresholds of 12.5 and 12.6 stand on one commitment."""
    st = _caribbean_losses(net, table, adjusted)
    assert retirement.commitment(st) == table
    out, _ = run_step(st, "retirement", FixedDice(5))
    (check,) = acts(out, "retirement check")
    assert check["rule"] == rule and check["detail"]["retire"] is (rule == "STF 12.6")


# ---- STF 7.8: the invasion column is for a CV task force on the invasion -------------------------------
def _invading_cv(distance: int, freighters: bool) -> dict:
    """The GameSystem invades (target megahex 64, to the east); P1, four DDs, at 1506; TF1, a
    Precise CV task force ``distance`` hexes east of it, with or without invasion freighters."""
    st = state(invader="system", target=64)
    player_tf(st, "P1", "1506")
    cv_tf(st, "TF1", f"{15 + distance:02d}06")
    if freighters:
        fr = move_ship("TF1-fr", "FR", invasion=True)
        st["units"]["TF1-fr"] = {**fr, "group": "TF1"}
        st["groups"]["TF1"]["units"].append("TF1-fr")
    return st


def test_stf_7_8_a_cv_task_force_known_to_carry_no_invasion_freighters_uses_the_battle_column():
    """7.8's columns are 7.4's and 7.5's cases: "(battle)" toward the nearest player task force,
    "(invasion)" toward the objective. 7.5 puts "a task force in an invasion scenario which is known
    to contain no invasion freighters" with the battle's task forces. TF1, Precise without a
    freighter, 7 hexes from P1: "move 2 hexes towards nearest player taskforce (battle)", not
    toward the objective."""
    st = _invading_cv(7, freighters=False)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    move = events_of(out, "GroupMoved")[0]
    assert move["rule"] == "STF 7.8" and "(battle)" in move["why"]
    assert maps.distance(M, st2["groups"]["TF1"]["hex"], "1506") == 5


def test_stf_7_8_the_cv_task_force_carrying_the_invasion_freighters_uses_the_invasion_column():
    """The same carrier with an invasion freighter is on the invasion (7.4): "move 2 hexes towards
    ... objective hex (invasion)"."""
    st = _invading_cv(7, freighters=True)
    objective = maps.sea_hexes_of(M, 64)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    move = events_of(out, "GroupMoved")[0]
    assert move["rule"] == "STF 7.8" and "(invasion)" in move["why"]
    assert movement.nearest(M, st2["groups"]["TF1"]["hex"], objective) == movement.nearest(M, "2206", objective) - 2


def test_stf_7_8_a_cv_task_force_not_yet_precise_in_the_gamesystems_invasion_uses_the_invasion_column():
    """A carrier task force not Precisely known (its CV set aside by 10.8 for an air strike) is not
    "known to contain no invasion freighters": the invasion column."""
    st = _invading_cv(7, freighters=False)
    st["groups"]["TF1"].update(intel="accurate", units=["TF1-cv"])
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    move = events_of(out, "GroupMoved")[0]
    assert move["rule"] == "STF 7.8" and "(invasion)" in move["why"]


# ---- STF 11.2: "up to half its complement" -----------------------------------------------------------
def test_stf_11_2_half_its_complement_is_half_its_full_load_not_half_of_what_is_left():
    """11.2: "it will fire 4 SSMs per player ship (up to half its complement)". 13.7 calls the
    "(x 2)" of a ship its "SSM complement" (and 13.8 speaks of "original loads"): the complement is
    the group's full load, which firing does not shrink. Two Nanuchkas, 6 SSM each (x1): a
    complement of 12, half 6. The first fired its 6 in an earlier combat; the second's 6 are ready:
    against 1 DD and 2 FF (12 missiles at 4 a ship) all 6 fire (half of the 6 left would be 3)."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"dd": ship("DD", 4, nation="US"), "ff1": ship("FF", 3, nation="US"),
                                            "ff2": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "0101", {"n1": {**ship("PC", 2, ssm=6, ssm_loads=1), "ssm_left": 0},
                                             "n2": ship("PC", 2, ssm=6, ssm_loads=1)})
    out, st2 = run_step(st, "surface_combat", FixedDice(default=1))
    more, _ = answer_waves(st2, FixedDice(default=1))
    assert sum(w["detail"]["missiles"] for w in acts(out + more, "SSM wave")) == 6


def test_stf_11_2_a_sunk_ships_missiles_are_no_longer_its_complement():
    """"Its complement" is the group's: a ship sunk takes its load out of it. Of two Nanuchkas one
    is sunk: the complement is the survivor's 6, half 3."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"dd": ship("DD", 4, nation="US"), "ff1": ship("FF", 3, nation="US"),
                                            "ff2": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "0101", {"n1": {**ship("PC", 2, ssm=6, ssm_loads=1), "sunk": True},
                                             "n2": ship("PC", 2, ssm=6, ssm_loads=1)})
    out, st2 = run_step(st, "surface_combat", FixedDice(default=1))
    more, _ = answer_waves(st2, FixedDice(default=1))
    assert sum(w["detail"]["missiles"] for w in acts(out + more, "SSM wave")) == 3


# ---- STF 8.12: "each time" ------------------------------------------------------------------------------
def test_stf_8_12_each_time_a_task_force_increases_to_accurate_the_total_increases_again():
    """8.12: "Each time a task force increases to Accurate, the deployment point total increases by
    10 if small; 20 if medium ...". TF1 was Accurate and medium (20 counted), degraded by 8.11 to
    Good; searched Accurate again and rolled small, the total increases by 10 (to 30): it never
    falls on an increase to Accurate, and the second time counts as the first did."""
    st = search_state(system_group("TF1", intel="good", chit="Tracked"))
    st["deployment"] = {"total": 20, "groups": {"TF1": {"part": "surface", "points": 20}}}
    out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 5}, FixedDice(5, 1))  # 5-2=3: Accurate; small
    (dep,) = events_of(out, "DeploymentChanged")
    assert (dep["delta"], dep["points"], dep["rule"]) == (10, 30, "STF 8.12")
    assert after["deployment"]["total"] == 30 and after["groups"]["TF1"]["intel"] == "accurate"


def test_stf_8_12_precise_readjusts_every_increment_to_the_exact_cost():
    """8.12: "If it subsequently reaches Precise, readjust the deployment point total based on the
    exact deployment point cost": a task force that counted two increments (20, then 10) counts its
    exact cost alone once Precise."""
    from tests.unit.stf.helpers import pool_of
    st = search_state(system_group("TF1", intel="accurate", chit="Captain", size="small"), pool=pool_of("Soviet", PC=3))
    st["deployment"] = {"total": 30, "groups": {"TF1": {"part": "surface", "points": 30}}}
    out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 5}, FixedDice(4, 1, 1, 1))  # 3PC: 6
    dep = events_of(out, "DeploymentChanged")[-1]
    assert (dep["points"], dep["delta"], dep["total"]) == (6, -24, 6)


def test_stf_8_12_a_degraded_task_forces_rear_admiral_chit_from_10_5_adds_its_estimate_again():
    """The other way to Accurate, 10.5's Rear Admiral chit, is an increase to Accurate too: a
    task force degraded from Accurate (20 counted) to Good gets the chit from its air strike and
    the total increases by 30 (large, Soviet)."""
    from tests.unit.stf.test_air import unknown_state
    st = unknown_state(chit="Tracked", intel="good")
    st["deployment"] = {"total": 20, "groups": {"TF1": {"part": "surface", "points": 20}}}
    out, _ = run_step(st, "air_attacks", FixedDice(1, 6, default=1))
    dep = [e for e in events_of(out, "DeploymentChanged") if e["group"] == "TF1"]
    assert dep and (dep[0]["delta"], dep[0]["points"]) == (30, 50)


# ---- STF 8.14: the Player closes the distance ----------------------------------------------------------
def test_stf_8_14_a_contact_the_player_moved_beside_is_not_revealed_and_costs_no_action():
    """8.14: "If a less than Precise GameSystem task force(s) or subron(s) moves within two hexes of
    player task force, each ... becomes Precisely known, but the player task force loses one action
    in the following turn for each task force or subron revealed in this manner." The condition is
    the GameSystem group's move. P1 moved into TF1's hex (the Player goes first, 6.7); TF1, unknown,
    stays where it is (it is already in P1's hex, 7.5): it did not move within two hexes, so it is
    not revealed and P1 loses nothing. The Player evaluates it by searching (8.2)."""
    st = battle(p1="1706")
    add(st, "TF1", "system", "tf", "1706")
    for step in next(p["system"] for p in SEQUENCE["turn"] if p["phase"] == "Movement"):
        _, st = run_step(st, step, FixedDice(default=1))  # the Movement phase's GameSystem steps
    assert st["groups"]["TF1"]["intel"] == "unknown"
    assert not st["campaign"].get("actions_lost")


def test_stf_8_14_a_contact_that_moves_on_from_within_two_hexes_is_revealed_by_its_move():
    """The Player closed to two hexes; TF1 then moves toward P1 (7.5): it "moves within two hexes
    of player task force", so it is revealed and P1 loses an action."""
    st = battle(p1="1506")
    add(st, "TF1", "system", "tf", "1706")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert st2["groups"]["TF1"]["intel"] == "precise"
    assert st2["campaign"]["actions_lost"]["groups"] == {"P1": 1}


def test_stf_8_15_a_contact_the_player_subron_moved_onto_is_not_revealed():
    """8.15: "If a less than Precise GameSystem task force(s) or subron(s) enters the same hex as a
    player subron": the GameSystem group enters. P2, the Player's subron, moved onto SR1, which
    then moves toward P1: it leaves the hex, having entered none with a Player subron in it."""
    st = battle(p1="1506")
    add(st, "P2", "Player", "subron", "2210", [move_ship("ssn", "SSN", 2)])
    add(st, "SR1", "system", "subron", "2210")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert st2["groups"]["SR1"]["intel"] == "unknown" and not st2["campaign"].get("actions_lost")


# ---- STF 7.8 with 1.11 and 8.14: the move after the SSM salvo is a move like the others ---------------
def test_stf_1_11_an_invading_cv_that_reaches_the_target_after_its_ssm_salvo_scores_its_freighters():
    """7.8, 2 or fewer hexes from a BB: "conduct any SSM attacks, then ... move as many hexes as
    possible towards the objective Megahex (invasion)". The carrier with the invasion freighter
    holds in the Movement phase, fires in the Combat phase, then enters megahex 43, the target:
    1.11, "receives 3VP for each freighter that makes it to the target Megahex"."""
    from tests.unit.stf.test_examiner_exceptions import _invading_cv_beside_a_bb
    st = _invading_cv_beside_a_bb(2, 43)
    _, st = run_step(st, "system_movement", FixedDice(default=1))
    assert st["groups"]["TF1"]["ssm_first"] == st["turn"]
    out, st = run_step({**st, "phase": "Combat"}, "surface_combat", FixedDice(default=1))
    more, st = answer_waves(st, FixedDice(default=1))
    path = [h for e in events_of(out + more, "GroupMoved") if e["group"] == "TF1" for h in e["path"]]
    assert set(path) & set(maps.sea_hexes_of(M, 43))
    assert [(e["side"], e["delta"], e["rule"]) for e in events_of(out + more, "VPScored")] == [("system", 3, "STF 1.11")]


def test_stf_8_14_a_contact_moving_off_after_its_ssm_salvo_is_revealed_within_two_hexes():
    """A carrier task force less than Precise (its CV set aside by 10.8), one hex from the Player's
    BB task force that came beside it: 7.8, it holds, fires its SSMs, then moves away; its first hex
    is two hexes from P1, so it "moves within two hexes of player task force" (8.14): revealed,
    and P1 loses an action next turn."""
    st = state()
    add(st, "P1", "Player", "tf", "1506", [move_ship("bb", "BB"), move_ship("p1"), move_ship("p2"), move_ship("p3")])
    cv_tf(st, "TF1", "1606")
    st["groups"]["TF1"].update(intel="accurate", chit="Rear Admiral", size="large", units=["TF1-cv"])
    _, st = run_step(st, "system_movement", FixedDice(default=1))
    assert st["groups"]["TF1"]["ssm_first"] == st["turn"] and st["groups"]["TF1"]["intel"] == "accurate"
    out, st = run_step({**st, "phase": "Combat"}, "surface_combat", FixedDice(default=1))
    more, st = answer_waves(st, FixedDice(default=1))
    assert [e for e in events_of(out + more, "GroupMoved") if e["group"] == "TF1"]
    assert st["groups"]["TF1"]["intel"] == "precise"
    assert st["campaign"]["actions_lost"]["groups"] == {"P1": 1}
