"""FS 11.2-11.3 read one event at a time against the text (round 13): what the earlier event
modules left open. Positions are small and synthetic (helpers.py); dice are fixed."""

from __future__ import annotations

import pytest

from .helpers import AR, FixedDice, op, pending, play
from .test_rules_random_events import SEA, opportunity


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
