"""The countermix and the Player's forces: STF 1.4, 1.7, 1.8, 1.11 (free freighters), 1.12, 1.14,
13.1, 13.3-13.9. Each test starts from a state in the Forces phase with the campaign generated,
most with a small pool of their own (a test state may set ``state["pool"]``), and chooses the dice."""

from __future__ import annotations

import copy
import json

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import forces
from domain.rulesets.stf.rules import DATA
from domain.rulesets.toolkit.data import DataError, Dataset
from tests.unit.stf.helpers import FixedDice, NoDice, R, events_of, initial, names, play, rolls_of


# ---- built states -------------------------------------------------------------------------------
def counter(name: str, nation: str, cls: str, **over) -> dict:
    """A pool counter with plain values (what the test does not care about is zero)."""
    c = {"name": name, "nation": nation, "country": "X", "class": cls, "ship_class": name, "value": 3, "vp": 3,
         "speed": 3, "gun": None, "asw": 0, "aa": 0, "ssm": 0, "ssm_loads": 1, "ssm_type": None, "torpedoes": 0,
         "flotation": 2, "air": None, "aircraft": None, "role": None}
    if cls == "CV":
        c.update(value=25 if nation == "US" else 10, vp=15, ssm_loads=2,
                 air={"L": 4, "M": 4, "H": 2, "EW": 1, "AEW": 1})
    if cls == "FR":
        c.update(value=0, vp=5, ssm_loads=0)
    c.update(over)
    return c


def small_pool() -> dict:
    return {
        "us-cv-a": counter("Alpha", "US", "CV"),
        "us-cv-b": counter("Bravo", "US", "CV"),
        "nato-cv-c": counter("Charlie", "NATO", "CV"),
        "nato-cv-d": counter("Delta", "NATO", "CV"),
        "us-ff-1": counter("Knox", "US", "FF", asw=4, value=3),
        "us-ff-2": counter("Roark", "US", "FF", asw=4, value=3),
        "us-ff-3": counter("Gray", "US", "FF", asw=3, value=3, ssm=4, ssm_type="Harpoon"),
        "us-ff-noasw": counter("Nope", "US", "FF", asw=0, value=3),
        "us-dd-1": counter("Spruance", "US", "DD", asw=4, value=4, ssm=8, ssm_type="Harpoon"),
        "us-cg-1": counter("Belknap", "US", "CG", asw=3, value=6, vp=5, ssm=8, ssm_loads=2),
        "us-bb-1": counter("Iowa", "US", "BB", ship_class="Iowa", value=10, vp=10),
        "us-ssn-1": counter("Los Angeles", "US", "SSN", value=5, torpedoes=4, speed=2),
        "us-fr-r1": counter("Sacramento", "US", "FR", role="fast resupply"),
        "us-fr-r2": counter("Camden", "US", "FR", role="fast resupply"),
        **{f"us-fr-i{n}": counter(f"Sealift {n}", "US", "FR", role="invasion") for n in range(1, 9)},
        "nato-ff-1": counter("Broadsword", "NATO", "FF", asw=4, value=3),
        "nato-ff-2": counter("Battleaxe", "NATO", "FF", asw=4, value=3),
        "nato-ff-3": counter("Leander", "NATO", "FF", asw=3, value=3),
        "nato-dd-1": counter("Bristol", "NATO", "DD", asw=2, value=4),
        "sov-cv-k": counter("Kiev", "Soviet", "CV"),
        "sov-pc-1": counter("Burya", "Soviet", "PC", value=2, ssm=6, ssm_type="SS-N-9"),
        "sov-ff-1": counter("Bditelny", "Soviet", "FF", asw=4, value=3),
        "sov-ff-2": counter("Razumny", "Soviet", "FF", asw=4, value=3),
        "sov-ff-3": counter("Svirepy", "Soviet", "FF", asw=4, value=3),
        "sov-cg-1": counter("Kirov", "Soviet", "CG", ship_class="Kirov", value=8, vp=8, ssm=20, ssm_loads=2),
        "sov-ss-1": counter("B-4", "Soviet", "SS", torpedoes=3, speed=1),
    }


def forces_state(*, side: str = "US", map_: str = "giuk", points: int = 21, carriers: int = 1,
                 invader: str | None = None, pool: dict | None = None) -> dict:
    st = initial()
    st["phase"], st["turn"] = "Forces", 0
    st["campaign"] = {"map": map_, "player_side": side, "system_side": "Soviet" if side == "US" else None,
                      "mission": "Battle" if invader is None else "US Inv", "invader": invader,
                      "commitment": {"Player": {"points": points, "carriers": carriers}, "system": 52}}
    if pool is not None:
        st["pool"] = copy.deepcopy(pool)
    return st


def refused(state: dict, order: dict, rule: str, dice=None) -> str:
    with pytest.raises((RuleViolation, InvalidOrder)) as err:
        play(state, order, dice if dice is not None else NoDice())
    assert err.value.rule == rule, str(err.value)
    return str(err.value)


US_A, US_B = 3, 4  # the small pool's carriers by id: nato-cv-c, nato-cv-d, us-cv-a, us-cv-b


def drawn(state: dict, *faces: int) -> dict:
    _, st = play(state, {"kind": "draw_carriers"}, FixedDice(*faces))
    return st


# ---- STF 1.4: values --------------------------------------------------------------------------------
def test_stf_1_4_a_us_carrier_costs_25_points():
    us = [c for c in forces.COUNTERS.values() if c["class"] == "CV" and c["nation"] == "US"]
    assert us and all(c["value"] == 25 for c in us)
    assert all("value" not in c["provisional"] for c in us)  # the text gives it
    assert forces.value({"class": "CV", "nation": "US", "value": 10}) == 25
    assert forces.value({"class": "CV", "nation": "NATO", "value": 10}) == 10


def test_stf_1_4_the_loader_refuses_a_us_carrier_not_worth_25(tmp_path):
    doc = json.loads((DATA.directory / "countermix.json").read_text())
    doc["counters"]["us-cv-nimitz"]["value"] = 10
    (tmp_path / "countermix.json").write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"us-cv-nimitz: a US carrier costs 25 points \(STF 1.4\)"):
        forces.load_countermix(Dataset(tmp_path))


@pytest.mark.parametrize("cid,field,bad,rule", [
    ("us-cv-nimitz", "value", 10, "STF 1.4"), ("us-bb-iowa", "vp", 8, "STF 13.1"), ("sov-cg-kirov", "vp", 5, "STF 13.1"),
    ("us-cg-belknap", "vp", 4, "STF 11.8"), ("us-fr-algol", "vp", 3, "STF 11.8"), ("us-fr-algol", "value", 1, "STF 1.11"),
    ("nato-dd-bristol", "value", 3, "STF 8.9"), ("sov-cg-slava", "ssm_loads", 1, "STF 13.4"),
    ("us-ssn-memphis", "torpedoes", 3, "STF 13.5"), ("sov-ss-b-4", "torpedoes", 4, "STF 13.6"),
    ("sov-ss-b-4", "speed", 2, "STF 7.1"), ("us-ff-knox", "ssm_loads", 3, "STF 13.7")])
def test_stf_1_4_the_loader_refuses_a_correction_against_the_text(tmp_path, cid, field, bad, rule):
    doc = json.loads((DATA.directory / "countermix.json").read_text())
    doc["counters"][cid][field] = bad
    (tmp_path / "countermix.json").write_text(json.dumps(doc))
    with pytest.raises(DataError, match=rf"counters\.{cid}: .*\({rule}"):
        forces.load_countermix(Dataset(tmp_path))


def test_stf_1_4_every_guess_of_the_countermix_is_listed():
    ds = Dataset(DATA.directory)
    forces.load_countermix(ds)
    guesses = ds.provisional()
    assert guesses[0].entry == "(file)" and guesses[0].field is None  # which ships, how many
    kirov = {g.field for g in guesses if g.entry == "counters.sov-cg-kirov"}
    assert "vp" not in kirov and "ssm_loads" not in kirov and "value" in kirov and "asw" in kirov
    knox = {g.field for g in guesses if g.entry == "counters.us-ff-knox"}
    assert {"value", "vp", "asw", "aa", "ssm", "speed", "gun"} <= knox


def test_stf_1_4_the_countermix_holds_what_the_composition_tables_draw():
    have = {(c["nation"], c["class"]) for c in forces.COUNTERS.values()}
    for cls in ("CV", "BB", "CG", "DD", "FF", "SSN", "FR"):
        assert ("US", cls) in have
    for cls in ("CV", "DD", "FF", "SSN", "SS"):
        assert ("NATO", cls) in have
    for cls in ("CV", "CG", "CL", "DD", "FF", "PC", "SSN", "SS", "FR"):
        assert ("Soviet", cls) in have
    for nation in ("US", "NATO", "Soviet"):  # STF 1.11: 8 invasion freighters for any invader
        assert sum(1 for c in forces.COUNTERS.values() if c["nation"] == nation and c["role"] == "invasion") >= 8
    us_cv = sum(1 for c in forces.COUNTERS.values() if c["nation"] == "US" and c["class"] == "CV")
    resupply = sum(1 for c in forces.COUNTERS.values() if c["role"] == "fast resupply")
    assert resupply >= us_cv  # STF 1.12: one per US carrier
    assert all(c["role"] == "fast resupply" and c["nation"] == "US"
               for c in forces.COUNTERS.values() if c["role"] == "fast resupply")


# ---- STF 1.7: the carriers drawn at random, the nationality grouping -----------------------------
def test_stf_1_7_the_pool_is_set_then_the_player_draws_his_carriers():
    st = forces_state(points=35, carriers=2)
    cands = sorted(c for c, x in forces.COUNTERS.items() if x["class"] == "CV" and x["nation"] in ("US", "NATO"))
    first = cands.index("us-cv-nimitz") + 1
    us_left = sorted(c for c in cands if c.startswith("us-") and c != "us-cv-nimitz")
    second = us_left.index("us-cv-midway") + 1
    out, after = play(st, {"kind": "draw_carriers"}, FixedDice(first, second))
    assert names(out)[0] == "PoolSet" and events_of(out, "PoolSet")[0]["rule"] == "STF 1.7"
    rolls = rolls_of(out)
    assert [r.seat for r in rolls] == ["Player", "Player"] and all(r.rule == "STF 1.7" for r in rolls)
    assert [r.dice[0]["sides"] for r in rolls] == [len(cands), len(us_left)]  # the 2nd only among US
    assert [r.outcome for r in rolls] == ["Nimitz", "Midway"] and "Foch" in rolls[0].target["carriers"]
    assert after["campaign"]["player_nation"] == "US"
    assert after["campaign"]["player_carriers"] == ["us-cv-nimitz", "us-cv-midway"]
    assert "us-cv-nimitz" not in after["pool"] and after["units"]["us-cv-nimitz"]["value"] == 25
    assert events_of(out, "UnitsAssigned")[0]["points"] == 0  # carriers are not bought with points
    refused(after, {"kind": "draw_carriers"}, "STF 1.7")  # drawn once


def test_stf_1_7_a_nato_carrier_makes_the_support_nato():
    st = forces_state(pool=small_pool())
    st = drawn(st, 1)  # nato-cv-c, nato-cv-d, us-cv-a, us-cv-b (by id): the 1st is Charlie
    assert st["campaign"]["player_nation"] == "NATO"
    msg = refused(st, {"kind": "buy", "units": ["nato-ff-1", "nato-ff-2", "us-ff-1"]}, "STF 1.7")
    assert "Knox is US" in msg
    out, after = play(st, {"kind": "buy", "units": ["nato-ff-1", "nato-ff-2", "nato-ff-3"]})
    assert not any(u["class"] == "FR" for u in after["units"].values())  # no resupply ship: NATO (1.12)


def test_stf_1_7_the_second_carrier_comes_from_the_first_ones_grouping():
    st = forces_state(points=35, carriers=2, pool=small_pool())
    out, after = play(st, {"kind": "draw_carriers"}, FixedDice(2))  # Delta (NATO), then NATO only
    assert after["campaign"]["player_carriers"] == ["nato-cv-d", "nato-cv-c"]
    assert len(rolls_of(out)) == 1  # one NATO carrier left: no die for it


def test_stf_1_7_on_the_caribbean_map_only_us_carriers_are_drawn():
    st = forces_state(map_="caribbean", pool=small_pool())
    out, after = play(st, {"kind": "draw_carriers"}, FixedDice(2))
    assert rolls_of(out)[0].dice[0]["sides"] == 2
    assert after["campaign"]["player_carriers"] == ["us-cv-b"]
    after = forces_state(map_="caribbean", points=24, carriers=0, pool=small_pool())
    refused(after, {"kind": "buy", "units": ["nato-ff-1"]}, "STF 1.7")


def test_stf_1_7_a_soviet_player_draws_a_soviet_carrier_and_buys_soviet():
    st = forces_state(side="Soviet", pool=small_pool())
    out, after = play(st, {"kind": "draw_carriers"})  # one Soviet carrier: no die
    assert after["campaign"]["player_carriers"] == ["sov-cv-k"] and after["campaign"]["player_nation"] == "Soviet"
    refused(after, {"kind": "buy", "units": ["us-ff-1", "sov-ff-1", "sov-ff-2"]}, "STF 1.7")


def test_stf_1_7_the_carriers_are_drawn_before_the_rest_is_bought():
    st = forces_state(pool=small_pool())
    refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"]}, "STF 1.7")
    refused(forces_state(carriers=0, points=24, pool=small_pool()), {"kind": "draw_carriers"}, "STF 1.5")


def test_stf_1_7_without_a_carrier_the_purchase_keeps_to_one_grouping():
    st = forces_state(carriers=0, points=24, pool=small_pool())
    refused(st, {"kind": "buy", "units": ["us-ff-1", "nato-ff-1"]}, "STF 1.7")
    out, after = play(st, {"kind": "buy", "units": ["nato-ff-1", "nato-dd-1"]})
    assert after["campaign"]["player_nation"] == "NATO"
    assert events_of(out, "PoolSet") == []  # the test's pool was already set


# ---- STF 1.5: the commitment limit ---------------------------------------------------------------
def test_stf_1_5_the_purchase_stays_within_the_points():
    st = drawn(forces_state(points=14, pool=small_pool()), US_A)
    msg = refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-dd-1", "us-ssn-1"]}, "STF 1.5")
    assert "costs 15 points, over the commitment limit of 14" in msg
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-dd-1"]})
    assert after["campaign"]["player_purchase"]["points"] == 10
    assert events_of(out, "UnitsAssigned")[0]["points"] == 10
    refused(after, {"kind": "buy", "units": ["us-ssn-1"]}, "STF 1.7")  # bought once


def test_stf_1_5_carriers_and_freighters_are_not_bought():
    st = drawn(forces_state(points=50, pool=small_pool()), US_A)
    refused(st, {"kind": "buy", "units": ["us-cv-b", "us-ff-1", "us-ff-2", "us-ff-3"]}, "STF 1.5")
    refused(st, {"kind": "buy", "units": ["us-fr-i1", "us-ff-1", "us-ff-2", "us-ff-3"]}, "STF 1.11")
    with pytest.raises(InvalidOrder) as err:
        play(st, {"kind": "buy", "units": ["us-cv-a"]})  # drawn already: no longer in the pool
    assert err.value.rule == "STF 1.4"


# ---- STF 1.8: SOSUS -----------------------------------------------------------------------------------
def test_stf_1_8_a_us_player_buys_up_to_six_sosus_at_one_point_for_two():
    st = drawn(forces_state(points=14, pool=small_pool()), US_A)
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"], "sosus": 5})
    assert after["campaign"]["player_purchase"]["points"] == 9 + 3  # 5 SOSUS: 3 points (a part pair is a point)
    sosus = [u for u in after["units"].values() if u["class"] == "SOSUS"]
    assert len(sosus) == 5 and all(u["megahex"] is None and u["group"] is None for u in sosus)
    assert [e["rule"] for e in events_of(out, "UnitsAssigned")][1] == "STF 1.8"
    refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"], "sosus": 7}, "STF 1.8")
    st = forces_state(side="Soviet", pool=small_pool())
    st = drawn(st)
    refused(st, {"kind": "buy", "units": ["sov-ff-1", "sov-ff-2", "sov-ff-3"], "sosus": 2}, "STF 1.8")


# ---- STF 1.12: escorts and the free fast resupply ship ------------------------------------------------
def test_stf_1_12_a_carrier_needs_three_asw_escorts_and_a_us_one_a_free_freighter():
    st = drawn(forces_state(points=21, pool=small_pool()), US_A)
    msg = refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-noasw"]}, "STF 1.12")
    assert "need 3 ASW ships of frigate level or higher; the purchase has 2" in msg
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-cg-1"]})
    free = events_of(out, "UnitsAssigned")[1]
    assert free["rule"] == "STF 1.12" and free["points"] == 0 and list(free["units"]) == ["us-fr-r1"]
    assert after["units"]["us-fr-r1"]["invasion"] is False  # no 3 VP at the target
    assert after["campaign"]["player_purchase"]["points"] == 12


def test_stf_1_12_the_carriers_task_force_keeps_its_escorts_and_freighter():
    st = drawn(forces_state(points=21, pool=small_pool()), US_A)
    _, st = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3", "us-ssn-1"]})
    short = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": ["us-cv-a", "us-ff-1", "us-ff-2", "us-fr-r1"]},
        {"kind": "tf", "units": ["us-ff-3"]}, {"kind": "subron", "units": ["us-ssn-1"]}]}
    assert "P1: 1 carrier(s) need 3 ASW ships" in refused(st, short, "STF 1.12")
    no_fr = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3"]},
        {"kind": "tf", "units": ["us-fr-r1"]}, {"kind": "subron", "units": ["us-ssn-1"]}]}
    assert "fast resupply" in refused(st, no_fr, "STF 1.12")
    ok = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3", "us-fr-r1"]},
        {"kind": "subron", "units": ["us-ssn-1"]}]}
    out, after = play(st, ok)
    assert forces.escort_shortfall(after, "P1") is None
    after["units"]["us-ff-2"]["sunk"] = True  # later: an escort lost, the task force must withdraw
    assert "need 3 ASW ships" in forces.escort_shortfall(after, "P1")


def test_stf_1_11_an_invading_player_gets_eight_free_invasion_freighters():
    st = drawn(forces_state(points=21, invader="Player", pool=small_pool()), US_A)
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"]})
    free = events_of(out, "UnitsAssigned")[1]
    assert free["points"] == 0 and free["rule"] == "STF 1.11"
    assert sorted(u for u, x in free["units"].items() if x["invasion"]) == sorted(f"us-fr-i{n}" for n in range(1, 9))
    assert [u for u, x in free["units"].items() if not x["invasion"]] == ["us-fr-r1"]
    assert after["campaign"]["player_purchase"]["freighters"] == list(free["units"])


# ---- STF 1.14: the Player's groups and leaders -----------------------------------------------------
def test_stf_1_14_leaders_by_the_points_of_each_task_force():
    assert [forces.leader_for(p) for p in (25, 21, 20, 11, 10, 0)] == [
        "Rear Admiral", "Rear Admiral", "Commodore", "Commodore", "Captain", "Captain"]
    st = drawn(forces_state(points=35, pool=small_pool()), US_A)
    _, st = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3", "us-dd-1", "us-cg-1", "us-ssn-1"]})
    order = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3", "us-fr-r1"]},  # 34
        {"kind": "tf", "units": ["us-dd-1", "us-cg-1"]},                                  # 10
        {"kind": "subron", "units": ["us-ssn-1"]}]}
    out, after = play(st, order)
    placed = [e["group"] for e in events_of(out, "GroupPlaced")]
    assert [(g["id"], g["kind"], g["owner"], g["hex"], g.get("leader"), g["points"]) for g in placed] == [
        ("P1", "tf", "Player", None, "Rear Admiral", 34), ("P2", "tf", "Player", None, "Captain", 10),
        ("P3", "subron", "Player", None, None, 5)]
    assert after["groups"]["P1"]["units"] == ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3", "us-fr-r1"]
    assert after["units"]["us-cg-1"]["group"] == "P2"
    assert events_of(out, "PhaseAdvanced") == [{"turn": 0, "phase": "Deployment", "rule": "STF 6.1"}]
    assert after["phase"] == "Deployment"
    too_high = copy.deepcopy(order)
    too_high["groups"][1]["leader"] = "Commodore"
    assert "10 points may have a Captain at most" in refused(st, too_high, "STF 1.14")
    lower = copy.deepcopy(order)
    lower["groups"][0]["leader"] = "Commodore"  # a lower leader than allowed is the Player's choice
    assert play(st, lower)[1]["groups"]["P1"]["leader"] == "Commodore"


def test_stf_1_14_every_ship_and_sub_joins_one_group():
    st = drawn(forces_state(points=21, pool=small_pool()), US_A)
    _, st = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3", "us-ssn-1"]})
    tf = ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3", "us-fr-r1"]
    refused(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf}]}, "STF 6.1")  # the sub is missing
    refused(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf + ["us-ssn-1"]}]}, "STF 6.1")
    refused(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf},
                                                   {"kind": "subron", "units": ["us-ssn-1", "us-ff-1"]}]}, "STF 6.1")
    refused(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf},
                                                   {"kind": "subron", "units": ["us-ssn-1", "us-dd-1"]}]}, "STF 6.1")
    refused(forces_state(pool=small_pool()), {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf}]},
            "STF 1.7")


def test_stf_1_14_a_player_who_buys_no_ship_forms_no_group():
    st = forces_state(carriers=0, points=24, pool=small_pool())
    out, after = play(st, {"kind": "buy", "units": [], "sosus": 4})
    refused(after, {"kind": "form_groups", "groups": [{"kind": "tf", "units": ["SOSUS1"]}]}, "STF 6.1")
    out, after = play(after, {"kind": "form_groups", "groups": []})
    assert names(out) == ["PhaseAdvanced"] and after["groups"] == {}


def test_stf_1_14_buy_may_form_the_groups_at_once():
    st = drawn(forces_state(points=21, pool=small_pool()), US_B)
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-dd-1"], "groups": [
        {"kind": "tf", "units": ["us-cv-b", "us-ff-1", "us-ff-2", "us-dd-1", "us-fr-r1"]}]})
    assert after["groups"]["P1"]["leader"] == "Rear Admiral" and after["phase"] == "Deployment"


# ---- STF 13: values and loads --------------------------------------------------------------------
def test_stf_13_1_iowa_is_worth_10_vp_and_kirov_8():
    for cid, c in forces.COUNTERS.items():
        if c["ship_class"] in ("Iowa", "Kirov"):
            assert c["vp"] == {"Iowa": 10, "Kirov": 8}[c["ship_class"]] and "vp" not in c["provisional"]
    assert forces.vp({"ship_class": "Iowa", "vp": 6}) == 10 and forces.vp({"ship_class": "Kirov", "vp": 5}) == 8
    assert forces.vp({"ship_class": "Belknap", "class": "CG", "vp": 5}) == 5
    st = forces_state(pool={"x": counter("Iowa", "US", "BB", ship_class="Iowa", vp=4)})
    assert forces.unit_from_counter(st, "x", "u1")["vp"] == 10


def test_stf_13_3_the_invincible_carries_a_second_av8_squadron():
    unit = forces.unit_from_counter(forces_state(), "nato-cv-invincible", "inv")
    standard = forces.COUNTERS["nato-cv-invincible"]["air"]
    assert unit["air"]["M"] == 2 * standard["M"] and unit["extra_av8"] is True
    assert {k: v for k, v in unit["air"].items() if k != "M"} == {k: v for k, v in standard.items() if k != "M"}
    hermes = forces.unit_from_counter(forces_state(), "nato-cv-hermes", "her")
    assert hermes["air"] == forces.COUNTERS["nato-cv-hermes"]["air"] and "extra_av8" not in hermes


def test_stf_13_4_every_cv_and_cg_carries_x2_ssm():
    assert all(c["ssm_loads"] == 2 for c in forces.COUNTERS.values() if c["class"] in ("CV", "CG"))
    st = forces_state(pool={"cg": counter("Leahy", "US", "CG", ssm=8, ssm_loads=1),
                            "cv": counter("Kiev", "Soviet", "CV", ssm=8, ssm_loads=1)})
    for cid in ("cg", "cv"):
        u = forces.unit_from_counter(st, cid, cid)
        assert u["ssm_loads"] == 2 and u["ssm_left"] == 16  # missiles: 8 a load, (x2)


def test_stf_13_5_us_and_nato_subs_carry_x4_torpedoes():
    st = forces_state(pool={"a": counter("LA", "US", "SSN", torpedoes=1), "b": counter("Oberon", "NATO", "SS")})
    assert [forces.unit_from_counter(st, c, c)["torpedoes_left"] for c in ("a", "b")] == [4, 4]
    assert all(c["torpedoes"] == 4 for c in forces.COUNTERS.values()
               if c["class"] in ("SSN", "SS") and c["nation"] != "Soviet")


def test_stf_13_6_soviet_subs_carry_x3_torpedoes():
    st = forces_state(pool={"a": counter("Victor", "Soviet", "SSN", torpedoes=6)})
    assert forces.unit_from_counter(st, "a", "a")["torpedoes"] == 3
    assert all(c["torpedoes"] == 3 for c in forces.COUNTERS.values()
               if c["class"] in ("SSN", "SS") and c["nation"] == "Soviet")


def test_stf_13_7_a_destroyer_or_frigate_buys_x2_ssm_for_a_point():
    st = drawn(forces_state(points=14, pool=small_pool()), US_A)
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-3", "us-dd-1"],
                           "ssm_upgrades": ["us-ff-3", "us-dd-1"]})
    assert after["campaign"]["player_purchase"]["points"] == 10 + 2
    dd = after["units"]["us-dd-1"]
    assert (dd["ssm_loads"], dd["ssm_left"]) == (2, 16)  # missiles: two loads of 8
    assert after["units"]["us-ff-1"]["ssm_loads"] == 1
    refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-3", "us-dd-1"],
                 "ssm_upgrades": ["us-ff-3", "us-dd-1", "us-ff-1"]}, "STF 13.7")  # Knox has no SSM here
    refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3", "us-cg-1"],
                 "ssm_upgrades": ["us-cg-1"]}, "STF 13.7")
    refused(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"],
                 "ssm_upgrades": ["us-dd-1"]}, "STF 13.7")  # not bought here
    tight = drawn(forces_state(points=9, pool=small_pool()), US_A)
    refused(tight, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"], "ssm_upgrades": ["us-ff-3"]},
            "STF 1.5")  # 9 points of frigates and 1 for the upgrade: over 9


def test_stf_13_8_a_pc_never_carries_more_ssm():
    st = drawn(forces_state(side="Soviet", points=21, pool=small_pool()))
    msg = refused(st, {"kind": "buy", "units": ["sov-ff-1", "sov-ff-2", "sov-ff-3", "sov-pc-1"],
                       "ssm_upgrades": ["sov-pc-1"]}, "STF 13.8")
    assert "never carries more SSM" in msg
    assert all(c["ssm_loads"] <= 1 for c in forces.COUNTERS.values() if c["class"] == "PC")


def test_stf_13_9_no_tomahawk_on_a_frigate(tmp_path):
    assert not any("Tomahawk" in (c["ssm_type"] or "") for c in forces.COUNTERS.values() if c["class"] == "FF")
    doc = json.loads((DATA.directory / "countermix.json").read_text())
    doc["counters"]["us-ff-knox"]["ssm_type"] = "Tomahawk"
    (tmp_path / "countermix.json").write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"no Tomahawk on a FF \(STF 13.9\)"):
        forces.load_countermix(Dataset(tmp_path))


# ---- the order kinds offered ----------------------------------------------------------------------
def test_stf_1_7_the_forces_orders_offered_are_legal_in_turn():
    st = forces_state(points=21, pool=small_pool())
    assert {"kind": "draw_carriers"} in R.legal_orders(st, "Player")
    st = drawn(st, US_A)
    buy = [o for o in R.legal_orders(st, "Player") if o["kind"] == "buy"]
    assert buy[0] == {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"], "sosus": 0, "ssm_upgrades": []}
    assert len(buy) == 2 and buy[1]["sosus"] == 2  # the fuller force the points still buy
    _, st = play(st, buy[1])
    assert st["campaign"]["player_purchase"]["points"] <= 21
    form = [o for o in R.legal_orders(st, "Player") if o["kind"] == "form_groups"]
    _, st = play(st, form[0])
    assert st["phase"] == "Deployment"
    assert all(u["group"] for u in st["units"].values() if u["class"] != "SOSUS")


@pytest.mark.parametrize("side,map_,carriers,points", [
    ("US", "giuk", 1, 14), ("US", "mediterranean", 2, 35), ("US", "caribbean", 2, 40),
    ("Soviet", "giuk", 2, 35), ("Soviet", "mediterranean", 0, 24)])
def test_stf_1_7_the_real_countermix_gives_every_draw_a_legal_force(side, map_, carriers, points):
    """Whichever carriers the Player draws, the countermix holds their escorts and free freighters
    within the smallest commitment limit of STF 1.5 (the orders offered lead to deployment)."""
    st = forces_state(side=side, map_=map_, points=points, carriers=carriers, invader="Player")
    cands = sorted(c for c, x in forces.COUNTERS.items() if x["class"] == "CV" and x["nation"] in forces.groupings(st))
    for face in range(1, len(cands) + 1) if carriers else [None]:
        now = st
        if carriers:
            _, now = play(st, {"kind": "draw_carriers"}, FixedDice(face, default=1))
        buys = [o for o in R.legal_orders(now, "Player") if o["kind"] == "buy"]
        assert buys, f"no legal purchase after drawing {cands[face - 1] if face else 'no carrier'}"
        for buy in buys:
            _, end = play(now, buy)
            form = [o for o in R.legal_orders(end, "Player") if o["kind"] == "form_groups"]
            _, end = play(end, form[0])
            assert end["phase"] == "Deployment"
            assert sum(1 for u in end["units"].values() if u.get("invasion")) == 8


# ---- review (stf-review-a) -----------------------------------------------------------------------
@pytest.mark.parametrize("leader", [["Captain"], {"a": 1}])
def test_stf_1_14_a_leader_that_is_not_a_name_is_refused_not_a_crash(leader):
    st = drawn(forces_state(points=21, pool=small_pool()), US_A)
    _, st = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"]})
    tf = ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3", "us-fr-r1"]
    with pytest.raises(InvalidOrder) as err:
        play(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": tf, "leader": leader}]})
    assert err.value.rule == "STF 1.14"
