"""STF readings the last rounds left open, each decided from the words of the v1.2 text
(../shared/rules/003_74ca0e4e298164eb.txt) and pinned here."""

from __future__ import annotations

import pytest

from domain.rulesets.stf import retirement
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, run_step, ship


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 12.6: "their original commitment" -----------------------------------------------------------
def _caribbean_losses(net: int, table: int, adjusted: int) -> dict:
    """A Terminal Phase whose GameSystem lost ships of ``net`` VP (none of the Player's), its
    commitment ``table`` as the 1.5 table gives it and ``adjusted`` after 1.6's Caribbean change."""
    st = combat_state("Terminal", commitment=adjusted)
    st["campaign"]["commitment_table"] = {"Player": {"points": 21, "carriers": 1}, "system": table}
    add_group(st, "P1", "Player", "1212", {"p_ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "1610", {"lost": {**ship("CG", net), "sunk": True}, "afloat": ship("FF", 3)})
    return st


@pytest.mark.parametrize("net, table, adjusted, rule", [
    (33, 52, 47, "STF 12.5"),   # a US Player: 66% of 47 is 31.02, of 52 is 34.32: not yet 12.6
    (35, 52, 47, "STF 12.6"),
    (35, 52, 57, "STF 12.6"),   # a Soviet Player (a US GameSystem +5): 66% of 57 would be 37.62
    (34, 52, 57, "STF 12.5")])
def test_stf_12_6_the_original_commitment_is_the_1_5_tables_not_the_caribbean_adjusted_limit(net, table, adjusted,
                                                                                               rule):
    """12.6: "If net GameSystem losses reach 66% of their original commitment". 12.2 names the
    same commitment "the starting commitment level given in the table at STF rule 1.5"; 1.6 then
    changes the limit in the Caribbean. "Original" is the value before that change, the one 12.2's
    50% is taken of, so the two thresholds of 12.5 and 12.6 stand on one commitment."""
    st = _caribbean_losses(net, table, adjusted)
    assert retirement.commitment(st) == table
    out, _ = run_step(st, "retirement", FixedDice(5))
    (check,) = acts(out, "retirement check")
    assert check["rule"] == rule and check["detail"]["retire"] is (rule == "STF 12.6")
