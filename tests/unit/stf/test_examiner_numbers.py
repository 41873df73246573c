"""Examiner's audit of the numbers of Solitaire Task Force (../shared/rules/003_74ca0e4e298164eb.txt):
the quantitative statements of rules 1-13 at their edges (exactly at a limit, one under, one over),
where no earlier test pins that very edge. The tables' cells were checked against the text by
test_campaign.py, test_composition.py and test_examiner_tables.py; the rounding, the limits and the
thresholds of the rules' sentences are pinned here."""

from __future__ import annotations

import math

import pytest

from domain.rulesets.stf import composition, movement, retirement
from tests.unit.stf.helpers import (FixedDice, NoDice, add_group, combat_state, events_of, play, rolls_of, run_step,
                                    search_state, ship, system_group)

# the GameSystem column of the Commitment Limit Table (STF 1.5), the text's rows 2-12
SYSTEM_LIMITS = [28, 32, 36, 45, 48, 52, 66, 93, 98, 108, 113]


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 1.10: one third, rounded down -------------------------------------------------------------
@pytest.mark.parametrize("limit", SYSTEM_LIMITS + [c - 5 for c in SYSTEM_LIMITS] + [c + 5 for c in SYSTEM_LIMITS])
def test_stf_1_10_one_third_rounded_down_for_every_commitment_the_table_and_1_6_can_give(limit):
    """1.10: "at least one-third (round down) of its commitment limit on submarines ... the excess
    points are ignored": for every GameSystem limit of the 1.5 table, and each one STF 1.6's +5/-5
    makes of it, the submarines keep floor(limit / 3) and surface points count up to the rest."""
    share = composition.sub_share(limit)
    assert share == limit // 3 == math.floor(limit / 3)
    st = search_state(commitment={"Player": {"points": 14, "carriers": 1}, "system": limit})
    surface_cap = limit - share
    over = {"TF1": {"part": "surface", "points": surface_cap + 1}}
    at = {"TF1": {"part": "surface", "points": surface_cap}}
    assert composition.total_of(st, over) == surface_cap       # one point over: ignored
    assert composition.total_of(st, at) == surface_cap          # exactly at it: all counted
    subs = {**over, "SR1": {"part": "subs", "points": share + 4}}  # the submarines' points are never capped
    assert composition.total_of(st, subs) == surface_cap + share + 4


@pytest.mark.parametrize("map_name, side, die, limit", [
    ("giuk", "US", 7, 52), ("caribbean", "US", 7, 47), ("caribbean", "Soviet", 7, 57),
    ("giuk", "US", 5, 45), ("caribbean", "US", 12, 108), ("mediterranean", "Soviet", 2, 28)])
def test_stf_1_10_the_campaign_keeps_one_third_round_down_of_the_limit_after_1_6(map_name, side, die, limit):
    """1.10 with 1.6: the share kept for submarines is a third (round down) of the GameSystem's
    commitment limit after the Caribbean adjustment (a Soviet GameSystem -5, a US one +5)."""
    from tests.unit.stf.test_examiner_tables import BATTLE_DIE, play_campaign
    half = die // 2
    _, st = play_campaign(map_name, side, {"STF 1.2": [BATTLE_DIE[map_name]], "STF 1.5": [half, die - half]})
    assert st["campaign"]["commitment"]["system"] == limit
    assert st["campaign"]["commitment"]["system_submarines"] == limit // 3


# ---- STF 1.9: "equal or greater than the commitment level" -----------------------------------------
def test_stf_1_9_the_deployment_stops_exactly_at_the_commitment_not_one_point_before():
    """1.9: "Once the value ... has increased to a point equal or greater than the commitment
    level, no further task force or subron counters can be deployed": a total one under the
    commitment still deploys, a total equal to it does not."""
    st = search_state()
    st["campaign"]["commitment"]["system"] = 45
    st["deployment"] = {"total": 44, "groups": {}}
    assert not movement.commitment_reached(st)
    st["deployment"]["total"] = 45
    assert movement.commitment_reached(st)


def test_stf_1_9_and_1_10_surface_points_alone_never_reach_the_commitment():
    """1.10's example: commitment 45 = 30 surface + 15 submarine. Task forces Accurate or Precise
    far beyond 30 points count 30 (the excess ignored), so 1.9's limit is not reached by surface
    alone: the 15 submarine points are still to be deployed."""
    st = search_state()
    groups = {"TF1": {"part": "surface", "points": 30}, "TF2": {"part": "surface", "points": 20}}
    assert composition.total_of(st, groups) == 30
    st["deployment"] = {"total": composition.total_of(st, groups), "groups": groups}
    assert not movement.commitment_reached(st)
    groups = {**groups, "SR1": {"part": "subs", "points": 15}}
    st["deployment"] = {"total": composition.total_of(st, groups), "groups": groups}
    assert st["deployment"]["total"] == 45 and movement.commitment_reached(st)


# ---- STF 12.5, 12.6: "exceeds" the limit, "reach 66%" -------------------------------------------------
def _losses(commitment: int, vp: list[int]) -> dict:
    """A Terminal Phase with GameSystem ships of the VPs given sunk (no squadron lost) and one afloat."""
    st = combat_state("Terminal", commitment=commitment)
    add_group(st, "P1", "Player", "1212", {"p_ff": ship("FF", 3, nation="US")})
    units = {f"s{i}": {**ship("DD", v), "sunk": True} for i, v in enumerate(vp)}
    add_group(st, "TF1", "system", "1610", {**units, "afloat": ship("FF", 3)})
    return st


@pytest.mark.parametrize("commitment, at_limit", [(52, 26), (28, 14), (36, 18)])
def test_stf_12_5_an_index_equal_to_the_limit_rolls_no_die_one_more_does(commitment, at_limit):
    """12.5: "each turn that the retirement index exceeds the retirement limit, roll 1D6": an index
    exactly at 12.2's 50% is not over it (no die); one point more is, and a 1 retires."""
    st = _losses(commitment, [at_limit])
    assert retirement.limit(st) == at_limit and retirement.index(st) == at_limit
    out, _ = run_step(st, "retirement", NoDice())
    assert acts(out, "retirement check") == [] and rolls_of(out) == []
    st = _losses(commitment, [at_limit, 1])
    out, _ = run_step(st, "retirement", FixedDice(1))
    (check,) = acts(out, "retirement check")
    assert check["rule"] == "STF 12.5" and check["detail"]["retire"] is True and check["detail"]["retire_on"] == [1]
    out, _ = run_step(st, "retirement", FixedDice(2))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is False


def test_stf_12_5_an_odd_commitments_half_is_exceeded_by_the_next_whole_point():
    """12.2 with an odd commitment (45: the limit 22.5): an index of 22 is under it (no die), 23
    exceeds it."""
    out, _ = run_step(_losses(45, [22]), "retirement", NoDice())
    assert acts(out, "retirement check") == []
    out, _ = run_step(_losses(45, [23]), "retirement", FixedDice(6))
    assert acts(out, "retirement check")[0]["detail"]["index"] == 23


@pytest.mark.parametrize("commitment, under, reach", [(50, 32, 33), (100, 65, 66), (45, 29, 30), (113, 74, 75)])
def test_stf_12_6_net_losses_exactly_at_66_percent_retire_on_anything_but_a_six(commitment, under, reach):
    """12.6: "If net GameSystem losses reach 66% of their original commitment, then retirement will
    commence on any die roll except a '6'": exactly 66% (33 of 50, 66 of 100) reaches it; one VP
    under is 12.5's roll (only a 1); a 5 retires only at 66%, a 6 never."""
    out, _ = run_step(_losses(commitment, [under]), "retirement", FixedDice(5))
    (check,) = acts(out, "retirement check")
    assert check["rule"] == "STF 12.5" and check["detail"]["retire"] is False
    st = _losses(commitment, [reach])
    out, _ = run_step(st, "retirement", FixedDice(5))
    (check,) = acts(out, "retirement check")
    assert check["rule"] == "STF 12.6" and check["detail"]["retire"] is True
    assert check["detail"]["retire_on"] == [1, 2, 3, 4, 5]
    out, _ = run_step(st, "retirement", FixedDice(6))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is False


# ---- STF 8.4-8.6: the chit modifiers lower the roll (the searcher's side) --------------------------
@pytest.mark.parametrize("chit, drm", [("Enemy", -1), ("Tracked", -2), ("Captain", -3), ("Commodore", -3),
                                      ("Rear Admiral", -3)])
def test_stf_8_4_to_8_6_a_chits_modifier_is_subtracted_from_the_roll_so_one_more_pip_is_unknown(chit, drm):
    """8.4-8.6: searches against a group with an Enemy, Tracked or leader chit "have a -1 (-2, -3)
    die roll modifier": the modified roll is the die plus the (negative) modifier, compared with the
    Search Value (8.3: greater, Unknown; 8.4: equal, Approximate). With Search Value 5 the die
    5 - drm is modified to exactly 5 (Approximate, which with a chit has no effect); one pip more is
    Unknown."""
    size = {"Captain": "small", "Commodore": "medium", "Rear Admiral": "large"}.get(chit)
    intel = {"Enemy": "approximate", "Tracked": "good"}.get(chit, "accurate")
    group = system_group("TF1", chit=chit, intel=intel, size=size)
    st = search_state(group)
    for die, level in ((5 - drm, "approximate"), (6 - drm, "unknown")):
        out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 5}, FixedDice(die))
        roll = rolls_of(out)[0]
        assert [m["value"] for m in roll.target["modifiers"]] == [drm]
        assert roll.target["modified"] == die + drm and roll.outcome == level
        assert after["groups"]["TF1"]["chit"] == chit and after["groups"]["TF1"]["intel"] == intel


# ---- STF 6.4: one third, rounded up -----------------------------------------------------------------
@pytest.mark.parametrize("off, come", [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (9, 3), (10, 4), (11, 4)])
def test_stf_6_4_one_third_of_task_forces_and_subrons_together_rounded_up(off, come):
    """6.4: "deploy one third of all task forces and subrons which are currently off the map (round
    fractions up)": counted over both kinds together (6 task forces and 5 subrons at most, 6.2)."""
    st = search_state(phase="Random Events")
    st["turn"] = 2
    st["campaign"]["commitment"]["system"] = 113
    kinds = ["tf"] * 6 + ["subron"] * 5
    for i, kind in enumerate(kinds[:off], start=1):
        gid = f"TF{i}" if kind == "tf" else f"SR{i - 6}"
        st["groups"][gid] = {**system_group(gid, kind, hex=None), "status": "off map"}
    out, _ = run_step(st, "reinforcements", FixedDice(default=1))
    assert len(events_of(out, "GroupPlaced")) == come == math.ceil(off / 3)


# ---- STF 8.12, 8.13: the deployment increments, every size ------------------------------------------
@pytest.mark.parametrize("kind, size, nation, points", [
    ("tf", "small", "Soviet", 10), ("tf", "medium", "Soviet", 20), ("tf", "large", "Soviet", 30),
    ("tf", "small", "US", 10), ("tf", "medium", "US", 20), ("tf", "large", "US", 50),
    ("subron", "small", "US", 5), ("subron", "medium", "US", 9), ("subron", "large", "US", 13),
    ("subron", "large", "Soviet", 13)])
def test_stf_8_12_8_13_each_size_adds_the_texts_points_when_it_becomes_accurate(kind, size, nation, points):
    """8.12: "increases by 10 if small; 20 if medium and 30 if large or 50 if large US"; 8.13 (a
    subron): "5 if small; 9 if medium and 13 if large" (no US exception for subrons)."""
    group = system_group("G1", kind, size=size)
    st = search_state(group, system_side=nation, player_side="Soviet" if nation == "US" else "US")
    assert composition.estimate(st, group) == points


# ---- STF 1.14: the leaders' thresholds -----------------------------------------------------------------
@pytest.mark.parametrize("points, leader", [(0, "Captain"), (10, "Captain"), (11, "Commodore"), (20, "Commodore"),
                                            (21, "Rear Admiral"), (113, "Rear Admiral")])
def test_stf_1_14_21_points_or_more_rear_admiral_11_or_more_commodore_less_than_11_captain(points, leader):
    from domain.rulesets.stf import forces
    assert forces.leader_for(points) == leader



# ---- STF 5.2, 7.1, 7.2: the GameSystem's hexes a turn, with and without a command control loss -----
@pytest.mark.parametrize("kind, intel, classes, speed, normal, under_ccl", [
    ("subron", "unknown", ["SS"], 1, 2, 1),      # 7.1/7.2: less than Precise moves 2; 5.2: one hex
    ("subron", "accurate", ["SS"], 1, 2, 1),
    ("subron", "precise", ["SSN"], 3, 2, 1),     # 7.1: Precisely identified SSNs move 2
    ("subron", "precise", ["SS"], 1, 1, 0),      # 7.1: a Precise conventional sub moves 1; 5.2: it may not move
    ("tf", "precise", ["DD", "FF"], 3, 3, 1),    # 5.2: "limited to only one hex of movement"
    ("tf", "precise", ["DD", "FF"], 2, 2, 1),
    ("tf", "precise", ["DD", "FF"], 1, 1, 0),    # 5.2: "Task forces ... which can only move at a speed of 1 hex may not move"
])
def test_stf_5_2_and_7_1_one_hex_under_a_command_control_loss_and_none_at_speed_1(kind, intel, classes, speed,
                                                                                 normal, under_ccl):
    from tests.unit.stf.test_movement import add, ship as move_ship, state
    st = state()
    add(st, "G1", "system", kind, "1506", [move_ship(f"u{i}", cls, speed) for i, cls in enumerate(classes)],
        intel=intel)
    assert movement.system_speed(st, st["groups"]["G1"])[0] == normal
    st["campaign"]["system_ccl_turn"] = st["turn"]
    assert movement.system_speed(st, st["groups"]["G1"])[0] == under_ccl
    st["campaign"]["system_ccl_turn"] = st["turn"] - 1  # last turn's loss: this turn moves as usual
    assert movement.system_speed(st, st["groups"]["G1"])[0] == normal


# ---- STF 11.2: 4 per ship, half the complement rounded down, waves of 6 (the last one short) -------
def _ssm_battle(player: dict, system: dict) -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", "0101", player)
    add_group(st, "TF1", "system", "0101", system)
    return st


@pytest.mark.parametrize("ssm, fired", [(7, 3), (9, 4), (1, 0), (2, 1), (24, 12), (26, 12)])
def test_stf_11_2_up_to_half_its_complement_rounded_down_and_never_more_than_4_per_ship(ssm, fired):
    """11.2: "it will fire 4 SSMs per player ship (up to half its complement)": against the text's
    1 DD and 2 FF (12 missiles) a group carrying an odd number fires half of it rounded down (7: 3),
    and a large complement still fires only 4 per ship (26: 12)."""
    player = {"dd": ship("DD", 4, nation="US"), "ff1": ship("FF", 3, nation="US"), "ff2": ship("FF", 3, nation="US")}
    out, _ = run_step(_ssm_battle(player, {"s1": ship("CG", 5, ssm=ssm, ssm_loads=1)}), "surface_combat",
                      FixedDice(default=1))
    waves = acts(out, "SSM wave")
    assert sum(w["detail"]["missiles"] for w in waves[:1]) + (waves[0]["detail"]["left_in_salvo"] if waves else 0) == fired


def test_stf_11_2_sixteen_missiles_at_four_ships_go_in_waves_of_6_6_and_4():
    """11.2: "4 SSMs per player ship ... in waves of 6 missiles": 4 ships, 16 missiles: 6, 6, then
    the 4 left (the text's example stops at two full waves)."""
    from tests.unit.stf.helpers import answer_waves
    player = {f"ff{i}": ship("FF", 3, nation="US") for i in range(1, 5)}
    system = {"cg1": ship("CG", 8, ssm=12, ssm_loads=2), "cg2": ship("CG", 5, ssm=12, ssm_loads=2)}
    out, st = run_step(_ssm_battle(player, system), "surface_combat", FixedDice(default=1))
    more, _ = answer_waves(st, FixedDice(default=1))
    sizes = [w["detail"]["missiles"] for w in acts(out + more, "SSM wave")]
    assert sizes == [6, 6, 4]
