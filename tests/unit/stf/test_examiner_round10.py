"""Examiner round 10, STF: the GameSystem's recorded choices are the ones it acts on.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt):
a built position, the GameSystem's step, and what the text says it does."""

from __future__ import annotations

from domain.rulesets.stf import maps, movement
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, play, rolls_of, run_step
from tests.unit.stf.helpers import ship as cship
from tests.unit.stf.test_movement import add, player_tf, ship, state

M = "giuk"


# ---- STF 12.5: "retire towards their nearest 'Base' hex" ------------------------------------------
def test_stf_12_5_a_retiring_group_sails_for_the_base_its_retirement_chose_between_two_equally_near():
    """12.5: "all the GameSystem units retire towards their nearest 'Base' hex"; 12.11: the Soviet
    bases of the G-I-UK Gap are Megahex 63 and Megahex 64, each reached on entering it (12.9;
    round 11). A subron with nothing left to fire retires (12.8) from 2013, two sea hexes from
    each (2213 in 63, 2214 in 64), with the Player's task force as far from one as from the other:
    the retirement rolls a die between the two (its ``destination``). The subron then sails into
    that base, whatever the dice of its steps, and leaves the map there: before, the Movement
    phase steered for whichever base was nearest and rolled its own die between them, so a group
    that had chosen Megahex 63 could sail for Megahex 64 and the retirement's die decided nothing."""
    assert maps.megahex_number(M, "2213") == 63 and maps.megahex_number(M, "2214") == 64
    for chosen, megahex, die in (("2213", 63, 1), ("2214", 64, 2)):
        for step_dice in ((1, 1, 1), (2, 2, 2)):
            st = state(phase="Terminal")
            player_tf(st, "P1", "1209", 4)  # as far from 2213 as from 2214
            assert maps.distance(M, "1209", "2213") == maps.distance(M, "1209", "2214")
            add(st, "SR1", "system", "subron", "2013",
                [ship("s1", "SSN", 2, ssm=0, torpedoes=0, ssm_left=0, torpedoes_left=0)], intel="precise")
            _, st = run_step(st, "retirement", FixedDice(die))
            assert st["groups"]["SR1"]["retiring"] is True and st["groups"]["SR1"]["destination"] == chosen
            st["phase"] = "Movement"
            out, st = run_step(st, "system_movement", FixedDice(*step_dice, default=1))
            move = events_of(out, "GroupMoved")[0]
            assert move["rule"] == "STF 12.5" and maps.megahex_number(M, move["path"][-1]) == megahex, (chosen, step_dice)
            assert st["groups"]["SR1"]["status"] == "retired"


# ---- ties settled by a die: one die for one choice --------------------------------------------------
def _rolls(out: list) -> list[dict]:
    return [r.fields() for r in rolls_of(out)]


def test_stf_11_2_one_die_picks_the_ssm_target_among_equal_ships_and_its_outcome_is_the_ship_aimed_at():
    """11.2: "it will fire 4 SSMs per player ship ... targeting Freighters, BB, CG, DD, FF and PC in
    that order"; among ships of one class and value the choice is settled by a die (11.3: "resolve
    the choice of same-value ship targets at random"). A task force of four FF (3 VP each): the
    wave is aimed at one of them, chosen by one d4, and that die's outcome names the frigate the
    wave is aimed at. Before, the tie was put in a full order (a d4, then a d3, then a d2) of which
    only the first was used: two recorded rolls named frigates no missile was aimed at."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {f"ff{i}": cship("FF", 3, nation="US") for i in range(4)})
    add_group(st, "TF1", "system", "0101", {"cg": cship("CG", 5, ssm=6, ssm_loads=2)})
    out, _ = run_step(st, "surface_combat", FixedDice(3, 1, 1, 1))
    picks = [r for r in _rolls(out) if "SSM target" in r["purpose"]]
    wave = [e for e in events_of(out, "SystemActs") if e["what"] == "SSM wave"][0]["detail"]
    assert [r["notation"] for r in picks] == ["d4"] and picks[0]["rule"] == "STF 11.2"
    assert picks[0]["outcome"] == wave["target"] == "ff2"


def test_stf_12_7_the_carriers_three_frigates_among_five_equal_ones_take_three_dice_not_four():
    """12.7: "It will take with it the three best frigates ... determined in order of highest ASW
    rating, then highest AA rating, then the lowest SSM rating"; five frigates alike are a choice
    settled by dice: a d5, a d4 and a d3 pick the three, and no die is rolled between the two left
    behind (before, a d2 ordered them, an outcome nothing used)."""
    st = combat_state("Terminal", commitment=45)
    add_group(st, "P1", "Player", "0105", {"p1": cship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "2305", {"kv": cship("CV", 10, flight_deck_inoperable=True,
                                                        air={"L": 2, "M": 2, "H": 2}),
                                            **{f"f{i}": cship("FF", 2, asw=2, aa=1) for i in range(5)}})
    out, st = run_step(st, "retirement", FixedDice(1, 1, 1, 1, 1))
    picks = [r for r in _rolls(out) if "escorts" in r["purpose"]]
    assert [r["notation"] for r in picks] == ["d5", "d4", "d3"]
    assert sorted(st["groups"]["TF2"]["units"]) == ["f0", "f1", "f2", "kv"]


# ---- STF 7.7: two invasion forces equally close to the target ---------------------------------------
def test_stf_7_7_two_invasion_forces_equally_close_to_the_target_are_one_choice_not_the_first_formed():
    """7.7: "A GameSystem CV task force defending against an invasion will move toward a hex half
    way between (a) the target Megahex and (b) the player task force closest to the target Megahex
    that contains at least one invasion freighter". Megahex 43's centre is 1804; invasion forces
    at 2204 and 1404 are both four hexes from it (half way: 2004 and 1604). The carrier at 0212,
    more than 7 hexes from both (7.8 does not apply), makes for 1604, the nearer of the two half
    way hexes by water (15 against 18), whichever task force was formed first (as 7.5 counts equally near task forces as
    one target). Before, it took the half way hex of the first task force in the game's list of
    groups (P1), an order no rule gives: formed the other way round it went the other way."""
    from tests.unit.stf.test_movement import cv_tf
    ends = set()
    for east, west in (("P1", "P2"), ("P2", "P1")):
        st = state(invader="Player", target=43)
        assert maps.place_hex(M, 43) == "1804"
        for gid, where in sorted(((east, "2204"), (west, "1404"))):
            player_tf(st, gid, where, extra=[ship(f"{gid}-fr", "FR", invasion=True)])
        cv_tf(st, "TF1", "0212")
        out, st2 = run_step(st, "system_movement", FixedDice(default=1))
        moved = events_of(out, "GroupMoved")[0]
        assert moved["rule"] == "STF 7.7" and "1604, 2004" in moved["why"]
        end = st2["groups"]["TF1"]["hex"]
        water = movement.water_distances(M, ["1604"])
        assert (water["0212"], water[end]) == (15, 12), (east, end)
        ends.add(end)
    assert len(ends) == 1


# ---- STF 12.7, 12.8: whose carriers and subrons "must retire" ----------------------------------------
def test_stf_12_7_and_12_8_are_the_gamesystems_a_players_carrier_without_aircraft_and_empty_subron_sail_on():
    """12.1: "real Admirals generally do not [fight to the last man]. To mimic this, we use a
    retirement limit and retirement index" - chapter 12 is the GameSystem's doctrine, as its
    mechanical choices show (12.7: "The three best frigates are determined in order of highest ASW
    rating, then highest AA rating, then the lowest SSM rating"). Read so: 12.7's carrier "with no
    combat aircraft left, or with an inoperable flight deck" and 12.8's subron "with no SSMs or
    torpedos left" retire when they are the GameSystem's; the Player's are his to handle. His
    carrier with every squadron lost and an inoperable deck, and his subron with nothing left,
    are left as they are by the Terminal phase's retirement step, while the GameSystem's alike
    retire."""
    st = combat_state("Terminal", commitment=45)
    air_ = {"L": 2, "M": 2, "H": 2, "EW": 0, "AEW": 0}
    add_group(st, "P1", "Player", "0105", {"nimitz": cship("CV", 20, nation="US", air=air_, flight_deck_inoperable=True,
                                                           air_lost=["L", "M", "H"]),
                                           **{f"pf{i}": cship("FF", 3, nation="US", asw=2) for i in range(3)}})
    add_group(st, "P2", "Player", "0107", {"ps": cship("SSN", 5, nation="US", ssm=0, torpedoes=0)}, kind="subron")
    add_group(st, "TF1", "system", "2305", {"kv": cship("CV", 10, air=air_, flight_deck_inoperable=True),
                                            **{f"f{i}": cship("FF", 2, asw=3 - i) for i in range(4)}})
    add_group(st, "SR1", "system", "2307", {"ss": cship("SS", 3, ssm=0, torpedoes=0)}, kind="subron")
    out, after = run_step(st, "retirement", FixedDice(default=1))
    retired = {e["group"] for e in events_of(out, "GroupChanged") if e["changes"].get("retiring")}
    assert retired == {"TF2", "SR1"}  # the GameSystem's carrier (with its frigates, as TF2) and subron
    assert not after["groups"]["P1"].get("retiring") and not after["groups"]["P2"].get("retiring")
    assert after["groups"]["P1"]["units"] == st["groups"]["P1"]["units"]


# ---- STF 7.4, 7.5 with 1.11: where the invasion freighters are is known once they are placed ---------
def test_stf_7_5_once_the_invasion_freighters_are_with_a_revealed_task_force_every_other_hunts_the_player():
    """1.11: "If the GameSystem is conducting the invasion, the freighters are in the task force of
    the first revealed CV"; 7.5: "a task force in an invasion scenario which is known to contain no
    invasion freighters ... move[s] at maximum speed towards the nearest player task force of four
    or more ships"; 7.4: the others make for the target megahex. TF1 was revealed with the carrier
    and its eight freighters (``campaign["invasion_freighters"]`` names it): all of them are
    there, so TF2, still an unknown contact, is known to contain none and hunts the Player's task
    force at 1512 by 7.5. Before, only a Precise task force without a freighter counted as known
    to carry none, so every contact not yet searched kept sailing for the target megahex for the
    rest of the game, even after TF1's freighters were all sunk. Before TF1 is revealed, no task
    force is known to carry none: TF2 sails for the target (7.4)."""
    st = state(invader="system", target=43)
    player_tf(st, "P1", "1512")
    add(st, "TF1", "system", "tf", "1001", [ship("cv", "CV", air={"H": 2}), ship("fr1", "FR", speed=2, invasion=True),
                                            *(ship(f"e{i}", "FF", asw=2) for i in range(3))], intel="precise")
    add(st, "TF2", "system", "tf", "2304")
    objective = maps.sea_hexes_of(M, 43)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))  # the freighters not placed yet
    tf2 = [e for e in events_of(out, "GroupMoved") if e["group"] == "TF2"][0]
    assert tf2["rule"] == "STF 7.4"
    assert movement.nearest(M, st2["groups"]["TF2"]["hex"], objective) == movement.nearest(M, "2304", objective) - 2
    st["campaign"]["invasion_freighters"] = "TF1"  # as composition.freighters records it (STF 1.11)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    tf1, tf2 = ([e for e in events_of(out, "GroupMoved") if e["group"] == g][0] for g in ("TF1", "TF2"))
    assert tf1["rule"] == "STF 7.4"  # the task force with the freighters still invades
    assert tf2["rule"] == "STF 7.5" and "P1" in tf2["why"]
    assert maps.distance(M, st2["groups"]["TF2"]["hex"], "1512") == maps.distance(M, "2304", "1512") - 2


# ---- STF 11.4: "the GameSystem task force" ----------------------------------------------------------
def test_stf_11_4_a_subron_defending_the_objective_makes_one_torpedo_attack_a_phase_as_anywhere_else():
    """11.4: "If the GameSystem task force is defending against a player invasion, and is in the
    objective Megahex or adjacent to it, it will ignore Rule 11.3 and continue with as many rounds
    of gunnery and torpedo combat as possible." The text names a task force; where it means a
    subron too it says so ("a GameSystem task force or subron", 7.6, 7.11, 11.2; "task
    force/subron", 11.1). A subron in megahex 30 (the objective of the Player's invasion), in the
    hex of a Player task force with an invasion freighter, makes its torpedo attack (11.5, 11.6)
    once in the Combat phase, as it does anywhere: its subs each fire one load. Before, 11.4 was
    applied to it and the server asked for attack after attack until every torpedo was gone."""
    from tests.unit.stf.test_combat import CENTRE
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", CENTRE, {"dd": cship("DD", 4, nation="US"),
                                           "fr": cship("FR", 5, nation="US", role="invasion")})
    add_group(st, "SR1", "system", CENTRE, {"k1": cship("SS", 3, torpedoes=3), "k2": cship("SS", 3, torpedoes=3)},
              kind="subron")
    out, st = run_step(st, "surface_combat", FixedDice(1, 2, 1, 1))
    assert [e["detail"]["round"] for e in events_of(out, "SystemActs") if e["what"] == "torpedo attack"] == [1]
    d = st["pending"][0]
    out, st = play(st, {"kind": "decide", "decision": d["id"], "choice": {"sunk": None}}, FixedDice(1, 1, 1))
    assert [e for e in events_of(out, "SystemActs") if e["what"] == "torpedo attack"] == []
    assert not st.get("pending")
    assert {st["units"][u]["torpedoes_left"] for u in ("k1", "k2")} == {2}


# ---- what a refusal names -----------------------------------------------------------------------------
def test_stf_10_1_a_strike_on_a_task_force_from_a_task_force_without_a_carrier_names_10_1_not_9_2():
    """9.2: "CV air units, but not air units from other land bases, can attack land air bases" is
    about strikes on airbases; the Player's air strike on a GameSystem task force is 10.1's order.
    A strike on TF1 ordered from P2, a task force with no carrier, is refused naming STF 10.1 (the
    same strike on the airbase Latakia still names 9.2). Before, both named 9.2, a rule about
    airbases, for a strike on ships."""
    import pytest
    from domain.errors import RuleViolation
    from tests.unit.stf.test_air import player_strike_state
    st = player_strike_state()
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P2", "target": "TF1"})
    assert err.value.rule == "STF 10.1" and "P2" in str(err.value)
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "air_strike", "from": "P2", "target": "Latakia"})
    assert err.value.rule == "STF 9.2"
