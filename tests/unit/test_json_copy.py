"""domain/rulesets/core.py ``json_copy``: the deep copy the folds make of a game's set-up, of a
restored state and of a decision's stack, in place of ``copy.deepcopy``."""

from __future__ import annotations

import copy
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rulesets.core import json_copy


def _containers(value, into: list) -> list:
    if isinstance(value, (dict, list)):
        into.append(value)
        for inner in (value.values() if isinstance(value, dict) else value):
            _containers(inner, into)
    return into


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_a_json_value_is_copied_equal_and_shares_no_dict_or_list(value):
    made = json_copy(value)
    assert made == value
    originals = {id(c) for c in _containers(value, [])}
    assert not originals & {id(c) for c in _containers(made, [])}


def test_changing_the_copy_leaves_the_original_alone():
    setup = {"units": {"A": {"location": "X", "tags": ["a"]}}, "vp": [0, 1], "nan": float("nan")}
    made = json_copy(setup)
    made["units"]["A"]["tags"].append("b")
    made["units"]["A"]["location"] = "Y"
    made["vp"][0] = 5
    assert setup["units"] == {"A": {"location": "X", "tags": ["a"]}} and setup["vp"] == [0, 1]
    assert math.isnan(made["nan"])


def test_other_values_inside_are_copied_as_deepcopy_copies_them():
    from domain.rulesets.falklands.data import DATA

    inner = [1, 2]
    value = {"pair": (inner, "x"), "set": {3}, "table": DATA.board()}
    made = json_copy(value)
    assert made == copy.deepcopy(value)
    assert made["pair"][0] is not inner and made["set"] is not value["set"]
    assert type(made["table"]) is dict  # the read-only table comes back a plain, changeable dict
    made["table"]["new"] = 1
