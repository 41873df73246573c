"""The decisions a game asks a player mid-order (FS 7.1 Op #11, FS 9.6, FS 10.2, FS 11.3), checked
against the text: every option offered is accepted, an answer the text allows is not refused, and a
refusal names the rule that forbids it."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, answer, empty, events_of, fire, op, pending, place, play, set_phase, uk,
)

PUCARA = next(u for u, d in DATA.units.items() if d["type"] == "Puc")
STEALTH = next(u for u, d in DATA.units.items() if d.get("stealth"))


def _interception():
    """An AR Op #18 strike from Port Stanley at the Falklands Sea Area, an A-4, a Pucara and the
    stealth aircraft in the flight, Hermes there: the UK is asked whether to intercept."""
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    place(st, PUCARA, "port_stanley")
    place(st, STEALTH, "port_stanley")  # Op #18: one force from one land area
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1", PUCARA, STEALTH], carriers=[], fire="auto"),
                   FixedDice(default=6))
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("interception", UK)
    assert d["options"]["fire"] == {"hermes": ["a4_1"]}
    return st


@pytest.mark.parametrize("target", [PUCARA, STEALTH])
def test_fs_7_1_op_11_a_pucara_or_the_stealth_aircraft_may_never_be_intercepted_the_refusal_says_so(target):
    """Op #11: "Pucara and stealth aircraft ... may never be intercepted" (and FS 10.5). Firing at
    one was refused as "FS 10.2: ... is not a target in this battle"."""
    st = _interception()
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"fire": fire(("hermes", target))}, FixedDice(default=6))
    assert e.value.rule == "FS 7.1 Op #11"
    assert "never be intercepted" in str(e.value)


def test_fs_7_1_op_11_only_the_uk_carriers_intercept_the_refusal_says_so():
    """Op #11: "those UK units" are the "UK aircraft carriers": an escort's shot was refused as
    "FS 10.2: ... is not firing in this battle"."""
    st = _interception()
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"fire": fire(("glamorgan", "a4_1"))}, FixedDice(default=6))
    assert e.value.rule == "FS 7.1 Op #11"


def test_fs_7_1_op_11_the_offered_interception_is_accepted_three_shots_at_the_a4():
    st = _interception()
    out, after = answer(st, UK, {"fire": fire(("hermes", "a4_1"), ("hermes", "a4_1"), ("hermes", "a4_1"))},
                        FixedDice(default=6))
    assert after["units"]["a4_1"]["eliminated"] is False


# ------------------------------------------------------------------------- FS 11.2 / 11.3 ---
@pytest.mark.parametrize("area", [[], ["sa6"], {"sa6": 1}])
def test_fs_11_2_a_free_attack_answered_without_an_area_is_refused_under_the_event(monkeypatch, area):
    """FS 11.3 2-1 "any one presently contested sea area", FS 11.2 "no activated event may be
    declined": an answer whose area is not one area (a list, an object) is refused under the
    event; it raised TypeError (unhashable) instead."""
    st = empty("AR Submarine")
    place(st, "glamorgan", "sa6")
    place(st, "drummond", "sa6")
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(2, 1))
    d = pending(st)
    assert (d["kind"], d["rule"]) == ("free_attack", "FS 11.3 2-1") and "sa6" in d["options"]["areas"]
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"area": area}, FixedDice(default=6))
    assert e.value.rule == "FS 11.3 2-1"


def _draw(st, uk_die, ar_die):
    set_phase(st, "AR Submarine")
    return play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk_die, ar_die))


def _uk_pass(st):
    st = set_phase({**st, "pending": []}, "UK Operations")
    return play(st, UK, {"kind": "pass"})


def test_fs_11_3_4_5_rolled_again_the_earlier_three_operations_still_end_with_two_vp():
    """4-5: "within his next three operations or the AR player is awarded two VP at the end of
    that third UK operation"; FS 11.2: "Each event may [be] rolled into effect any number of
    times". Rolled again after two UK operations without a landing, the first deadline still
    falls at the end of the next UK operation, and the second three operations later: 2 VP at
    each. Rolling it again reset the count to three, and the first 2 VP were never scored."""
    st = place(empty(), "glamorgan", "sa7")  # a UK ship in the TEZ keeps FS 4.4(1) quiet
    out, st = _draw(st, 4, 5)
    vp = st["vp"][S.TRACK]
    for _ in range(2):
        out, st = _uk_pass(st)
        assert not events_of(out, "VPScored")
    out, st = _draw(st, 4, 5)  # rolled into effect again
    scored = []
    for _ in range(3):
        out, st = _uk_pass(st)
        scored.append([e["delta"] for e in events_of(out, "VPScored") if e["rule"] == "FS 11.3 4-5"])
    assert scored == [[2], [], [2]]
    assert st["vp"][S.TRACK] == vp + 4 and st["political_pressure"] is None


def test_fs_11_3_4_5_rolled_again_one_landing_meets_both():
    st = place(empty(), "glamorgan", "sa7")
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    out, st = _draw(st, 4, 5)
    out, st = _uk_pass(st)
    out, st = _draw(st, 4, 5)
    flat = next(a for a in DATA.land_areas if S.controlled_by(st, a) == AR and not S.units_in(st, a))
    st = set_phase({**st, "pending": []}, "UK Operations")
    out, st = play(st, UK, op(16, units=["2_para"], area=flat))
    assert st["political_pressure"] is None
    for _ in range(3):
        out, st = _uk_pass(st)
        assert not [e for e in events_of(out, "VPScored") if e["rule"] == "FS 11.3 4-5"]


# ------------------------------------------------------------------------------- FS 9.6 ---
def _stranded():
    """Op #16 lands 2 Para on Pebble Island where only AR aircraft stand: they rebase at once."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "pucara_3", "pebble_island")
    place(st, "a4_1", "pebble_island")
    place(st, "dagger_1", "port_stanley")
    out, st = play(st, UK, op(16, units=["2_para"], area="pebble_island"))
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("emergency_rebase", AR, "FS 9.6")
    return st, d


def test_fs_9_6_every_destination_offered_is_accepted_unit_by_unit():
    """FS 9.6: "Rebasing destinations may be decided on by the AR player on a unit-by-unit basis"."""
    st, d = _stranded()
    for u, bases in d["options"]["destinations"].items():
        for base in bases:
            out, after = answer(st, AR, {"destinations": {u: base}}, FixedDice(default=6))
            while pending(after) and pending(after)["kind"] == "interception":
                out, after = answer(after, UK, {"fire": []})
            assert S.where(after, u) == base


def test_fs_9_6_an_aircraft_that_need_not_rebase_is_not_moved_by_the_answer_refused_under_9_6():
    """FS 9.6 moves the AR aircraft alone in the area the UK entered; the Dagger at Port Stanley
    is not one of them. Naming it was silently ignored (and the others flew to Argentina)."""
    st, d = _stranded()
    assert "dagger_1" not in d["options"]["destinations"]
    with pytest.raises(RuleViolation) as e:
        answer(st, AR, {"destinations": {"dagger_1": "goose_green"}})
    assert e.value.rule == "FS 9.6"


# ----------------------------------------------------------------------------- 4-1 / 4-3 ---
def test_fs_11_3_4_3_the_ar_decisive_leader_marker_is_played_under_4_3():
    """4-3: "The AR player should take the 'AR Decisive Leader' marker ... He may play that marker
    [after] any die roll": played, it is recorded under 4-3 (it said 4-1, the UK's event)."""
    st = empty()
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = play(st, UK, op(14, area="sa7", units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    # Glamorgan's hit on Drummond, a die the AR holder may dislike (a hit takes a step at any factor)
    out, st = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(1))
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("leadership", AR, "FS 11.3 4-3")
    out, st = answer(st, AR, {"reroll": 0}, FixedDice(6, 1))  # Glamorgan's die again, then Drummond's
    assert events_of(out, "MarkerPlayed") == [{"side": AR, "marker": "ar_decisive_leader", "rule": "FS 11.3 4-3"}]
