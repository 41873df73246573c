"""Examiner round six: "Values a text does not give go in data files marked provisional, never in
code" (shared/rules/README.md). Each test names the rule whose value it checks: a value the text
gives is carried once, by the data (not marked provisional) and read from there; a value it does not
give is marked provisional in the ruleset's data, and the code reads it (a changed value changes
the behaviour). tests/unit/test_examiner_values.py holds the earlier round's checks."""

from __future__ import annotations

from domain.rulesets.stf import combat, composition
from domain.rulesets.stf import rules as stf_rules
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, initial, play, rolls_of, run_step, ship


def stf_guessed() -> set[tuple]:
    return {(g.file, g.entry, g.field) for g in stf_rules.DATA.provisional()}


# ---- Solitaire Task Force ---------------------------------------------------------------------------
def test_stf_1_10_the_campaigns_submarine_share_is_read_from_composition_json(monkeypatch):
    """STF 1.10: "at least one-third (round down) of its commitment limit on submarines". The text
    gives the share, so data/composition.json carries it unmarked; the campaign's recorded
    ``system_submarines`` reads that one copy (it had its own ``// 3``)."""
    share = stf_rules.DATA.read("composition.json")["submarine_share"]
    assert share == {"rule": "STF 1.10", "numerator": 1, "denominator": 3, "round": "down"}
    assert not any(f == "composition.json" and e == "submarine_share" for f, e, _ in stf_guessed())
    order = {"kind": "campaign", "map": "mediterranean", "side": "US"}
    _, st = play(initial(), order, FixedDice(3, 3, 4, default=1))      # 2D6 = 7: the GameSystem's 52
    assert st["campaign"]["commitment"]["system_submarines"] == 17     # 52 // 3
    monkeypatch.setattr(composition, "SHARE", {**share, "denominator": 2})
    _, st = play(initial(), order, FixedDice(3, 3, 4, default=1))
    assert st["campaign"]["commitment"]["system"] == 52
    assert st["campaign"]["commitment"]["system_submarines"] == 26     # the data's share, not the code's


def _sub_battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", "1010", {"cv": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US")})
    add_group(st, "SR1", "system", "1010", {"k1": ship("SS", 3, torpedoes=3, flotation=2),
                                            "k2": ship("SS", 3, torpedoes=3, flotation=2)}, kind="subron")
    return st


def test_stf_11_5_how_many_sub_entry_areas_the_display_has_is_provisional_and_read(monkeypatch):
    """STF 11.5: GameSystem subs "are placed on the display in entry areas based on random die roll,
    but not so as to violate the rule that there can only be one sub in each area". How many entry
    areas there are (and so the die) is Task Force's tactical display's, not the text's: combat.json
    marks its six provisional, and the placement rolls the die the data gives."""
    assert ("combat.json", "subs", "entry_areas") in stf_guessed()
    assert combat.C["subs"]["entry_areas"] == 6
    monkeypatch.setattr(combat, "C", {**combat.C, "subs": {**combat.C["subs"], "entry_areas": 4}})
    out, _ = run_step(_sub_battle(), "surface_combat", FixedDice(4, 4, 3))
    placing = [r for r in rolls_of(out) if r.rule == "STF 11.5"]
    assert [r.dice[0]["sides"] for r in placing] == [4, 4, 4]
    (placed,) = [e for e in events_of(out, "SystemActs") if e["what"] == "sub placement"]
    assert placed["detail"]["areas"] == {"k1": 4, "k2": 3}
