"""Examiner round 10, part 2, STF: what the first examiner of the round noticed and left.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt):
a built position, the GameSystem's step or the Player's order, and what the text says."""

from __future__ import annotations

from tests.unit.stf import test_air as A
from tests.unit.stf.helpers import (FixedDice, NoDice, add_group, combat_state, events_of, play, rolls_of, run_step,
                                    search_state, system_group)
from tests.unit.stf.helpers import ship as cship


def _acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 10.14: "ASM attacks against Freighters, BB, CG, DD, FF and PC, in that order" -------------
def _sag_strike(units: dict, dice) -> list:
    """A Precise Kiev task force strikes a Player surface action group 2 megahexes off (``units``
    its ships): what the step emits."""
    st = A.precise_cv_state()
    st["groups"]["P1"].update(hex="1705", units=list(units))
    for uid, fields in units.items():
        st["units"][uid] = {"id": uid, "group": "P1", **fields}
    out, _ = run_step(st, "air_attacks", dice)
    return out


def test_stf_10_14_within_a_class_the_asm_targets_go_by_highest_vp_then_a_die_not_by_unit_id():
    """10.14 gives the class order and nothing within a class; 11.2, in the same words ("targeting
    Freighters, BB, CG, DD, FF and PC in that order"), goes by the highest VP and settles equal
    ships by a die (11.3: "resolve the choice of same-value ship targets at random"). Frigate
    ``a`` (2 VP) and ``b`` (3 VP): ``b`` first. Two 3 VP frigates: a d2 puts them in order, its
    outcome the frigate attacked first. Before, the ships of a class went by unit id (``a``
    first whatever its value), an order no rule gives."""
    out = _sag_strike({"a": {"class": "FF", "vp": 2}, "b": {"class": "FF", "vp": 3}, "d": {"class": "DD", "vp": 4}},
                      FixedDice(1, 1))
    assert _acts(out, "air strike")[0]["detail"]["plan"]["targets"] == ["d", "b", "a"]
    for die, first in ((1, "a"), (2, "b")):
        out = _sag_strike({"a": {"class": "FF", "vp": 3}, "b": {"class": "FF", "vp": 3}}, FixedDice(1, 1, die))
        plan = _acts(out, "air strike")[0]["detail"]["plan"]
        tie = [r for r in rolls_of(out) if r.rule == "STF 10.14"]
        assert [r.notation for r in tie] == ["d2"] and tie[0].outcome == first
        assert plan["targets"][0] == first and sorted(plan["targets"]) == ["a", "b"]


def test_stf_10_14_several_carriers_are_attacked_highest_vp_first_not_in_the_groups_order():
    """"always fly towards and target CVs if they are present": of two carriers the larger (11.2's
    "with the CV as its target" goes by VP too) comes first, whichever the group lists first."""
    st = A.precise_cv_state()
    st["units"]["nimitz"]["vp"] = 5
    st["units"]["ike"] = {"id": "ike", "class": "CV", "nation": "US", "vp": 8, "group": "P1"}
    st["groups"]["P1"]["units"].append("ike")
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    plan = _acts(out, "air strike")[0]["detail"]["plan"]
    assert plan["attack"] == "diffusion bombs" and plan["targets"] == ["ike", "nimitz"]


# ---- a recorded die decides something --------------------------------------------------------------
def test_stf_10_4_no_die_for_the_target_of_a_strike_that_has_no_squadron_ready():
    """10.4 "If there is a choice" of targets (two Player CV task forces equally far) a die settles
    it; but the Kiev's flight deck is inoperable (12.7): no squadron can fly, so no strike, and
    nothing needs a target. Before, the d2 for the target was rolled and recorded before the
    step found no squadron ready: a die whose outcome decided nothing."""
    st = A.precise_cv_state()
    A.add(st, "P2", "Player", "0604", [A.cv("ike", "US"), A.ship("p3", "FF")])
    assert A.far(A.SYS, "0604") == A.far(A.SYS, "0605") == 6
    out, _ = run_step(st, "air_attacks", FixedDice(2, 1, 1))  # it flies: the tie is a d2
    assert [r.notation for r in rolls_of(out) if r.rule == "STF 10.4"] == ["d2"]
    assert _acts(out, "air strike")[0]["detail"]["target"] == "P2"
    st["units"]["kiev"]["flight_deck_inoperable"] = True
    out, _ = run_step(st, "air_attacks", NoDice())
    assert rolls_of(out) == []
    none = _acts(out, "no air strike")[0]
    assert none["rule"] == "STF 10.11" and none["detail"]["targets"] == ["P1", "P2"]


def test_stf_11_3_a_task_force_that_will_not_fire_its_guns_places_no_ships_and_rolls_no_die():
    """11.7: "When called to place its ships on the tactical display" - the gunnery step placed the
    GameSystem's ships (a die between its two equal frigates) before finding that it would not
    fire (11.3: one B-gun ship against the Player's two): a die that decided nothing. It now
    places them only when it fires; the Player can still call for a placement (order
    ``placement``)."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"pa": cship("DD", 4, gun="B"), "pb": cship("DD", 4, gun="B")})
    add_group(st, "TF1", "system", "0101", {"f1": cship("FF", 2, gun="B"), "f2": cship("FF", 2)})
    out, _ = run_step(st, "gunnery", NoDice(), group="TF1", target="P1", round=0)
    assert rolls_of(out) == [] and _acts(out, "placement") == []
    assert _acts(out, "gunnery")[0]["detail"]["fire"] is False
    st["units"]["f2"]["gun"] = "B"  # two against two: it fires, and places its ships first
    out, _ = run_step(st, "gunnery", FixedDice(2, 1), group="TF1", target="P1", round=0)
    assert _acts(out, "placement")[0]["detail"]["ships"][0]["unit"] == "f2"
    assert _acts(out, "gunnery")[0]["detail"]["fire"] is True


def test_stf_11_3_no_die_for_the_close_combat_target_of_a_subron_with_no_torpedoes_left():
    """A subron whose torpedoes are all fired (its SSMs still aboard, 12.8 does not retire it) in
    the hex of two equal Player task forces fights neither with guns (a subron has no surface
    ships) nor with torpedoes: the die between the two (the close combat target, 11.3) decided
    nothing. It is rolled only for a group that has guns or torpedoes to fight with."""
    st = combat_state()
    for gid in ("P1", "P2"):
        add_group(st, gid, "Player", "0101", {f"{gid}-dd": cship("DD", 4)})
    add_group(st, "SR1", "system", "0505", {"ss": cship("SS", 3, torpedoes=3, torpedoes_left=0)}, kind="subron")
    st["groups"]["SR1"]["hex"] = "0101"
    out, _ = run_step(st, "surface_combat", NoDice())
    assert rolls_of(out) == []
    st["units"]["ss"]["torpedoes_left"] = 1  # a torpedo left: the target is a die, and it attacks
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    assert [r.rule for r in rolls_of(out)][:1] == ["STF 11.3"] and _acts(out, "torpedo attack")


# ---- STF 1.12: "must withdraw ... however it may continue to conduct air operations" ---------------
def _short_of_escorts(escorts: int) -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"pd": cship("DD", 4, gun="C")})
    add_group(st, "TF1", "system", "0101",
              {"kv": cship("CV", 10, ssm=2, ssm_loads=2, air={"L": 2, "M": 2, "H": 2}),
               **{f"f{i}": cship("FF", 2, asw=2, gun="C", ssm=2) for i in range(escorts)}})
    return st


def test_stf_1_12_a_gamesystem_carrier_short_of_escorts_withdraws_and_engages_in_no_surface_combat():
    """1.12: a carrier that cannot meet its escort requirement "and its remaining escorts must
    withdraw as quickly as possible toward the nearest friendly 'Base', however it may continue to
    conduct air operations". 7.6 sets withdrawing against engaging ("will attempt to engage in
    battle, unless it possesses no offensive firepower, in which case it will attempt to
    withdraw"), and 1.12's "however" keeps only air operations: a withdrawing task force fires no
    SSM, gunnery or torpedoes of its own. The Kiev with two frigates in the Player's hex: no
    combat, recorded under STF 1.12; with three it fires. Before, it fought as any other."""
    out, st = run_step(_short_of_escorts(2), "surface_combat", FixedDice(default=1))
    assert _acts(out, "SSM wave") == [] and _acts(out, "gunnery") == [] and not st.get("pending")
    none = _acts(out, "no surface combat")[0]
    assert none["rule"] == "STF 1.12" and none["detail"] == {"group": "TF1", "in_range": ["P1"]}
    out, _ = run_step(_short_of_escorts(3), "surface_combat", FixedDice(default=1))
    assert _acts(out, "SSM wave") and _acts(out, "no surface combat") == []


def test_stf_1_12_a_withdrawing_task_force_still_makes_7_11s_last_ditch_defence():
    """7.11: any GameSystem task force that can attack a Player task force with an invasion
    freighter in the objective megahex "will ignore all other movement rules" (1.12's withdrawal
    among them) "and engage that task force with SSM, 4 rounds of gunnery, and torpedo combat"."""
    from domain.rulesets.stf import maps
    st = _short_of_escorts(2)
    where = maps.megahex_hexes("giuk", 43)[0]
    st["campaign"].update(invader="Player", mission="US Inv", invasion_target=43)
    for gid in ("P1", "TF1"):
        st["groups"][gid]["hex"] = where
    st["units"]["fr"] = {**cship("FR", 5, invasion=True, role="invasion"), "id": "fr", "group": "P1"}
    st["groups"]["P1"]["units"].append("fr")
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    assert _acts(out, "SSM wave") and _acts(out, "no surface combat") == []


# ---- STF 8.12: a false contact counts nothing ------------------------------------------------------
def test_stf_8_12_a_degraded_contact_that_proves_false_takes_its_accurate_estimate_out_of_the_total():
    """8.12: "Each time a task force increases to Accurate, the deployment point total increases by
    ... If it subsequently reaches Precise, readjust the deployment point total based on the exact
    deployment point cost". TF1 was Accurate, medium (20 in the total), then degraded by 8.11 to
    no chit; a search (Approximate, 8.4: "If there is no chit, then roll 1D6. If the result is
    Even then the taskforce/subron is a false contact and remove it from play") proves it false.
    Its exact cost is nothing - it has no ships - so it counts 0, as Precise readjusts a group to
    what it costs; 1.9's total is "the value of GameSystem ships/subs in play", and a counter
    redeployed by 6.3 starts again from 0. Before, its 20 stayed in the total for good."""
    st = search_state(system_group("TF1"), system_group("TF2", intel="accurate", chit="Captain", size="small"))
    st["deployment"] = {"total": 30, "groups": {"TF1": {"part": "surface", "points": 20},
                                                "TF2": {"part": "surface", "points": 10}}}
    out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 5}, FixedDice(5, 4))
    assert events_of(out, "GroupRemoved")[0]["status"] == "false contact"
    d = events_of(out, "DeploymentChanged")
    assert [(e["group"], e["points"], e["delta"], e["total"], e["rule"]) for e in d] == [
        ("TF1", 0, -20, 10, "STF 8.12")]
    assert after["deployment"] == {"total": 10, "groups": {"TF1": {"part": "surface", "points": 0},
                                                           "TF2": {"part": "surface", "points": 10}}}
    # a contact that never counted anything changes nothing: no event
    st["deployment"]["groups"].pop("TF1")
    st["deployment"]["total"] = 10
    out, _ = play(st, {"kind": "search", "group": "TF1", "search_value": 5}, FixedDice(5, 4))
    assert events_of(out, "DeploymentChanged") == []


def test_stf_2_6_3_no_die_for_the_lbna_unit_when_only_one_type_is_left():
    """2.6.3: "roll 1d6 each turn, in the Strike Segment. On 1-3, it is a Backfire, on 4-6 it is a
    Badger"; 2.6: "These 12 units may only be used once each per scenario". With the six
    Backfires used, whatever the die shows a Badger flies (the type rolled being spent, the other
    flies): the die decides nothing, so none is rolled; the 2.6.4 die (does it locate?) is."""
    st = A.built()
    A.add(st, "P1", "Player", "2205", [A.ship("p1", "DD")])
    st["lbna"] = {"used": {"backfire": 6, "badger": 2}}
    out, after = run_step(st, "lbna_strike", FixedDice(1))
    assert [r.rule for r in rolls_of(out)] == ["STF 2.6.4"]
    assert after["lbna"]["used"] == {"backfire": 6, "badger": 3}
    assert _acts(out, "LBNA missile attack")[0]["detail"]["unit"] == "badger"
    st["lbna"] = {"used": {"backfire": 5, "badger": 2}}  # both types left: the 2.6.3 die, then 2.6.4's
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 1))
    assert [r.rule for r in rolls_of(out)] == ["STF 2.6.3", "STF 2.6.4"]


def test_stf_10_6_no_die_for_a_rear_admiral_that_has_no_carrier_to_fly_a_strike():
    """10.6: "If there is a Rear Admiral chit on a task force with no revealed air strength, roll
    1D6. If odd, then go to the Air Attack Table"; 10.8 draws its carrier from the pool ("randomly
    draw a CV from that nation's pool of CV units"). With no Soviet CV left in the pool, odd or
    even it flies nothing: the die decides nothing and is not rolled. With a CV left it is."""
    st = A.unknown_state(chit="Rear Admiral", intel="accurate")
    pool = dict(st["pool"])
    st["pool"] = {}
    out, _ = run_step(st, "air_attacks", NoDice())
    assert rolls_of(out) == [] and A.strikes(out) == []
    st["pool"] = pool
    out, _ = run_step(st, "air_attacks", FixedDice(5, 2, 1))
    assert [r.rule for r in rolls_of(out)][:1] == ["STF 10.6"] and A.strikes(out)[0]["rule"] == "STF 10.6"
