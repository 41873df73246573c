"""The map drawing (api/static/board.js) in Chromium: on a small made-up board (any ruleset whose
board() has maps, areas with polygons and units with labels is drawn the same way), and on
Falklands Showdown's two maps, where every counter must lie inside its area, at any stack size."""

from __future__ import annotations

import copy

import pytest

from domain.rulesets import find_ruleset
from tests.browser.helpers import counters_out_of_place, on_map, shoot

pytestmark = pytest.mark.slow

BOARD = {
    "maps": {"sea": {"width": 400, "height": 240, "range_line": [[300, 0], [300, 240]]},
             "land": {"width": 400, "height": 240}},
    "areas": {
        "west": {"name": "West Sea", "kind": "sea", "map": "sea", "polygon": [[0, 0], [200, 0], [200, 240], [0, 240]],
                 "label_xy": [100, 60], "tez": False, "vp": 0, "airbase": 0},
        "east": {"name": "East Sea", "kind": "sea", "map": "sea", "polygon": [[200, 0], [400, 0], [400, 240], [200, 240]],
                 "label_xy": [300, 60], "tez": True, "vp": 0, "airbase": 0},
        "town": {"name": "Town", "kind": "land", "map": "land", "polygon": [[60, 40], [340, 40], [300, 200], [80, 200]],
                 "label_xy": [200, 90], "vp": 4, "airbase": 2, "entrenched": True, "mountains": False},
    },
    "units": {
        "ship": {"name": "HMS Example", "abbr": "Exmp", "side": "UK", "class": "ship", "type": "D", "steps": 2},
        "cdo": {"name": "99 Cdo", "abbr": "99C", "side": "UK", "class": "ground", "type": "infantry", "steps": 2},
        "sub": {"name": "ARA Sub", "abbr": "Sub", "side": "AR", "class": "submarine", "type": "S", "steps": 1},
        "inf": {"name": "Regt 1", "abbr": "R1", "side": "AR", "class": "ground", "type": "infantry", "steps": 1},
        "gone": {"name": "Lost One", "abbr": "L1", "side": "AR", "class": "ground", "type": "infantry", "steps": 1},
    },
}
BEFORE = {"units": {"ship": {"location": "west", "aboard": None, "steps": 2, "eliminated": False},
                    "cdo": {"location": None, "aboard": "ship", "steps": 2, "eliminated": False},
                    "sub": {"location": "east", "aboard": None, "steps": 1, "eliminated": False},
                    "inf": {"location": "town", "aboard": None, "steps": 1, "eliminated": False},
                    "gone": {"location": "town", "aboard": None, "steps": 1, "eliminated": False}},
          "control": {"town": "AR"}}
AFTER = {"units": {**BEFORE["units"], "ship": {"location": "east", "aboard": None, "steps": 1, "eliminated": False},
                   "gone": {"location": None, "aboard": None, "steps": 0, "eliminated": True}},
         "control": {"town": "AR"}}


def test_areas_counters_steps_hit_markers_passengers_and_moves_are_drawn(server, open_tab, shots):
    tab = open_tab(900, 800)
    tab.goto(f"{server}/games/00000000-0000-4000-8000-000000000000")  # any page that loads board.js
    drawn = tab.page.evaluate("""([board, before, after]) => {
        const box = document.createElement('div'); box.id = 'test-board'; box.className = 'board';
        document.querySelector('main').prepend(box);
        const highlight = Warlog.Board.changes(before, after);
        return {summary: Warlog.Board.draw(box, board, after, {highlight}), highlight};
    }""", [BOARD, BEFORE, AFTER])
    assert drawn["summary"] == {"maps": 2, "areas": 3, "counters": 3}
    assert drawn["highlight"] == {"moved": {"ship": "west"}, "hit": ["ship", "gone"]}
    page = tab.page
    assert page.locator("#test-board svg.map").count() == 2
    assert page.locator("#test-board polygon.area").count() == 3
    assert page.locator("#test-board polygon.area.tez[data-area=east]").count() == 1
    ship = page.locator("#test-board g.counter[data-unit=ship]")
    assert "Exmp" in ship.text_content() and ship.get_attribute("data-steps") == "1"
    assert "hit" in ship.get_attribute("class") and "moved" in ship.get_attribute("class")
    assert ship.locator(".hit-marker").count() == 1 and ship.locator(".pip").count() == 2
    assert ship.locator(".aboard").text_content() == "+1"  # the commando rides on the ship
    assert page.locator("#test-board g.counter[data-unit=cdo]").count() == 0
    assert page.locator("#test-board g.counter[data-unit=gone]").count() == 0
    assert page.locator("#test-board g.counter[data-unit=sub] .hit-marker").count() == 0
    # the counter stands at its area's label: inside the East Sea's half of the map
    box = ship.bounding_box()
    svg = page.locator("#test-board svg[data-map=sea]").bounding_box()
    assert box["x"] > svg["x"] + svg["width"] / 2
    assert page.locator("#test-board line.move-arrow[data-unit=ship]").count() == 1
    assert page.locator("#test-board polygon.area.lit").count() == 2
    assert page.locator("#test-board polyline[data-line=range_line]").count() == 1
    assert "★4" in page.locator("#test-board svg[data-map=land]").text_content()
    units = page.locator("#test-board details.units").text_content()
    assert "HMS Example, UK, D, 1 of 2 steps, Hit (carrying 99 Cdo)" in units and "Eliminated: Lost One" in units
    page.locator("#test-board").screenshot(path=str(shots / "board-made-up.png"))


def test_a_board_of_none_says_there_is_no_map(server, open_tab):
    tab = open_tab()
    tab.goto(f"{server}/games/00000000-0000-4000-8000-000000000000")
    text = tab.page.evaluate("""() => { const box = document.createElement('div');
        Warlog.Board.draw(box, null, {units: {}}); return box.textContent; }""")
    assert "no map" in text


DRAW = """([board, state, opts]) => {
    let box = document.getElementById('test-board');
    if (!box) { box = document.createElement('div'); box.id = 'test-board'; box.className = 'board';
                document.querySelector('main').prepend(box); }
    return Warlog.Board.draw(box, board, state, opts || {}).counters;
}"""


def test_every_falklands_counter_lies_inside_its_area_at_the_start(server, open_tab, shots):
    """Issue 29: at the start, Argentina's 25 counters ran off the map's left edge and stacks spilled
    over their neighbours' names. Every counter's box lies inside the map, inside its area's
    polygon, clear of every label and of every other counter."""
    rules = find_ruleset("falklands")
    board, state = rules.board(), rules.setup(None, {}).state
    tab = open_tab(1280, 900)
    tab.goto(f"{server}/games/00000000-0000-4000-8000-000000000000")  # any page that loads board.js
    drawn = tab.page.evaluate(DRAW, [board, state])
    assert drawn == len(on_map(board, state)) > 40
    assert tab.page.locator("#test-board g.counter").count() == drawn
    assert counters_out_of_place(tab.page, "#test-board", state) == []
    # and legible: no counter below half the full size (4% of the map's width), not even on Pebble
    # Island, whose name goes above the island when the island has no room beside it
    faces = tab.page.eval_on_selector_all("#test-board g.counter rect.face", "rs => rs.map(r => +r.getAttribute('width'))")
    assert min(faces) >= 0.5 * 0.04 * board["maps"]["tactical"]["width"]
    tab.page.locator("#test-board").screenshot(path=str(shots / "board-falklands-start.png"))
    assert not tab.errors, tab.errors


def test_every_falklands_area_holds_a_stack_of_every_unit_inside_it(server, open_tab, shots):
    """The biggest stack there can be: every unit of both sides in one area, area after area, with
    what sticks out of a counter (every two-step unit with a Hit marker, a ship carrying three units,
    every counter outlined as moved or struck). The counters get smaller to fit, and still lie inside
    the area, clear of the labels and each other."""
    rules = find_ruleset("falklands")
    board, start = rules.board(), rules.setup(None, {}).state
    riders = [u for u, x in board["units"].items() if x["class"] == "ground"][:3]
    tab = open_tab(1280, 900)
    tab.goto(f"{server}/games/00000000-0000-4000-8000-000000000000")
    wrong = {}
    for k, area in enumerate(board["areas"]):
        state = copy.deepcopy(start)
        for uid, unit in state["units"].items():
            unit.update(location=area, aboard=None, eliminated=False, steps=1)
        for uid in riders:
            state["units"][uid].update(location=None, aboard="hermes")
        units = sorted(state["units"])
        moved = {u: None for u in units[k % 2::2]}
        opts = {"highlight": {"moved": moved, "hit": [u for u in units if u not in moved]}}
        drawn = tab.page.evaluate(DRAW, [board, state, opts])
        assert drawn == len(board["units"]) - len(riders), area
        assert tab.page.locator("#test-board .hit-marker").count() > 20
        assert tab.page.locator("#test-board g.counter[data-unit=hermes] .aboard").text_content() == "+3"
        assert tab.page.locator("#test-board g.counter").count() == drawn, area
        problems = counters_out_of_place(tab.page, "#test-board", state)
        if problems:
            wrong[area] = problems[:3] + ([f"... {len(problems) - 3} more"] if len(problems) > 3 else [])
        if area == "port_stanley":
            tab.page.locator("#test-board svg.map[data-map=tactical]").screenshot(path=str(shots / "board-falklands-big-stack.png"))
    assert wrong == {}
    assert not tab.errors, tab.errors
