"""Examiner round 11, STF rules 1-8: scenarios written from the v1.2 text
(../shared/rules/003_74ca0e4e298164eb.txt), driven through the ruleset's public orders and steps,
where the server's answer and the text's differed (or the text's answer was not yet pinned)."""

from __future__ import annotations

from domain.rulesets.stf import forces
from tests.unit.stf.helpers import play
from tests.unit.stf.test_forces import forces_state, refused


def counters(nation: str, cls: str) -> list[str]:
    return [c for c, x in forces.COUNTERS.items() if x["nation"] == nation and x["class"] == cls]


# ---- STF 1.14 with 13.7: a task force's points are the commitment points spent on it ------------------
def test_stf_1_14_an_ssm_upgrade_point_counts_in_the_task_forces_points_for_its_leader():
    """13.7: a DD or FF's SSM goes to (x2) "at the cost of one commitment point per ship"; 1.14:
    "Each task force of 21 points or more may have a Rear Admiral; 11 points or more a Commodore".
    Two CGs (12) and two DDs (8) are 20 points of ships; with one DD upgraded the task force cost
    21 commitment points: a Rear Admiral. Two frigates (6) and an upgrade: 7, a Captain, and a
    Commodore is refused naming 7 points. Before, the task force counted its counters' values only (20 and 10), so the
    Rear Admiral was refused under STF 1.14 for a task force of 21."""
    st = forces_state(points=40, carriers=0)
    cgs, dds = counters("US", "CG")[:2], [c for c in counters("US", "DD") if forces.COUNTERS[c]["ssm_loads"] == 1][:2]
    ffs = counters("US", "FF")[:2]
    assert {forces.COUNTERS[c]["value"] for c in cgs} == {6} and {forces.COUNTERS[c]["value"] for c in dds} == {4}
    assert {forces.COUNTERS[c]["value"] for c in ffs} == {3} and forces.COUNTERS[ffs[0]]["ssm"] > 0
    _, st = play(st, {"kind": "buy", "units": [*cgs, *dds, *ffs], "ssm_upgrades": [dds[0], ffs[0]]})
    assert st["campaign"]["player_purchase"]["points"] == 12 + 8 + 6 + 2
    order = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": [*cgs, *dds], "leader": "Rear Admiral"},   # 12 + 8 + 1 upgrade = 21
        {"kind": "tf", "units": [*ffs], "leader": "Commodore"}]}           # 6 + 1 upgrade = 7: a Captain
    assert "7 points may have a Captain at most" in refused(st, order, "STF 1.14")
    order["groups"][1] = {"kind": "tf", "units": [*ffs]}
    _, after = play(st, order)
    assert (after["groups"]["P1"]["points"], after["groups"]["P1"]["leader"]) == (21, "Rear Admiral")
    assert (after["groups"]["P2"]["points"], after["groups"]["P2"]["leader"]) == (7, "Captain")
