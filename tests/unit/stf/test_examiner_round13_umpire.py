"""STF's decision rules read one by one as an umpire reads them (round 13): for each clause a
position where it decides something, against the text (../shared/rules/003_74ca0e4e298164eb.txt)."""

from __future__ import annotations

from domain.rulesets.stf import combat
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, run_step, ship
from tests.unit.stf.test_combat import acts

CENTRE, NEXT = "1212", "1211"  # the G-I-UK map: megahex 30's centre and a hex next to it


def _invasion() -> dict:
    """The Player invading megahex 30: P1 (a DD and an invasion freighter) has entered it."""
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", CENTRE, {"dd": ship("DD", 4, nation="US", gun="B"),
                                           "fr": ship("FR", 5, nation="US", role="invasion", invasion=True)})
    return st


# ---- STF 7.11: Last Ditch Defence engages "that task force" ------------------------------------------
def test_stf_7_11_last_ditch_defence_fires_its_ssms_at_the_landed_invasion_force_not_a_cv_beside_it():
    """7.11: a GameSystem group that can attack a Player task force with an invasion freighter in the
    objective megahex "will ... move at full speed towards that player task force, and engage that
    task force with SSM". One hex short of it, in the hex of a Player CV task force: its SSMs fly
    at the landed force, not at the CV 11.2 prefers elsewhere (before, at the CV)."""
    st = _invasion()
    add_group(st, "P2", "Player", NEXT, {"cv": ship("CV", 25, nation="US", air={"L": 2}),
                                         "ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", NEXT, {"s1": ship("CG", 5, ssm=6, ssm_loads=1)})
    assert combat.last_ditch_engagement(st, "P1") and not combat.last_ditch_engagement(st, "P2")
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert wave["target_group"] == "P1" and wave["target"] == "fr"  # 4 per ship, waves of 6, freighters first


def test_stf_7_11_last_ditch_defence_guns_the_landed_invasion_force_not_a_richer_task_force_in_its_hex():
    """7.11 again, "4 rounds of gunnery": in the objective megahex a GameSystem task force shares a
    hex with the landed force and a Player task force of more VP; it fires its guns at the landed
    force (before, 11.3's pick of the most VP sent them at the other)."""
    st = _invasion()
    add_group(st, "P2", "Player", CENTRE, {"bb": ship("BB", 10, nation="US", gun="A")})
    add_group(st, "TF1", "system", CENTRE, {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")})
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    g = acts(out, "gunnery")[0]
    assert g["detail"]["fire"] is True and g["detail"]["target_group"] == "P1"


def test_stf_11_2_away_from_a_landing_the_cv_task_force_in_range_is_still_the_ssm_target():
    """11.2 where 7.11 has nothing to say (the Player's task force with the freighter is not in the
    objective megahex): the CV task force in range is the target."""
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", "0505", {"dd": ship("DD", 4, nation="US"),
                                           "fr": ship("FR", 5, nation="US", role="invasion", invasion=True)})
    add_group(st, "P2", "Player", "0506", {"cv": ship("CV", 25, nation="US", air={"L": 2})})
    add_group(st, "TF1", "system", "0506", {"s1": ship("CG", 5, ssm=6, ssm_loads=1)})
    out, _ = run_step(st, "surface_combat", FixedDice(default=1))
    assert acts(out, "SSM wave")[0]["detail"]["target_group"] == "P2"


# ---- STF 12.7: a carrier known only as the CV set aside for its strikes (10.8) -------------------------
def _set_aside_carrier_lost_its_aircraft() -> dict:
    """Turn 2's Terminal phase: TF1, Accurate (a Rear Admiral, large), known only by the Kiev drawn
    and set aside for its strikes (STF 10.8), whose M squadron the Player's CAP destroyed; the pool
    holds one CG, one DD and three FF, so its Precise composition (row 5 with the +4 of its revealed
    air strength: 1CV 1CG 1DD 3FF) needs no draw."""
    from tests.unit.stf.helpers import pool_of
    st = combat_state("Terminal", commitment=52)
    st["pool"] = pool_of("Soviet", CG=1, DD=1, FF=3)
    add_group(st, "P1", "Player", "0105", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "1610",
              {"kiev": ship("CV", 15, air={"L": 0, "M": 3, "H": 0}, set_aside=True, air_lost=["M"])},
              intel="accurate", chit="Rear Admiral", size="large", air_known=True)
    return st


def test_stf_12_7_a_set_aside_carrier_without_aircraft_takes_three_frigates_and_the_rest_of_its_task_force_goes_on():
    """12.7: "A CV with no combat aircraft left ... must retire. It will take with it the three best
    frigates ... the escort force may continue in the game as a SAG." TF1's ships are drawn (8.7's
    procedure, as for its placement, 11.7, or an air strike on it, 10.1) so that the Kiev leaves
    with its three frigates as a new task force and the CG and DD go on. (Before, the whole task
    force, its ships never drawn, retired behind the Kiev and left the map with it at the base.)"""
    out, st = run_step(_set_aside_carrier_lost_its_aircraft(), "retirement", FixedDice(default=1))
    tf1, tf2 = st["groups"]["TF1"], st["groups"]["TF2"]
    assert tf1["intel"] == "precise" and not tf1.get("retiring")
    assert sorted(st["units"][u]["class"] for u in tf1["units"]) == ["CG", "DD"]
    assert tf2["retiring"] is True and tf2["carrier_retiring"] == "kiev"
    assert sorted(st["units"][u]["class"] for u in tf2["units"]) == ["CV", "FF", "FF", "FF"]


def test_stf_12_7_three_equal_frigates_for_three_places_are_taken_without_a_die():
    """12.7's three best frigates: "determined in order of highest ASW rating, then highest AA
    rating, then the lowest SSM rating", equal ones by a die. Three equal frigates for the three
    places are all taken: no die is rolled (before, a d3 and a d2 ordered them, and nothing used
    the order). Four equal frigates for three places: one d4, a d3 and a d2 still pick them."""
    from tests.unit.stf.helpers import rolls_of
    for n, dice in ((3, []), (4, [4, 3, 2])):
        st = combat_state("Terminal", commitment=52)
        add_group(st, "P1", "Player", "0105", {"p1": ship("DD", 4, nation="US")})
        add_group(st, "TF1", "system", "1610", {"kv": ship("CV", 10, flight_deck_inoperable=True, air={"M": 2}),
                                                "cg": ship("CG", 5),
                                                **{f"f{i}": ship("FF", 2, asw=1) for i in range(n)}})
        out, after = run_step(st, "retirement", FixedDice(default=1))
        assert [r.notation for r in rolls_of(out) if r.rule == "STF 12.7"] == [f"d{k}" for k in dice]
        assert len([u for u in after["groups"]["TF2"]["units"] if u.startswith("f")]) == 3
