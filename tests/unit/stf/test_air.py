"""STF 2.6-2.6.5, 9.1-9.8, 10.1-10.16, 13.10, 13.11 and the Air Attack Table (domain/rulesets/stf/air.py,
data/air.json): built states on the G-I-UK Gap map, chosen dice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import air, maps
from domain.rulesets.toolkit.engine import Ctx
from domain.rulesets.toolkit.data import DataError, Dataset
from domain.rulesets.toolkit.tables import load_tables, read
from domain.rulesets.stf import rules as stf_rules
from tests.unit.stf.helpers import (R, FixedDice, NoDice, at_phase, events_of, fold_all, initial, names, play,
                                    pool_of, rolls_of, run_step)

DATA = Path(air.__file__).parent / "data" / "air.json"

# On the G-I-UK map: a GameSystem task force at 2305; 0605 is 6 megahexes from it, 0505 is 7,
# 1705 is 2 and 1405 is 3 (each checked by ``far`` before it is relied on).
SYS = "2305"


def far(a: str, b: str) -> int:
    return maps.megahex_distance("giuk", a, b)


def built(*, player: str = "US", map_: str = "giuk", phase: str = "Strike", turn: int = 3) -> dict:
    st = at_phase(initial(), phase, turn=turn)
    st["campaign"].update({
        "map": map_, "player_side": player, "system_side": "Soviet" if player == "US" else None,
        "player_airbases": [], "system_airbase": None, "ground_aviation": {"Player": 0, "system": 0},
        "lbna_available": map_ in ("giuk", "mediterranean")})
    return st


def add(st: dict, gid: str, owner: str, hex_: str, units: list[dict] = (), **fields) -> dict:
    st["groups"][gid] = {"id": gid, "owner": owner, "kind": "tf", "hex": hex_, "units": [], "status": "on map",
                         **({"intel": "unknown", "chit": None} if owner == "system" else {}), **fields}
    for u in units:
        st["units"][u["id"]] = {**u, "group": gid}
        st["groups"][gid]["units"].append(u["id"])
    return st


def cv(uid: str, nation: str = "Soviet", **air_: int) -> dict:
    return {"id": uid, "class": "CV", "nation": nation, "air": air_ or {"L": 4, "M": 3, "H": 4}}


def ship(uid: str, cls: str, **fields) -> dict:
    return {"id": uid, "class": cls, **fields}


def strikes(out: list) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == "air strike"]


def precise_cv_state(**air_: int) -> dict:
    """A Precise GameSystem CV task force at 2305 and a Player CV task force 6 megahexes away."""
    st = built()
    add(st, "TF1", "system", SYS, [cv("kiev", **air_), ship("s1", "DD")], intel="precise", chit="Rear Admiral")
    add(st, "P1", "Player", "0605", [cv("nimitz", "US"), ship("p2", "FF")])
    assert far(SYS, "0605") == 6
    return st


# ---- the tables against the text, row by row ------------------------------------------------------
AIR_ATTACK_TEXT = {  # the Air Attack Table: (strike, escort) for US, NATO, Soviet
    1: [(1, 1), (1, 0), (1, 0)],
    2: [(1, 1), (1, 1), (1, 0)],
    3: [(1, 2), (1, 1), (1, 1)],
    4: [(2, 1), (2, 1), (1, 1)],
    5: [(2, 2), (2, 1), (1, 1)],
    6: [(3, 2), (2, 1), (2, 0)],
}


@pytest.mark.parametrize("die", range(1, 7))
def test_stf_table_air_attack_table_row_by_row(die):
    table = air.TABLES["air attack"]
    assert table.dice == "1d6" or table.dice == "d6"
    for column, expected in zip(("US", "NATO", "Soviet"), AIR_ATTACK_TEXT[die]):
        assert air.parse_counts(read(table, die, column).result) == expected, (die, column)


@pytest.mark.parametrize("bad", ["0 strike, 2 escort", "two strike"])
def test_stf_table_air_attack_a_correction_sending_no_strike_squadron_is_refused(tmp_path, bad):
    """Every cell of the Air Attack Table sends "1 Strike" or more, and the strike step relies on it:
    it finds a strike squadron ready before the die (10.11's "no air strike" otherwise), so the
    table's package always flies that squadron. A correction of air.json that would send none, or
    that the step cannot read, is refused when the file is loaded, not met in the middle of a turn."""
    doc = json.loads(DATA.read_text())
    (entry,) = [t for t in doc["tables"] if t["name"] == "air attack"]
    entry["rows"][0]["results"][1] = bad
    (tmp_path / "air.json").write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"air\.json: tables\.air attack: .*at least 1 strike"):
        air.check_air_attack(load_tables(Dataset(tmp_path), "air.json")["air attack"])
    assert air.check_air_attack(air.TABLES["air attack"]) is air.TABLES["air attack"]


def test_stf_13_10_badger_and_backfire_values_are_the_texts():
    doc = json.loads(DATA.read_text())
    assert doc["aircraft"]["badger"] == {"name": "Badger", "air_to_air": 2, "strength": 2, "ssm": "AS-6",
                                         "counter": "SSN-3", "waves": 2, "missiles_per_wave": 6}
    assert doc["aircraft"]["backfire"] == {"name": "Backfire", "air_to_air": 3, "strength": 2, "ssm": "AS-6",
                                           "counter": "SSN-3", "waves": 2, "missiles_per_wave": 9}


def test_stf_table_badger_and_backfire_table_is_what_an_lbna_attack_carries():
    st = built()
    add(st, "P1", "Player", "2205", [ship("p1", "DD")])
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 1))  # a Backfire, located
    attack = [e for e in events_of(out, "SystemActs") if e["what"] == "LBNA missile attack"][0]["detail"]
    assert (attack["air_to_air"], attack["strength"], attack["missile"], attack["counter"], attack["waves"],
            attack["missiles_per_wave"]) == (3, 2, "AS-6", "SSN-3", 2, 9)
    out, _ = run_step(st, "lbna_strike", FixedDice(4, 1))  # a Badger, located
    attack = [e for e in events_of(out, "SystemActs") if e["what"] == "LBNA missile attack"][0]["detail"]
    assert (attack["air_to_air"], attack["strength"], attack["waves"], attack["missiles_per_wave"]) == (2, 2, 2, 6)


@pytest.mark.parametrize("die", range(1, 7))
def test_stf_10_15_the_strike_departs_by_the_sector_opposite_its_entry(die):
    st = precise_cv_state()
    out, _ = run_step(st, "air_attacks", FixedDice(6, die))  # table 6, then the entry sector
    detail = strikes(out)[0]["detail"]
    assert detail["entry_sector"] == die
    assert detail["exit_sector"] == (die + 2) % 6 + 1  # 1-4, 2-5, 3-6, 4-1, 5-2, 6-3
    assert rolls_of(out)[1].rule == "STF 10.15"


def test_stf_10_16_two_strike_squadrons_enter_and_depart_by_the_same_sectors():
    st = precise_cv_state(H=[4, 4], L=3)
    out, _ = run_step(st, "air_attacks", FixedDice(6, 2))  # Soviet 6: 2 strike; one sector roll for both
    detail = strikes(out)[0]["detail"]
    assert detail["strike"] == ["kiev:H1", "kiev:H2"]
    assert (detail["entry_sector"], detail["exit_sector"]) == (2, 5)
    assert len(rolls_of(out)) == 2


# ---- STF 10.3, 10.4: range and targets --------------------------------------------------------------
def test_stf_10_3_a_task_force_within_6_megahexes_of_a_player_cv_strikes_and_not_at_7():
    st = precise_cv_state()
    out, _ = run_step(st, "air_attacks", FixedDice(1, 3))
    assert strikes(out)[0]["detail"]["target"] == "P1"
    st["groups"]["P1"]["hex"] = "0505"
    assert far(SYS, "0505") == 7
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == [] and rolls_of(out) == []


def test_stf_10_3_a_surface_action_group_is_in_range_within_2_megahexes_only():
    st = built()
    add(st, "TF1", "system", SYS, [cv("kiev")], intel="precise")
    add(st, "P1", "Player", "1405", [ship("p1", "DD")])
    assert far(SYS, "1405") == 3 and far(SYS, "1705") == 2
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == []
    st["groups"]["P1"]["hex"] = "1705"
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "P1"
    assert strikes(out)[0]["detail"]["target_kind"] == "SAG"


def test_stf_10_3_an_active_player_airbase_within_6_megahexes_is_a_target():
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], ground_aviation={"Player": 1, "system": 0})
    add(st, "TF1", "system", SYS, [cv("kiev")], intel="precise")
    assert far(SYS, maps.place_hex("giuk", "Neskaupstadur")) <= 6
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))
    detail = strikes(out)[0]["detail"]
    assert (detail["target"], detail["target_kind"]) == ("Neskaupstadur", "airbase")
    assert after["airbases"]["Neskaupstadur"]["attacked"] == 3


def test_stf_10_4_carriers_first_then_airbases_then_surface_action_groups():
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], ground_aviation={"Player": 1, "system": 0})
    add(st, "TF1", "system", SYS, [cv("kiev")], intel="precise")
    add(st, "P1", "Player", "1705", [ship("p1", "DD")])              # a SAG, 2 megahexes
    add(st, "P2", "Player", "0605", [cv("nimitz", "US")])            # a CV, 6 megahexes
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "P2"
    st["groups"]["P2"]["hex"] = "0505"                               # out of range: the airbase next
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "Neskaupstadur"
    st["campaign"]["player_airbases"] = []
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["target"] == "P1"


# ---- STF 10.5-10.7: does it strike ----------------------------------------------------------------
def unknown_state(**fields) -> dict:
    st = built()
    st["pool"] = {"kuznetsov": {"name": "Kuznetsov", "nation": "Soviet", "class": "CV", "ssm": 0, "torpedoes": 0,
                                "air": {"L": 3, "M": 2, "H": 4}}}
    add(st, "TF1", "system", SYS, [], **fields)
    add(st, "P1", "Player", "0605", [cv("nimitz", "US")])
    return st


@pytest.mark.parametrize("chit", [None, "Enemy", "Tracked"])
def test_stf_10_5_odd_then_6_places_a_rear_admiral_chit_and_goes_to_the_table(chit):
    st = unknown_state(chit=chit)
    out, after = run_step(st, "air_attacks", FixedDice(3, 6, 1, 4))
    assert [r.rule for r in rolls_of(out)] == ["STF 10.5", "STF 10.5", "STF 10.3", "STF 10.15"]
    assert after["groups"]["TF1"]["chit"] == "Rear Admiral"
    assert strikes(out)[0]["rule"] == "STF 10.5"


@pytest.mark.parametrize("faces", [(2,), (1, 5)])
def test_stf_10_5_even_or_odd_then_less_than_6_is_no_effect(faces):
    st = unknown_state()
    out, after = run_step(st, "air_attacks", FixedDice(*faces))
    assert strikes(out) == [] and after["groups"]["TF1"]["chit"] is None


def test_stf_10_5_a_captain_or_commodore_task_force_does_not_strike():
    st = unknown_state(chit="Commodore", intel="accurate")
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == []


def test_stf_10_6_a_rear_admiral_with_no_revealed_air_strikes_on_odd():
    st = unknown_state(chit="Rear Admiral", intel="accurate")
    out, after = run_step(st, "air_attacks", FixedDice(5, 2, 1))
    assert strikes(out)[0]["rule"] == "STF 10.6"
    assert after["groups"]["TF1"]["air_known"] is True
    out, _ = run_step(st, "air_attacks", FixedDice(4))
    assert strikes(out) == []


def test_stf_10_7_precise_with_a_cv_or_accurate_with_revealed_air_goes_straight_to_the_table():
    st = precise_cv_state()
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert [r.rule for r in rolls_of(out)] == ["STF 10.3", "STF 10.15"] and strikes(out)[0]["rule"] == "STF 10.7"
    st = unknown_state(chit="Rear Admiral", intel="accurate", air_known=True)
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert [r.rule for r in rolls_of(out)] == ["STF 10.3", "STF 10.15"] and strikes(out)[0]["rule"] == "STF 10.7"
    st = precise_cv_state()
    st["units"]["kiev"]["sunk"] = True  # Precise, no CV afloat: no aircraft
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == []


# ---- STF 10.8: nation and carrier ------------------------------------------------------------------
def soviet_player_state(map_: str = "giuk") -> dict:
    st = built(player="Soviet", map_=map_)
    st["pool"] = {cid: {"name": name, "nation": nation, "class": "CV", "ssm": 0, "torpedoes": 0, "air": air_}
                  for cid, name, nation, air_ in [("foch", "Foch", "NATO", {"M": 3, "H": 2}),
                                                  ("clem", "Clemenceau", "NATO", {"M": 3, "H": 2}),
                                                  ("vinson", "Carl Vinson", "US", {"L": 4, "H": 4, "EW": 1})]}
    add(st, "TF1", "system", SYS, [], chit="Rear Admiral", intel="accurate", air_known=True)
    add(st, "P1", "Player", "0605", [cv("kiev")])
    return st


def test_stf_10_8_the_first_strike_rolls_the_nation_and_sets_aside_a_cv_of_it():
    st = soviet_player_state()
    out, after = run_step(st, "air_attacks", FixedDice(2, 2, 1, 1))  # NATO; the 2nd of clem, foch; table 1; sector 1
    assert after["campaign"]["system_side"] == "NATO"
    assert rolls_of(out)[0].rule == "STF 10.8"
    assert "foch" in after["groups"]["TF1"]["units"] and "foch" not in after["pool"]
    assert after["units"]["foch"]["set_aside"] is True and "clem" in after["pool"]
    assert strikes(out)[0]["detail"]["nation"] == "NATO"
    out, after = run_step(st, "air_attacks", FixedDice(3, 1, 1))  # US: one US CV, no draw roll
    assert after["campaign"]["system_side"] == "US" and "vinson" in after["groups"]["TF1"]["units"]


def test_stf_10_8_in_the_caribbean_the_strike_is_us_without_a_roll():
    st = soviet_player_state("caribbean")
    st["groups"]["TF1"]["hex"], st["groups"]["P1"]["hex"] = "2305", "2205"
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))
    assert after["campaign"]["system_side"] == "US"
    assert [r.rule for r in rolls_of(out)] == ["STF 10.3", "STF 10.15"]


# ---- STF 10.9-10.12: the package ------------------------------------------------------------------
def test_stf_10_10_h_strikes_l_escorts_m_fills_less_damaged_first():
    st = precise_cv_state(H=[3, 3], M=[3, 3], L=[2])
    st["units"]["kiev"]["air_damage"] = {"kiev:H1": 1}
    st["campaign"]["system_side"] = "US"  # the US column, row 5: 2 strike, 2 escort
    out, _ = run_step(st, "air_attacks", FixedDice(5, 1))
    d = strikes(out)[0]["detail"]
    assert d["strike"] == ["kiev:H2", "kiev:H1"]  # the undamaged H first
    assert d["escort"] == ["kiev:L", "kiev:M1"]  # L, then M fills


def test_stf_10_11_strike_squadrons_are_filled_before_escorts_the_stronger_strikes():
    st = precise_cv_state(M=[3, 3])
    st["units"]["kiev"]["air_damage"] = {"kiev:M1": 2}
    out, _ = run_step(st, "air_attacks", FixedDice(3, 1))  # Soviet 3: 1 strike, 1 escort
    d = strikes(out)[0]["detail"]
    assert (d["strike"], d["escort"]) == (["kiev:M2"], ["kiev:M1"])
    st = precise_cv_state(M=[3])
    out, _ = run_step(st, "air_attacks", FixedDice(3, 1))
    d = strikes(out)[0]["detail"]
    assert (d["strike"], d["escort"], d["short"]) == (["kiev:M"], [], {"strike": 0, "escort": 1})


def test_stf_10_9_the_gamesystem_never_flies_asw_or_rcn_squadrons():
    st = precise_cv_state(ASW=3, RCN=2, H=2)
    out, after = run_step(st, "air_attacks", FixedDice(6, 1))
    d = strikes(out)[0]["detail"]
    assert d["strike"] == ["kiev:H"] and d["escort"] == []
    assert not any(s.startswith("kiev:ASW") or s.startswith("kiev:RCN") for s in after["sorties"])


def test_stf_10_12_a_us_strike_takes_ew_and_us_nato_keep_aew_on_cap():
    st = precise_cv_state(H=4, L=3, EW=1, AEW=1)
    st["campaign"]["system_side"] = "US"
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    d = strikes(out)[0]["detail"]
    assert d["ew"] == ["kiev:EW"] and d["cap"]["aew"] == ["kiev:AEW"]
    st["campaign"]["system_side"] = "NATO"
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    d = strikes(out)[0]["detail"]
    assert d["ew"] == [] and d["cap"]["aew"] == ["kiev:AEW"]
    st["campaign"]["system_side"] = "Soviet"
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["cap"]["aew"] == []


def test_stf_10_2_cap_is_half_round_up_of_l_and_m_not_on_strikes_this_turn_or_last():
    st = precise_cv_state(L=[3, 2], M=[2], H=4)
    st["sorties"] = {"kiev:L2": 2}  # flew last turn (turn 2)
    assert air.cap(st, "TF1")["strength"] == 3  # L1 3 + M 2 = 5 -> 3
    out, _ = run_step(st, "air_attacks", FixedDice(3, 1))  # Soviet 3: 1 strike (H1), 1 escort (L1)
    d = strikes(out)[0]["detail"]
    assert d["escort"] == ["kiev:L1"]
    assert d["cap"] == {"strength": 1, "of": 2, "squadrons": ["kiev:M"], "aew": [], "rule": "STF 10.2"}
    st["sorties"] = {"kiev:L1": 3, "kiev:L2": 3, "kiev:M": 2}
    assert air.cap(st, "TF1")["strength"] == 0


def test_stf_10_13_no_strike_on_consecutive_turns_unless_precise_with_two_cvs():
    st = precise_cv_state()
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))
    assert after["strikes"]["TF1"] == 3
    nxt = at_phase(after, "Strike", turn=4)
    out, _ = run_step(nxt, "air_attacks", NoDice())
    assert strikes(out) == []
    nxt["units"]["kiev2"] = {**cv("kiev2"), "group": "TF1"}
    nxt["groups"]["TF1"]["units"].append("kiev2")
    out, _ = run_step(nxt, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["strike"] == ["kiev2:H"]  # kiev's flew last turn
    nxt = at_phase(after, "Strike", turn=5)
    out, _ = run_step(nxt, "air_attacks", FixedDice(1, 1))
    assert len(strikes(out)) == 1


def test_stf_10_14_diffusion_bombs_at_carriers_else_asms_freighters_bb_cg_dd_ff_pc():
    st = precise_cv_state()
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["plan"]["attack"] == "diffusion bombs"
    assert strikes(out)[0]["detail"]["plan"]["targets"] == ["nimitz"]
    st["groups"]["P1"].update(hex="1705", units=["a", "b", "c", "d", "e", "f"])
    for uid, cls in zip("abcdef", ["PC", "FF", "DD", "CG", "BB", "FR"]):
        st["units"][uid] = {"id": uid, "class": cls, "group": "P1"}
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    plan = strikes(out)[0]["detail"]["plan"]
    assert plan["attack"] == "ASM" and plan["targets"] == ["f", "e", "d", "c", "b", "a"]


# ---- STF 10.1 and STF 9: the Player's strikes, airbases ---------------------------------------------
# On the Mediterranean map: the GameSystem's airbase Latakia (4710), the Player's Famagusta (4609).
LATAKIA = "4710"


def player_strike_state(intel: str = "accurate") -> dict:
    st = built(map_="mediterranean")
    st["campaign"].update(system_airbase="Latakia", player_airbases=["Famagusta"])
    assert maps.place_hex("mediterranean", "Latakia") == LATAKIA
    add(st, "P1", "Player", "4014", [cv("nimitz", "US"), ship("p2", "FF")])
    add(st, "P2", "Player", "4711", [ship("p3", "FF"), ship("p4", "DD", gun="B", ssm_type="Harpoon and Tomahawk")])
    add(st, "TF1", "system", "4410", [cv("kiev", L=3, M=2)], intel=intel, chit="Rear Admiral")
    return st


@pytest.mark.parametrize("intel", ["unknown", "approximate", "good"])
def test_stf_10_1_no_player_strike_on_a_task_force_less_than_accurate(intel):
    st = player_strike_state(intel)
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"})
    assert err.value.rule == "STF 10.1"


@pytest.mark.parametrize("intel", ["accurate", "precise"])
def test_stf_10_1_a_player_strike_on_an_accurate_or_precise_task_force_is_recorded_with_its_cap(intel):
    st = player_strike_state(intel)
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"})
    rec = events_of(out, "PlayerAirAction")[0]
    assert rec["rule"] == "STF 10.1" and rec["detail"]["cap"]["strength"] == 3  # (3 + 2) / 2 round up
    with pytest.raises(RuleViolation):
        play(at_phase(st, "Combat"), {"kind": "air_strike", "from": "P1", "target": "TF1"})


def test_stf_11_7_a_strike_on_an_accurate_task_force_with_no_ships_drawn_draws_them_for_the_display():
    """10.1 lets the Player strike an Accurate task force, whose size is known but not its ships; the
    strike is fought on the tactical display, where "When called to place its ships on the tactical
    display, the GameSystem will deploy its highest value ship in the centre ring ..." (11.7): the
    GameSystem draws them first by 8.7's procedure (the exact composition becomes known: Precise),
    and its ships may then be placed and their losses reported."""
    st = player_strike_state("accurate")
    del st["units"]["kiev"]
    st["groups"]["TF1"].update(units=[], size="large")
    st["pool"] = pool_of("Soviet", CG=3, DD=3, FF=3)
    # the Soviet table, Rear Admiral TF (its chit), row 2: 2CG 3DD 3FF
    out, after = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"}, FixedDice(2, default=1))
    drawn = [e for e in events_of(out, "GroupChanged") if e["changes"].get("intel") == "precise"]
    assert drawn and drawn[0]["group"] == "TF1"
    drawn_classes = sorted(after["units"][u]["class"] for u in after["groups"]["TF1"]["units"])
    assert after["groups"]["TF1"]["intel"] == "precise" and drawn_classes == ["CG"] * 2 + ["DD"] * 3 + ["FF"] * 3
    assert names(out).index("PlayerAirAction") > names(out).index("UnitsAssigned")  # its CAP counts them
    assert {"kind": "placement", "group": "TF1"} in R.legal_orders(after, "Player")
    placed, _ = play(after, {"kind": "placement", "group": "TF1"}, FixedDice(default=1))
    assert events_of(placed, "SystemActs")[0]["detail"]["ships"]


def test_stf_11_7_a_strike_on_an_accurate_task_force_whose_ships_are_known_draws_nothing():
    st = player_strike_state("accurate")  # TF1's Kiev is known
    out, after = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"})
    assert not rolls_of(out) and after["groups"]["TF1"]["intel"] == "accurate"


def test_stf_9_1_an_airbase_is_never_hidden_and_may_be_struck_without_a_report():
    st = player_strike_state("unknown")
    out, after = play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia"})
    assert events_of(out, "PlayerAirAction")[0]["rule"] == "STF 9.2"
    assert after["airbases"]["Latakia"]["attacked"] == 3


def test_stf_9_2_only_cv_aircraft_attack_land_airbases():
    st = player_strike_state()
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "Famagusta", "target": "Latakia"})
    assert err.value.rule == "STF 9.2"
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P2", "target": "Latakia"})
    assert err.value.rule == "STF 9.2"
    # the GameSystem's airbase strikes the Player's task forces, never an airbase
    st = built(map_="mediterranean")
    st["campaign"].update(system_airbase="Latakia", player_airbases=["Famagusta"],
                          ground_aviation={"Player": 0, "system": 2})
    assert maps.megahex_distance("mediterranean", LATAKIA, maps.place_hex("mediterranean", "Famagusta")) <= 6
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == []
    add(st, "P1", "Player", "4711", [ship("p1", "DD")])
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["group"] == "Latakia" and strikes(out)[0]["detail"]["target"] == "P1"
    assert strikes(out)[0]["detail"]["strike"] == ["Latakia:M1"]
    st["campaign"]["ground_aviation"] = {"Player": 0, "system": 0}  # no ground aviation: nothing flies
    out, _ = run_step(st, "air_attacks", NoDice())
    assert out == []


def test_stf_9_3_and_9_6_an_airbase_is_in_ring_1_with_aa_3_and_is_bombed_to_hit_5():
    st = player_strike_state()
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia"})
    plan = events_of(out, "PlayerAirAction")[0]["detail"]["plan"]
    assert (plan["airbase_ring"], plan["airbase_aa"], plan["aa_rings"]) == (1, 3, [1, 2, 3])
    assert (plan["attack"], plan["to_hit"]) == ("ordinary bombing", 5)


def test_stf_9_6_an_airbase_is_attacked_by_ordinary_bombing_only():
    st = player_strike_state()
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia",
                  "asm": [{"aircraft": "A-6 Intruder", "damage": 0}]})
    assert err.value.rule == "STF 9.6"


def ctx_of(st: dict) -> Ctx:
    import copy
    return Ctx(copy.deepcopy(st), NoDice(), stf_rules.HOOKS)


def test_stf_9_4_hits_add_up_and_at_3_an_airbase_cannot_launch():
    st = player_strike_state()
    ctx = ctx_of(st)
    air.hit_airbase(ctx, "Famagusta", 2, "STF 9.4")
    air.hit_airbase(ctx, "Famagusta", 1, "STF 9.4")
    assert ctx.state["airbases"]["Famagusta"]["hits"] == 3
    with pytest.raises(RuleViolation) as err:
        play(ctx.state, {"kind": "air_strike", "from": "Famagusta", "target": "TF1"})
    assert err.value.rule == "STF 9.4"
    with pytest.raises(InvalidOrder):
        air.hit_airbase(ctx_of(st), "Nowhere", 1, "STF 9.4")
    # the GameSystem's airbase with 3 hits launches nothing
    st = built(map_="mediterranean")
    st["campaign"].update(system_airbase="Latakia", ground_aviation={"Player": 0, "system": 2})
    st["airbases"] = {"Latakia": {"owner": "system", "hits": 3}}
    add(st, "P1", "Player", "4711", [ship("p1", "DD")])
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == []


def test_stf_9_5_an_airbase_not_attacked_this_turn_repairs_one_hit():
    st = player_strike_state()
    st["airbases"] = {"Famagusta": {"owner": "Player", "hits": 2, "attacked": 2},
                      "Latakia": {"owner": "system", "hits": 2, "attacked": 3}}
    out, after = run_step(at_phase(st, "Terminal", turn=3), "airbase_repair", NoDice())
    assert after["airbases"]["Famagusta"]["hits"] == 1
    assert after["airbases"]["Latakia"]["hits"] == 2  # attacked this turn: no repair
    assert [e["rule"] for e in events_of(out, "AirbaseChanged")] == ["STF 9.5"]


def test_stf_9_7_tomahawks_may_attack_an_airbase_but_not_from_frigates():
    st = at_phase(player_strike_state(), "Combat", turn=3)  # SSM combat: the Combat phase
    out, after = play(st, {"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True})
    rec = events_of(out, "PlayerAirAction")[0]
    assert (rec["what"], rec["rule"]) == ("Tomahawk attack", "STF 9.7")
    st["units"]["p4"]["sunk"] = True
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True})
    assert err.value.rule == "STF 13.9"
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P1", "target": "TF1", "tomahawk": True})
    assert err.value.rule == "STF 9.7"


def test_stf_9_8_a_ship_with_an_a_or_b_gun_bombards_an_airbase_from_its_hex_or_next_to_it():
    st = at_phase(player_strike_state(), "Combat", turn=3)
    assert maps.distance("mediterranean", "4711", LATAKIA) == 1
    out, after = play(st, {"kind": "bombard", "from": "P2", "target": "Latakia"})
    assert events_of(out, "PlayerAirAction")[0]["detail"]["ships"] == ["p4"]
    assert after["airbases"]["Latakia"]["attacked"] == 3
    st["groups"]["P2"]["hex"] = "4712"
    assert maps.distance("mediterranean", "4712", LATAKIA) == 2
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "bombard", "from": "P2", "target": "Latakia"})
    assert err.value.rule == "STF 9.8"
    st["groups"]["P2"]["hex"] = LATAKIA
    st["units"]["p4"]["gun"] = "C"
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "bombard", "from": "P2", "target": "Latakia"})
    assert err.value.rule == "STF 9.8"


# ---- STF 13.11 ---------------------------------------------------------------------------------------
def test_stf_13_11_a6_and_buccaneer_fire_3_waves_of_8_harpoons_less_1_per_damage():
    st = player_strike_state("precise")
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1",
                       "asm": [{"aircraft": "A-6 Intruder", "damage": 0}, {"aircraft": "Buccaneer", "damage": 2}]})
    asm = events_of(out, "PlayerAirAction")[0]["detail"]["asm"]
    assert [(a["waves"], a["missiles_per_wave"], a["missile"]) for a in asm] == [(3, 8, "Harpoon"), (1, 8, "Harpoon")]
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P1", "target": "TF1", "asm": [{"aircraft": "A-6 Intruder", "damage": 3}]})
    assert err.value.rule == "STF 13.11"
    with pytest.raises(InvalidOrder):
        play(st, {"kind": "air_strike", "from": "P1", "target": "TF1", "asm": [{"aircraft": "F-14", "damage": 0}]})
    st["units"]["nimitz"]["aircraft"] = {"L": "F-14 Tomcat", "H": "A-6 Intruder"}  # its counter names them
    play(st, {"kind": "air_strike", "from": "P1", "target": "TF1", "asm": [{"aircraft": "A-6 Intruder", "damage": 1}]})
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P1", "target": "TF1", "asm": [{"aircraft": "Buccaneer", "damage": 0}]})
    assert err.value.rule == "STF 13.11"


# ---- STF 2.6: land-based naval aviation --------------------------------------------------------------
def test_stf_2_6_lbna_is_giuk_and_mediterranean_only_six_of_each_used_once():
    st = built(map_="caribbean")
    add(st, "P1", "Player", "2205", [ship("p1", "DD")])
    out, _ = run_step(st, "lbna_strike", NoDice())
    assert out == []
    st = built()
    add(st, "P1", "Player", "2205", [ship("p1", "DD")])
    st["lbna"] = {"used": {"backfire": 6, "badger": 5}}
    out, after = run_step(st, "lbna_strike", FixedDice(6))  # Backfires all spent: a Badger flies, no 2.6.3 die
    assert after["lbna"]["used"] == {"backfire": 6, "badger": 6}
    out, _ = run_step(after, "lbna_strike", NoDice())
    assert out == []


def test_stf_2_6_1_a_soviet_player_flies_one_patrol_a_turn_in_the_patrol_phase_for_a_precise_report():
    st = built(player="Soviet", phase="Patrol")
    add(st, "TF1", "system", SYS, [], intel="unknown")
    mh = int(maps.megahex_number("giuk", SYS))
    out, after = play(st, {"kind": "lbna_patrol", "unit": "badger", "megahex": mh}, FixedDice(2))
    # the search part's Precise result (STF 8.7): no chit, an even roll, a false contact
    assert rolls_of(out)[0].rule == "STF 8.7"
    assert after["groups"]["TF1"]["status"] == "false contact"
    rec = events_of(out, "PlayerAirAction")[0]
    assert rec["detail"]["groups"] == ["TF1"] and rec["detail"]["report"] == "precise"
    assert rec["detail"]["false_contacts"] == ["TF1"]
    assert after["lbna"]["used"] == {"badger": 1}
    with pytest.raises(RuleViolation) as err:
        play(after, {"kind": "lbna_patrol", "unit": "backfire", "megahex": mh})
    assert err.value.rule == "STF 2.6.1"
    with pytest.raises(RuleViolation):
        play(at_phase(st, "Strike"), {"kind": "lbna_patrol", "unit": "badger", "megahex": mh})
    with pytest.raises(RuleViolation) as err:
        play(built(phase="Patrol"), {"kind": "lbna_patrol", "unit": "badger", "megahex": mh})
    assert err.value.rule == "STF 2.6.1"


def test_stf_2_6_1_a_hostile_contact_is_revealed_by_the_patrol():
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF1", "system", SYS, [], chit="Rear Admiral", size="large", intel="accurate")
    mh = int(maps.megahex_number("giuk", SYS))
    out, after = play(st, {"kind": "lbna_patrol", "unit": "backfire", "megahex": mh, "target": "TF1"},
                      FixedDice(default=1))
    assert after["groups"]["TF1"]["intel"] == "precise"
    assert "missiles" in events_of(out, "PlayerAirAction")[0]["detail"]


def test_stf_2_6_2_waves_lose_one_per_4_points_or_part_of_identified_l_and_m_not_on_cap():
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF2", "system", SYS, [ship("dd", "DD")], intel="precise", chit="Captain")  # the target
    add(st, "TF1", "system", "1705", [cv("vinson", "US", L=4, M=[3, 2], H=4)], intel="precise", chit="Rear Admiral")
    assert far(SYS, "1705") == 2 and maps.megahex_number("giuk", "1705") != maps.megahex_number("giuk", SYS)
    mh = int(maps.megahex_number("giuk", SYS))
    order = {"kind": "lbna_patrol", "unit": "backfire", "megahex": mh, "target": "TF2"}
    # L 4 + M 5 = 9 fresh; CAP 5 (half round up); 4 counted: 1 wave lost of the Backfire's 2
    out, _ = play(st, order)
    missiles = events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]
    assert (missiles["waves"], missiles["waves_lost"], missiles["missiles_per_wave"]) == (1, 1, 9)
    st["units"]["vinson"]["air"] = {"L": 6, "M": 5}  # 11 fresh, CAP 6, 5 counted: 2 waves lost
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 0
    st["sorties"] = {"vinson:L": 2, "vinson:M": 2}  # struck last turn: not counted
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 2
    st.pop("sorties")
    st["groups"]["TF1"]["intel"] = "accurate"  # not identified: nothing counted
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 2
    st["groups"]["TF1"].update(intel="precise", hex="0505")  # 7 megahexes away: not counted
    assert far(SYS, "0505") == 7
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 2


@pytest.mark.parametrize("die,unit", [(1, "backfire"), (2, "backfire"), (3, "backfire"),
                                      (4, "badger"), (5, "badger"), (6, "badger")])
def test_stf_2_6_3_the_gamesystem_rolls_1_to_3_backfire_4_to_6_badger(die, unit):
    st = built()
    add(st, "P1", "Player", "2205", [ship("p1", "DD")])
    out, after = run_step(st, "lbna_strike", FixedDice(die, 2))
    assert rolls_of(out)[0].rule == "STF 2.6.3"
    assert after["lbna"]["used"] == {unit: 1}


def test_stf_2_6_4_a_1_locates_the_task_force_closest_to_the_soviet_edge_else_removed():
    st = built()
    add(st, "P1", "Player", "0505", [ship("p1", "DD")])
    add(st, "P2", "Player", "2005", [ship("p2", "DD")])  # east: the Soviet edge of the GIUK map
    out, after = run_step(st, "lbna_strike", FixedDice(1, 1))
    attack = [e for e in events_of(out, "SystemActs") if e["what"] == "LBNA missile attack"]
    assert attack[0]["detail"]["target"] == "P2" and attack[0]["rule"] == "STF 2.6.4"
    for die in range(2, 7):
        out, after = run_step(st, "lbna_strike", FixedDice(1, die))
        assert [e for e in events_of(out, "SystemActs")] == []
        assert after["lbna"]["used"] == {"backfire": 1}


def test_stf_2_6_5_each_precise_identification_is_minus_1_at_most_minus_3():
    st = built()
    add(st, "P1", "Player", "2005", [ship("p1", "DD")])
    st["lbna"] = {"located": ["P7", "P8"]}
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 3))  # 3 - 2 = 1: located
    assert rolls_of(out)[1].target["modified"] == 1
    assert any(e["what"] == "LBNA missile attack" for e in events_of(out, "SystemActs"))
    st["lbna"] = {"located": ["P5", "P6", "P7", "P8"]}
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 5))  # at most -3: 2, fails
    assert rolls_of(out)[1].target["modified"] == 2
    assert not any(e["what"] == "LBNA missile attack" for e in events_of(out, "SystemActs"))
    # the GameSystem's air strike that finds a US task force counts once
    st = precise_cv_state()
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))
    assert after["lbna"]["located"] == ["P1"]
    assert fold_all(st, out)["lbna"]["located"] == ["P1"]


@pytest.mark.parametrize("die,nation", [(1, "NATO"), (2, "NATO"), (3, "US"), (4, "US"), (5, "US"), (6, "US")])
def test_stf_10_8_the_nationality_table_reads_1_2_nato_3_6_us(die, nation):
    assert read(air.TABLES["strike nationality"], die).result == nation
    st = soviet_player_state()
    out, after = run_step(st, "air_attacks", FixedDice(die, 1, 1, 1))
    assert after["campaign"]["system_side"] == nation


@pytest.mark.parametrize("die,result", [(1, "locates"), (2, "fails"), (3, "fails"), (4, "fails"), (5, "fails"),
                                        (6, "fails"), (0, "locates"), (-2, "locates")])
def test_stf_2_6_4_the_lbna_search_table_a_modified_1_or_less_locates(die, result):
    assert read(air.TABLES["lbna search"], die).result == result


def test_stf_10_1_the_orders_offered_are_legal():
    st = player_strike_state("accurate")
    offered = air._strike_templates(st)
    assert {"kind": "air_strike", "from": "P1", "target": "TF1"} in offered
    assert {"kind": "air_strike", "from": "Famagusta", "target": "Latakia"} not in offered  # STF 9.2
    for order in offered:
        play(st, order)
    st = at_phase(st, "Combat", turn=3)
    offered = air._bombard_templates(st)
    assert offered == [{"kind": "bombard", "from": "P2", "target": "Latakia"}]
    play(st, offered[0])
    st = built(player="Soviet", phase="Patrol")
    add(st, "TF1", "system", SYS, [], intel="unknown")
    for order in air._patrol_templates(st):
        play(st, order, FixedDice(default=2))


def test_stf_10_10_the_invincibles_two_av8_squadrons_fly_as_two():
    st = precise_cv_state(M=4)
    st["units"]["kiev"]["extra_av8"] = True  # STF 13.3: the forces helper doubles the AV8 strength
    assert [(s["id"], s["strength"]) for s in air.squadrons(st, "kiev")] == [("kiev:M1", 2), ("kiev:M2", 2)]


def test_stf_10_10_squadrons_reported_destroyed_or_on_an_inoperable_deck_are_not_available():
    st = precise_cv_state(H=[4, 3], L=3)
    st["units"]["kiev"]["air_lost"] = ["H", "L"]  # the report's squadrons_destroyed: kiev:H, kiev:L
    assert [s["id"] for s in air.squadrons(st, "kiev")] == ["kiev:H1"]
    out, _ = run_step(st, "air_attacks", FixedDice(6, 1))
    assert (strikes(out)[0]["detail"]["strike"], strikes(out)[0]["detail"]["escort"]) == (["kiev:H1"], [])
    st["units"]["kiev"]["flight_deck_inoperable"] = True  # STF 12.7: nothing launches
    out, _ = run_step(st, "air_attacks", NoDice())
    assert strikes(out) == [] and events_of(out, "SystemActs")[0]["what"] == "no air strike"


def test_stf_13_11_the_gamesystems_a6_on_an_asm_attack_fires_harpoons_less_1_wave_per_damage():
    st = precise_cv_state(H=4, L=3)
    st["campaign"]["system_side"] = "US"
    st["units"]["kiev"]["aircraft"] = {"H": "A-6 Intruder", "L": "F-14 Tomcat"}
    st["units"]["kiev"]["air_damage"] = {"kiev:H": 1}
    st["groups"]["P1"].update(hex="1705", units=["p2"])  # a SAG: no CV, an ASM attack (10.14)
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    d = strikes(out)[0]["detail"]
    assert d["plan"]["attack"] == "ASM"
    assert d["harpoons"] == [{"squadron": "kiev:H", "aircraft": "A-6 Intruder", "waves": 2, "missiles_per_wave": 8,
                              "missile": "Harpoon", "rule": "STF 13.11"}]
    st["groups"]["P1"].update(hex="0605", units=["nimitz"])  # a CV: diffusion bombs, no Harpoons
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert "harpoons" not in strikes(out)[0]["detail"]


# ---- review (stf-review-b) ------------------------------------------------------------------------
def test_stf_9_4_an_airbase_with_3_hits_flies_no_cap():
    """STF 9.4: an airbase with 3 hits cannot launch aircraft, so a Player strike on it meets no
    CAP (10.2's CAP is of aircraft that fly)."""
    st = player_strike_state()
    st["campaign"]["ground_aviation"] = {"Player": 0, "system": 2}
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia"})
    assert events_of(out, "PlayerAirAction")[0]["detail"]["cap"]["strength"] == 2  # two M squadrons of 2: 4 / 2
    st["airbases"] = {"Latakia": {"owner": "system", "hits": 3}}
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia"})
    assert events_of(out, "PlayerAirAction")[0]["detail"]["cap"]["strength"] == 0
    assert air.identified_air(st, maps.megahex_number("mediterranean", LATAKIA))["points"] == 0


def test_stf_10_14_a_light_cruiser_is_an_asm_target_after_the_cg():
    """STF 10.14's order (Freighters, BB, CG, DD, FF, PC) names no CL; a CL is still a ship of the
    target: it ranks after the CG (data/air.json, provisional, as combat.json reads 11.2)."""
    st = precise_cv_state()
    st["groups"]["P1"].update(hex="1705", units=["a", "b", "c"])
    for uid, cls in zip("abc", ["DD", "CL", "CG"]):
        st["units"][uid] = {"id": uid, "class": cls, "group": "P1"}
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    plan = strikes(out)[0]["detail"]["plan"]
    assert plan["attack"] == "ASM" and plan["targets"] == ["c", "b", "a"]
    st["groups"]["P1"]["units"] = ["b"]  # a surface action group of one CL
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out)[0]["detail"]["plan"]["targets"] == ["b"]
