"""Eighth round, second opinion on the readings of docs/rulesets.md ("Interpretations where the
text is open"): where the words decide, the order follows them. Each test fails on the code before
its fix."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from tests.unit.falklands.helpers import AR, UK, UK_INFANTRY, R, ar, broken, control, events_of, place, play, op


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
