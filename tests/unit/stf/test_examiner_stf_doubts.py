"""STF doubts settled against the text: 6.4's third over task forces and subrons together, drawn at
random; 6.3's "removed in the preceding turn"; who rolls the searches and the carrier draws; the
airbases question's offer (2.2); the rule a search roll read (8.3-8.7)."""

from __future__ import annotations

from domain.rulesets.stf import campaign as stf_campaign
from tests.unit.stf.helpers import R, FixedDice, events_of, pending, play, rolls_of, run_step
from tests.unit.stf.test_movement import add, state


def off_map(turn: int = 3, **groups: str) -> dict:
    st = state(phase="Random Events", turn=turn)
    for gid, status in groups.items():
        add(st, gid, "system", "tf" if gid.startswith("TF") else "subron", None, status=status)
    return st


def placed(out: list) -> list[str]:
    return [p["group"]["id"] for p in events_of(out, "GroupPlaced")]


# ---- STF 6.4: one third of all task forces and subrons off the map ------------------------------------
def test_stf_6_4_one_task_force_and_one_subron_off_the_map_bring_back_one_counter_drawn_at_random():
    """6.4: "deploy one third of all task forces and subrons which are currently off the map (round
    fractions up)": one fraction of one count, 2/3 rounded up = 1 (a third of each kind, rounded
    each, would bring back both). Which one is not said; 8.10 "All GameSystem units picked for
    deployment are chosen at random": a d2 over TF1, SR1, here 2: SR1."""
    dice = FixedDice(2, default=1)
    out, after = run_step(off_map(TF1="false contact", SR1="false contact"), "reinforcements", dice)
    assert placed(out) == ["SR1"]
    draw = rolls_of(out)[0]
    assert (draw.rule, draw.seat, draw.notation, draw.outcome) == ("STF 6.4", "system", "d2", "SR1")
    assert draw.target == {"counters": ["TF1", "SR1"]}
    assert after["groups"]["TF1"]["hex"] is None


def test_stf_6_4_no_die_when_every_counter_off_the_map_comes_back():
    """6.4 with one counter off the map: a third of 1, rounded up, is 1: it comes back, with no draw
    (the Starting Megahex Table's d10 and 6.5's d6 only)."""
    out, _ = run_step(off_map(SR2="false contact"), "reinforcements", FixedDice(default=1))
    assert placed(out) == ["SR2"] and [r.rule for r in rolls_of(out)] == ["STF 6.3", "STF 6.5"]


def test_stf_6_4_seven_off_the_map_of_both_kinds_bring_back_three():
    """6.4: 4 task forces and 3 subrons off the map: 7/3 rounded up = 3 (by kind: 2 + 1 = 3 too, but
    drawn from one cup of 7): d7, d6, d5."""
    st = off_map(TF1="false contact", TF2="false contact", TF3="false contact", TF4="false contact",
                 SR1="false contact", SR2="false contact", SR3="false contact")
    dice = FixedDice(7, 6, 5, default=1)  # SR3, then SR2, then SR1
    out, _ = run_step(st, "reinforcements", dice)
    assert placed(out) == ["SR3", "SR2", "SR1"]
    assert [r.notation for r in rolls_of(out) if "drawn at random" in r.purpose] == ["d7", "d6", "d5"]


# ---- STF 6.3: only a counter removed in the preceding turn --------------------------------------------
def test_stf_6_3_a_false_contact_not_redeployed_in_the_turn_after_its_removal_stays_off_the_map():
    """6.3: "A task force or subron counter which was removed in the preceding turn (due to searching
    showing that it was a false report) can be redeployed." Four false contacts removed in turn 2:
    in turn 3 two of them come back (6.4's third); the other two were removed two turns before
    turn 4, so in turn 4 none comes back (the code before brought one)."""
    st = off_map(TF1="false contact", TF2="false contact", TF3="false contact", TF4="false contact")
    out, after = run_step(st, "reinforcements", FixedDice(1, 1, default=1))  # TF1, then TF2
    assert placed(out) == ["TF1", "TF2"]
    marked = [e for e in events_of(out, "GroupChanged") if e["changes"] == {"redeployable": False}]
    assert [(e["group"], e["rule"]) for e in marked] == [("TF3", "STF 6.3"), ("TF4", "STF 6.3")]
    after = {**after, "turn": 4}
    out4, after4 = run_step(after, "reinforcements", FixedDice(default=1))
    assert placed(out4) == [] and rolls_of(out4) == []
    assert after4["groups"]["TF3"]["status"] == "false contact" and after4["groups"]["TF3"]["hex"] is None


def test_stf_6_3_a_false_contact_removed_in_turn_3_comes_back_in_turn_4_beside_the_older_ones_that_cannot():
    """6.3: a contact found false in turn 3 is redeployable in turn 4; TF3, removed in turn 2 and
    not redeployed in turn 3, is not, and does not count in 6.4's third: SR1 alone comes back."""
    st = off_map(turn=4, TF3="false contact", SR1="false contact")
    st["groups"]["TF3"]["redeployable"] = False
    out, _ = run_step(st, "reinforcements", FixedDice(default=1))
    assert placed(out) == ["SR1"] and not [r for r in rolls_of(out) if "drawn at random" in r.purpose]


# ---- STF 2.2: the airbases question offers every answer it takes ---------------------------------------
def test_stf_2_2_the_airbases_question_offers_each_pair_each_single_airbase_and_none_and_takes_each():
    """2.2: "A player may not have more than two land airbases": one or none are answers too, so the
    offer lists them (legal-orders had only the pairs). Mediterranean, US Player: 2.5's five
    US/NATO airbases: 10 pairs, 5 single airbases and none; each offered answer is taken as it is."""
    from itertools import combinations

    from tests.unit.stf.test_campaign import campaign
    _, st = campaign("mediterranean", "US", 3)
    d = pending(st)
    bases = stf_campaign.allowed_airbases(st, "Player")
    expected = [list(c) for n in (2, 1, 0) for c in combinations(bases, n)]
    assert d["options"]["choices"] == expected and len(expected) == 16
    offered = [o["choice"] for o in R.legal_orders(st, "Player") if o["kind"] == "decide"]
    assert offered == expected
    for choice in (["Malta"], [], ["Malta", "Haifa"]):
        _, after = play(st, {"kind": "decide", "decision": d["id"], "choice": choice})
        assert after["campaign"]["player_airbases"] == choice and after["phase"] == "Forces"


# ---- STF 8.3-8.7: the search roll names the rule it read -------------------------------------------
import pytest  # noqa: E402


@pytest.mark.parametrize("face, level, rule", [(9, "unknown", "STF 8.3"), (8, "approximate", "STF 8.4"),
                                               (7, "good", "STF 8.5"), (6, "accurate", "STF 8.6"),
                                               (5, "precise", "STF 8.7"), (1, "precise", "STF 8.7")])
def test_stf_8_3_to_8_7_the_search_roll_names_the_rule_of_the_result_it_read(face, level, rule):
    """8.3 "(Modified die roll is greater than the Search Value) No effect", 8.4 "(... equal to
    Search Value)", 8.5 "(... 1 less ...)", 8.6 "(... 2 less ...)", 8.7 "(... 3 less ...)": each
    result is a rule of its own, so the roll's rule (its dice-audit entry and the end of its line)
    is the one it read, not the range; its purpose still names the ladder. Search Value 8, no chit."""
    from tests.unit.stf.helpers import search_state, system_group
    st = search_state(system_group("TF1"))
    out, _ = play(st, {"kind": "search", "group": "TF1", "search_value": 8}, FixedDice(face, default=1))
    roll = rolls_of(out)[0]
    assert (roll.outcome, roll.rule, roll.seat) == (level, rule, "Player")
    assert "STF 8.3-8.7" in roll.purpose and roll.fields()["rule"] == rule


# ---- who rolls: the dice audit's seat ---------------------------------------------------------------------
def test_stf_8_2_and_10_8_the_players_search_die_is_his_and_the_gamesystems_carrier_draw_is_the_gamesystems():
    """8.2: "The GameSystem does not search ... The player, however, must evaluate the contacts":
    the search die is the Player's search (seat Player); the false-contact die that follows decides
    the GameSystem's counter (seat system). 10.8: "randomly draw a CV from that nation's pool" is the
    GameSystem's strike (seat system), as 1.7's "The player then selects the aircraft carrier(s) at
    random" is the Player's (test_forces.py: seat Player)."""
    from tests.unit.stf.helpers import search_state, system_group
    from tests.unit.stf.test_air import soviet_player_state
    st = search_state(system_group("TF1"))
    out, _ = play(st, {"kind": "search", "group": "TF1", "search_value": 8}, FixedDice(8, 1))  # Approximate, odd
    assert [(r.rule, r.seat) for r in rolls_of(out)] == [("STF 8.4", "Player"), ("STF 8.4", "system")]
    out, _ = run_step(soviet_player_state(), "air_attacks", FixedDice(2, 2, 1, 1))  # NATO; the 2nd NATO CV
    draws = [r for r in rolls_of(out) if r.rule == "STF 10.8"]
    assert len(draws) == 2 and all(r.seat == "system" for r in draws)
