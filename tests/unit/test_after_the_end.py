"""After the end nothing is offered or accepted that would change the result (issue 29, item 16):
a take-back request left waiting when the game ended lapses with it."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from tests.unit.test_game import seed_for, started


def test_FF_5_a_take_back_request_left_waiting_lapses_when_the_game_ends_by_concession():
    g = started()
    g.submit("Blue", "o1", {"kind": "note", "text": "a move Blue regrets"}, seed_for)
    g.request_take_back("Blue", "misclick")
    g.concede("Red", seed_for)  # Red concedes instead of answering
    assert g.is_ended and g.whose_move() == [] and g.legal_orders("Red") == []
    version = g.version
    with pytest.raises(RuleViolation) as refused:
        g.answer_take_back("Red", True)
    assert refused.value.rule == "FF 5" and "ended" in str(refused.value)
    with pytest.raises(RuleViolation) as again:
        g.request_take_back("Red", "")
    assert "ended" in str(again.value)
    with pytest.raises(RuleViolation) as conceded:
        g.concede("Blue", seed_for)
    assert conceded.value.rule == "FF 5"
    assert g.version == version and g.ended["winner"] == "Blue"
