"""Examiner round 10, part 2, STF: what the first examiner of the round noticed and left.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt):
a built position, the GameSystem's step or the Player's order, and what the text says."""

from __future__ import annotations

from tests.unit.stf import test_air as A
from tests.unit.stf.helpers import FixedDice, events_of, rolls_of, run_step


def _acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 10.14: "ASM attacks against Freighters, BB, CG, DD, FF and PC, in that order" -------------
def _sag_strike(units: dict, dice) -> dict:
    """A Precise Kiev task force strikes a Player surface action group 2 megahexes off: the plan."""
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

