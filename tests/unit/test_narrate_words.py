"""The log's lines in the game's words (the new user's round 11): what a player read in the
history that the game never says."""

from __future__ import annotations

import pytest

from domain.rulesets import find_ruleset
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.flow import PHASE_EFFECTS
from projections.narrate import describe

FS = find_ruleset("falklands")
SPENT = sorted({e for _, effects in PHASE_EFFECTS.values() for e in effects} | {"political_pressure", "tez_expanded"})


@pytest.mark.parametrize("effect", SPENT)
def test_fs_11_3_an_effect_spent_is_named_by_its_title(effect):
    """FS 11.3 1-1 "When next up, the UK player may conduct any two operations for the price of
    one": the line when it is used read "UK: uk operational superiority over (FS 11.3)", its id
    with the underscores taken out. It names the effect as the event table and the map's "In
    effect" panel do."""
    side = "AR" if effect.startswith(("ar_", "poor_ar")) else "UK"
    line = describe({"type": "EffectSpent", "data": {"side": side, "effect": effect, "rule": "FS 11.3"}}, FS)
    assert line == f"{side}: {DATA.effect_names()[effect]['name']} ends (FS 11.3)"
    assert "_" not in line


def test_a_roll_on_a_table_named_as_a_table_is_not_called_a_table_table():
    """STF 1.2's roll read "… on the Mission Table (1.2) table, row 2": a table whose name says
    it is one is not called a table again; one whose name does not still is."""
    roll = {"seat": "system", "purpose": "the mission", "notation": "1d6", "dice": [{"sides": 6, "value": 1}],
            "units": [], "outcome": "US Inv", "rule": "STF 1.2",
            "target": {"table": "Mission Table (1.2)", "row": "2", "modified": 2,
                       "modifiers": [{"value": 1, "reason": "G-I-UK Gap map (STF 1.2)"}]}}
    line = describe({"type": "DiceRolled", "data": roll})
    assert "on the Mission Table (1.2), row 2: US Inv (STF 1.2)" in line, line
    roll["target"]["table"] = "combat results"
    assert "on the combat results table, row 2" in describe({"type": "DiceRolled", "data": roll})
