"""Seventh examiner round: FS 7.1's operations and FS 11.3's events, sentence by sentence, on small
positions built with the helpers. Each test fails on the code before the fix it names."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import R, UK, control, empty, op, place, play, refused

FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
FLAT2 = next(a for a in DATA.land_areas if a != FLAT and not DATA.areas[a]["mountains"]
             and not DATA.areas[a]["entrenched"] and not DATA.areas[a]["vp"])


def offered(st: dict, seat: str, number) -> dict | None:
    return R.operation_template(st, seat, number)


# ----------------------------------------------------------------------------------- Op #22 ---
def test_fs_7_1_op_22_no_helicopter_lift_out_of_a_contested_area():
    """Op #22 "from one friendly controlled land area in the Falklands to any other friendly
    controlled or contested land area": the sentence sets "friendly controlled" against
    "contested", and 3.6 says an area is "controlled" by one side "or they may be 'contested'". A
    contested origin the UK held last is not friendly controlled: the lift is refused, and not
    offered; from a friendly area it goes on."""
    st = empty()
    control(st, UK, FLAT, FLAT2)
    place(st, "2_para", FLAT)
    place(st, "ri_12", FLAT)  # contested; the UK held it last
    assert S.contested(st, FLAT) and S.controlled_by(st, FLAT) == UK
    r = refused(st, UK, op(22, units=["2_para"], origin=FLAT, destination=FLAT2))
    assert r.rule == "FS 7.1 Op #22" and "contested" in str(r)
    template = offered(st, UK, 22)
    assert template is None or FLAT not in template["choices"]["origin"]
    place(st, "3_para", FLAT2)  # the UK alone: friendly controlled
    out, after = play(st, UK, op(22, units=["3_para"], origin=FLAT2, destination=FLAT))
    assert S.where(after, "3_para") == FLAT
