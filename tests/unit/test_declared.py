"""The toolkit's declared results (domain/rulesets/toolkit/declared.py): what may be declared is
data (type and range), a refusal names the rule and what the value stands for, and the outcome
records who declared what."""

from __future__ import annotations

import pytest

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.toolkit.declared import answer, ask, check, declare, load_declarable

SEARCH = load_declarable({"what": "search value", "rule": "STF 7", "stands_for": "Task Force 14.2",
                          "type": "integer", "min": 1, "max": 10})
CHART = load_declarable({"what": "weather", "rule": "SSC 6", "stands_for": "the map's weather chart",
                         "type": "choice", "choices": ["clear", "storm"]})


def test_a_value_in_range_is_recorded_with_seat_rule_and_what_it_stands_for():
    cls, fields = declare(SEARCH, "Player", 7)
    assert cls is ev.ResultDeclared
    assert fields == {"seat": "Player", "rule": "STF 7", "stands_for": "Task Force 14.2", "what": "search value",
                      "value": 7, "decision": None}


def test_out_of_range_is_a_rule_violation_and_a_wrong_type_an_invalid_order_both_naming_the_rule():
    with pytest.raises(RuleViolation, match=r"STF 7: the search value declared is a whole number from 1 to 10 "
                                            r"\(it stands for Task Force 14.2\), not 11"):
        check(SEARCH, 11)
    with pytest.raises(InvalidOrder) as exc:
        check(SEARCH, True)
    assert exc.value.rule == "STF 7"
    with pytest.raises(RuleViolation, match="SSC 6: .*one of clear, storm"):
        check(CHART, "fog")
    assert check(CHART, "storm") == "storm"


def test_a_mid_order_declaration_is_asked_then_answered_resolving_the_decision():
    cls, fields = ask(CHART, "Japanese", "3-7", "the weather chart at 9?", {"roll": 9})
    decision = fields["decision"]
    assert cls is ev.DecisionPending and decision["kind"] == "declare" and decision["id"] == "declare-3-7"
    assert decision["options"] == {"type": "choice", "choices": ["clear", "storm"],
                                   "stands_for": "the map's weather chart"}
    resolved, declared = answer(CHART, "Japanese", decision, "clear")
    assert resolved == (ev.DecisionResolved, {"decision_id": "declare-3-7", "seat": "Japanese",
                                              "choice": {"value": "clear"}})
    assert declared[1]["decision"] == "declare-3-7" and declared[1]["value"] == "clear"


def test_a_malformed_declarable_entry_is_refused_naming_it():
    with pytest.raises(ValueError, match="declared.json: declarable 'x': an integer has whole 'min' <= 'max'"):
        load_declarable({"what": "x", "rule": "PG 3", "stands_for": "y", "type": "integer", "min": 5, "max": 1},
                        "declared.json")
