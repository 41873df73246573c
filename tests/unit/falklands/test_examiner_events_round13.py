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


# ------------------------------------------------------------------------------ 2-1 .. 2-3 ---
def test_fs_11_3_2_1_a_uk_carrier_in_the_next_sea_area_may_join_the_attack_with_its_three_shots():
    """FS 11.3 2-1 names no carriers; 2-5 ("Carriers may only participate if they're in the same
    area as the attacked submarines") says that elsewhere they may join from range: read with
    9.3 and 10.9, Hermes next door is offered, joins by choice (not exposed to return fire, as in
    Op #18/#20) and fires three times; the attack is also made without it (docs/rulesets.md)."""
    st = empty()
    place(st, "spartan", "falklands")
    place(st, "drummond", "falklands")
    place(st, "granville", "falklands")
    place(st, "hermes", "sa7")
    out, st = draw(st, 2, 1)
    opt = pending(st)["options"]["areas"]["falklands"]
    assert (opt["units"], opt["carriers"]) == (["spartan"], ["hermes"])
    out, with_hermes = play(st, UK, {"kind": "decide", "decision": pending(st)["id"],
                                     "choice": {"area": "falklands", "carriers": ["hermes"], "fire": "auto"}})
    b = _battle(with_hermes)
    assert sorted(b["attackers"]) == ["hermes", "spartan"] and b["exposed"] == ["spartan"]
    assert [s["unit"] for s in b["fire"]].count("hermes") == 3
    out, alone = play(st, UK, {"kind": "decide", "decision": pending(st)["id"],
                               "choice": {"area": "falklands", "fire": "auto"}})
    assert _battle(alone)["attackers"] == ["spartan"]
