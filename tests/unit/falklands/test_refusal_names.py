"""Refusals name units and areas as the rules text does ("Glamorgan", "Sea Area 6", "Goose Green"),
never by the ids an order is written in ('glamorgan', 'sa6', 'goose_green'); a value that names no
unit or area is quoted as given. The rule each refusal names, and an invalid order's field, are
those it named before (each case pins them)."""

from __future__ import annotations

import re

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (AR, DAGGERS, UK, FixedDice, R, ar, control, empty, fire, initial, op, pending, place, play,
                      set_phase, uk)

IDS = sorted({*DATA.units, *DATA.areas}, key=len, reverse=True)


def raw_ids(message: str) -> list[str]:
    """The unit and area ids written in ``message`` as words (an id is lower-case; its name is not)."""
    return [i for i in IDS if re.search(rf"(?<![\w']){re.escape(i)}(?![\w'])", message)]


def refusal(st: dict, seat: str, order: dict) -> RuleViolation | InvalidOrder:
    with pytest.raises((RuleViolation, InvalidOrder)) as err:
        R.decide(st, seat, order, FixedDice(default=6))
    return err.value


def decision(st: dict, choice) -> dict:
    return {"kind": "decide", "decision": pending(st)["id"], "choice": choice}


def drawn(st: dict, kind: str, *faces: int) -> tuple[dict, str]:
    """End the AR Submarine Phase so the Random Event Phase rolls ``faces`` (UK die first, FS 11.2):
    the position where the event asks its ``kind`` of decision, and the seat it asks."""
    set_phase(st, "AR Submarine")
    st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(*faces))[1]
    assert pending(st)["kind"] == kind
    return st, pending(st)["seat"]


# ------------------------------------------------------------------------------- positions ---
def interception():
    """An AR air strike on a UK destroyer next to Hermes: the UK is asked to intercept (Op #11)."""
    st = ar()
    place(st, "hermes", "sa7")
    place(st, "glamorgan", "sa7")
    place(st, "coventry", "sa7")
    place(st, DAGGERS[0], S.ARGENTINA)
    out, st = play(st, AR, op(18, area="sa7", aircraft=[DAGGERS[0]], fire=fire((DAGGERS[0], "coventry"))))
    assert pending(st)["kind"] == "interception"
    return st, UK


def submarines():
    st = empty("UK Submarine")
    place(st, "spartan", "sa7")
    return st, UK


def setup():
    return initial(), UK


def op_2():
    return ar(), AR


def op_6():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    return st, UK


def peru():
    st = empty()
    st["units"][DAGGERS[0]].update(eliminated=True, in_play=True, steps=0)
    place(st, DAGGERS[1], S.ARGENTINA)
    return drawn(st, "peru_replacement", 6, 3)


def compromised():
    st = empty()
    place(st, "sas_d", "goose_green")
    place(st, "ri_12", "goose_green")
    place(st, "sas_g", "lafonia")  # alone: not compromised
    control(st, UK, "lafonia")
    control(st, AR, "goose_green")
    return drawn(st, "sf_compromised", 2, 4, 1)  # 1-3: the UK's team; the AR chooses


def free_attack():
    """Event 2-1: a free UK surface attack on Drummond in Sea Area 7."""
    st = empty()
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    place(st, "hermes", "sa6")
    return drawn(st, "free_attack", 2, 1)


# (position, order or answer, the rule named, the field of an invalid order)
CASES = {
    "op 11 a ship that is no carrier": (interception, lambda st: decision(st, {"fire": fire(("glamorgan", DAGGERS[0]))}),
                                        "FS 7.1 Op #11", None),
    "8.1 not a submarine": (submarines, lambda st: {"kind": "submarines", "moves": {"hermes": "sa6"}}, "FS 8.1", None),
    "9.1 a land area": (submarines, lambda st: {"kind": "submarines", "moves": {"spartan": "goose_green"}}, "FS 9.1",
                        None),
    "9.1 where it is": (submarines, lambda st: {"kind": "submarines", "moves": {"spartan": "sa7"}}, "FS 9.1", None),
    "9.7 argentina": (submarines, lambda st: {"kind": "submarines", "moves": {"spartan": "argentina"}}, "FS 9.7", None),
    "3.3 outside the tez": (setup, lambda st: {"kind": "setup", "submarines": {"spartan": "sa1", "splendid": "sa6"}},
                            "FS 3.3", None),
    "3.3 one submarine": (setup, lambda st: {"kind": "setup", "submarines": {"spartan": "sa6"}}, "FS 3.3",
                          "submarines"),
    "op 2 not to mobilize": (op_2, lambda st: op(2, unit="ri_12"), "FS 7.1 Op #2", None),
    "op 6 not of the group": (op_6, lambda st: op(6, entry={"hermes": "sa4"}), "FS 7.1 Op #6", None),
    "op 6 entry": (op_6, lambda st: op(6, entry={"antrim": 4}), "FS 7.1 Op #6", "entry"),
    "6-3 not eliminated": (peru, lambda st: decision(st, {"unit": DAGGERS[1]}), "FS 11.3 6-3", None),
    "2-4 not compromised": (compromised, lambda st: decision(st, {"unit": "sas_g"}), "FS 11.3 2-4", None),
    "2-1 no such area": (free_attack, lambda st: decision(st, {"area": "sa6", "fire": "auto"}), "FS 11.3 2-1", None),
    "2-1 not taking part": (free_attack, lambda st: decision(st, {"area": "sa7", "units": ["coventry"]}),
                            "FS 11.3 2-1", None),
    "2-1 a carrier not taking part": (free_attack, lambda st: decision(st, {"area": "sa7", "carriers": ["invincible"]}),
                                      "FS 11.3 2-1", None),
    "2-1 aircraft": (free_attack, lambda st: decision(st, {"area": "sa7", "aircraft": ["hermes"]}),
                     "FS 11.3 2-1", None),
}


@pytest.mark.parametrize("case", CASES)
def test_refusals_name_units_and_areas_by_the_rules_text_names(case):
    position, order, rule, field = CASES[case]
    st, seat = position()
    err = refusal(st, seat, order(st))
    assert err.rule == rule, str(err)
    assert getattr(err, "field", None) == field, str(err)
    assert raw_ids(str(err)) == [], str(err)


# (position, order or answer, the rule named, what the refusal says of the value)
QUOTED = {
    "op 11 no unit": (interception, lambda st: decision(st, {"fire": fire(("x", DAGGERS[0]))}), "FS 7.1 Op #11",
                      "'x' cannot intercept"),
    "op 11 at no unit": (interception, lambda st: decision(st, {"fire": fire(("hermes", "nobody"))}), "FS 7.1 Op #11",
                         "'nobody' is not an AR aircraft"),
    "9.1 no area": (submarines, lambda st: {"kind": "submarines", "moves": {"spartan": "nowhere"}}, "FS 9.1",
                    "Spartan cannot move to 'nowhere'"),
    "8.1 no unit": (submarines, lambda st: {"kind": "submarines", "moves": {"x": "sa6"}}, "FS 8.1",
                    "'x' is not one of your submarines"),
    "op 6 no unit": (op_6, lambda st: op(6, entry={"x": "sa4"}), "FS 7.1 Op #6", "'x' is not a vessel of group R1"),
    "6-3 no unit": (peru, lambda st: decision(st, {"unit": "x"}), "FS 11.3 6-3", "'x' is not an eliminated"),
    "6-3 a list": (peru, lambda st: decision(st, {"unit": ["x"]}), "FS 11.3 6-3", "['x'] is not an eliminated"),
    "2-1 no unit": (free_attack, lambda st: decision(st, {"area": "sa7", "units": ["x"]}), "FS 11.3 2-1",
                    "'x' may not take part"),
    "10.2 no unit": (free_attack, lambda st: decision(st, {"area": "sa7", "fire": fire(("x", "drummond"))}), "FS 10.2",
                     "'x' is not firing in this battle"),
    "10.2 at no unit": (free_attack, lambda st: decision(st, {"area": "sa7", "fire": fire(("glamorgan", "x"))}),
                        "FS 10.2", "'x' is not a target in this battle"),
}


@pytest.mark.parametrize("case", QUOTED)
def test_a_value_naming_no_unit_or_area_is_quoted_as_given(case):
    position, order, rule, says = QUOTED[case]
    st, seat = position()
    err = refusal(st, seat, order(st))
    assert err.rule == rule and says in str(err), str(err)


def test_the_names_are_the_data_files():
    """The names come from the ruleset's data (units.json, map.json), as the rules text gives them."""
    st, seat = submarines()
    err = refusal(st, seat, {"kind": "submarines", "moves": {"spartan": "goose_green"}})
    assert str(err) == f"FS 9.1: {DATA.units['spartan']['name']} cannot move to {DATA.areas['goose_green']['name']}"
    st, seat = op_2()
    assert all(DATA.units[u]["name"] in str(refusal(st, seat, op(2, unit="ri_12"))) for u in T.OP2_UNITS)
