"""Examiner round 11, STF rules 1-8: scenarios written from the v1.2 text
(../shared/rules/003_74ca0e4e298164eb.txt), driven through the ruleset's public orders and steps,
where the server's answer and the text's differed (or the text's answer was not yet pinned)."""

from __future__ import annotations

from domain.rulesets.stf import forces
from tests.unit.stf.helpers import FixedDice, events_of, play, pool_of, rolls_of, run_step
from tests.unit.stf.test_forces import forces_state, refused
from tests.unit.stf.test_movement import add, battle


def counters(nation: str, cls: str) -> list[str]:
    return [c for c, x in forces.COUNTERS.items() if x["nation"] == nation and x["class"] == cls]


# ---- STF 1.14 with 13.7: a task force's points are the commitment points spent on it ------------------
def test_stf_1_14_an_ssm_upgrade_point_counts_in_the_task_forces_points_for_its_leader():
    """13.7: a DD or FF's SSM goes to (x2) "at the cost of one commitment point per ship"; 1.14:
    "Each task force of 21 points or more may have a Rear Admiral; 11 points or more a Commodore".
    Two CGs (12) and two DDs (8) are 20 points of ships; with one DD upgraded the task force cost
    21 commitment points: a Rear Admiral. Two frigates (6) and an upgrade: 7, a Captain, and a
    Commodore is refused naming 7 points. Before, the task force counted its counters' values only
    (20), so the Rear Admiral was refused under STF 1.14 for a task force of 21."""
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


# ---- STF 8.14, 8.15 with 8.7: "becomes Precisely known" is a Precise report, false contacts too -------
def _approach(dice, **tf1):
    """TF1, unknown unless ``tf1`` says otherwise, moves from 1706 toward P1 (four DDs at 1506),
    coming within two hexes of it (8.14): the Movement phase's GameSystem step."""
    st = battle(p1="1506")
    add(st, "TF1", "system", "tf", "1706", **tf1)
    st["pool"] = pool_of("Soviet", FF=6, DD=6)
    return run_step(st, "system_movement", dice)


def test_stf_8_14_an_unknown_contact_that_closes_may_prove_a_false_contact_and_is_removed():
    """8.1: "numerous contacts, some of which are valid and some of which are not"; 8.14: a contact
    that "moves within two hexes of player task force ... becomes Precisely known"; 8.7, the
    Precise report: "If the target has no chit on it then roll 1D6. If the result is even then the
    taskforce/subron is a false contact and is removed play; if it is odd then it is a hostile
    contact and the exact composition of the force becomes known." TF1 has no chit: the 1D6 is
    rolled (rule STF 8.14, the GameSystem's die); a 2, a false contact, removed from play with
    no size nor composition rolled, and P1 still loses the action the approach cost it ("for each
    task force or subron revealed in this manner"). Before, every contact that closed was made a
    real force without the roll, so a false contact turned hostile by coming near."""
    out, st = _approach(FixedDice(1, 2, default=1))  # 7.5's d2 between two equally good hexes, then 8.7's 1D6
    false = [r for r in rolls_of(out) if r.rule == "STF 8.14"]
    assert [(r.notation, r.seat, r.outcome) for r in false] == [("d6", "system", "false contact")]
    assert [e["status"] for e in events_of(out, "GroupRemoved")] == ["false contact"]
    assert st["groups"]["TF1"]["status"] == "false contact" and st["groups"]["TF1"]["hex"] is None
    assert not events_of(out, "UnitsAssigned") and not [r for r in rolls_of(out) if r.rule in ("STF 8.6", "STF 8.7")]
    assert st["campaign"]["actions_lost"]["groups"] == {"P1": 1}


def test_stf_8_14_an_unknown_contact_that_closes_on_an_odd_roll_is_hostile_and_precise():
    """The same approach, the 1D6 odd (3): a hostile contact, its size (8.6) and composition
    (8.7) rolled, Precise."""
    out, st = _approach(FixedDice(1, 3, default=1))
    assert [r.outcome for r in rolls_of(out) if r.rule == "STF 8.14"][:1] == ["hostile"]
    assert st["groups"]["TF1"]["intel"] == "precise" and st["groups"]["TF1"]["units"]
    assert not events_of(out, "GroupRemoved")


def test_stf_8_14_a_contact_with_a_chit_is_hostile_already_and_rolls_no_false_contact_die():
    """8.7 rolls the false-contact die only for a target with no chit: TF1 with an Enemy chit (8.4
    found it hostile) is revealed with no such die."""
    out, st = _approach(FixedDice(default=1), intel="approximate", chit="Enemy")
    assert not [r for r in rolls_of(out) if r.rule == "STF 8.14" and r.notation == "d6"
                and "false" in r.purpose]
    assert st["groups"]["TF1"]["intel"] == "precise"


def test_stf_8_15_an_unknown_subron_entering_a_player_subrons_hex_may_prove_a_false_contact():
    """8.15: "enters the same hex as a player subron, the GameSystem task force or subron becomes
    Precisely known, but the player loses one action": the same Precise report. SR1, no chit,
    ends its move in P2's hex; the 1D6 (rule STF 8.15) even: a false contact, removed from play;
    the Player still loses the action."""
    st = battle(p1="1506")
    add(st, "SR1", "system", "subron", "2210")
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    ties = [1 for r in rolls_of(free) if r.rule == "STF 7.5"]  # its choices of hexes, taken again below
    add(st, "P2", "Player", "subron", events_of(free, "GroupMoved")[0]["path"][-1],
        [{"id": "ssn", "counter": "ssn", "class": "SSN", "speed": 2, "ssm": 0, "torpedoes": 4}])
    out, st2 = run_step(st, "system_movement", FixedDice(*ties, 4, default=1))
    assert [(r.rule, r.outcome) for r in rolls_of(out) if r.rule != "STF 7.5"] == [("STF 8.15", "false contact")]
    assert st2["groups"]["SR1"]["status"] == "false contact"
    assert st2["campaign"]["actions_lost"]["rules"] == {"STF 8.15": 1}
