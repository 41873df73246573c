"""Examiner round 12b: rules errors found by reading the late game and the invasion of whole played
campaigns (the random Player of domain/rulesets/stf/play.py, fixed seeds), each pinned on a small
scenario."""

from __future__ import annotations

from domain.rulesets.stf import composition
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, rolls_of, run_step, ship
from tests.unit.stf.test_combat import HEX, acts


def _invasion_force() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"bb": ship("BB", 10, nation="US"), "f1": ship("FR", 5, nation="US"),
                                         "f2": ship("FR", 5, nation="US"), "f3": ship("FR", 5, nation="US"),
                                         "ff": ship("FF", 3, nation="US")})
    return st


# ---- STF 11.6: no die for the order of ships no sub aims at ---------------------------------------------
def test_stf_11_6_no_die_orders_equal_ships_behind_the_one_every_sub_moves_next_to():
    """Seen in a Caribbean campaign (seed 3, turn 12, SR2's torpedo attack on P2): P2 held the Iowa
    (10 VP), six freighters (5) and a frigate; both subs had two floatation points, so both "move
    so as to be at least adjacent to the highest value unit" (11.6), the Iowa. Five dice (d6, d5,
    d4, d3, d2) still ordered the six freighters, an order nothing used. With no sub attacking at
    once (one floatation point left: the highest value ship *next to it*, which needs the order),
    only the first place is wanted: no die for the rest (combat.order_by's ``most``)."""
    st = _invasion_force()
    add_group(st, "SR1", "system", HEX, {"k1": ship("SSN", 4, torpedoes=2, flotation=2),
                                          "k2": ship("SSN", 4, torpedoes=2, flotation=2)}, kind="subron")
    out, _ = run_step(st, "surface_combat", FixedDice(2, 5))  # the two entry areas, and no more
    assert [r.rule for r in rolls_of(out)] == ["STF 11.5", "STF 11.5"]
    attack = acts(out, "torpedo attack")[0]["detail"]
    assert [a["target"] for a in attack["subs"]] == ["bb", "bb"]
    assert attack["targets"][0] == "bb" and sorted(attack["targets"]) == ["bb", "f1", "f2", "f3", "ff"]


def test_stf_11_6_a_sub_attacking_at_once_still_has_equal_ships_ordered_by_die():
    """The other side of the same rule: a sub with one floatation point left attacks "the highest
    value ship adjacent to it", so the whole order, ties drawn by die, is what it reads."""
    st = _invasion_force()
    add_group(st, "SR1", "system", HEX, {"k1": ship("SSN", 4, torpedoes=2, flotation=1)}, kind="subron")
    out, _ = run_step(st, "surface_combat", FixedDice(2, 3, 1))  # the entry area, then d3 and d2
    assert [r.rule for r in rolls_of(out)] == ["STF 11.5", "STF 11.6", "STF 11.6"]
    assert acts(out, "torpedo attack")[0]["detail"]["targets"] == ["bb", "f3", "f1", "f2", "ff"]


# ---- the Precise Composition Tables' "within 15/10/5 of the commitment limit" (a reading) ----------------
def test_composition_bands_measure_the_whole_commitment_not_the_surface_limit():
    """The tables say "the commitment limit"; where the text means the surface part it says "surface
    commitment limit" (1.11). So a Commodore task force rolled after the surface limit is reached
    (surface 35 of 35, subs 0, commitment 52: 17 left) takes no band, though its surface share is full."""
    st = combat_state(commitment=52)
    st["deployment"] = {"total": 35, "groups": {"TF1": {"part": "surface", "points": 35}}}
    st["campaign"]["surface_limit_reached"] = True
    group = {"id": "TF2", "kind": "tf", "size": "medium"}
    assert composition.modifiers(st, group, "Soviet") == []
    st["deployment"]["total"] = 38  # 14 left of the whole commitment: -3
    assert [m["value"] for m in composition.modifiers(st, group, "Soviet")] == [-3]
