"""Hex maps on the pages (api/static/board.js, docs/pages.md "Hex maps"): a grid board of ~900
hexes drawn from its grid spec with one path per terrain kind (no element per hex but its name),
every hex where domain/rulesets/toolkit/hexes.py puts it, counters in the hex their location
names; a proving-ground game page (PG 6) drawing its map and refusing a blocked sight; and the
replay job's offline file of such a game drawing the same map from its embedded board."""

from __future__ import annotations

import json
import math
from uuid import UUID

import pytest

from domain.game import Game
from domain.rulesets import find_ruleset
from domain.rulesets.toolkit.hexes import Grid
from domain.verify import to_line
from tests.browser.helpers import pick_order, send, shoot
from tests.e2e.server import started_game
from tests.workers.test_replay import seed_for
from workers import replay

pytestmark = pytest.mark.slow

ANY_PAGE = "/games/00000000-0000-4000-8000-000000000000"  # any page that loads board.js
DRAW = """([board, state, opts]) => {
    const box = document.createElement('div'); box.id = 'test-board'; box.className = 'board';
    document.querySelector('main').prepend(box);
    const t0 = performance.now();
    const summary = Warlog.Board.draw(box, board, state, opts || {});
    return {summary, ms: performance.now() - t0};
}"""


def board_with_units() -> dict:
    board = find_ruleset("proving").board()
    board["units"] = {"scout": {"name": "Red Scouts", "abbr": "Sct", "side": "Red", "steps": 2},
                      **{f"b{k}": {"name": f"Blue Squad {k}", "abbr": f"B{k}", "side": "Blue", "steps": 1} for k in range(3)}}
    return board


def test_a_grid_board_draws_900_hexes_one_path_per_terrain_kind(server, open_tab, shots):
    board = board_with_units()
    state = {"units": {"scout": {"location": "L8", "steps": 1}, "b0": {"location": "P12", "steps": 1},
                       "b1": {"location": "P12", "steps": 1}, "b2": {"location": "P12", "steps": 1}}}
    tab = open_tab(1280, 1000)
    tab.goto(server + ANY_PAGE)
    drawn = tab.page.evaluate(DRAW, [board, state, {"highlight": {"moved": {"scout": "L12"}, "hit": []}}])
    assert drawn["summary"] == {"maps": 1, "areas": 0, "hexes": 900, "counters": 4}
    page = tab.page
    assert page.locator("#test-board svg.map-hexes[data-hexes='900']").count() == 1
    assert page.locator("#test-board polygon").count() == 0
    kinds = page.eval_on_selector_all("#test-board path.terrain", """ps => ps.map(p => [p.dataset.terrain,
        +p.dataset.hexes, (p.getAttribute('d').match(/M/g) || []).length])""")
    assert sorted(k for k, _, _ in kinds) == ["building", "clear", "pond", "woods"]
    assert all(n == moves for _, n, moves in kinds) and sum(n for _, n, _ in kinds) == 900
    assert dict((k, n) for k, n, _ in kinds)["woods"] == list(board["terrain"].values()).count("woods")
    assert page.locator("#test-board text.hex-name").count() == 900
    assert page.locator("#test-board g.counter[data-hex=P12]").count() == 3
    assert page.locator("#test-board g.counter[data-unit=scout][data-hex=L8].moved").count() == 1
    assert page.locator("#test-board line.move-arrow[data-unit=scout]").count() == 1
    assert "L8: Red Scouts, Red, 1 of 2 steps, Hit" in page.locator("#test-board details.units").text_content()
    assert "Woods (blocks line of sight)" in page.locator("#test-board .terrain-legend").text_content()
    page.locator("#test-board").screenshot(path=str(shots / "board-hexes-proving.png"))
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("spec", [
    {"orientation": "flat", "layout": "even", "columns": 30, "rows": 30, "naming": "letter-number"},
    {"orientation": "flat", "layout": "odd", "columns": 26, "rows": 36, "naming": "letter-number", "rows_from": "bottom"},
    {"orientation": "pointy", "layout": "odd", "columns": 20, "rows": 20, "naming": "CCRR", "rows_from": "bottom"},
    {"orientation": "pointy", "layout": "even", "columns": 12, "rows": 9, "naming": "CCRR", "first_column": 0},
], ids=["flat-even", "goose-green-like", "pointy-ccrr-bottom", "pointy-even-from-00"])
def test_every_hex_is_drawn_where_the_geometry_module_puts_it(server, open_tab, spec):
    """The page's positions, from the hex names, against hexes.py's cube coordinates: the same
    picture (up to where the map starts), so a unit ordered to L8 is drawn in L8."""
    grid = Grid(spec)
    tab = open_tab()
    tab.goto(server + ANY_PAGE)
    drawn = tab.page.evaluate("([b, names]) => names.map(n => Warlog.Board.hexCentre(b, n))",
                              [{"grid": spec}, grid.names()])
    size = 20

    def cube_xy(name):
        h = grid.hex(name)
        if grid.orientation == "flat":
            return 1.5 * h.q * size, math.sqrt(3) * (h.r + h.q / 2) * size
        return math.sqrt(3) * (h.q + h.r / 2) * size, 1.5 * h.r * size

    first = cube_xy(grid.names()[0])
    dx, dy = drawn[0][0] - first[0], drawn[0][1] - first[1]
    wrong = [n for n, xy in zip(grid.names(), drawn)
             if abs(xy[0] - cube_xy(n)[0] - dx) > 1e-6 or abs(xy[1] - cube_xy(n)[1] - dy) > 1e-6]
    assert wrong == []
    assert tab.page.evaluate("b => Warlog.Board.hexCentre(b, 'ZZ99')", {"grid": spec}) is None


def test_a_proving_ground_game_page_draws_its_hex_map_and_refuses_a_blocked_sight(server, open_tab, shots):
    game_id, _, tokens = started_game(server, {"ruleset": "proving"})
    red = open_tab(1280, 1000)
    keys = {"seats": {"Red": tokens["Red"]}, "active": "Red"}
    red.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(json.dumps(keys))})")
    page = red.goto(f"{server}/games/{game_id}").page
    page.wait_for_selector("#board svg.map-hexes")
    assert page.locator("#board svg.map-hexes").get_attribute("data-hexes") == "900"
    assert page.locator("#board text.hex-name").count() == 900
    assert page.locator("#board path.terrain").count() == 4
    pick_order(page, "sight")
    page.fill("#fields [name=from]", "L8")
    page.fill("#fields [name=to]", "P12")
    page.click("#send")
    page.wait_for_selector("#status.error")
    assert "PG 6: no line of sight from L8 to P12 (blocked by M9 (building), N10 (woods))" in page.text_content("#status")
    page.fill("#fields [name=to]", "L12")
    send(page, "DiceRolled")
    shoot(page, shots / "proving-hex-map.png")
    assert not red.errors, red.errors


def test_the_offline_replay_of_a_proving_game_draws_its_hex_map(tmp_path, open_tab):
    g = Game.create("proving", game_id=UUID(int=606), seed_for=seed_for)
    g.join("Red", "red", "r", seed_for)
    g.join("Blue", "blue", "b", seed_for)
    g.submit("Red", "o1", {"kind": "sight", "from": "L8", "to": "L12"}, seed_for)
    made = replay.frames([to_line(e) for e in g.pending_events], None)
    path = tmp_path / "proving.html"
    path.write_text(replay.replay_html(made), encoding="utf-8")
    tab = open_tab()
    requests: list[str] = []
    tab.page.on("request", lambda r: requests.append(r.url))
    tab.goto(path.as_uri())
    assert tab.page.locator("#board svg.map-hexes").get_attribute("data-hexes") == "900"
    assert tab.page.locator("#board path.terrain").count() == 4
    assert requests == [path.as_uri()] and not tab.errors, (requests, tab.errors)
