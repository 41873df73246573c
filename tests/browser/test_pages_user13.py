"""What a new user trips on in the pages (round 13), in Chromium: STF's "Units by hex" listed no
unit (empty while the force was bought, its groups' ships never named); the replay's step between
event and phase was Falklands' "op" in every game; the lobby's VP column did not say what
Falklands Showdown's signed VP mean."""

from __future__ import annotations

import pytest

from tests.browser.helpers import shoot
from tests.browser.test_stf_pages import keyed_tab, new_game, open_game
from tests.e2e.server import http_json, started_game, unjoined_game

pytestmark = pytest.mark.slow


def ship(unit: dict) -> str:
    """A unit as the units list names it: its class and name (STF's counters: "CV Kiev")."""
    return f"{unit['class']} {unit['name']}"


def until(game, done, most: int = 60) -> dict:
    """The first legal order, again and again, until ``done(state)``; the state then."""
    for _ in range(most):
        state = game.get("/state")["state"]
        if done(state):
            return state
        status, result = game.order(game.legal_orders(state, "Player")[0])
        assert status == 201, result
    raise AssertionError("not reached")


def units_listed(page, state: dict) -> None:
    """Every unit of the state in the board's units list: with its group at the group's hex, or
    not on the map while its group has none (or it is in none), a sunk one eliminated."""
    items = page.locator("#board details.units li").all_text_contents()
    groups = state["groups"]
    for uid, unit in state["units"].items():
        group = groups.get(unit.get("group")) or {}
        if unit.get("sunk"):
            where = "Eliminated: "
        elif group.get("hex"):
            where = f"{group['hex']}: "
        else:
            where = "Not on the map: "
        line = next((x for x in items if x.startswith(where)), "")
        assert ship(unit) in line, (uid, where, items)
        if group.get("hex"):
            assert f"{unit['group']} (task force)" in line or f"{unit['group']} (subron)" in line, (uid, line)


def test_the_stf_units_by_hex_lists_every_unit_with_its_group_stf_1_5_6_1(server, open_tab, shots):
    """STF 1.5, 1.14, 6.1: the Player's page showed the theatre's map and under it "Units by hex",
    which was empty while the force was bought and named only group ids (P1, TF3) once it was
    deployed: no ship anywhere. The section now lists each unit: not on the map until its group is
    placed, then under its group's hex ("P1 (task force), Player (with CV Kiev, …)"); with no unit
    and no group placed it is not shown at all. The replay viewer draws the same list."""
    game = new_game(server)
    status, result = game.order({"kind": "campaign", "map": "giuk", "side": "Soviet"})
    assert status == 201, result
    state = game.get("/state")["state"]
    tab = open_game(open_tab, game)
    tab.page.wait_for_selector("#board svg.map-hexes")
    anything = state["units"] or any(g.get("hex") for g in state["groups"].values())
    assert tab.page.locator("#board details.units").count() == (1 if anything else 0), state["units"]

    bought = until(game, lambda s: s["units"] and not s["groups"])  # STF 1.5: bought, in no group yet
    tab = open_game(open_tab, game)
    tab.page.wait_for_selector("#board details.units")
    units_listed(tab.page, bought)

    deployed = until(game, lambda s: s["turn"] >= 1)  # STF 6.1: the groups are on the map
    tab = open_game(open_tab, game)
    tab.page.wait_for_selector("#board details.units")
    units_listed(tab.page, deployed)
    mine = [gid for gid, g in deployed["groups"].items() if g["owner"] == "Player" and g.get("hex") and g["units"]]
    assert mine, deployed["groups"]
    said = tab.page.locator(f"#board g.counter[data-unit='{mine[0]}'] > title").text_content()
    assert f"; with {ship(deployed['units'][deployed['groups'][mine[0]]['units'][0]])}" in said, said
    assert "+N = units in the group" in tab.page.text_content("#board")
    shoot(tab.page, shots / "stf-units-by-hex.png")

    seen = keyed_tab(open_tab, game)
    page = seen.goto(f"{server}/games/{game.game_id}/replay").page
    page.keyboard.press("End")
    page.wait_for_selector("#board details.units")
    units_listed(page, game.get("/state")["state"])
    assert not tab.errors and not seen.errors, (tab.errors, seen.errors)


def step_words(page) -> tuple[str, str, str, str]:
    return (page.text_content("#prev-op"), page.text_content("#next-op"), page.get_attribute("#next-op", "title"),
            page.text_content("#controls .keys"))


def test_the_replay_steps_in_the_rulesets_own_unit_of_play(server, open_tab):
    """The replay's step between event and phase was "‹ op" / "op ›" ("Next operation") and its
    position "operation 3" in every game: Falklands' word (FS 7.1), in a freeform game or STF too.
    The words now come from the ruleset's description (GET /api/v1/rulesets/{name}: unit_of_play):
    an operation in Falklands Showdown, an action in STF, an order in freeform; the offline file
    takes the same word from its frames."""
    made = {}
    for ruleset, body in (("falklands", {"ruleset": "falklands", "public": True}),
                          ("freeform", {"ruleset": "freeform", "public": True,
                                        "options": {"sides": ["Blue", "Red"], "phases": ["Move"]}})):
        made[ruleset] = started_game(server, body)[0]
    stf = new_game(server)
    until(stf, lambda s: s["units"])
    made["stf"] = stf.game_id
    for ruleset, game_id in made.items():
        status, _, described = http_json("GET", f"{server}/api/v1/rulesets/{ruleset}")
        word = described["unit_of_play"]
        assert word == {"falklands": "operation", "stf": "action", "freeform": "order"}[ruleset]
        tab = keyed_tab(open_tab, stf) if ruleset == "stf" else open_tab()
        page = tab.goto(f"{server}/games/{game_id}/replay").page
        page.keyboard.press("End")
        prev, nxt, title, keys = step_words(page)
        assert (prev, nxt, title) == (f"‹ {word}", f"{word} ›", f"Next {word} (Shift+→)"), (ruleset, prev, nxt, title)
        assert f"Shift+← → {word} ·" in keys, keys
        assert f" · {word} " in page.text_content("#where"), page.text_content("#where")
        others = {"operation", "action", "order"} - {word}
        assert not any(f"{w} ›" in nxt or f" · {w} " in page.text_content("#where") for w in others)
        assert not tab.errors, tab.errors
    # the frames carry the word too, for the offline file (workers/replay.py), which reads no ruleset
    assert stf.get("/frames")["unit_of_play"] == "action"


def test_the_lobby_says_what_the_vp_column_means_fs_4_1(server, open_tab):
    """FS 4.1, 4.6: Falklands Showdown keeps one signed VP track ("AR 3" may favour either side),
    which its ruleset's vp_note explains in `warlog show`, the game page and the replay, not in the
    lobby's VP column. The lobby now marks such a game's VP ("*", the note in its title) and says
    the note under the table; a freeform game, whose sides name their own VP, gets no mark."""
    fs = unjoined_game(server, {"ruleset": "falklands", "public": True})["game_id"]
    ff = unjoined_game(server, {"ruleset": "freeform", "public": True,
                                "options": {"sides": ["Blue", "Red"], "phases": ["Move"]}})["game_id"]
    note = http_json("GET", f"{server}/api/v1/rulesets/falklands")[2]["vp_note"]
    listed = {r["name"]: r for r in http_json("GET", f"{server}/api/v1/rulesets")[2]}
    assert note and listed["falklands"]["vp_note"] == note and listed["freeform"]["vp_note"] is None
    tab = open_tab().goto(f"{server}/")
    page = tab.page
    fs_row, ff_row = page.locator(f"#games tr[data-game='{fs}']"), page.locator(f"#games tr[data-game='{ff}']")
    assert fs_row.locator("sup.vp-mark").get_attribute("title") == note
    assert ff_row.locator("sup.vp-mark").count() == 0
    assert page.locator("#games-vp-notes").is_visible()
    assert page.text_content("#games-vp-notes li[data-ruleset='falklands']") == f"* VP in falklands: {note}"
    assert page.locator("#games-vp-notes li[data-ruleset='freeform']").count() == 0
    phone = open_tab(375, 740).goto(f"{server}/")
    assert phone.page.locator("#games-vp-notes li").count() >= 1
    assert not tab.errors and not phone.errors, (tab.errors, phone.errors)
