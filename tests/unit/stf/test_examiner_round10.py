"""Examiner round 10, STF: the GameSystem's recorded choices are the ones it acts on.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt):
a built position, the GameSystem's step, and what the text says it does."""

from __future__ import annotations

from domain.rulesets.stf import maps, movement
from tests.unit.stf.helpers import FixedDice, events_of, run_step
from tests.unit.stf.test_movement import add, player_tf, ship, state

M = "giuk"


# ---- STF 12.5: "retire towards their nearest 'Base' hex" ------------------------------------------
def test_stf_12_5_a_retiring_group_sails_for_the_base_its_retirement_chose_between_two_equally_near():
    """12.5: "all the GameSystem units retire towards their nearest 'Base' hex"; 12.11: the Soviet
    bases of the G-I-UK Gap are Megahex 63 (centre 2313) and Megahex 64 (centre 2215). A subron
    with nothing left to fire retires (12.8) from 2013, three sea hexes from each base, with the
    Player's task force as far from one as from the other: the retirement rolls a die between the
    two (its ``destination``). The subron then sails for that base, whatever the dice of its
    steps: before, the Movement phase steered for whichever base was nearest and rolled its own
    die between them, so a group that had chosen Megahex 63 could sail for Megahex 64 and the
    retirement's die decided nothing."""
    a, b = maps.place_hex(M, 63), maps.place_hex(M, 64)
    assert (a, b) == ("2313", "2215")
    for chosen, other, die in ((a, b, 1), (b, a, 2)):
        for step_dice in ((1, 1, 1), (2, 2, 2)):
            st = state(phase="Terminal")
            player_tf(st, "P1", "1209", 4)  # as far from 2313 as from 2215
            assert maps.distance(M, "1209", a) == maps.distance(M, "1209", b)
            add(st, "SR1", "system", "subron", "2013",
                [ship("s1", "SSN", 2, ssm=0, torpedoes=0, ssm_left=0, torpedoes_left=0)], intel="precise")
            _, st = run_step(st, "retirement", FixedDice(die))
            assert st["groups"]["SR1"]["retiring"] is True and st["groups"]["SR1"]["destination"] == chosen
            st["phase"] = "Movement"
            out, st = run_step(st, "system_movement", FixedDice(*step_dice, default=1))
            end = st["groups"]["SR1"]["hex"]
            to_chosen = movement.water_distances(M, [chosen])[end]
            to_other = movement.water_distances(M, [other])[end]
            assert to_chosen < to_other, (chosen, step_dice, end)
            assert events_of(out, "GroupMoved")[0]["rule"] == "STF 12.5"
