"""Examiner-style checks of the STF text's exceptions and qualifiers ("except", "unless",
"however", "only", "never", "at most", "irrespective", the notes under the tables), each written
from the sentence it quotes (../shared/rules/003_74ca0e4e298164eb.txt): the exception case itself,
not the main rule the other files already prove."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import maps
from tests.unit.stf.helpers import FixedDice, NoDice, events_of, play, rolls_of, run_step
from tests.unit.stf.test_air import SYS, add, built, cv, ship


def refused(st: dict, order: dict, rule: str) -> str:
    with pytest.raises(RuleViolation) as err:
        play(st, order)
    assert err.value.rule == rule, err.value
    return str(err.value)


# ---- STF 8.7 / 2.6.1: a Precise group stays Precise ------------------------------------------------
def test_stf_8_7_an_lbna_patrols_precise_report_leaves_a_group_already_precise_as_it_is():
    """8.7: "When a taskforce has been Precisely identified ... the force remains Precisely
    identified for the rest of the game" (and 8.6: "If the target is already Precisely identified,
    then no effect"). A Soviet Player's patrol (2.6.1, "for a Precise search report") over a
    megahex holding a Precise task force rolls no false contact for it: it is not removed."""
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF1", "system", SYS, [ship("dd", "DD", nation="US")], intel="precise", chit=None, size="small")
    mh = int(maps.megahex_number("giuk", SYS))
    out, after = play(st, {"kind": "lbna_patrol", "unit": "badger", "megahex": mh}, FixedDice(2))
    assert rolls_of(out) == []
    g = after["groups"]["TF1"]
    assert (g["status"], g["hex"], g["intel"], g["units"]) == ("on map", SYS, "precise", ["dd"])
    assert events_of(out, "PlayerAirAction")[0]["detail"]["false_contacts"] == []
