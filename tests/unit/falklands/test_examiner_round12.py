"""Twelfth examiner round: the text's qualifier clauses ("except", "only", "may not", "at the end
of", "up to", "at least", "immediately" ...) read one by one against the code, a scenario for each
clause no earlier round had pinned. Small positions (helpers.py), fixed dice, driven through the
ruleset's public ``decide``."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S

from .helpers import AR, UK, FixedDice, broken, control, empty, events_of, names, op, place, play, uk


# --------------------------------------------------------------------------------- FS 10.8 ---
@pytest.mark.parametrize("order", [
    op(15, area="mount_kent", units=["ri_4"]),
    op(24, origin="mount_kent", destination="mount_kent", units=["ri_4"], attack=True),
])
def test_fs_10_8_a_ground_attack_on_an_sf_team_alone_is_refused_saying_sf_fall_only_to_op_25(order):
    """FS 10.8: "SF units may only be eliminated via SF vs. SF combat in Op #25, or via OP #7, or
    via random event 2-4" and "The presence of only SF unit(s) in an enemy occupied land area
    counts as 'contesting' that area". A UK SF team alone in AR-held Mount Kent contests it; the
    AR's Op #15 (or Op #24 in place) there has no target: refused under the operation, saying the
    enemy there is SF, not that there is no enemy (Op #19 and #21 already say "never SF")."""
    st = empty("AR Operations")
    place(st, "ri_4", "mount_kent")
    place(st, "sas_d", "mount_kent")
    assert S.contested(st, "mount_kent")
    err = broken(st, AR, order, f"FS 7.1 Op #{order['op']}")
    assert "SF" in str(err) and "FS 10.8" in str(err) and "Op #25" in str(err), str(err)


def test_fs_10_8_an_all_sf_force_contests_the_area_it_marches_into_and_takes_nothing():
    """FS 10.8: "they may be moved as part of an all-SF force"; "The presence of only SF unit(s)
    in an enemy occupied land area counts as 'contesting' that area" (3.6: an area comes under
    your control only when your side is the only one there). The SAS marching alone (Op #24) into
    AR-held Mount Kent makes it contested: no ControlChanged, no VP, the AR still its last holder;
    attacking with it is refused, SF firing only in Op #25."""
    st = uk()
    place(st, "sas_d", "teal_inlet")
    control(st, UK, "teal_inlet")
    place(st, "ri_4", "mount_kent")
    vp = st["vp"][S.TRACK]
    broken(st, UK, op(24, origin="teal_inlet", destination="mount_kent", units=["sas_d"], attack=True),
           "FS 7.1 Op #24")
    out, after = play(st, UK, op(24, origin="teal_inlet", destination="mount_kent", units=["sas_d"]))
    assert not events_of(out, "ControlChanged") and not events_of(out, "BattleBegun")
    assert S.contested(after, "mount_kent") and after["control"]["mount_kent"] == AR
    assert after["vp"][S.TRACK] == vp
