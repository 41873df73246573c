"""Round 13: what the last rounds left open, read against the text (FS 9.6 emergency rebasing's
words in the log; FS 10.2 automatic defensive fire)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from projections.narrate import describe

from .helpers import AR, R, UK, FixedDice, answer, control, events_of, fire, op, pending, place, play, uk


def moved_lines(out) -> list[str]:
    return [describe({"game_id": "g", "seq": 1, "type": "UnitMoved", "data": e}, R)
            for e in events_of(out, "UnitMoved") if e["rule"] == "FS 9.6"]


def test_fs_9_6_an_aircraft_left_out_of_the_rebasing_answer_goes_to_argentina_and_the_log_says_why():
    """9.6 "emergency rebasing must take place immediately. The AR player should move the rebasing to
    another friendly controlled or contested base area or to Argentina ... on a unit-by-unit basis".
    An answer naming a base for one Pucara and none for the other sent the other to Argentina, and
    neither the question nor the log said so: the line read "IA 58 Pucara 1 moved from Goose Green to
    Argentina". The question says where an aircraft left out goes; each move's line says why it
    moved (UK ground units alone with it) and why there, under FS 9.6."""
    st = uk()
    control(st, UK, "san_carlos")
    place(st, "2_para", "san_carlos")
    place(st, "ri_12", "goose_green")
    for u in ("pucara_1", "pucara_2"):
        place(st, u, "goose_green")
    out, st = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green",
                              attack=True, fire=fire(("2_para", "ri_12"))))
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))
    d = pending(st)
    assert (d["kind"], sorted(d["options"]["destinations"])) == ("emergency_rebase", ["pucara_1", "pucara_2"])
    assert "name no base for goes there" in d["prompt"] and "FS 9.6" in d["prompt"]
    out, st = answer(st, AR, {"destinations": {"pucara_2": "port_stanley"}})
    assert S.where(st, "pucara_1") == S.ARGENTINA and S.where(st, "pucara_2") == "port_stanley"
    assert sorted(moved_lines(out)) == [
        "IA 58 Pucara 1 makes an emergency rebasing from Goose Green, an area where UK ground units stand and "
        "no AR ground unit does, to Argentina, the AR having named no other base for it (FS 9.6)",
        "IA 58 Pucara 2 makes an emergency rebasing from Goose Green, an area where UK ground units stand and "
        "no AR ground unit does, to Port Stanley, the base the AR named for it (FS 9.6)",
    ]
