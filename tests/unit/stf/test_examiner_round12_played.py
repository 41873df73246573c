"""Examiner round 12: rules errors found by reading whole played campaigns (the random Player of
domain/rulesets/stf/play.py, fixed seeds) as an umpire reads a log, each pinned on a small scenario."""

from __future__ import annotations

from tests.unit.stf.helpers import FixedDice, events_of, rolls_of, run_step
from tests.unit.stf.test_examiner_stf_doubts import off_map, placed


# ---- STF 6.3, 6.4: the one false contact off the map comes back, and is not marked as kept off ----------
def test_stf_6_3_the_only_false_contact_off_the_map_comes_back_and_is_not_marked_never_redeployable():
    """Seen in a Mediterranean campaign: TF5, found false in turn 3 and the only counter off the map,
    was recorded in turn 4 as "not redeployed in the turn after its removal ... redeployable no"
    (STF 6.3) and then placed in the same step. 6.4's third of 1 is 1: it comes back (no draw), so
    nothing is left over for 6.3 to keep off the map; the record must not say it was kept off."""
    out, after = run_step(off_map(turn=4, TF5="false contact"), "reinforcements", FixedDice(default=1))
    assert placed(out) == ["TF5"]
    assert [e for e in events_of(out, "GroupChanged") if "redeployable" in e["changes"]] == []
    assert [r.rule for r in rolls_of(out)] == ["STF 6.3", "STF 6.5"]  # the megahex and outer hex only
    assert after["groups"]["TF5"]["status"] == "on map" and after["groups"]["TF5"].get("redeployable", True)
