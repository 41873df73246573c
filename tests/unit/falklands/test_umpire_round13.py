"""Round 13: the operations of FS 7.1 and the submarine phases (FS 8) read as an umpire reads
them, one by one, at the edges of what each may do (positions built with the helpers; every
offered choice tried against the server over the random games' positions)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import (
    AR, UK, UK_INFANTRY, FixedDice, R, control, events_of, op, place, play, refused, set_phase, uk,
)


def _offered_cargo(st: dict) -> list[str]:
    t = R.operation_template(st, UK, 12)
    return [] if t is None else t["choices"]["units"]


def test_fs_7_1_op_12_offers_only_cargo_another_vessel_there_may_carry():
    """FS 7.1 Op #12 "as long as load limits are observed for all transporting ships", FS 6.2(2):
    "Elk, Fearless and Intrepid ... are the only transports able to" carry the B&R. With the B&R
    aboard Elk and Norland the only other transport in Sea Area 4, the B&R has no ship to go to:
    Op #12 is rightly offered (the infantry aboard Canberra may go to Norland), but its units
    listed the B&R too, whose every cross-decking is refused."""
    st = uk()
    for ship in ("elk", "canberra", "norland"):
        place(st, ship, "sa4")
    place(st, "b_r", aboard="elk")
    place(st, UK_INFANTRY[0], aboard="canberra")
    for ship in ("canberra", "norland"):
        assert refused(st, UK, op(12, moves={"b_r": ship})).rule == "FS 6.2(2)"
    assert _offered_cargo(st) == [UK_INFANTRY[0]]
    play(st, UK, op(12, moves={UK_INFANTRY[0]: "norland"}), FixedDice())
    place(st, "fearless", "sa4")  # a ship that carries the B&R: now it is listed, and taken
    assert "b_r" in _offered_cargo(st)
    play(st, UK, op(12, moves={"b_r": "fearless"}), FixedDice())


def test_fs_7_1_op_12_is_offered_where_only_a_swap_between_full_ships_is_legal():
    """FS 7.1 Op #12 "Forces may be moved about and stored as desired, as long as load limits are
    observed": the limits are checked after all the switches, so two full transports may swap
    units. The server took the swap, but Op #12 was not offered: its example tried each unit's
    move to another ship alone, and each of those overloads a full ship (FS 6.2(2)). The example
    now tries swaps too, and the units stay listed."""
    st = uk()
    place(st, "norland", "sa7")
    place(st, "stromness", "sa7")
    n = DATA.units["norland"]["capacity"] // 2
    a, b = UK_INFANTRY[:n], UK_INFANTRY[n:2 * n]
    for u in a:
        place(st, u, aboard="norland")
    for u in b:
        place(st, u, aboard="stromness")
    assert sorted(_offered_cargo(st)) == sorted(a + b)
    _, st2 = play(st, UK, op(12, moves={a[0]: "stromness", b[0]: "norland"}), FixedDice())
    assert S.where(st2, a[0]) == "sa7" and st2["units"][a[0]]["aboard"] == "stromness"


def test_fs_7_1_op_22_offers_no_destination_that_is_the_only_origin():
    """FS 7.1 Op #22 "from one friendly controlled land area ... to any other friendly controlled or
    contested land area": with the SBS alone in UK-held Port Howard, the offer listed Port Howard
    among the destinations, where the only unit it may lift already is (refused: "origin and
    destination must differ"). Now it lists the other areas only; with two origins each is the
    other's destination."""
    st = uk()
    control(st, UK, "port_howard", "san_carlos")
    place(st, "sbs", "port_howard")
    t = R.operation_template(st, UK, 22)
    assert t["choices"]["destination"] == ["san_carlos"]
    assert refused(st, UK, op(22, units=["sbs"], origin="port_howard", destination="port_howard")).rule == "FS 7.1 Op #22"
    place(st, UK_INFANTRY[0], "san_carlos")
    assert sorted(R.operation_template(st, UK, 22)["choices"]["destination"]) == ["port_howard", "san_carlos"]


def test_fs_7_1_op_4_the_force_gathers_from_several_sea_areas():
    """FS 7.1 Op #4 "a force consisting of any three surface vessels, a submarine and two special
    forces units" (a reading, docs/rulesets.md): the force is named by kind, not by area, so the
    submarine set up in the TEZ (FS 3.3) joins the surface ships of Sea Area 4, each moving to the
    box from where it is; Op #20's force moves from one area (FS 9.9)."""
    st = uk()
    for ship in ("hermes", "glamorgan", "arrow"):
        place(st, ship, "sa4")
    place(st, "sas_d", aboard="hermes")
    place(st, "sas_g", aboard="glamorgan")
    place(st, "spartan", "sa6")
    out, st2 = play(st, UK, op(4, ships=["hermes", "glamorgan", "arrow"], submarine="spartan", sf=["sas_d", "sas_g"]))
    assert [(e["unit"], e["origin"], e["destination"]) for e in events_of(out, "UnitMoved")] == [
        ("hermes", "sa4", S.SOUTH_GEORGIA), ("glamorgan", "sa4", S.SOUTH_GEORGIA), ("arrow", "sa4", S.SOUTH_GEORGIA),
        ("spartan", "sa6", S.SOUTH_GEORGIA)]
    assert st2["control"][S.SOUTH_GEORGIA] == UK
    assert refused(st, UK, op(20, units=["glamorgan", "spartan"], destination="sa5")).rule == "FS 9.9"


def test_fs_9_7_a_submarine_in_port_named_for_argentina_is_refused_as_no_move_not_under_9_7():
    """FS 8.1 "move none, one, some, or all or your submarines", 9.1 "move them to the sea area you
    want as your destination": a boat named with the area it is already in makes no move, refused
    under FS 9.1 (test_refusal_names). For an AR submarine in port the refusal named FS 9.7,
    "Santa Fe cannot move to Argentina", though 9.7 lets AR vessels be "in port" there; it now
    names 9.1 and says the boat is already there, at sea as in port."""
    st = set_phase(uk(), "AR Submarine")
    place(st, "santa_fe", S.ARGENTINA)
    place(st, "san_luis", "sa1")
    for boat, area in (("santa_fe", S.ARGENTINA), ("san_luis", "sa1")):
        err = refused(st, AR, {"kind": "submarines", "moves": {boat: area}})
        assert err.rule == "FS 9.1" and "already in" in str(err), err
    play(st, AR, {"kind": "submarines", "moves": {"santa_fe": "sa1", "san_luis": S.ARGENTINA}}, FixedDice(default=1))
    st = set_phase(uk(), "UK Submarine")
    place(st, "spartan", "sa6")
    assert refused(st, UK, {"kind": "submarines", "moves": {"spartan": S.ARGENTINA}}).rule == "FS 9.7"


def test_fs_8_3_a_boat_moved_in_its_submarine_phase_moves_and_fights_again_for_an_operation():
    """FS 8.3: "submarine moves made during these phases in no way inhibit those same boats from
    moving and/or fighting in the regular Operations Phases", and there they "do count as using up
    operations" (8.1: the phase's moves use none)."""
    st = set_phase(uk(), "UK Submarine")
    place(st, "spartan", "sa6")
    place(st, "belgrano", "sa2")
    left = st["uk_operations_left"]
    _, st = play(st, UK, {"kind": "submarines", "moves": {"spartan": "sa3"}}, FixedDice(default=6))
    assert S.where(st, "spartan") == "sa3" and st["uk_operations_left"] == left
    set_phase(st, "UK Operations", turn=st["turn"] + 1)
    out, st = play(st, UK, op(20, units=["spartan"], destination="sa2", attack=True, fire="auto"), FixedDice(default=1))
    assert S.where(st, "spartan") == "sa2" and not S.alive(st, "belgrano")
    assert st["uk_operations_left"] == left - 1
