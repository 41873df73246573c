"""Falklands Showdown: which units take part in a battle, and where an operation may be made, for
the readings an earlier examiner doubted (Op #14 and the defender's submarines, Op #17 and Op #11's
list, Op #12 in the South Georgia box). Each docstring quotes the text that decides the case;
docs/rulesets.md ("Interpretations where the text is open") states each in a line."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, AR_DESTROYERS, AR_SUBS, UK, UK_DESTROYERS, UK_INFANTRY, UK_SUBS, FixedDice, ar, broken, control,
    events_of, fire, op, pending, place, play, uk, with_factor,
)

SEA = "sa7"
FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])


def test_fs_7_1_op_14_the_enemys_submarines_in_the_area_neither_are_targets_nor_fire_back(monkeypatch):
    """Op #14 "use your surface vessels and/or submarines to attack enemy surface vessels (but not
    enemy submarines)". Read with 10.2 ("it's not allowed to withhold units from participating in
    a battle going on within its area"): the attacker's submarines there join (his own force), the
    battle is between them and the enemy's surface vessels; the enemy's submarines in the area are
    outside it - not targets, and they do not fire (open: 10.2's ban on withholding could be read to
    make them fire defensively, untouchable; Op #20 is the operation that fights them)."""
    st = uk()
    place(st, UK_DESTROYERS[0], SEA)
    place(st, UK_SUBS[0], SEA)
    place(st, AR_DESTROYERS[0], SEA)
    place(st, AR_SUBS[0], SEA)
    with_factor(monkeypatch, AR_SUBS[0], surface=3)  # a submarine able to fire at ships
    broken(st, UK, op(14, area=SEA, units=[UK_DESTROYERS[0]], fire=fire((UK_DESTROYERS[0], AR_SUBS[0]))),
           "FS 7.1 Op #14")  # "but not enemy submarines"
    out, st2 = play(st, UK, op(14, area=SEA, units=[UK_DESTROYERS[0]], fire="auto"), FixedDice(default=6))
    (b,) = events_of(out, "BattleBegun")
    assert b["defenders"] == [AR_DESTROYERS[0]]
    assert UK_SUBS[0] in b["attackers"]  # the attacker's own submarine is not withheld (10.2)
    options = pending(st2)["options"]["fire"]
    assert AR_SUBS[0] not in options and set(options) == {AR_DESTROYERS[0]}


def test_fs_7_1_op_17_has_no_aircraft_so_op_11_finds_nothing_to_intercept_in_it():
    """Op #17: "The units that are landed from those vessels are the only ones allowed to fight in
    that land area during this operation"; its only support is "Friendly ships in that same sea
    area may conduct a naval bombardment". Op #11 lists 17 among the AR actions that may be
    intercepted, but Op #17 flies no aircraft: an AR assault with UK carriers right there meets no
    interception, and aircraft named in it are refused (Op #15, #18, #19, #20 are the operations
    that commit aircraft)."""
    st = ar()
    place(st, "hermes", "falklands")
    place(st, UK_INFANTRY[0], FLAT)
    control(st, UK, FLAT)
    place(st, "cabo_san_antonio", "falklands")
    place(st, "ri_12", aboard="cabo_san_antonio")
    dagger = next(u for u, d in DATA.units.items() if d["type"] == "Dgr")
    place(st, dagger, S.ARGENTINA)
    broken(st, AR, op(17, area=FLAT, wave=["ri_12"], aircraft=[dagger], fire="auto"), "FS 7.1 Op #17")
    out, st2 = play(st, AR, op(17, area=FLAT, wave=["ri_12"], fire="auto"))
    assert (pending(st2) or {}).get("kind") != "interception"
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ri_12"]


def test_fs_7_1_op_12_no_cross_decking_in_the_south_georgia_holding_box():
    """Op #12 "switch around ground units from naval vessels to other naval vessels in the same sea
    area"; FS 3.7 "Note that the box is neither a sea nor a land area; it is a holding box with its
    own special rules" (its rules - 7.1, Ops 4 & 5, 4.4(2), 6.4, 9.1, 9.7 - give it no
    cross-decking). As 10.9's rendezvous ("in the same sea area") never happens there, two ships in
    the box do not cross-deck; the same two ships in Sea Area 5 do."""
    st = uk()
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, "canberra", S.SOUTH_GEORGIA)
    place(st, "norland", S.SOUTH_GEORGIA)
    place(st, UK_INFANTRY[0], aboard="canberra")
    broken(st, UK, op(12, moves={UK_INFANTRY[0]: "norland"}), "FS 7.1 Op #12")
    place(st, "canberra", "sa5")
    place(st, "norland", "sa5")
    out, _ = play(st, UK, op(12, moves={UK_INFANTRY[0]: "norland"}))
    assert [(e["unit"], e["ship"]) for e in events_of(out, "UnitEmbarked")] == [(UK_INFANTRY[0], "norland")]


def test_fs_7_1_op_18_the_attackers_ships_already_in_the_sea_area_stay_out_of_the_air_strike(monkeypatch):
    """Op #18 names who strikes: "a force of friendly aircraft" and carriers in range that "may be
    committed to the same attack"; Op #20 is the operation where "other friendly vessels already in
    that final sea area may also be involved". So an AR air strike on a sea area where an AR
    destroyer already is leaves the destroyer out: it fires at nothing and the UK's defensive fire
    cannot reach it (open: 10.2's "not allowed to withhold units from participating in a battle
    going on within its area" could put it in)."""
    st = ar()
    place(st, "glamorgan", SEA)
    place(st, AR_DESTROYERS[0], SEA)
    place(st, "a4_1", "port_stanley")
    with_factor(monkeypatch, "a4_1", surface=3)
    with_factor(monkeypatch, "glamorgan", surface=3, air=3)
    broken(st, AR, op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"), (AR_DESTROYERS[0], "glamorgan"))),
           "FS 10.2")
    out, st2 = play(st, AR, op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))))
    (b,) = events_of(out, "BattleBegun")
    assert b["attackers"] == ["a4_1"] and b["defenders"] == ["glamorgan"]
    assert pending(st2)["options"]["fire"] == {"glamorgan": ["a4_1"]}
