"""STF 12 (retirement) on built states with chosen dice: the limit, the index, the die, the carriers'
and subrons' retirement, and the bases retiring groups go to. Each test is named after its rule."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import maps, retirement
from domain.rulesets.stf.rules import HOOKS
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import FixedDice, NoDice, add_group, combat_state, events_of, play, run_step, ship

SOVIET_BASE_HEXES = {*maps.sea_hexes_of("giuk", 63), *maps.sea_hexes_of("giuk", 64)}  # STF 12.11: Megahex 63 or 64


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


def terminal(commitment: int = 52) -> dict:
    """Turn 2's Terminal Phase: the Player's task force P1 and three GameSystem groups in the G-I-UK Gap."""
    st = combat_state("Terminal", commitment=commitment)
    add_group(st, "P1", "Player", "1212", {"nimitz": ship("CV", 20, nation="US"), "p_dd": ship("DD", 4, nation="US"),
                                            "p_ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "1610", {"kirov": ship("CG", 8), "slava": ship("CG", 5), "udaloy": ship("DD", 4)})
    add_group(st, "TF2", "system", "2010", {"kiev": ship("CV", 15, air={"L": 0, "M": 3, "H": 0, "EW": 1, "AEW": 0}),
                                             "krivak": ship("FF", 3)})
    add_group(st, "SR1", "system", "1810", {"victor": ship("SSN", 4, ssm=2, torpedoes=3)}, kind="subron")
    return st


def sink(st: dict, *units: str) -> dict:
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "sunk": list(units)})
    return {**st, "phase": "Terminal"}


# ---- STF 12.2-12.4: the limit and the index -------------------------------------------------------
def test_stf_12_2_the_limit_is_half_the_starting_commitment():
    assert retirement.limit(terminal(52)) == 26
    assert retirement.limit(terminal(45)) == 22.5
    st = terminal()
    st["campaign"]["commitment"] = None  # before STF 1.5's roll: no limit, no roll
    assert retirement.limit(st) is None
    out, _ = run_step(st, "retirement", NoDice())
    assert acts(out, "retirement check") == []


def test_stf_12_3_two_points_per_attack_squadron_destroyed_those_on_sunk_carriers_included():
    st = terminal()
    _, st2 = play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["kiev:M"]})
    assert retirement.squadrons_destroyed(st2) == 1 and retirement.index(st2) == 2
    with pytest.raises(RuleViolation, match="no H squadron"):
        play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["kiev:H"]})
    # an EW squadron may be reported destroyed, but it is no attack squadron
    _, st3 = play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["kiev:EW"]})
    assert retirement.squadrons_destroyed(st3) == 0
    st4 = sink(st, "kiev")  # the M squadron goes down with its carrier
    assert retirement.squadrons_destroyed(st4) == 1 and retirement.index(st4) == 15 + 2


def test_stf_12_4_net_vp_is_the_systems_losses_less_the_players():
    st = sink(terminal(), "kirov", "slava", "p_dd")
    assert retirement.net_vp(st) == 8 + 5 - 4
    assert retirement.index(st) == 9
    assert st["vp"]["Player"] - st["vp"]["system"] == 9


# ---- STF 12.5, 12.6: the die ----------------------------------------------------------------------
def test_stf_12_5_at_or_under_the_limit_no_die_is_rolled():
    st = sink(terminal(52), "kirov", "slava", "udaloy", "krivak", "victor", "p_ff")  # 24 - 3 = 21: not over 26
    out, _ = run_step(st, "retirement", NoDice())
    assert acts(out, "retirement check") == []


def test_stf_12_5_over_the_limit_a_one_retires_every_group_towards_its_nearest_base():
    st = sink(terminal(46), "kirov", "slava", "udaloy", "krivak", "victor")
    assert retirement.index(st) == 24 and retirement.limit(st) == 23  # over 23, under 66% (30.36)
    out, after = run_step(st, "retirement", FixedDice(2))
    check = acts(out, "retirement check")[0]
    assert check["rule"] == "STF 12.5" and check["detail"]["retire"] is False and check["detail"]["retire_on"] == [1]
    assert not any(g.get("retiring") for g in after["groups"].values())
    out, after = run_step(st, "retirement", FixedDice(1))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is True
    assert after["campaign"]["system_retiring"] == 2
    changed = {e["group"]: e["changes"] for e in events_of(out, "GroupChanged")}
    assert set(changed) == {"TF2"}  # the only GameSystem group still on the map
    assert changed["TF2"]["retiring"] is True and changed["TF2"]["destination"] in SOVIET_BASE_HEXES
    out, _ = run_step(after, "retirement", NoDice())  # retiring already: no second roll
    assert acts(out, "retirement check") == []


def test_stf_12_6_at_66_percent_of_the_commitment_it_retires_on_anything_but_a_six():
    st = sink(terminal(30), "kirov", "slava", "udaloy")  # 17 against 30: over 15 (50%), under 19.8 (66%)
    assert retirement.index(st) == 17
    out, _ = run_step(st, "retirement", FixedDice(5))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is False  # 12.5: only a 1
    st = sink(st, "krivak")  # 20 >= 19.8
    out, after = run_step(st, "retirement", FixedDice(5))
    check = acts(out, "retirement check")[0]
    assert check["rule"] == "STF 12.6" and check["detail"]["retire"] is True
    assert check["detail"]["retire_on"] == [1, 2, 3, 4, 5]
    assert all(g["retiring"] for gid, g in after["groups"].items() if g["owner"] == "system" and g["hex"])
    out, _ = run_step(st, "retirement", FixedDice(6))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is False


def test_stf_12_2_the_limit_is_half_the_commitment_the_1_5_table_gives_before_the_caribbean_adjustment():
    st = terminal(47)  # the GameSystem's limit after STF 1.6's -5 in the Caribbean
    st["campaign"]["commitment_table"] = {"Player": {"points": 21, "carriers": 1}, "system": 52}
    assert retirement.limit(st) == 26


def test_stf_12_6_net_losses_not_the_squadrons_of_the_index_make_the_66_percent():
    st = terminal(30)
    st["units"]["kiev"]["air"] = {"L": 0, "M": 3, "H": 2, "EW": 1, "AEW": 0}
    st = sink(st, "kirov", "slava", "udaloy")  # net losses 17: under 66% of 30 (19.8)
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["kiev:M", "kiev:H"]})
    st = {**st, "phase": "Terminal"}
    assert retirement.net_vp(st) == 17 and retirement.index(st) == 21  # the index is over 19.8, the losses not
    out, _ = run_step(st, "retirement", FixedDice(5))
    check = acts(out, "retirement check")[0]
    assert check["rule"] == "STF 12.5" and check["detail"]["retire"] is False  # 12.5: only a 1 retires


# ---- STF 12.7: a carrier without aircraft or flight deck ---------------------------------------------
def carrier_group(nation: str = "Soviet", extra: dict | None = None) -> dict:
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p": ship("DD", 4, nation="US")})
    units = {"cv": ship("CV", 15, nation=nation, air={"L": 0, "M": 3, "H": 0, "EW": 0, "AEW": 0}),
             "f1": ship("FF", 3, nation=nation, asw=4, aa=2, ssm=4), "f2": ship("FF", 3, nation=nation, asw=5, aa=1),
             "f3": ship("FF", 3, nation=nation, asw=4, aa=3, ssm=4), "f4": ship("FF", 3, nation=nation, asw=4, aa=3,
                                                                                 ssm=2),
             "d1": ship("DD", 4, nation=nation, asw=6), "c1": ship("CG", 5, nation=nation, asw=6)}
    units.update(extra or {})
    add_group(st, "TF3", "system", "2010", units)
    return st


def test_stf_12_7_a_carrier_with_an_inoperable_flight_deck_retires_with_its_three_best_frigates():
    st = carrier_group()
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "flight_deck_inoperable": ["cv"]})
    out, after = run_step({**st, "phase": "Terminal"}, "retirement", NoDice())
    placed = events_of(out, "GroupPlaced")[0]["group"]
    # ASW first (f2: 5), then AA (f3, f4: 3), then the lowest SSM (f4: 2 before f3: 4)
    assert placed["id"] == "TF4" and placed["units"] == ["cv", "f2", "f4", "f3"] and placed["hex"] == "2010"
    assert after["groups"]["TF3"]["units"] == ["f1", "d1", "c1"] and not after["groups"]["TF3"]["retiring"]
    assert after["groups"]["TF4"]["retiring"] is True and after["groups"]["TF4"]["carrier_retiring"] == "cv"
    assert after["groups"]["TF4"]["destination"] in SOVIET_BASE_HEXES
    assert all(after["units"][u]["group"] == "TF4" for u in placed["units"])


def test_stf_12_7_a_carrier_with_no_combat_aircraft_left_retires_dd_then_cg_when_frigates_are_few():
    st = carrier_group()
    for f in ("f1", "f2", "f3"):
        st["units"][f]["sunk"] = True
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["cv:M"]})
    out, after = run_step({**st, "phase": "Terminal"}, "retirement", NoDice())
    # one frigate left (f4), then the DD, then the CG: the whole group, so no split
    assert events_of(out, "GroupPlaced") == []
    assert after["groups"]["TF3"]["retiring"] is True and after["groups"]["TF3"]["carrier_retiring"] == "cv"


def test_stf_12_7_a_us_carrier_takes_its_fast_supply_ship_and_equal_frigates_both_taken_need_no_die():
    st = carrier_group("US", {"f5": ship("FF", 3, nation="US", asw=5, aa=1),
                              "sup": ship("FR", 5, nation="US", role="fast resupply")})
    st["units"]["cv"]["flight_deck_inoperable"] = True
    # f2 and f5 tie and both go (f4 is the third): no die orders them (round 13; before, a d2 did,
    # and nothing used the order); equal frigates for fewer places are still drawn by die
    # (tests/unit/stf/test_examiner_round13_umpire.py)
    out, after = run_step(st, "retirement", NoDice())
    placed = events_of(out, "GroupPlaced")[0]["group"]
    assert placed["units"] == ["cv", "f2", "f5", "f4", "sup"]


def test_stf_12_7_at_its_base_the_carrier_leaves_and_the_escorts_go_on_as_a_sag():
    st = carrier_group()
    st["groups"]["TF3"].update({"hex": "2313", "retiring": True, "carrier_retiring": "cv", "destination": "2313"})
    out, after = run_step(st, "retirement", NoDice())
    assert after["units"]["cv"]["retired"] is True
    g = after["groups"]["TF3"]
    assert g["hex"] == "2313" and g["retiring"] is False and "cv" not in g["units"] and g["status"] == "on map"
    assert events_of(out, "VPScored") == []


# ---- STF 12.8: a subron with nothing left to fire ---------------------------------------------------
def test_stf_12_8_a_subron_with_no_ssms_or_torpedoes_left_retires():
    st = terminal()
    _, st2 = play({**st, "phase": "Combat"}, {"kind": "report", "spent": {"victor": {"ssm": 2, "torpedoes": 2}}})
    out, _ = run_step({**st2, "phase": "Terminal"}, "retirement", NoDice())
    assert events_of(out, "GroupChanged") == []  # one torpedo left
    _, st3 = play({**st2, "phase": "Combat"}, {"kind": "report", "spent": {"victor": {"torpedoes": 1}}})
    out, after = run_step({**st3, "phase": "Terminal"}, "retirement", NoDice())
    change = events_of(out, "GroupChanged")[0]
    assert change["group"] == "SR1" and change["rule"] == "STF 12.8" and change["changes"]["retiring"] is True
    assert change["changes"]["destination"] in SOVIET_BASE_HEXES


# ---- STF 12.9-12.12: the bases ----------------------------------------------------------------------
def test_stf_12_9_a_retiring_group_on_its_base_leaves_the_map_without_vp():
    st = terminal()
    st["groups"]["TF1"].update({"hex": "2313", "retiring": True, "destination": "2313"})  # Megahex 63 (STF 12.11)
    st["groups"]["SR1"].update({"retiring": True, "destination": "2313"})  # not there yet
    out, after = run_step(st, "retirement", NoDice())
    assert [(e["group"], e["status"], e["rule"]) for e in events_of(out, "GroupRemoved")] == [("TF1", "retired",
                                                                                                "STF 12.9")]
    assert all(after["units"][u]["retired"] for u in ("kirov", "slava", "udaloy"))
    assert after["groups"]["TF1"]["hex"] is None and after["groups"]["SR1"]["hex"] == "1810"
    assert events_of(out, "VPScored") == [] and retirement.net_vp(after) == 0


@pytest.mark.parametrize("map_name, side, bases", [
    ("caribbean", "US", ["Megahex 9", "Megahex 61"]),  # STF 12.10
    ("caribbean", "Soviet", ["Santiago", "Banas"]),
    ("giuk", "US", ["Megahex 1", "Sumburgh"]),  # STF 12.11
    ("giuk", "Soviet", ["Megahex 63", "Megahex 64"]),
    ("mediterranean", "US", ["Malta", "Suda Bay", "Antalya", "Haifa"]),  # STF 12.12
    ("mediterranean", "NATO", ["Malta", "Suda Bay", "Antalya", "Haifa"]),
    ("mediterranean", "Soviet", ["Benghazi", "Tobruk", "Port Said", "Latakia", "Megahex 117"]),
])
def test_stf_12_10_to_12_12_a_retiring_groups_destination_is_one_of_its_sides_bases(map_name, side, bases):
    st = combat_state("Terminal", map=map_name, system_side=side, player_side="US" if side == "Soviet" else "Soviet")
    hexes = retirement.base_hexes(st, side)
    expected = set()
    for b in bases:  # a megahex base is each of its sea hexes (STF 12.9: reached on entering it)
        expected |= set(maps.sea_hexes_of(map_name, int(b.split()[1])) if b.startswith("Megahex")
                        else [maps.place_hex(map_name, b)])
    assert set(hexes) == expected
    # a group anywhere on the map heads for the nearest of them
    numbers = maps.megahex_numbers(map_name)
    start = next(h for n in numbers[len(numbers) // 2:] for h in maps.sea_hexes_of(map_name, n))
    add_group(st, "TF1", "system", start, {"a": ship("DD", 4)})
    ctx = Ctx(st, FixedDice(default=1), HOOKS)  # a die only between equally near bases
    dest = retirement.destination(ctx, "TF1")
    assert dest in expected
    assert maps.distance(map_name, start, dest) == min(maps.distance(map_name, start, h) for h in expected)


# ---- review (stf-review-b): the Invincible's two AV8 squadrons (STF 13.3) -------------------------
def invincible_state() -> dict:
    """Turn 2's Combat phase: the GameSystem's Invincible, whose M strength the forces helper doubled
    for STF 13.3's second AV8 squadron (two M squadrons of 2), with two frigates."""
    st = combat_state("Combat")
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    inv = ship("CV", 10, nation="NATO", name="Invincible", air={"L": 0, "M": 4, "H": 0, "EW": 0, "AEW": 0},
               extra_av8=True)
    add_group(st, "TF1", "system", "1610", {"inv": inv, "ff1": ship("FF", 3, asw=2), "ff2": ship("FF", 3, asw=1)})
    return st


def test_stf_13_3_both_of_the_invincibles_av8_squadrons_can_be_reported_destroyed():
    st = invincible_state()
    _, st2 = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M"]})
    _, st3 = play(st2, {"kind": "report", "squadrons_destroyed": ["inv:M"]})  # the second AV8
    assert st3["units"]["inv"]["air_lost"] == ["M", "M"]
    with pytest.raises(RuleViolation, match="already destroyed"):
        play(st3, {"kind": "report", "squadrons_destroyed": ["inv:M"]})
    _, both = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M1", "inv:M2"]})  # air.py's names
    assert both["units"]["inv"]["air_lost"] == ["M1", "M2"]  # each by its name (which one is gone)
    with pytest.raises(RuleViolation, match="no other M squadron"):
        play(st, {"kind": "report", "squadrons_destroyed": ["inv:M1", "inv:M2", "inv:M"]})


def test_stf_12_3_each_of_the_invincibles_two_av8_squadrons_scores_two_points():
    st = invincible_state()
    _, st2 = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M1", "inv:M2"]})
    assert retirement.squadrons_destroyed(st2) == 2 and retirement.index(st2) == 4
    _, sunk = play(st, {"kind": "report", "sunk": ["inv"]})  # both go down with her
    assert retirement.squadrons_destroyed(sunk) == 2 and retirement.index(sunk) == 10 + 4


def test_stf_12_7_the_invincible_with_one_av8_squadron_left_does_not_retire():
    st = invincible_state()
    _, st2 = play(st, {"kind": "report", "squadrons_destroyed": ["inv:M"]})
    out, _ = run_step({**st2, "phase": "Terminal"}, "retirement", FixedDice(default=3))
    assert not [e for e in events_of(out, "GroupChanged") if e["rule"] == "STF 12.7"]
    _, st3 = play(st2, {"kind": "report", "squadrons_destroyed": ["inv:M"]})
    out, _ = run_step({**st3, "phase": "Terminal"}, "retirement", FixedDice(default=3))
    assert [e for e in events_of(out, "GroupChanged") if e["rule"] == "STF 12.7"]


def test_stf_12_3_the_gamesystem_airbases_ground_squadrons_destroyed_score_two_points_each():
    """STF 12.3's attack squadrons include the GameSystem's ground aviation (STF 2.1): the Player
    reports one destroyed by the name air.py gives it, it flies no more, and it scores 2 points."""
    from domain.rulesets.stf import air
    st = combat_state("Combat", map="mediterranean", system_airbase="Latakia", player_airbases=["Malta"],
                      ground_aviation={"Player": 1, "system": 2})
    assert [s["id"] for s in air.squadrons(st, "Latakia")] == ["Latakia:M1", "Latakia:M2"]
    _, st2 = play(st, {"kind": "report", "squadrons_destroyed": ["Latakia:M1"]})
    assert [s["id"] for s in air.squadrons(st2, "Latakia")] == ["Latakia:M2"]
    assert retirement.squadrons_destroyed(st2) == 1 and retirement.index(st2) == 2
    with pytest.raises(RuleViolation, match="no squadron Latakia:M1 left"):
        play(st2, {"kind": "report", "squadrons_destroyed": ["Latakia:M1"]})
    with pytest.raises(RuleViolation, match="not the GameSystem's airbase"):
        play(st, {"kind": "report", "squadrons_destroyed": ["Malta:M1"]})
