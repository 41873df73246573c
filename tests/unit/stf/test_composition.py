"""The Precise Composition Tables (US and Soviet) and how a revealed GameSystem force is drawn and
counted: STF 8.7, 8.9, 8.10, 8.12, 8.13, 1.9, 1.10, 1.11 (composition.reveal, which the search,
the movement helper's STF 8.14/8.15 and combat's STF 11.1 call)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from domain.rulesets.stf import composition
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit import tables
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import FixedDice, counter, events_of, pool_of, rolls_of, search_state, system_group

TEXT = (Path(__file__).resolve().parents[3] / "../shared/rules/003_74ca0e4e298164eb.txt").read_text(encoding="utf-8")
US, SOV = "Precise Composition Table - US", "Precise Composition Table - Soviet"
BIG = {"Player": {"points": 14, "carriers": 1}, "system": 108}


def reveal(state: dict, gid: str, dice, **kw):
    ctx = Ctx(copy.deepcopy(state), dice, stf_rules.HOOKS)
    composition.reveal(ctx, gid, **kw)
    return ctx.out, ctx.state


def text_table(title: str) -> tuple[list[str], dict[str, list[str]]]:
    """The printed table: its column headings and, per die roll, its cells (a <br> read as a space)."""
    section = TEXT.split(title, 1)[1]
    header = next(line for line in section.splitlines() if line.startswith("| Die"))
    columns = [c.strip() for c in header.strip("|").split("|")][1:]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [" ".join(c.strip().split("<br>")) for c in m.group(2).split("|")]
            if m.group(1) == "10":
                break
    return columns, rows


def accurate(gid: str, size: str, kind: str = "tf", **fields) -> dict:
    return system_group(gid, kind, intel="accurate", size=size, chit=composition.LEADERS[size], **fields)


# ---- the tables, row by row -----------------------------------------------------------------------
@pytest.mark.parametrize("name, title", [(US, "PRECISE COMPOSITION TABLE - US"),
                                         (SOV, "PRECISE COMPOSITION TABLE - SOVIET")])
def test_precise_composition_tables_row_by_row_against_the_text(name, title):
    table = composition.COMPOSITION_TABLES[name]
    columns, rows = text_table(title)
    assert list(table.columns) == columns
    assert sorted(rows, key=int) == [str(n) for n in range(1, 11)]
    for roll, cells in rows.items():
        for column, cell in zip(columns, cells):
            assert tables.read(table, int(roll), column).result == cell, (name, roll, column)


@pytest.mark.parametrize("name", [US, SOV])
def test_precise_composition_tables_are_a_d10_and_a_roll_off_them_reads_the_end_row(name):
    table = composition.COMPOSITION_TABLES[name]
    assert table.dice == "1d10" and table.off_table == "clamp"
    assert tables.read(table, 1, "Captain TF", [{"value": -7, "reason": "x"}]).row == "1"
    assert tables.read(table, 9, "Rear Admiral TF", [{"value": 5, "reason": "x"}]).row == "10"


@pytest.mark.parametrize("side, player, table, bonus", [("US", "Soviet", US, 5), ("NATO", "Soviet", US, 5),
                                                        ("Soviet", "US", SOV, 4)])
def test_precise_composition_table_a_revealed_air_strength_adds_5_us_4_soviet(side, player, table, bonus):
    st = search_state(accurate("TF1", "large", air_known=True), pool=pool_of(side, DD=4, FF=6, CG=4, CV=2),
                      player_side=player, system_side=side, commitment=BIG)
    out, _ = reveal(st, "TF1", FixedDice(1, default=1))
    roll = rolls_of(out)[0]
    assert roll.target["table"] == table and roll.target["modifiers"][0]["value"] == bonus
    assert roll.target["row"] == str(1 + bonus)
    assert f"add {bonus} to the die roll" in TEXT


def test_precise_composition_table_no_air_bonus_for_a_subron_or_without_revealed_air():
    st = search_state(accurate("TF1", "small"), accurate("SR1", "small", "subron", air_known=True),
                      pool=pool_of("Soviet", PC=3, SS=1), commitment=BIG)
    out, _ = reveal(st, "TF1", FixedDice(1, default=1))
    assert rolls_of(out)[0].target["modifiers"] == []
    out, _ = reveal(st, "SR1", FixedDice(1))
    assert rolls_of(out)[0].target["modifiers"] == []


@pytest.mark.parametrize("total, leader, modifier", [
    (29, "Captain", None), (30, "Captain", -3), (34, "Commodore", -3), (35, "Captain", -5), (39, "Commodore", -5),
    (40, "Captain", -7), (44, "Commodore", -7), (50, "Captain", -7), (40, "Rear Admiral", None)])
def test_precise_composition_table_captain_and_commodore_within_15_10_5_of_the_commitment(total, leader, modifier):
    """Within N: the commitment (45) less the deployment total is N or less; one modifier, the nearest band."""
    size = composition.SIZE_OF_LEADER[leader]
    st = search_state(accurate("TF1", size))
    st["deployment"] = {"total": total, "groups": {}}
    mods = composition.modifiers(st, st["groups"]["TF1"], "Soviet")
    assert [m["value"] for m in mods] == ([] if modifier is None else [modifier])
    for n, v in ((15, 3), (10, 5), (5, 7)):
        assert f"If within {n} of the commitment limit, then subtract {v} from the die roll." in TEXT


def test_precise_composition_table_column_by_size_and_kind():
    for size, leader in (("small", "Captain"), ("medium", "Commodore"), ("large", "Rear Admiral")):
        assert composition.column(accurate("TF1", size)) == f"{leader} TF"
        assert composition.column(accurate("SR1", size, "subron")) == f"{leader} Sub"


# ---- STF 8.10: drawn at random ---------------------------------------------------------------------
def test_stf_8_10_each_unit_is_drawn_at_random_among_the_remaining_counters():
    st = search_state(accurate("TF1", "small"), pool=pool_of("Soviet", DD=2, FF=3))
    out, after = reveal(st, "TF1", FixedDice(7, 2, 3))  # row 7 Captain TF: 1DD 1FF
    draws = rolls_of(out)[1:]
    assert [(r.notation, r.seat, r.rule) for r in draws] == [("d2", "system", "STF 8.10"), ("d3", "system", "STF 8.10")]
    assert sorted(after["groups"]["TF1"]["units"]) == ["sov-dd-2", "sov-ff-3"]
    assert [e["points"] for e in events_of(out, "UnitsAssigned")] == [4, 3]
    assert "sov-dd-2" not in after["pool"] and "sov-dd-1" in after["pool"]


# ---- STF 8.9: substitution ------------------------------------------------------------------------
def _drawn(cid: str, nation: str, cls: str, value: int) -> dict:
    """A unit already drawn (the countermix had the class; none is left in the pool)."""
    return {**counter(cid, nation, cls, value), "id": cid, "counter": cid, "group": "P9"}


def test_stf_8_9_no_dd_left_a_ff_is_taken_at_the_dds_cost():
    st = search_state(accurate("TF1", "small"), pool=pool_of("Soviet", FF=3))
    st["units"] = {"sov-dd-9": _drawn("sov-dd-9", "Soviet", "DD", 4)}
    out, after = reveal(st, "TF1", FixedDice(7, 1, 1))  # 1DD 1FF: the DD is a FF costing 4
    assigned = events_of(out, "UnitsAssigned")
    assert [(list(e["units"]), e["points"], e["rule"]) for e in assigned] == [
        (["sov-ff-1"], 4, "STF 8.9"), (["sov-ff-2"], 3, "STF 8.10")]
    assert events_of(out, "DeploymentChanged")[0]["points"] == 7
    assert "it still costs 4 deployment points" in TEXT


def test_stf_8_9_no_lower_class_left_the_next_higher_at_its_own_cost():
    st = search_state(accurate("TF1", "small"), pool=pool_of("Soviet", CL=1))
    st["units"] = {"sov-dd-9": _drawn("sov-dd-9", "Soviet", "DD", 4), "sov-ff-9": _drawn("sov-ff-9", "Soviet", "FF", 3)}
    out, after = reveal(st, "TF1", FixedDice(7))  # 1DD 1FF: the DD has no FF below it: the CL above, 5 points
    assigned = events_of(out, "UnitsAssigned")
    assert [(list(e["units"]), e["points"]) for e in assigned] == [(["sov-cl-1"], 5)]
    assert "next higher" in assigned[0]["why"]
    # the FF: no FF, no PC left, no DD left, no CL left: not placed, and said why
    assert any("not placed" in e["why"] for e in events_of(out, "GroupChanged"))


def test_stf_8_9_the_lowest_class_goes_to_the_next_higher():
    st = search_state(accurate("TF1", "small"), pool=pool_of("Soviet", FF=4))
    st["units"] = {"sov-pc-9": _drawn("sov-pc-9", "Soviet", "PC", 2)}
    out, after = reveal(st, "TF1", FixedDice(1, 1, 1, 1))  # 3PC: three of the four FF (d4, d3, d2), 3 points each
    assert [e["points"] for e in events_of(out, "UnitsAssigned")] == [3, 3, 3]
    assert {after["units"][u]["class"] for u in after["groups"]["TF1"]["units"]} == {"FF"}


def test_stf_8_9_ssn_and_ss_are_never_in_the_same_subron():
    st = search_state(accurate("SR1", "large", "subron"), pool=pool_of("Soviet", SS=2, SSN=4), commitment=BIG)
    out, after = reveal(st, "SR1", FixedDice(5, 1, 1, 1))  # Rear Admiral Sub row 5: 4SS; only 2 SS: 4 SSN
    classes = {after["units"][u]["class"] for u in after["groups"]["SR1"]["units"]}
    assert classes == {"SSN"} and len(after["groups"]["SR1"]["units"]) == 4
    assert [e["points"] for e in events_of(out, "UnitsAssigned")] == [5, 5, 5, 5]
    assert "But SSN and SS are never in the same subron" in TEXT


def test_stf_8_9_a_subron_short_of_its_class_takes_what_is_left_of_one_class():
    st = search_state(accurate("SR1", "large", "subron"), pool=pool_of("US", SSN=1), player_side="Soviet",
                      system_side="US", commitment=BIG)
    out, after = reveal(st, "SR1", FixedDice(2))  # US Rear Admiral Sub row 2: 2SSN, one left, no SS class
    assert after["groups"]["SR1"]["units"] == ["us-ssn-1"]


# ---- STF 8.12, 8.13 at Precise ---------------------------------------------------------------------
def test_stf_8_13_a_precise_subron_readjusts_the_total_to_its_exact_cost():
    st = search_state(accurate("SR1", "medium", "subron"), pool=pool_of("Soviet", SS=3))
    st["deployment"] = {"total": 9, "groups": {"SR1": {"part": "subs", "points": 9}}}
    out, after = reveal(st, "SR1", FixedDice(3, 1, 1))  # Commodore Sub row 3: 2SS of 3 (d3, d2) = 6
    d = events_of(out, "DeploymentChanged")[0]
    assert (d["points"], d["delta"], d["total"], d["rule"], d["part"]) == (6, -3, 6, "STF 8.13", "subs")


# ---- STF 1.10: a third of the commitment for submarines --------------------------------------------
def test_stf_1_10_surface_points_beyond_two_thirds_are_ignored():
    """The text's example: 45 = 30 surface + 15 submarine; a 32-point surface force counts 30."""
    st = search_state(accurate("TF1", "small"), accurate("SR1", "small", "subron"), pool=pool_of("Soviet", PC=3))
    st["deployment"] = {"total": 26, "groups": {"TF2": {"part": "surface", "points": 26}}}
    out, after = reveal(st, "TF1", FixedDice(1, 1, 1))  # 3PC: 6 points, surface 32
    d = events_of(out, "DeploymentChanged")[0]
    assert d["total"] == 30 and d["delta"] == 4 and not after["campaign"].get("commitment_reached")
    assert composition.sub_share(45) == 15 and composition.sub_share(52) == 17
    groups = {**after["deployment"]["groups"], "SR1": {"part": "subs", "points": 14}}
    assert composition.total_of(after, groups) == 44  # the 15 submarine points are still there to spend
    assert "The GameSystem still has 15 points for submarines." in TEXT


# ---- STF 1.9: the commitment reached ---------------------------------------------------------------
def test_stf_1_9_once_the_commitment_is_reached_good_or_lower_counters_are_removed():
    st = search_state(accurate("SR1", "small", "subron"), system_group("TF2", intel="good", chit="Tracked"),
                      system_group("TF3"), system_group("TF4", intel="approximate", chit="Enemy"),
                      accurate("TF5", "medium"), system_group("TF6", intel="precise", size="small", chit="Captain"),
                      system_group("SR2", "subron", intel="precise", size="large", chit="Rear Admiral"),
                      pool=pool_of("Soviet", SS=1))
    st["deployment"] = {"total": 32, "groups": {"TF5": {"part": "surface", "points": 20},
                                                "TF6": {"part": "surface", "points": 7},
                                                "SR1": {"part": "subs", "points": 5}}}
    out, after = reveal(st, "SR1", FixedDice(1))  # Captain Sub row 1: 1SS, 3 points: 30 of 45
    assert after["deployment"]["total"] == 30 and not after["campaign"].get("commitment_reached")
    assert not events_of(out, "GroupRemoved")
    st2 = copy.deepcopy(st)
    st2["deployment"]["total"], st2["deployment"]["groups"]["SR2"] = 47, {"part": "subs", "points": 15}
    out, after = reveal(st2, "SR1", FixedDice(1))  # (-7: within 5) 1SS: 27 + 15 + 3 = 45
    assert after["campaign"]["commitment_reached"] is True
    removed = events_of(out, "GroupRemoved")
    assert [(e["group"], e["status"], e["rule"]) for e in removed] == [
        ("TF2", "off map", "STF 1.9"), ("TF3", "off map", "STF 1.9"), ("TF4", "off map", "STF 1.9")]
    assert after["deployment"]["total"] == 45
    assert all(after["groups"][g]["hex"] for g in ("TF5", "TF6", "SR1", "SR2", "P1"))


# ---- STF 1.11 and the * footnotes: the invasion freighters -----------------------------------------
def test_stf_1_11_the_invasion_freighters_join_the_first_revealed_cv_task_force():
    st = search_state(accurate("TF1", "large"), pool=pool_of("Soviet", CV=1, CG=1, DD=1, FF=3, FR=8),
                      invader="system", mission="Sov Inv", commitment=BIG)
    out, after = reveal(st, "TF1", FixedDice(5, 1, 1))  # Rear Admiral TF row 5: 1CV 1CG 1DD 3FF
    fr = [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 1.11"]
    assert len(fr) == 8 and all(e["points"] == 0 for e in fr)
    assert after["campaign"]["invasion_freighters"] == "TF1"
    assert all(after["units"][u]["invasion"] for e in fr for u in e["units"])
    assert events_of(out, "DeploymentChanged")[0]["points"] == 10 + 6 + 4 + 9


def test_stf_1_11_the_starred_task_force_takes_the_freighters_while_no_cv_group_is_precise():
    st = search_state(accurate("TF1", "medium"), pool=pool_of("Soviet", CG=1, CL=1, DD=1, FF=2, FR=8),
                      invader="system", mission="Sov Inv", commitment=BIG)
    out, after = reveal(st, "TF1", FixedDice(7, 1))  # Commodore TF row 7: 1CG* 1CL 1DD 2FF
    assert after["campaign"]["invasion_freighters"] == "TF1"
    assert sum(1 for u in after["groups"]["TF1"]["units"] if after["units"][u]["class"] == "FR") == 8
    assert "the invasion Freighters are part of this task force" in TEXT


def test_stf_1_11_once_placed_the_freighters_never_move_to_a_later_group():
    st = search_state(accurate("TF1", "medium"), pool=pool_of("Soviet", CG=1, CL=1, DD=1, FF=2, FR=8),
                      invader="system", mission="Sov Inv", invasion_freighters="TF9", commitment=BIG)
    out, after = reveal(st, "TF1", FixedDice(7, 1))
    assert not [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 1.11"]


def test_stf_1_11_no_freighters_when_the_gamesystem_does_not_invade():
    st = search_state(accurate("TF1", "medium"), pool=pool_of("Soviet", CG=1, CL=1, DD=1, FF=2, FR=8), commitment=BIG)
    out, after = reveal(st, "TF1", FixedDice(7, 1))
    assert "invasion_freighters" not in after["campaign"] and len(after["pool"]) == 8


def test_stf_1_11_no_cv_revealed_by_the_surface_limit_no_invasion():
    st = search_state(accurate("TF1", "small"), pool=pool_of("Soviet", PC=3), invader="system", mission="Sov Inv")
    st["deployment"] = {"total": 26, "groups": {"TF2": {"part": "surface", "points": 26}}}
    out, after = reveal(st, "TF1", FixedDice(1, 1, 1))  # surface 32 >= 30, no CV revealed
    assert after["campaign"]["invader"] is None and after["campaign"]["invasion_cancelled"] is True


# ---- others call reveal ----------------------------------------------------------------------------
def test_stf_8_7_reveal_by_another_rule_keeps_its_rule_and_leaves_a_sub_deep():
    st = search_state(system_group("SR1", "subron", chit="Enemy", intel="approximate"), pool=pool_of("Soviet", SS=1))
    out, after = reveal(st, "SR1", FixedDice(2, 1), rule="STF 8.14", why="SR1 moved within two hexes of P1")
    final = events_of(out, "GroupChanged")[-1]
    assert final["rule"] == "STF 8.14" and final["changes"]["intel"] == "precise"
    assert after["groups"]["SR1"]["mode"] == "deep" and "precise_reports" not in after["campaign"]
    assert rolls_of(out)[0].rule == "STF 8.6"  # less than Accurate: the size first


# ---- review (stf-review-a) -----------------------------------------------------------------------
def _with_resupply(pool: dict, n: int) -> dict:
    for i in range(1, n + 1):
        pool[f"us-frr-{i}"] = counter(f"us-frr-{i}", "US", "FR", 0, role="fast resupply")
    return pool


def test_stf_1_12_a_revealed_us_carrier_task_force_has_its_free_fast_resupply_ship():
    pool = _with_resupply(pool_of("US", CV=1, CG=2, DD=2, FF=3), 2)
    st = search_state(accurate("TF1", "large"), pool=pool, player_side="Soviet", system_side="US", commitment=BIG)
    out, after = reveal(st, "TF1", FixedDice(6, 2))  # Rear Admiral TF row 6: 1CV 2CG 2DD 3FF; the 2nd freighter
    fr = [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 1.12"]
    assert [list(e["units"]) for e in fr] == [["us-frr-2"]] and fr[0]["points"] == 0
    unit = after["units"]["us-frr-2"]
    assert unit["group"] == "TF1" and unit["role"] == "fast resupply" and unit["invasion"] is False
    assert events_of(out, "DeploymentChanged")[0]["points"] == 25 + 2 * 6 + 2 * 4 + 3 * 3  # the freighter is free


def test_stf_1_12_no_fast_resupply_ship_for_a_soviet_carrier_or_a_task_force_without_one():
    pool = {**pool_of("Soviet", CV=1, CG=1, DD=1, FF=3), **_with_resupply({}, 1)}
    st = search_state(accurate("TF1", "large"), pool=pool, commitment=BIG)
    out, _ = reveal(st, "TF1", FixedDice(5))  # Soviet Rear Admiral TF row 5: 1CV 1CG 1DD 3FF
    assert not [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 1.12"]
    pool = _with_resupply(pool_of("US", CG=1, DD=3, FF=3), 1)
    st = search_state(accurate("TF1", "large"), pool=pool, player_side="Soviet", system_side="US", commitment=BIG)
    out, _ = reveal(st, "TF1", FixedDice(2))  # US Rear Admiral TF row 2: 1CG 3DD 3FF, no carrier
    assert not [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 1.12"]


def test_stf_8_9_a_substitute_for_a_class_the_nation_never_had_costs_what_that_class_costs():
    # NATO reads the US table, whose Commodore row 8 has 1BB*; NATO has no BB: a CG stands in at a BB's cost
    pool = {**pool_of("NATO", CG=2, DD=2, FF=2), **pool_of("US", BB=1)}
    st = search_state(accurate("TF1", "medium"), pool=pool, player_side="Soviet", system_side="NATO", commitment=BIG)
    out, _ = reveal(st, "TF1", FixedDice(8, 1))
    sub = [e for e in events_of(out, "UnitsAssigned") if e["rule"] == "STF 8.9"]
    assert len(sub) == 1 and sub[0]["points"] == 10 and "nat-cg" in list(sub[0]["units"])[0]
    assert events_of(out, "DeploymentChanged")[0]["points"] == 10 + 6 + 2 * 4 + 2 * 3
