"""Whole campaigns played against the STF text (../shared/rules/003_74ca0e4e298164eb.txt), as an
examiner would: seeded random campaigns (domain/rulesets/stf/play.py) folded event by event, with
what the text says always or never checked after each event; and, for each disagreement those
campaigns found, a small scenario from the text named after its rule."""

from __future__ import annotations

from domain.rulesets.stf import forces
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, play, pool_of, ship, system_group


# ---- STF 11.1 with 8.7: a long-range hit on an Accurate task force makes it Precise ---------------
def accurate_tf_with_its_set_aside_cv() -> dict:
    """An Accurate Rear Admiral task force whose air strike revealed its air strength: 10.8 set
    a Kiev aside as its CV (the only unit it holds before its composition is known)."""
    st = combat_state(commitment=93)
    add_group(st, "P1", "Player", "0505", {"ticonderoga": ship("CG", 5, nation="US", ssm=8, ssm_loads=2)})
    st["groups"]["TF1"] = system_group("TF1", hex="0506", intel="accurate", chit="Rear Admiral", size="large",
                                       air_known=True)
    kiev = forces.unit_from_counter(st, "sov-cv-kiev", "sov-cv-kiev")
    st["units"]["sov-cv-kiev"] = {**kiev, "group": "TF1", "set_aside": True}
    st["groups"]["TF1"]["units"] = ["sov-cv-kiev"]
    st["pool"] = pool_of("Soviet", CG=2, DD=2, FF=4)
    return st


def test_stf_11_1_a_hit_on_an_accurate_task_force_holding_its_set_aside_cv_draws_its_composition():
    """11.1: "If any hits are recorded, the target is immediately Precise and hits are recorded at
    random"; 8.7: a Precise force's exact composition becomes known (Soviet Rear Admiral TF with a
    revealed air strength, +4: a 1 reads row 5, 1CV 1CG 1DD 3FF), and its chit is turned onto its
    normal side. The Kiev set aside for its air strike is its 1CV (10.8). Campaigns reached this with
    a group holding only the Kiev: it was made Precise as a lone carrier on its EMCON side, every hit
    fell on the Kiev and the deployment total never counted the task force."""
    st = accurate_tf_with_its_set_aside_cv()
    out, after = play(st, {"kind": "ssm", "target": "TF1", "hits": 1, "spent": {"ticonderoga": 8}},
                      FixedDice(1, default=1))
    g = after["groups"]["TF1"]
    assert g["intel"] == "precise" and g["emcon"] is False
    assert sorted(after["units"][u]["class"] for u in g["units"]) == ["CG", "CV", "DD", "FF", "FF", "FF"]
    assert "sov-cv-kiev" in g["units"] and after["units"]["sov-cv-kiev"]["set_aside"] is False
    assert after["deployment"]["groups"]["TF1"]["points"] == 10 + 6 + 4 + 9
    assert sum(u.get("hits", 0) for u in after["units"].values()) == 1  # the one hit, at random
