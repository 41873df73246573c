"""state.positions_indexed: inside it, units_in answers from an index of where the alive units
are; the answers must be the scan's, unit for unit and in the same order, for every area, side,
class set and aboard_too, on positions of random games and on hand-made ones with units aboard,
eliminated, withdrawn and out of play."""

from __future__ import annotations

import itertools

import pytest

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands import test_fuzz
from tests.unit.falklands.helpers import fresh, place, remove

AREAS = sorted({*DATA.land_areas, *DATA.sea_areas, S.TACTICAL, S.ARGENTINA, S.SOUTH_GEORGIA, "nowhere"})
SIDES = (None, S.UK, S.AR)
CLASSES = (None, ["ground"], ["ship"], ["ship", "submarine"], ["aircraft"], ["ground", "aircraft"])


def scanned_and_indexed(state: dict) -> tuple[list, list]:
    questions = list(itertools.product(AREAS, SIDES, CLASSES, (False, True)))
    scanned = [S.units_in(state, *q) for q in questions]
    with S.positions_indexed(state):
        indexed = [S.units_in(state, *q) for q in questions]
    return scanned, indexed


@pytest.fixture(scope="module")
def positions() -> list[dict]:
    """Every 5th position of three random games (tests/unit/falklands/test_fuzz.py's play)."""
    return [state for state, _ in test_fuzz.positions(3)][::5]


def test_units_in_answers_from_the_index_exactly_as_from_the_scan_in_random_games(positions):
    assert len(positions) > 20
    for state in positions:
        scanned, indexed = scanned_and_indexed(state)
        assert indexed == scanned
    assert any(any(answer) for answer in scanned)  # the questions do find units


def test_carried_eliminated_withdrawn_and_out_of_play_units_are_indexed_as_the_scan_sees_them():
    state = fresh()
    ships = [u for u, d in DATA.units.items() if d["side"] == S.UK and d["class"] == "ship" and d.get("capacity")][:2]
    troops = [u for u, d in DATA.units.items() if d["side"] == S.UK and d["class"] == "ground"][:4]
    for ship in ships:
        place(state, ship, S.TACTICAL)
    place(state, troops[0], aboard=ships[0])  # carried: in the ship's area only with aboard_too
    place(state, troops[1], aboard=ships[1])
    state["units"][ships[1]]["withdrawn"] = True  # withdrawn, with its cargo
    place(state, troops[2], "nowhere")
    state["units"][troops[2]]["eliminated"] = True
    remove(state, troops[3])  # out of play
    scanned, indexed = scanned_and_indexed(state)
    assert indexed == scanned
    with S.positions_indexed(state):
        assert S.units_in(state, S.TACTICAL, classes=["ground"], aboard_too=True) == [troops[0], troops[1]]
        assert troops[0] not in S.units_in(state, S.TACTICAL)
        assert ships[1] not in S.units_in(state, S.TACTICAL) and S.units_in(state, "nowhere") == []


def test_another_state_inside_the_block_is_scanned():
    indexed_state, other = fresh(), fresh()
    mover = S.units_in_any(other, side=S.UK, classes=["ship"])[0]
    other = place(other, mover, S.SOUTH_GEORGIA)
    with S.positions_indexed(indexed_state):
        assert mover in S.units_in(other, S.SOUTH_GEORGIA)


def test_ground_sides_everywhere_is_ground_sides_of_every_area(positions):
    """The one-pass answer after_ground_change uses, against ground_sides area by area, in random
    games and with carried, eliminated, withdrawn and out-of-play ground units."""
    state = fresh()
    ship = next(u for u, d in DATA.units.items() if d["side"] == S.UK and d["class"] == "ship" and d.get("capacity"))
    troops = [u for u, d in DATA.units.items() if d["side"] == S.UK and d["class"] == "ground"][:5]
    enemy = next(u for u, d in DATA.units.items() if d["side"] == S.AR and d["class"] == "ground")
    area, contested = sorted(DATA.land_areas)[:2]
    place(state, enemy, contested)
    place(state, ship, S.TACTICAL)
    place(state, troops[0], aboard=ship)
    place(state, troops[1], area)
    place(state, troops[2], contested)
    state["units"][troops[2]]["eliminated"] = True
    place(state, troops[3], contested)
    empty = next(a for a in sorted(DATA.land_areas) if not S.ground_sides(state, a))
    place(state, troops[4], empty)
    state["units"][troops[4]]["withdrawn"] = True
    out_of_play = remove(fresh(), *troops)
    for each in [*positions, state, out_of_play]:
        everywhere = S.ground_sides_everywhere(each)
        for where in AREAS:
            assert everywhere.get(where, set()) == S.ground_sides(each, where), where
    assert S.ground_sides_everywhere(state).get(area) == {S.UK}
    assert S.ground_sides_everywhere(state).get(contested) == {S.UK, S.AR}
    assert empty not in S.ground_sides_everywhere(state)


def test_units_in_any_is_every_alive_unit_of_the_side_and_classes_in_state_order(positions):
    """units_in_any passes over units by a set of each class's ids made once: the answer must be
    the plain filter's (``alive``, the unit's side, its class in DATA), for every side and class
    set, in random games and with eliminated, withdrawn and out-of-play units."""
    def plain(state, side, classes):
        return [u for u in state["units"] if S.alive(state, u) and (not side or state["units"][u]["side"] == side)
                and (not classes or DATA.units[u]["class"] in classes)]

    state = fresh()
    ships = [u for u, d in DATA.units.items() if d["side"] == S.UK and d["class"] == "ship"][:3]
    state["units"][ships[0]]["eliminated"] = True
    state["units"][ships[1]]["withdrawn"] = True
    remove(state, ships[2])
    for position in [state, *positions]:
        for side, classes in itertools.product(SIDES, CLASSES):
            assert S.units_in_any(position, side, classes) == plain(position, side, classes)
    assert not set(ships) & set(S.units_in_any(state, S.UK, ["ship"]))
    assert S.units_in_any(state, S.UK, ("ship",)) == S.units_in_any(state, S.UK, ["ship"])


def test_units_in_any_follows_a_units_table_swapped_for_another(monkeypatch):
    """A test may swap DATA.units (helpers.with_factor): the ids of a class come from the table
    in place, not one seen before."""
    state = fresh()
    ship = S.units_in_any(state, S.UK, ["ship"])[0]
    table = {uid: dict(entry) for uid, entry in DATA.units.items()}
    table[ship]["class"] = "submarine"
    monkeypatch.setattr(DATA, "units", table)
    assert ship not in S.units_in_any(state, S.UK, ["ship"])
    assert ship in S.units_in_any(state, S.UK, ["submarine"])
