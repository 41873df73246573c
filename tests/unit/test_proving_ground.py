"""The proving ground's own rule PG 1 (domain/rulesets/proving/rules.py): the sides and who may act.
Its mechanisms PG 2-7 are tested end to end in tests/api/test_proving_*.py."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, InvalidSetup
from domain.rulesets import find_ruleset


def test_pg_1_red_and_blue_one_seat_each_and_either_may_act():
    ruleset = find_ruleset("proving")
    setup = ruleset.setup(None, {})
    assert setup.seats == ["Red", "Blue"]
    assert set(ruleset.actors(setup.state)) == {"Red", "Blue"}


def test_pg_1_an_order_of_no_registered_kind_is_refused_naming_the_rule():
    ruleset = find_ruleset("proving")
    state = ruleset.setup(None, {}).state
    with pytest.raises(InvalidOrder) as refused:
        ruleset.decide(state, "Red", {"kind": "no such kind"}, dice=None)
    assert refused.value.rule == "PG 1"
    with pytest.raises(InvalidSetup):
        ruleset.setup(None, {"hexes": 3})
