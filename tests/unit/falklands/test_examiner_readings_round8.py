"""Eighth round, second opinion on the readings of docs/rulesets.md ("Interpretations where the
text is open"): where the words decide, the order follows them. Each test fails on the code before
its fix."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import AR, UK, UK_INFANTRY, R, ar, broken, control, events_of, names, op, place, play


# ------------------------------------------------------------------------------ FS 7.1 Op #1 ---
def test_fs_7_1_op_1_into_a_contested_port_stanley_the_uk_held_last():
    """Op #1 "The AR player may move up to two ground units from Argentina to Port Stanley
    airfield": the operation sets no control condition. Port Stanley went over to the UK and AR
    infantry came back: it is contested (3.6), and a contested base is one the AR uses (6.3; 9.6
    "another friendly controlled or contested base area", whoever held it last). The airlift lands
    there and is offered. A Port Stanley the UK holds alone stays refused (6.3: no AR base)."""
    st = ar()
    place(st, "ri_3", S.ARGENTINA)
    place(st, "ri_4", T.PORT_STANLEY)
    place(st, UK_INFANTRY[0], T.PORT_STANLEY)
    control(st, UK, T.PORT_STANLEY)
    assert S.contested(st, T.PORT_STANLEY) and S.controlled_by(st, T.PORT_STANLEY) == UK
    assert "ri_3" in R.operation_template(st, AR, 1)["choices"]["units"]
    out, st2 = play(st, AR, op(1, units=["ri_3"]))
    assert [(e["unit"], e["destination"]) for e in events_of(out, "UnitMoved")] == [("ri_3", T.PORT_STANLEY)]
    assert S.where(st2, "ri_3") == T.PORT_STANLEY
    # the UK alone there: no AR airfield
    st["units"]["ri_4"].update(location=None, in_play=False, eliminated=True)
    assert not S.contested(st, T.PORT_STANLEY)
    broken(st, AR, op(1, units=["ri_3"]), "FS 7.1 Op #1")
    assert R.operation_template(st, AR, 1) is None


# -------------------------------------------------------------------- FS 10.2 with 10.5 ---
def test_fs_10_2_the_stealth_aircraft_may_not_join_an_op_19_it_cannot_fire_in():
    """FS 10.2 "Units participate in combat, offensively or defensively, by 'firing' at opposing
    enemy units. If a unit doesn't posses the ability to engage a certain type of target, it may not
    fire at that type of unit." The Super Etendard's anti-ground factor is 0 (units.json): in an
    Op #19 it could fire at nothing, yet it was flown along, fired at, and spent one of its five
    attacks (10.5). It is refused naming 10.2 and not offered; the Dagger beside it flies."""
    st = ar()
    place(st, "2_para", "san_carlos")
    place(st, "dagger_1", "port_stanley")
    place(st, "super_etendard", "port_stanley")
    assert DATA.units["super_etendard"]["factors"]["ground"] == 0
    broken(st, AR, op(19, area="san_carlos", aircraft=["dagger_1", "super_etendard"], fire="auto"), "FS 10.2")
    offer = R.operation_template(st, AR, 19)["choices"]["area"]["san_carlos"]["aircraft"]
    assert "super_etendard" not in offer and "dagger_1" in offer
    out, st2 = play(st, AR, op(19, area="san_carlos", aircraft=["dagger_1"], fire="auto"))
    assert "BattleBegun" in names(out) and st2["stealth_attacks"] == 0
