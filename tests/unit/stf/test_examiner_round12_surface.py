"""Examiner round 12, STF: the surface commitment limit (1.9 with 1.10 and 1.11).

An umpire reading a played game saw 213 surface points revealed against a commitment of 52, task
force counters still deployed and redeployed: the total counted surface points only up to 1.10's
surface share, and 1.9 waited for the whole commitment, so once the share was full every task
force revealed was placed whole and counted nothing. 1.11 names the share "the surface commitment
limit"; when the surface points reach it, 1.9 applies to the surface part (docs/rulesets.md,
"Searching and composition", the reading of the surface commitment limit)."""

from __future__ import annotations

import copy

from domain.rulesets.stf import composition, movement
from tests.unit.stf.helpers import FixedDice, events_of, pool_of, run_step, search_state, system_group
from tests.unit.stf.test_composition import accurate, reveal


def _surface_full() -> tuple[list, dict]:
    """Commitment 45: 30 surface, 15 submarine (1.10). 26 surface points counted (TF5); TF1, an
    Accurate small task force, is revealed as 3 PC (6 points): surface 32, over the share of 30."""
    st = search_state(accurate("TF1", "small"), accurate("TF5", "medium"),
                      system_group("TF2", intel="good", chit="Tracked"), system_group("TF3"),
                      system_group("TF4", intel="approximate", chit="Enemy"),
                      system_group("TF6", intel="precise", size="small", chit="Captain"),
                      system_group("SR1", "subron", intel="good", chit="Tracked"), system_group("SR2", "subron"),
                      pool=pool_of("Soviet", PC=3))
    st["deployment"] = {"total": 26, "groups": {"TF5": {"part": "surface", "points": 20},
                                                "TF6": {"part": "surface", "points": 6}}}
    return reveal(st, "TF1", FixedDice(1, 1, 1))


def test_stf_1_10_the_surface_share_reached_removes_task_forces_at_good_or_lower_and_keeps_subrons():
    """1.9 "no further task force or subron counters can be deployed and all counters which are at
    'Good' or lower level of intelligence are immediately removed from play", read for the surface
    part at 1.11's "surface commitment limit" (1.10's two thirds): TF2 (Good), TF3 (Unknown) and
    TF4 (Approximate) leave play; the Accurate and Precise task forces stay, and so do the subrons,
    at Good or not, as a third of the commitment is still theirs. The whole commitment (45) is not
    reached, so 1.9 itself has not fired."""
    out, after = _surface_full()
    assert after["deployment"]["total"] == 30 and not after["campaign"].get("commitment_reached")
    fixed = [e for e in events_of(out, "CampaignFixed") if e["key"] == "surface_limit_reached"]
    assert [(e["value"], e["rule"]) for e in fixed] == [(True, "STF 1.10")]
    removed = events_of(out, "GroupRemoved")
    assert [(e["group"], e["status"], e["rule"]) for e in removed] == [
        ("TF2", "off map", "STF 1.10"), ("TF3", "off map", "STF 1.10"), ("TF4", "off map", "STF 1.10")]
    assert all("1.9" in e["why"] and "surface" in e["why"] for e in removed)
    for gid in ("TF1", "TF5", "TF6", "SR1", "SR2"):
        assert after["groups"][gid]["status"] == "on map", gid


def test_stf_1_10_no_task_force_is_redeployed_once_the_surface_share_is_reached_subrons_still_are():
    """6.4 "deploy one third of all task forces and subrons which are currently off the map": once
    the surface share is reached no task force counter may be deployed, so the cup holds the
    subrons only: TF2-TF4 (removed by the surface limit) and TF7 (off the map before) stay off, SR3
    comes back (one third of one, rounded up, no die: no choice)."""
    _, after = _surface_full()
    st = copy.deepcopy(after)
    st["turn"] = 2
    st["groups"]["TF7"] = system_group("TF7", hex=None, status="off map")
    st["groups"]["SR3"] = system_group("SR3", "subron", hex=None, status="off map")
    assert movement.may_deploy(st, "subron") and not movement.may_deploy(st, "tf")
    out, st2 = run_step(st, "reinforcements", FixedDice(4, 2))  # SR3: the Starting Megahex d10, the d6
    assert [p["group"]["id"] for p in events_of(out, "GroupPlaced")] == ["SR3"]
    assert all(st2["groups"][g]["hex"] is None for g in ("TF2", "TF3", "TF4", "TF7"))


def test_stf_1_10_a_task_force_revealed_after_the_surface_share_is_placed_whole_and_removes_nothing():
    """1.10's example: the full complement is placed, its excess ignored; the surface limit acts
    once (as 1.9 does), so a later reveal removes nothing more and fixes nothing again."""
    _, after = _surface_full()
    st = copy.deepcopy(after)
    st["groups"]["TF8"] = accurate("TF8", "small")
    st["groups"]["TF9"] = system_group("TF9", intel="good", chit="Tracked")  # placed before the limit: kept
    st["pool"] = pool_of("Soviet", PC=3)
    out, st2 = reveal(st, "TF8", FixedDice(1, 1, 1))
    assert len(st2["groups"]["TF8"]["units"]) == 3 and st2["deployment"]["total"] == 30
    assert not events_of(out, "GroupRemoved") and not events_of(out, "CampaignFixed")


def test_stf_6_2_no_task_force_is_placed_once_the_surface_share_is_reached_subrons_are():
    st = search_state(phase="Deployment")
    st["turn"] = 0
    st["groups"] = {}
    st["campaign"]["surface_limit_reached"] = True
    ctx_out, st2 = _system_deployment(st)
    assert [p["group"]["id"] for p in events_of(ctx_out, "GroupPlaced")] == movement.SYSTEM_SUBRONS


def _system_deployment(st: dict) -> tuple[list, dict]:
    from domain.rulesets.stf import rules as stf_rules
    from domain.rulesets.toolkit.engine import Ctx
    ctx = Ctx(copy.deepcopy(st), FixedDice(default=1), stf_rules.HOOKS)
    movement.system_deployment(ctx)
    return ctx.out, ctx.state


def test_stf_1_9_the_whole_commitment_still_removes_subrons_at_good_or_lower():
    """1.9 itself is unchanged: at the whole commitment every counter at Good or lower goes,
    subrons too."""
    _, after = _surface_full()
    st = copy.deepcopy(after)
    st["groups"]["SR4"] = accurate("SR4", "large", "subron")
    st["deployment"]["groups"]["SR5"] = {"part": "subs", "points": 12}
    st["deployment"]["total"] = 42
    st["pool"] = pool_of("Soviet", SS=1)
    out, st2 = reveal(st, "SR4", FixedDice(1))  # Rear Admiral Sub row 1 (-7: within 5): 1SS, 3 points: 45
    assert st2["campaign"]["commitment_reached"] is True
    assert [(e["group"], e["rule"]) for e in events_of(out, "GroupRemoved")] == [("SR1", "STF 1.9"), ("SR2", "STF 1.9")]
    assert composition.sub_share(45) == 15
