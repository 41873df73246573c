"""Every refused order names the rule it breaks, and the rule whose words forbid it (an examiner's
check of the rule argument of the refusals; the text, 000_118e0bb5a1449bfd.txt, is the authority)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import UK, control, empty, fire, op, place, refused, with_factor

FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])


def test_fs_7_1_op_15_a_uk_carrier_out_of_range_is_refused_for_op_15_not_for_its_range(monkeypatch):
    """Op #15 "along with any in-range planes and carrier (AR carrier only)": a UK carrier never
    joins a ground attack, in range or not, so the refusal names Op #15, not FS 9.3's range."""
    st = empty()
    for u in ("2_para", "ri_12"):
        place(st, u, FLAT)
        with_factor(monkeypatch, u, ground=3)
    control(st, S.AR, FLAT)
    far = next(a for a in DATA.sea_areas if not S.in_carrier_range(place(st, "hermes", a), "hermes", FLAT))
    place(st, "hermes", far)
    err = refused(st, UK, op(15, area=FLAT, units=["2_para"], carriers=["hermes"], fire=fire(("2_para", "ri_12"))))
    assert err.rule == "FS 7.1 Op #15" and "only the AR carrier" in err.detail
