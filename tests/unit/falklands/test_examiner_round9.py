"""Ninth examiner round: scenarios written from the text on small positions built with the helpers,
for what the earlier rounds touched least. A test that pins a reading where the text is open says so
and names the reading in docs/rulesets.md; a test of a fix fails on the code before it."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from tests.unit.falklands.helpers import (
    AR, FixedDice, answer, broken, empty, events_of, pending, place, play, rolls_of, set_phase,
)


# ------------------------------------------------------------------------------ FS 11.3 6-6 ---
def test_fs_11_3_6_6_the_surprise_attack_is_the_submarines_alone_an_aircraft_named_is_refused():
    """6-6 "The AR player may attack any one UK surface vessel, protected or not, that's presently
    co-located in any sea zone with one or more of his AR submarines. The UK player may not respond
    ... with any defensive die roll": the attack is made by the submarines there (as 3-4's for the
    UK); 4-4 and 6-5 are the events that let "In-range aircraft ... be flown in". A Dagger named
    in the answer joined the attack and fired at Glamorgan with no defensive fire; it is refused
    under the event and nothing is recorded, and San Luis alone fires."""
    st = set_phase(empty(), "AR Submarine")
    place(st, "san_luis", "sa6")
    place(st, "glamorgan", "sa6")
    place(st, "dagger_1", S.ARGENTINA)
    assert S.aircraft_reach(st, "dagger_1", "sa6")
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(6, 6))
    d = pending(st)
    assert (d["seat"], d["rule"]) == (AR, "FS 11.3 6-6")
    assert d["options"]["areas"] == {"sa6": {"units": ["san_luis"], "targets": ["glamorgan"]}}
    order = {"kind": "decide", "decision": d["id"],
             "choice": {"area": "sa6", "units": ["san_luis"], "aircraft": ["dagger_1"], "target": "glamorgan"}}
    broken(st, AR, order, "FS 11.3 6-6")
    out, st = answer(st, AR, {"area": "sa6", "units": ["san_luis"], "target": "glamorgan"}, FixedDice(6))
    (b,) = events_of(out, "BattleBegun")
    assert b["attackers"] == ["san_luis"] and [r.seat for r in rolls_of(out)] == [AR]
