"""STF 8.1-8.8, 8.11-8.13: the Player's searches of the GameSystem's contacts, the GameSystem's
rolls that follow (false contact, size, nationality), intelligence degradation and the deployment
increments. Each test starts from a built state with chosen dice."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import search
from domain.rulesets.stf.rules import SEQUENCE
from domain.rulesets.toolkit import tables
from tests.unit.stf.helpers import (FixedDice, NoDice, events_of, names, play, pool_of, rolls_of, run_step,
                                    search_state, system_group)

TEXT = (Path(__file__).resolve().parents[3] / "../shared/rules/003_74ca0e4e298164eb.txt").read_text(encoding="utf-8")


def order(gid: str = "TF1", sv: int = 5) -> dict:
    return {"kind": "search", "group": gid, "search_value": sv}


def changes(out: list) -> list[dict]:
    return [e["changes"] for e in events_of(out, "GroupChanged")]


# ---- the order: who may be searched, the declared Search Value ------------------------------------
def test_stf_8_3_the_search_value_is_declared_and_the_player_rolls_the_search_die():
    st = search_state(system_group("TF1"))
    out, _ = play(st, order(sv=5), FixedDice(9))
    assert names(out) == ["ResultDeclared", "Roll"]
    declared = events_of(out, "ResultDeclared")[0]
    assert declared["what"] == "search value" and declared["value"] == 5 and declared["seat"] == "Player"
    roll = rolls_of(out)[0]
    assert roll.seat == "Player" and roll.notation == "d10" and roll.outcome == "unknown"
    assert search.SEARCH["search_die"]["dice"] == "d10" and "provisional" in search.SEARCH["search_die"]


def test_stf_8_3_unknown_a_roll_above_the_search_value_has_no_effect():
    st = search_state(system_group("TF1"))
    out, after = play(st, order(sv=5), FixedDice(6))
    assert rolls_of(out)[0].outcome == "unknown"
    assert after["groups"]["TF1"] == st["groups"]["TF1"]


@pytest.mark.parametrize("sv", [0, 4, 7, 10])
def test_stf_8_3_to_8_7_the_ladder_row_by_row_against_the_text(sv):
    """Greater than SV unknown (8.3); equal approximate (8.4); 1 less good (8.5); 2 less accurate
    (8.6); 3 less precise (8.7), read as 3 or more less."""
    ladder = search.ladder(sv)
    for modified in range(sv - 8, sv + 6):
        margin = sv - modified
        expected = ("unknown" if margin < 0 else "approximate" if margin == 0 else "good" if margin == 1
                    else "accurate" if margin == 2 else "precise")
        assert tables.read(ladder, modified).result == expected, (sv, modified)
    for row in search.LADDER["rows"]:  # each row's wording is the text's
        assert row["text"].split(" (read")[0].lower() in TEXT.lower()


@pytest.mark.parametrize("chit, modifier", [("Enemy", -1), ("Tracked", -2), ("Captain", -3), ("Commodore", -3),
                                            ("Rear Admiral", -3)])
def test_stf_8_4_to_8_6_a_chit_modifies_the_search_roll(chit, modifier):
    st = search_state(system_group("TF1", chit=chit))
    out, _ = play(st, order(sv=3), FixedDice(10))
    target = rolls_of(out)[0].target
    assert target["modifiers"][0]["value"] == modifier and target["modified"] == 10 + modifier


def test_stf_8_2_the_player_searches_the_gamesystems_contacts_not_his_own():
    st = search_state(system_group("TF1"))
    with pytest.raises(RuleViolation) as e:
        play(st, order("P1"))
    assert e.value.rule == "STF 8.2"
    # the GameSystem does not search: no step of the sequence is a search
    assert not any("search" in s for p in SEQUENCE["turn"] for s in p["system"])


def test_stf_8_2_a_contact_off_the_map_cannot_be_searched():
    st = search_state(system_group("TF1", hex=None, status="false contact"))
    with pytest.raises(RuleViolation) as e:
        play(st, order())
    assert e.value.rule == "STF 8.2"  # "the contacts on the board"


def test_stf_8_2_an_unknown_group_is_malformed():
    with pytest.raises(InvalidOrder) as e:
        play(search_state(system_group("TF1")), order("TF9"))
    assert e.value.rule == "STF 8.2"


def test_stf_8_7_a_precise_group_is_no_longer_searched():
    st = search_state(system_group("TF1", intel="precise", chit="Captain", size="small"))
    with pytest.raises(RuleViolation) as e:
        play(st, order())
    assert e.value.rule == "STF 8.7"


@pytest.mark.parametrize("sv, error", [(21, RuleViolation), (-1, RuleViolation), ("5", InvalidOrder),
                                       (None, InvalidOrder)])
def test_stf_8_3_the_declared_search_value_is_checked(sv, error):
    with pytest.raises(error) as e:
        play(search_state(system_group("TF1")), order(sv=sv))
    assert e.value.rule == "STF 8.3"


def test_stf_8_3_a_search_is_ordered_in_the_patrol_phase():
    st = search_state(system_group("TF1"), phase="Movement")
    with pytest.raises(RuleViolation):
        play(st, order())
    legal = search_state(system_group("TF1"), system_group("TF2", intel="precise", size="small", chit="Captain"))
    offered = search._templates(legal)
    assert [o["group"] for o in offered] == ["TF1"]


# ---- STF 8.4 Approximate --------------------------------------------------------------------------
def test_stf_8_4_approximate_places_an_enemy_chit_on_odd():
    out, after = play(search_state(system_group("TF1")), order(sv=5), FixedDice(5, 3))
    false_roll = rolls_of(out)[1]
    assert false_roll.seat == "system" and false_roll.rule == "STF 8.4" and false_roll.outcome == "hostile"
    assert changes(out) == [{"chit": "Enemy", "intel": "approximate"}]
    assert after["groups"]["TF1"]["chit"] == "Enemy"


def test_stf_8_4_approximate_even_removes_a_false_contact():
    out, after = play(search_state(system_group("TF1")), order(sv=5), FixedDice(5, 4))
    removed = events_of(out, "GroupRemoved")
    assert removed == [{"group": "TF1", "status": "false contact", "rule": "STF 8.4", "why": removed[0]["why"]}]
    assert after["groups"]["TF1"]["hex"] is None and after["groups"]["TF1"]["status"] == "false contact"


@pytest.mark.parametrize("chit, die", [("Enemy", 6), ("Tracked", 7), ("Commodore", 8)])
def test_stf_8_4_approximate_with_a_chit_has_no_effect(chit, die):
    out, after = play(search_state(system_group("TF1", chit=chit)), order(sv=5), FixedDice(die))
    assert rolls_of(out)[0].outcome == "approximate"
    assert names(out) == ["ResultDeclared", "Roll"]


# ---- STF 8.5 Good ---------------------------------------------------------------------------------
def test_stf_8_5_good_places_a_tracked_chit_on_odd():
    out, _ = play(search_state(system_group("TF1")), order(sv=5), FixedDice(4, 1))
    assert rolls_of(out)[1].rule == "STF 8.5"
    assert changes(out) == [{"chit": "Tracked", "intel": "good"}]


def test_stf_8_5_good_even_removes_a_false_contact():
    out, _ = play(search_state(system_group("SR1", "subron")), order("SR1", 5), FixedDice(4, 6))
    assert events_of(out, "GroupRemoved")[0]["status"] == "false contact"


@pytest.mark.parametrize("chit, die", [("Tracked", 6), ("Captain", 7)])
def test_stf_8_5_good_with_a_tracked_or_leader_chit_has_no_effect(chit, die):
    out, _ = play(search_state(system_group("TF1", chit=chit)), order(sv=5), FixedDice(die))
    assert rolls_of(out)[0].outcome == "good" and names(out) == ["ResultDeclared", "Roll"]


def test_stf_8_5_good_on_an_enemy_chit_places_a_tracked_chit_without_a_false_contact_roll():
    out, _ = play(search_state(system_group("TF1", chit="Enemy", intel="approximate")), order(sv=5), FixedDice(5))
    assert len(rolls_of(out)) == 1 and changes(out) == [{"chit": "Tracked", "intel": "good"}]


# ---- STF 8.6 Accurate -----------------------------------------------------------------------------
@pytest.mark.parametrize("die, size, leader", [(1, "small", "Captain"), (2, "small", "Captain"),
                                               (3, "medium", "Commodore"), (4, "medium", "Commodore"),
                                               (5, "large", "Rear Admiral"), (6, "large", "Rear Admiral")])
def test_stf_8_6_accurate_rolls_the_size_and_places_a_leader_chit(die, size, leader):
    out, after = play(search_state(system_group("TF1")), order(sv=5), FixedDice(3, 1, die))
    size_roll = rolls_of(out)[2]
    assert size_roll.seat == "system" and size_roll.rule == "STF 8.6" and size_roll.notation == "d6"
    assert changes(out) == [{"size": size, "chit": leader}, {"intel": "accurate"}]
    assert after["groups"]["TF1"]["intel"] == "accurate"


def test_stf_8_6_accurate_even_removes_a_false_contact():
    out, _ = play(search_state(system_group("TF1")), order(sv=5), FixedDice(3, 2))
    assert events_of(out, "GroupRemoved")[0]["rule"] == "STF 8.6" and not events_of(out, "DeploymentChanged")


def test_stf_8_6_accurate_on_a_tracked_chit_rolls_the_size_only():
    out, _ = play(search_state(system_group("TF1", chit="Tracked", intel="good")), order(sv=5), FixedDice(5, 4))
    assert [r.rule for r in rolls_of(out)] == ["STF 8.6", "STF 8.6"]  # the search read 8.6 (Accurate), then the size
    assert changes(out)[0] == {"size": "medium", "chit": "Commodore"}


def test_stf_8_6_accurate_on_an_accurate_group_has_no_effect():
    st = search_state(system_group("TF1", chit="Commodore", size="medium", intel="accurate"))
    out, _ = play(st, order(sv=5), FixedDice(6))  # 6 - 3 = 3: 2 less than 5
    assert rolls_of(out)[0].outcome == "accurate" and names(out) == ["ResultDeclared", "Roll"]


def test_stf_8_6_a_rear_admiral_chit_from_an_air_attack_becomes_accurate_without_a_size_roll():
    st = search_state(system_group("TF1", chit="Rear Admiral"))  # STF 10.5 placed it
    out, after = play(st, order(sv=5), FixedDice(6))
    assert len(rolls_of(out)) == 1
    assert after["groups"]["TF1"]["intel"] == "accurate" and after["groups"]["TF1"]["size"] == "large"
    assert events_of(out, "DeploymentChanged")[0]["points"] == 30


# ---- STF 8.12, 8.13: the deployment total rises at Accurate ---------------------------------------
@pytest.mark.parametrize("kind, size_die, side, points", [
    ("tf", 1, "Soviet", 10), ("tf", 3, "Soviet", 20), ("tf", 5, "Soviet", 30), ("tf", 6, "US", 50),
    ("tf", 5, "NATO", 30), ("subron", 2, "Soviet", 5), ("subron", 4, "Soviet", 9), ("subron", 6, "US", 13)])
def test_stf_8_12_and_8_13_accurate_raises_the_deployment_total(kind, size_die, side, points):
    gid = "TF1" if kind == "tf" else "SR1"
    player = "US" if side == "Soviet" else "Soviet"
    st = search_state(system_group(gid, kind, chit="Tracked"), player_side=player, system_side=side,
                      commitment={"Player": {"points": 14, "carriers": 1}, "system": 108})
    out, after = play(st, order(gid, 5), FixedDice(5, size_die))
    d = events_of(out, "DeploymentChanged")
    assert d[0]["points"] == points and d[0]["delta"] == points and d[0]["total"] == points
    assert d[0]["rule"] == ("STF 8.12" if kind == "tf" else "STF 8.13")
    assert after["deployment"]["total"] == points


def test_stf_8_12_the_increments_are_the_texts():
    inc = search.SEARCH["deployment_increments"]
    assert inc["tf"] == {"small": 10, "medium": 20, "large": 30, "large US": 50}
    assert inc["subron"] == {"small": 5, "medium": 9, "large": 13}
    assert "increases by 10 if small; 20 if medium and 30 if large or 50 if large US" in TEXT
    assert "increases by 5 if small; 9 if medium and 13 if large" in TEXT


def test_stf_8_12_precise_readjusts_the_total_to_the_exact_cost():
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"),
                      pool=pool_of("Soviet", PC=3))
    st["deployment"] = {"total": 10, "groups": {"TF1": {"part": "surface", "points": 10}}}
    # search 4 - 3 = 1, 4 less than 5: Precise; composition d10 1: Captain TF 3PC; draws d3, d2
    out, after = play(st, order(sv=5), FixedDice(4, 1, 1, 1))
    d = events_of(out, "DeploymentChanged")[-1]
    assert d["points"] == 6 and d["delta"] == -4 and d["total"] == 6 and d["rule"] == "STF 8.12"


# ---- STF 8.7 Precise ------------------------------------------------------------------------------
def test_stf_8_7_precise_on_no_chit_rolls_a_false_contact_first():
    out, _ = play(search_state(system_group("TF1")), order(sv=8), FixedDice(2, 6))
    assert events_of(out, "GroupRemoved")[0]["rule"] == "STF 8.7" and len(rolls_of(out)) == 2


def test_stf_8_7_precise_determines_the_size_then_the_composition():
    st = search_state(system_group("TF1", chit="Tracked", intel="good"), pool=pool_of("Soviet", PC=3))
    out, after = play(st, order(sv=9), FixedDice(5, 2, 1))  # 5-2=3: 6 less; size 2 small; row 1: 3PC, all 3 left
    rolls = rolls_of(out)
    assert [r.rule for r in rolls] == ["STF 8.7", "STF 8.6", "STF 8.7"]
    assert rolls[2].outcome == "3PC" and rolls[2].target["column"] == "Captain TF"
    assert [list(e["units"]) for e in events_of(out, "UnitsAssigned")] == [["sov-pc-1"], ["sov-pc-2"], ["sov-pc-3"]]
    tf = after["groups"]["TF1"]
    assert tf["intel"] == "precise" and tf["chit"] == "Captain" and tf["nation"] == "Soviet"
    assert sorted(tf["units"]) == ["sov-pc-1", "sov-pc-2", "sov-pc-3"] and after["pool"] == {}
    assert after["campaign"]["precise_reports"] == 1
    assert all(after["units"][u]["group"] == "TF1" for u in tf["units"])


def test_stf_8_7_a_precise_sub_is_placed_in_shallow():
    st = search_state(system_group("SR1", "subron", chit="Enemy", intel="approximate"), pool=pool_of("Soviet", SS=1))
    out, after = play(st, order("SR1", 9), FixedDice(4, 1, 1))  # size small; row 1 Captain Sub 1SS
    assert after["groups"]["SR1"]["mode"] == "shallow" and after["groups"]["SR1"]["intel"] == "precise"
    assert changes(out)[-1] == {"mode": "shallow"}
    assert "precise_reports" not in after["campaign"]  # STF 2.6.5 counts task forces


# ---- STF 8.8: a Soviet Player's first Precise report fixes the enemy's nation ----------------------
@pytest.mark.parametrize("die, nation", [(1, "NATO"), (2, "NATO"), (3, "US"), (4, "US"), (5, "US"), (6, "US")])
def test_stf_8_8_the_first_precise_report_fixes_nato_or_us(die, nation):
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"),
                      pool={**pool_of("US", FF=3), **pool_of("NATO", FF=3)}, player_side="Soviet", system_side=None)
    out, after = play(st, order(sv=9), FixedDice(1, die, 1, 1, 1))  # row 1 Captain TF (US table): 3FF
    fixed = [e for e in events_of(out, "CampaignFixed") if e["key"] == "system_side"]
    assert fixed == [{"key": "system_side", "value": nation, "rule": "STF 8.8"}]
    assert rolls_of(out)[1].rule == "STF 8.8" and rolls_of(out)[1].seat == "system"
    assert {after["units"][u]["nation"] for u in after["groups"]["TF1"]["units"]} == {nation}


def test_stf_8_8_in_the_caribbean_all_forces_are_us_without_a_roll():
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"),
                      pool=pool_of("US", FF=3), player_side="Soviet", system_side=None, map="caribbean")
    out, after = play(st, order(sv=9), FixedDice(1, 1, 1, 1))
    assert after["campaign"]["system_side"] == "US"
    assert [r.rule for r in rolls_of(out)][:2] == ["STF 8.7", "STF 8.7"]


def test_stf_8_8_only_the_first_precise_report_rolls():
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"),
                      pool=pool_of("US", FF=3), player_side="Soviet", system_side="US")
    out, _ = play(st, order(sv=9), FixedDice(1, 1, 1, 1))
    assert "STF 8.8" not in [r.rule for r in rolls_of(out)]


# ---- STF 8.11: intelligence degrades -------------------------------------------------------------
@pytest.mark.parametrize("level, chit, size, lower, lower_chit", [
    ("accurate", "Commodore", "medium", "good", "Tracked"), ("good", "Tracked", None, "approximate", "Enemy"),
    ("approximate", "Enemy", None, "unknown", None)])
def test_stf_8_11_on_a_1_intelligence_drops_one_level(level, chit, size, lower, lower_chit):
    st = search_state(system_group("TF1", intel=level, chit=chit, size=size), phase="Terminal")
    out, after = run_step(st, "intelligence_degradation", FixedDice(1))
    roll = rolls_of(out)[0]
    assert roll.seat == "system" and roll.rule == "STF 8.11" and roll.notation == "d6"
    g = after["groups"]["TF1"]
    assert g["intel"] == lower and g["chit"] == lower_chit and g["size"] is None


@pytest.mark.parametrize("die", [2, 3, 4, 5, 6])
def test_stf_8_11_on_2_to_6_intelligence_holds(die):
    st = search_state(system_group("TF1", intel="good", chit="Tracked"), phase="Terminal")
    out, after = run_step(st, "intelligence_degradation", FixedDice(die))
    assert not events_of(out, "GroupChanged") and after["groups"]["TF1"]["intel"] == "good"


def test_stf_8_11_precise_accurate_with_air_unknown_and_subrons_are_not_rolled():
    st = search_state(system_group("TF1", intel="precise", chit="Captain", size="small"),
                      system_group("TF2", intel="accurate", chit="Rear Admiral", size="large", air_known=True),
                      system_group("TF3"), system_group("SR1", "subron", intel="good", chit="Tracked"),
                      system_group("TF4", intel="good", chit="Tracked", hex=None, status="off map"),
                      system_group("TF10", intel="approximate", chit="Enemy"),
                      phase="Terminal")
    out, _ = run_step(st, "intelligence_degradation", FixedDice(2))
    assert [r.units for r in rolls_of(out)] == [["TF10"]]


def test_stf_8_11_one_roll_per_identified_task_force_in_order():
    st = search_state(system_group("TF2", intel="good", chit="Tracked"), system_group("TF1", intel="accurate",
                      chit="Captain", size="small"), phase="Terminal")
    out, after = run_step(st, "intelligence_degradation", FixedDice(6, 1))
    assert [r.units for r in rolls_of(out)] == [["TF1"], ["TF2"]]
    assert after["groups"]["TF1"]["intel"] == "accurate" and after["groups"]["TF2"]["intel"] == "approximate"


def test_stf_8_11_the_step_runs_in_the_terminal_phase():
    terminal = next(p for p in SEQUENCE["turn"] if p["phase"] == "Terminal")
    assert "intelligence_degradation" in terminal["system"]


def test_stf_8_3_no_dice_on_a_refused_search():
    with pytest.raises(RuleViolation):
        play(search_state(system_group("TF1")), order("P1"), NoDice())

