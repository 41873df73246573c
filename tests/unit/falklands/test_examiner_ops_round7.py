"""Seventh examiner round: FS 7.1's operations and FS 11.3's events, sentence by sentence, on small
positions built with the helpers. Each test fails on the code before the fix it names."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import AR, R, UK, control, empty, events_of, op, place, play, refused

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


# ----------------------------------------------------------------------------------- Op #17 ---
def test_fs_7_1_op_17_no_assault_into_a_contested_area():
    """Op #17 "The assault may be into any enemy controlled land area"; FS 3.6: a land area is
    "controlled" by the AR or UK side, "or they may be 'contested'". A contested area the AR held
    last is not enemy controlled: Op #16 lands there ("or one that's presently already contested")
    and Op #15 fights there; an assault into it is refused, and the area is not offered. Once the
    UK units there are gone, the area is the AR's alone and the assault goes in."""
    st = empty()
    control(st, AR, FLAT)
    place(st, "ri_12", FLAT)
    place(st, "3_para", FLAT)  # contested; the AR held it last
    place(st, "fearless", S.TACTICAL)
    place(st, "2_para", aboard="fearless")
    assert S.contested(st, FLAT) and S.controlled_by(st, FLAT) == AR
    r = refused(st, UK, op(17, area=FLAT, wave=["2_para"]))
    assert r.rule == "FS 7.1 Op #17" and "contested" in str(r)
    template = offered(st, UK, 17)
    assert template is None or FLAT not in template["choices"]["area"]
    st["units"]["3_para"].update(location=None, in_play=False)  # the AR alone: enemy controlled
    out, _ = play(st, UK, op(17, area=FLAT, wave=["2_para"], fire="auto"))
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["2_para"]
