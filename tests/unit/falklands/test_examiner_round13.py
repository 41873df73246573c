"""Round 13: what the last rounds left open, read against the text (FS 9.6 emergency rebasing's
words in the log; FS 10.2 automatic defensive fire)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from projections.narrate import describe

from .helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, fire, op, pending, place, play, rolls_of, uk, with_factor,
)


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


def test_fs_10_2_auto_defensive_fire_spreads_its_shots_where_one_defender_has_fewer_targets(monkeypatch):
    """10.2: "each of your participating units may fire ... at any one involved opposing unit ... you
    may assign more than one of your units to attack the same enemy unit": the text leaves the
    assignment to the player, and "auto" is the server's default for him. It went round the
    targets with one count for all the shooters, so a defender able to fire at the first target
    only put the next one back on it: all three UK ships fired at Dagger 1, none at Drummond. The
    default now passes over a target fired at more than another (a default, no rule)."""
    for u, air, surface in (("glamorgan", 2, 3), ("yarmouth", 2, 0), ("coventry", 2, 3)):
        with_factor(monkeypatch, u, air=air, surface=surface, sub=0)
    st = empty("AR Operations")
    for u in ("glamorgan", "yarmouth", "coventry"):
        place(st, u, "sa7")
    place(st, "drummond", "sa6")
    place(st, "dagger_1", "port_stanley")
    out, st = play(st, AR, op(20, units=["drummond"], destination="sa7", attack=True, aircraft=["dagger_1"],
                              fire=fire(("drummond", "glamorgan"), ("dagger_1", "glamorgan"))))
    (battle,) = events_of(out, "BattleBegun")
    assert battle["defenders"] == ["glamorgan", "yarmouth", "coventry"]  # Yarmouth fires at aircraft only
    out, st = answer(st, UK, {"fire": "auto"}, FixedDice(default=6))
    defense = [r.units for r in rolls_of(out) if r.seat == UK]
    assert sorted(defense) == [["coventry", "drummond"], ["glamorgan", "dagger_1"], ["yarmouth", "dagger_1"]]
