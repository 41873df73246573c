"""FS 11.2-11.3 read one event at a time against the text (round 13): what the earlier event
modules left open. Positions are small and synthetic (helpers.py); dice are fixed."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S

from .helpers import AR, UK, FixedDice, R, control, empty, op, pending, place, play
from .test_rules_random_events import SEA, draw, opportunity, phase


def _battle(st):
    (b,) = [f for f in pending(st)["context"]["stack"] if f.get("step") == "battle"]
    return b


# ------------------------------------------------------------------------------ 3-2 / 3-3 ---
@pytest.mark.parametrize("ar", [2, 3])
@pytest.mark.parametrize("order", [
    op(18, area=SEA, aircraft=["a4_1"], target_of_opportunity="hermes"),
    op(14, area=SEA, units=["drummond"], target_of_opportunity="hermes"),
    op(20, support=["drummond"], destination=SEA, attack=True, target_of_opportunity="hermes"),
], ids=["op18", "op14", "op20"])
def test_fs_11_3_3_2_the_target_of_opportunity_named_with_automatic_fire_is_the_one_attacked(monkeypatch, ar, order):
    """FS 11.3 3-2/3-3 "the AR player may choose to attack any one protected UK surface vessel
    without having to also engage unprotected targets": the AR names Hermes and leaves his fire to
    the server; the shot goes at Hermes (before, at Glamorgan, the unprotected ship: the chosen
    attack was not made and the event was spent all the same)."""
    st = opportunity(monkeypatch, ar)
    out, after = play(st, AR, order, FixedDice(default=6))
    assert _battle(after)["fire"] == [{"unit": order.get("aircraft", order.get("units", order.get("support")))[0],
                                       "at": "hermes"}]


def test_fs_11_3_3_2_a_protected_ship_in_the_south_georgia_box_is_offered_as_the_target_of_opportunity():
    """FS 11.3 3-2 "any one protected UK surface vessel ... in that same area" with FS 3.7: AR
    submarines in the box fight the UK ships there (Op #14), and the order naming Canberra there
    as the target of opportunity is accepted; the offer names it too (before, only ships in sea
    areas were offered: the template lacked a choice the order accepted)."""
    st = empty()
    for u, at in (("santa_fe", S.SOUTH_GEORGIA), ("canberra", S.SOUTH_GEORGIA), ("broadsword", S.SOUTH_GEORGIA)):
        place(st, u, at)
    control(st, UK, S.SOUTH_GEORGIA)
    out, st = draw(st, 3, 2)
    st = phase(st, "AR Operations")
    template = R.operation_template(st, AR, 14)
    assert S.SOUTH_GEORGIA in template["choices"]["area"]
    assert template["fields"]["target_of_opportunity"]["choices"] == ["canberra"]
    out, after = play(st, AR, op(14, area=S.SOUTH_GEORGIA, units=["santa_fe"],
                                 target_of_opportunity=template["fields"]["target_of_opportunity"]["choices"][0]),
                      FixedDice(default=6))
    assert _battle(after)["fire"] == [{"unit": "santa_fe", "at": "canberra"}]
