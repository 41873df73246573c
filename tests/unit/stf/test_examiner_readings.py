"""STF's open readings settled against the text (../shared/rules/003_74ca0e4e298164eb.txt): each test
quotes the sentences that decide the case and sets up the case where the two readings part."""

from __future__ import annotations

from domain.rulesets.stf import maps
from tests.unit.stf.helpers import NoDice, add_group, combat_state, events_of, run_step, ship


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 11.4: "in the objective Megahex or adjacent to it" -------------------------------------
def test_stf_11_4_adjacent_to_the_objective_megahex_is_a_megahex_next_to_it_not_only_a_hex():
    """11.4: "If the GameSystem task force is defending against a player invasion, and is in the
    objective Megahex or adjacent to it, it will ignore Rule 11.3 and continue with as many rounds
    of gunnery and torpedo combat as possible." The sentence places the task force by megahexes
    ("it" is the Megahex); the text says "hex" where it means one ("a hex or adjacent hex", 7.10;
    "the same or adjacent hex", 9.8). 0912 is in megahex 22, next to megahex 30, but 2 hexes from
    every hex of megahex 30: 11.4 applies (one C gun fires at an A-gunned BB). Three megahexes off,
    11.3 holds it back."""
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion")}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    assert maps.megahex_distance("giuk", "1212", "0912") == 1 and maps.megahex_number("giuk", "0912") == 22
    assert min(maps.distance("giuk", "0912", h) for h in maps.megahex_hexes("giuk", 30)) == 2
    for where, fires, rule in (("0912", True, "STF 11.4"), ("2010", False, "STF 11.3")):
        st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
        add_group(st, "P1", "Player", where, player)
        add_group(st, "TF1", "system", where, system)
        out, _ = run_step(st, "surface_combat", NoDice())
        g = acts(out, "gunnery")[0]
        assert (g["rule"], g["detail"]["fire"]) == (rule, fires)


# ---- STF 2.6.2: "identified L and M aircraft" ----------------------------------------------------
def test_stf_2_6_2_identified_aircraft_include_an_accurate_task_forces_revealed_air_strength():
    """2.6.2: "Reduce the number of waves of ASMs able to be launched by 1 for every 4 strength
    points (or part thereof) of identified L and M aircraft within 6 Megahexes that were not on air
    strikes the previous turn or on CAP in this turn." "Identified", not "Precisely identified"
    (the text says "Precisely" where it means it: 2.6.5, 8.11, 10.7, 10.13): an Accurate task force
    whose air strength is revealed (10.7 "is Accurate and has a previously revealed air strength";
    8.11 "Accurate units with a known air strength") has identified aircraft. Its carrier (set
    aside by 10.8) with L 4 and M 5 fresh: CAP 5, 4 counted, one of the Backfire's two waves lost.
    The same task force Accurate with no revealed air strength has no identified aircraft."""
    from tests.unit.stf.helpers import play
    from tests.unit.stf.test_air import SYS, add, built, cv, far, ship as air_ship
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF2", "system", SYS, [air_ship("dd", "DD")], intel="precise", chit="Captain")  # the target
    add(st, "TF1", "system", "1705", [{**cv("vinson", "US", L=4, M=[3, 2], H=4), "set_aside": True}],
        intel="accurate", chit="Rear Admiral", size="large", air_known=True)
    assert far(SYS, "1705") == 2
    order = {"kind": "lbna_patrol", "unit": "backfire", "megahex": int(maps.megahex_number("giuk", SYS)),
             "target": "TF2"}
    out, _ = play(st, order)
    missiles = events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]
    assert (missiles["waves"], missiles["waves_lost"]) == (1, 1)
    assert [c["origin"] for c in missiles["identified_air"]["by"]] == ["TF1"]
    st["groups"]["TF1"]["air_known"] = False
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 2


# ---- STF 10.5: the Rear Admiral chit is the Accurate level ----------------------------------------
def test_stf_10_5_the_rear_admiral_chit_makes_the_task_force_accurate_and_8_12_counts_it():
    """10.5: "If 6 then place a Rear Admiral chit on the task force and check for attack on the Air
    Attack Table." 1.13: "Leaders are only used by the GameSystem to mark the size of a task force,
    once it has been Accurately identified"; 8.6 places the leader chit at Accurate: the chits are
    the levels (8.4 Enemy, 8.5 Tracked, 8.6 leader, 8.7 turned to its normal side). So the task
    force is Accurate, large: 10.7 ("is Accurate and has a previously revealed air strength") takes
    it after its strike, 10.1 and 11.1 let the Player strike and fire at it, and 8.12 ("Each time a
    task force increases to Accurate, the deployment point total increases by ... 30 if large or 50
    if large US") counts it: 30 for a Soviet task force; 50 when the strike's nation, fixed by
    10.8's roll for a Soviet Player, is US."""
    from tests.unit.stf.helpers import FixedDice
    from tests.unit.stf.test_air import unknown_state
    out, after = run_step(unknown_state(), "air_attacks", FixedDice(3, 6, 1, 4))
    g = after["groups"]["TF1"]
    assert (g["chit"], g["size"], g["intel"], g["air_known"]) == ("Rear Admiral", "large", "accurate", True)
    dep = events_of(out, "DeploymentChanged")
    assert [(d["group"], d["points"], d["rule"]) for d in dep] == [("TF1", 30, "STF 8.12")]
    assert after["deployment"]["total"] == 30
    st = unknown_state()
    st["campaign"].update(player_side="Soviet", system_side=None)
    st["pool"] = {"vinson": {"name": "Carl Vinson", "nation": "US", "class": "CV", "ssm": 0, "torpedoes": 0,
                             "air": {"L": 3, "M": 2, "H": 4}}}
    out, after = run_step(st, "air_attacks", FixedDice(3, 6, 4, 1, 4))  # 10.8: a 4, US
    assert after["campaign"]["system_side"] == "US" and after["groups"]["TF1"]["intel"] == "accurate"
    assert [d["points"] for d in events_of(out, "DeploymentChanged")] == [50]


# ---- STF 2.6.5 and the Player's LBNA -------------------------------------------------------------
def test_stf_2_6_5_modifies_the_gamesystems_lbna_roll_only_the_players_patrol_has_no_search_die():
    """2.6.5: "Irrespective of the outcome, after each successful Precise identification of a
    US/NATO task force (including by task force aviation), apply a -1drm to subsequent search die
    rolls for LBNA purposes, up to a maximum of -3drm." It follows 2.6.3-2.6.4 ("If the GameSystem
    controls Soviet forces ... Again, roll 1d6. If a '1' is rolled ... locates"): the die it
    modifies is 2.6.4's, and the US/NATO task forces are then the Player's. The Soviet Player's
    own patrol rolls no search die: 2.6.1 flies it "for a Precise search report". So a Soviet
    Player with three Precise reports of (US/NATO) GameSystem task forces flies a patrol whose
    only die is 8.7's false-contact roll, unmodified; and the Player's own search reports
    (``precise_reports``) do not modify the GameSystem's 2.6.4 roll, only the Player's task forces
    it found do (``located``)."""
    from tests.unit.stf.helpers import FixedDice, play, rolls_of
    from tests.unit.stf.test_air import SYS, add, built, ship as air_ship
    st = built(player="Soviet", phase="Patrol")
    st["campaign"].update(system_side="US", precise_reports=3)
    add(st, "TF1", "system", SYS, [], intel="unknown")
    out, _ = play(st, {"kind": "lbna_patrol", "unit": "badger", "megahex": int(maps.megahex_number("giuk", SYS))},
                  FixedDice(2))  # even: a false contact
    rolls = rolls_of(out)
    assert [r.rule for r in rolls] == ["STF 8.7"] and rolls[0].target["modifiers"] == []
    st = built()
    st["campaign"]["precise_reports"] = 3
    add(st, "P1", "Player", "2005", [air_ship("p1", "DD")])
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 2))
    assert rolls_of(out)[1].target["modified"] == 2  # no drm: the Player's reports are not the GameSystem's
    assert not acts(out, "LBNA missile attack")
    st["lbna"] = {"located": ["P7"]}
    out, _ = run_step(st, "lbna_strike", FixedDice(1, 2))
    assert rolls_of(out)[1].target["modified"] == 1 and acts(out, "LBNA missile attack")


# ---- STF 1.11: 3 VP when a freighter "makes it to the target Megahex" ----------------------------
def test_stf_1_11_the_3_vp_are_scored_on_arrival_and_kept_when_the_freighter_is_later_sunk():
    """1.11: "receives 3VP for each freighter that makes it to the target Megahex". Making it there
    is an arrival, not a count at the end: the move into the megahex scores 3 VP a freighter at
    once; the freighter sunk there afterwards keeps them (the sinking scores its own VP for the
    other side, 11.8's 5)."""
    from tests.unit.stf.helpers import at_phase, play
    from tests.unit.stf.test_movement import _target_and_outside, add as mv_add, ship as mv_ship, state
    inside, outside = _target_and_outside(12)
    st = state(invader="Player", target=12)
    mv_add(st, "P1", "Player", "tf", outside,
           [mv_ship("dd1"), *(mv_ship(f"fr{i}", "FR", invasion=True, role="invasion", vp=5) for i in range(2))])
    out, st = play(st, {"kind": "move", "group": "P1", "path": [inside]})
    assert [(e["side"], e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [("Player", 3, "STF 1.11")] * 2
    out, st = play(at_phase(st, "Combat", turn=2), {"kind": "report", "sunk": ["fr0"]})
    assert st["vp"]["Player"] == 6 and st["vp"]["system"] == 5
    assert not [e for e in events_of(out, "VPScored") if e["side"] == "Player"]


# ---- STF 11.2: a salvo whose target sinks mid-salvo ----------------------------------------------
def test_stf_11_2_the_salvo_is_counted_once_a_sunk_target_passes_the_next_wave_on_an_empty_task_force_ends_it():
    """11.2: "it will fire 4 SSMs per player ship (up to half its complement) in waves of 6
    missiles, targeting Freighters, BB, CG, DD, FF and PC in that order, i.e. all DDs must be
    destroyed before a FF is targeted." Its example: "The GameSystem fires 12 missiles (= 4
    missiles x 3 ships) in two waves of 6 ... If the DD is not destroyed by the first wave, the
    second wave will target all 6 missiles at the DD too." The 12 are counted when it fires: the DD
    sunk by the first wave, the second wave's 6 (not 4 x 2 ships left, less the 6 fired) go at an
    FF. A salvo whose target task force has no ship left ends: the missiles not fired stay aboard."""
    from domain.rulesets.stf import combat
    from tests.unit.stf.helpers import FixedDice, pending
    from tests.unit.stf.test_combat import dd_ff_ff, missile_tf, results, ssm_battle
    out, st = run_step(ssm_battle(dd_ff_ff(), missile_tf()), "surface_combat", FixedDice(3))
    out, st = results(st, "dd", dice=FixedDice(1, 4))  # the d2 between the FFs, then the sector
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["wave"], wave["missiles"], wave["target"], wave["left_in_salvo"]) == (2, 6, "ff1", 0)
    out, st = results(st, dice=FixedDice(4))
    assert pending(st) is None and sum(combat.ssm_left(st["units"][u]) for u in ("cg1", "cg2")) == 48 - 12
    # a lone CV: every SSM in waves of 10 at it; sunk by the first wave, no ship is left to aim at
    out, st = run_step(ssm_battle({"cv": ship("CV", 20, nation="US")}, missile_tf()), "surface_combat", FixedDice(2))
    assert acts(out, "SSM wave")[0]["detail"]["missiles"] == 10
    out, st = results(st, "cv", dice=FixedDice(5))
    assert acts(out, "SSM wave") == [] and pending(st) is None
    assert sum(combat.ssm_left(st["units"][u]) for u in ("cg1", "cg2")) == 48 - 10


# ---- STF 12.5: what a retiring group still does --------------------------------------------------
def test_stf_12_5_a_retiring_group_still_strikes_and_fights_when_in_range():
    """12.5: "the all the GameSystem units retire towards their nearest 'Base' hex. If there is a
    choice of hexes to move into, they will keep as far away from player's task forces and subrons
    as possible." It says how they move, nothing of what they may not do; 1.13: "The GameSystem
    task force or subron may conduct air strikes, move, conduct SSM, gunnery and torpedo combat all
    on the same turn"; 7.6: "When within range, a GameSystem task force or subron will attempt to
    engage in battle". A retiring CV task force with a Player CV task force in range still goes to
    the Air Attack Table (10.7), and a retiring missile group in the Player's hex still fires."""
    from tests.unit.stf.helpers import FixedDice
    from tests.unit.stf.test_air import precise_cv_state
    from tests.unit.stf.test_combat import dd_ff_ff, missile_tf, ssm_battle
    st = precise_cv_state()
    st["groups"]["TF1"].update(retiring=True, destination="2305")
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert [e["rule"] for e in acts(out, "air strike")] == ["STF 10.7"]
    st = ssm_battle(dd_ff_ff(), missile_tf())
    st["groups"]["TF1"]["retiring"] = True
    out, _ = run_step(st, "surface_combat", FixedDice(3))
    assert acts(out, "SSM wave")[0]["detail"]["target"] == "dd"


# ---- STF 1.14: leaders "set at the start of the game following the player's initial deployment" --
def test_stf_1_14_leaders_once_set_may_not_be_added_to_after_deployment():
    """1.14: "Each task force of 21 points or more may have a Rear Admiral; 11 points or more a
    Commodore; and less than 11 points a Captain. These are set at the start of the game following
    the player's initial deployment, and may not be added to". The server sets them when the groups
    are formed, just before deployment, which changes no group's points (so no leader); after
    deployment no order sets or changes a leader: forming groups again is refused naming 1.14."""
    import pytest

    from domain.errors import RuleViolation
    from tests.unit.stf.helpers import at_phase, play
    st = combat_state("Movement")
    add_group(st, "P1", "Player", "1212", {"ff1": ship("FF", 3, nation="US")}, leader="Captain", points=3)
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "form_groups", "groups": [{"kind": "tf", "units": ["ff1"], "leader": "Commodore"}]})
    assert err.value.rule == "STF 1.14"
    with pytest.raises(RuleViolation) as err:
        play(at_phase(st, "Deployment", turn=0),
             {"kind": "form_groups", "groups": [{"kind": "tf", "units": ["ff1"], "leader": "Commodore"}]})
    assert err.value.rule == "STF 1.14"


# ---- STF 11.1: hits at an Accurate target are missiles that hit ---------------------------------
def test_stf_11_1_no_more_hits_than_missiles_fired_so_a_huge_count_is_refused_not_rolled():
    """11.1: "Long range SSMs can be fired, but only at targets that are Accurate or Precise ... If
    any hits are recorded, the target is immediately Precise and hits are recorded at random." A
    hit is a missile that hit: 9 hits from 8 missiles fired are refused naming 11.1 (a billion were
    rolled for one by one, a die a hit, once a GameSystem task force was Accurate by 10.5); with no
    missiles stated, no more than the Player's ships carry."""
    import pytest

    from domain.errors import RuleViolation
    from tests.unit.stf.helpers import FixedDice, play
    st = combat_state()
    add_group(st, "P1", "Player", "1212", {"tico": ship("CG", 5, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF1", "system", "1210", {"s1": ship("DD", 4), "s2": ship("FF", 3)}, intel="accurate",
              chit="Commodore", size="medium")
    for order in ({"kind": "ssm", "target": "TF1", "hits": 9, "spent": {"tico": 8}},
                  {"kind": "ssm", "target": "TF1", "hits": 10 ** 9}):
        with pytest.raises(RuleViolation) as err:
            play(st, order)
        assert err.value.rule == "STF 11.1"
    out, after = play(st, {"kind": "ssm", "target": "TF1", "hits": 8, "spent": {"tico": 8}}, FixedDice(default=1))
    assert acts(out, "hits placed")[0]["detail"]["hits"] == {"s1": 8}
    out, after = play(st, {"kind": "ssm", "target": "TF1", "hits": 16}, FixedDice(default=2))
    assert acts(out, "hits placed")[0]["detail"]["hits"] == {"s2": 16}
