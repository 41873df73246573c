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
