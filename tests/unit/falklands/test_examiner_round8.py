"""Eighth examiner round: scenarios written from the text where two rules meet in one order (FS 9.6
with 3.6; Op #18, #19, #23 with 9.9; Op #20's naval combat; 11.3 5-6 with 4-6's reading), on small
positions built with the helpers. Each test fails on the code before its fix."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, R, answer, ar, broken, control, events_of, fire, names, op, pending, place, play, set_phase, uk,
)


# ------------------------------------------------------------------------ FS 9.6 with 3.6 ---
def test_fs_9_6_a_contested_base_the_uk_held_last_is_an_emergency_destination():
    """FS 9.6: "move the rebasing to another friendly controlled or contested base area". Goose
    Green went over to the UK, then AR infantry came back: it is contested (3.6: "controlled ... or
    they may be 'contested'"), whoever held it last. The UK lands on Pebble Island; its Pucara may
    rebase to Goose Green, and stays there while AR ground units contest it (6.3). When the last of
    them falls, the area is the UK's alone and the Pucara must rebase again."""
    st = uk()
    control(st, UK, "goose_green")
    place(st, "2_para", "goose_green")
    place(st, "ri_25", "goose_green")
    assert S.contested(st, "goose_green") and S.controlled_by(st, "goose_green") == UK
    place(st, "fearless", "falklands")
    place(st, "3_para", aboard="fearless")
    place(st, "pucara_2", "pebble_island")
    out, st = play(st, UK, op(16, units=["3_para"], area="pebble_island"))
    d = pending(st)
    assert (d["kind"], d["rule"]) == ("emergency_rebase", "FS 9.6")
    assert "goose_green" in d["options"]["destinations"]["pucara_2"]
    out, st = answer(st, AR, {"destinations": {"pucara_2": "goose_green"}})
    assert S.where(st, "pucara_2") == "goose_green" and pending(st) is None
    assert "OperationCompleted" in names(out)
    # the AR infantry falls: Goose Green is the UK's alone, and the Pucara must go
    st["units"]["ri_25"].update(location=None, in_play=False, eliminated=True)
    place(st, "3_para", "goose_green")
    st["phase"], st["active"] = "UK Operations", [UK]
    st["phase_ops"] = S.phase_allowance(st, "UK Operations")
    out, st = play(st, UK, {"kind": "pass"})
    d = pending(st)
    assert d is not None and d["kind"] == "emergency_rebase" and list(d["options"]["destinations"]) == ["pucara_2"]
    assert AR == d["seat"]


# ------------------------------------------------------------------ FS 7.1 Op #18, #19 with 9.9 ---
def test_fs_7_1_op_18_and_19_a_force_of_aircraft_from_one_land_area():
    """Op #18 "move a force of friendly aircraft from a land area to any one in-range sea area";
    Op #19 the same to a land area. FS 9.9: a force moves "from an area", and only "certain
    operations allow friendly units starting ... in areas other than the one from which your ...
    force is originating to join": Op #18/#19 let carriers join, Op #15 and #20 "any in-range"
    planes; these two do not. A Dagger from Argentina and one from Port Stanley together are
    refused naming the operation; a Dagger and a Pucara from Port Stanley fly."""
    st = ar()
    place(st, "glamorgan", "falklands")
    place(st, "2_para", "san_carlos")
    place(st, "dagger_1", S.ARGENTINA)
    place(st, "dagger_2", "port_stanley")
    place(st, "pucara_1", "port_stanley")
    for number, area, target in ((18, "falklands", "glamorgan"), (19, "san_carlos", "2_para")):
        two_bases = op(number, area=area, aircraft=["dagger_1", "dagger_2"],
                       fire=fire(("dagger_1", target), ("dagger_2", target)))
        r = broken(st, AR, two_bases, f"FS 7.1 Op #{number}")
        assert "one land area" in str(r)
        out, after = play(st, AR, op(number, area=area, aircraft=["dagger_2", "pucara_1"],
                                     fire=fire(("dagger_2", target), ("pucara_1", target))), FixedDice(default=6))
        assert names(out)[0] == "OperationBegun"


def test_fs_7_1_op_23_loads_the_units_of_one_land_area():
    """Op #23 "You may load ground units from a land area onto naval vessels in the Falkland
    Islands Sea Area or (AR player only) in the Argentine mainland": the units of one area, as
    Op #18's "a force ... from a land area" (FS 9.9). An AR load in Argentina and in the Falklands
    in one operation is refused naming the operation; each alone is accepted."""
    st = ar()
    place(st, "drummond", "falklands")
    place(st, "cabo_san_antonio", S.ARGENTINA)
    place(st, "cdo_601", "port_stanley")
    place(st, "ri_12", S.ARGENTINA)
    both = op(23, loads={"cdo_601": "drummond", "ri_12": "cabo_san_antonio"})
    r = broken(st, AR, both, "FS 7.1 Op #23")
    assert "one land area" in str(r)
    for loads in ({"cdo_601": "drummond"}, {"ri_12": "cabo_san_antonio"}):
        out, after = play(st, AR, op(23, loads=loads))
        assert [(e["unit"], e["ship"]) for e in events_of(out, "UnitEmbarked")] == list(loads.items())


# ------------------------------------------------------------------------------- Op #20 ---
def test_fs_7_1_op_20_an_attack_needs_your_vessels_in_the_final_area_not_carriers_or_aircraft_alone():
    """Op #20 "Conduct Naval Movement and/or Combat": your ships and submarines attack "in the final
    sea area into which you're moving your force", or "already in the contested sea area"; "in-range
    land-based aircraft, and/or carriers in adjacent sea areas, may also be involved". Hermes in Sea
    Area 7 alone against the AR submarine in Sea Area 6 (where no UK vessel is: not contested), or
    AR aircraft alone against Glamorgan, is no naval combat: refused naming Op #20. With Spartan
    moving in, Hermes joins."""
    st = uk()
    place(st, "hermes", "sa7")
    place(st, "san_luis", "sa6")
    place(st, "spartan", "sa4")
    alone = op(20, destination="sa6", attack=True, carriers=["hermes"], fire=fire(("hermes", "san_luis")))
    r = broken(st, UK, alone, "FS 7.1 Op #20")
    assert "Sea Area 6" in str(r)
    out, after = play(st, UK, op(20, units=["spartan"], destination="sa6", attack=True, carriers=["hermes"],
                                 fire=fire(("spartan", "san_luis"), ("hermes", "san_luis"))), FixedDice(default=6))
    assert [e["attackers"] for e in events_of(out, "BattleBegun")] == [["spartan", "hermes"]]
    st = ar()
    place(st, "glamorgan", "sa6")
    place(st, "dagger_1", "port_stanley")
    broken(st, AR, op(20, destination="sa6", attack=True, aircraft=["dagger_1"], fire=fire(("dagger_1", "glamorgan"))),
           "FS 7.1 Op #20")


# ----------------------------------------------------------------------- FS 11.3 5-6 with 4-6 ---
def _panache():
    st = ar()
    st["effects"][AR]["ar_air_panache"] = {"event": "5-6"}
    set_phase(st, "AR Operations")
    place(st, "25_de_mayo", "sa6")
    place(st, "glamorgan", "sa7")
    place(st, "dagger_1", "port_stanley")
    place(st, "dagger_2", "port_stanley")
    return st


def test_fs_11_3_5_6_an_air_to_sea_strike_by_the_25_de_mayo_is_no_air_only_operation():
    """5-6: "two ops instead of one ..., provided they're both ops involving only the moving and/or
    fighting of aircraft"; the 25 de Mayo is a ship, not an aircraft unit (4-6 leaves it free to
    strike, docs/rulesets.md). An Op #18 it flies is the phase's only operation, as any other kind;
    as the second of two it is refused naming 5-6 and not offered; two aircraft strikes are two."""
    st = _panache()
    out, after = play(st, AR, op(18, area="sa7", carriers=["25_de_mayo"], fire=fire(("25_de_mayo", "glamorgan"))),
                      FixedDice(default=6))
    assert after["phase"] == "UK Submarine"
    out, st = play(st, AR, op(18, area="sa7", aircraft=["dagger_1"], fire=fire(("dagger_1", "glamorgan"))),
                   FixedDice(default=6))
    out, st = answer(st, UK, {"fire": "auto"}, FixedDice(default=6))  # Glamorgan fires back, misses
    assert st["phase"] == "AR Operations" and pending(st) is None
    r = broken(st, AR, op(18, area="sa7", aircraft=["dagger_2"], carriers=["25_de_mayo"],
                          fire=fire(("dagger_2", "glamorgan"), ("25_de_mayo", "glamorgan"))), "FS 11.3 5-6")
    assert "25 de Mayo" in str(r)
    template = R.operation_template(st, AR, 18)
    assert all(v["carriers"] == [] for v in template["choices"]["area"].values())
    out, st = play(st, AR, op(18, area="sa7", aircraft=["dagger_2"], fire=fire(("dagger_2", "glamorgan"))),
                   FixedDice(default=6))
    out, st = answer(st, UK, {"fire": "auto"}, FixedDice(default=6))
    assert st["phase"] == "UK Submarine"
