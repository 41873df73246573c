"""Solitaire Task Force through the pages in Chromium: the Player's game page shows the stf game
(its one seat, whose move, the orders legal-orders offers, a pending declaration), its board when
the ruleset draws one (the movement helper's maps, ``board()``), ends a phase from the form, and
the replay steps through the game event by event."""

from __future__ import annotations

import json
import random
import uuid

import pytest

from domain.rulesets import find_ruleset
from domain.rulesets.stf import play
from tests.browser.helpers import hash_seq, no_horizontal_scroll, pick_order, send, shoot
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow

R = find_ruleset("stf")


class Http:
    def __init__(self, server: str, game_id: str, token: str):
        self.server, self.game_id = server, game_id
        self.auth = {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> dict:
        status, _, body = http_json("GET", f"{self.server}/api/v1/games/{self.game_id}{path}", headers=self.auth)
        assert status == 200, body
        return body

    def legal_orders(self, state, seat):
        return self.get("/legal-orders")["orders"]

    def order(self, body: dict) -> tuple[int, dict]:
        status, _, result = http_json("POST", f"{self.server}/api/v1/games/{self.game_id}/orders", body,
                                      {**self.auth, "Idempotency-Key": str(uuid.uuid4())})
        return status, result


def new_game(server: str) -> Http:
    status, _, made = http_json("POST", f"{server}/api/v1/games", {"ruleset": "stf"})
    assert status == 201 and list(made["invites"]) == ["Player"], made
    status, _, joined = http_json("POST", f"{server}/api/v1/games/{made['game_id']}/join",
                                  {"invite_code": made["invites"]["Player"], "handle": "nimitz"})
    assert status == 201, joined
    return Http(server, made["game_id"], joined["token"])


def play_some(game: Http, most: int, until_turn: int) -> dict:
    """The random Player's orders over HTTP, at most ``most`` of them, until turn ``until_turn``
    or until nothing is offered; the state then."""
    player = play.RandomPlayer(random.Random(29))
    for _ in range(most):
        state = game.get("/state")["state"]
        if state["ended"] or state["turn"] >= until_turn or not game.legal_orders(state, "Player"):
            return state
        for order in player.candidates(game, state):
            status, result = game.order(order)
            if status == 201:
                player.accepted(state, order)
                break
            assert status == 422 and result["rule"].startswith("STF "), result
        else:
            raise AssertionError(f"no order accepted in {state['phase']}")
    return game.get("/state")["state"]


def keyed_tab(open_tab, game: Http, width: int = 1280, height: int = 1000):
    """A tab whose browser holds the Player's token for the game (as joining from the page leaves it)."""
    tab = open_tab(width, height)
    keys = {"seats": {"Player": game.auth["Authorization"].split()[1]}, "active": "Player"}
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game.game_id}', {json.dumps(json.dumps(keys))})")
    return tab


def open_game(open_tab, game: Http, width: int = 1280, height: int = 1000):
    return keyed_tab(open_tab, game, width, height).goto(f"{game.server}/games/{game.game_id}")


def check_board(page, state: dict) -> None:
    """The board of the theatre the campaign fixed (STF 1.1), every group on the map a counter in
    its hex; no map before the campaign names one (or without the maps, ``board()`` None)."""
    board = R.board()
    theatre = state.get("campaign", {}).get("map")
    if board is None or theatre is None:
        page.wait_for_selector("#board .no-map")
        assert page.locator("#board svg.map-hexes").count() == 0
        return
    page.wait_for_selector("#board svg.map-hexes")
    grid = board["theatres"][theatre]["grid"]
    assert page.locator("#board svg.map-hexes").get_attribute("data-hexes") == str(grid["columns"] * grid["rows"])
    on_map = {gid: g["hex"] for gid, g in state["groups"].items() if g.get("hex")}
    assert page.locator("#board g.counter").count() == len(on_map)
    for gid, where in on_map.items():
        assert page.locator(f"#board g.counter[data-unit='{gid}'][data-hex='{where}']").count() == 1, gid
        g = state["groups"][gid]
        if g.get("intel"):  # a GameSystem contact shows its chit and intelligence (STF 8.3-8.7)
            said = page.locator(f"#board g.counter[data-unit='{gid}'] > title").text_content()
            assert f"{g['chit'] or 'no'} chit, {g['intel']}" in said, (gid, said)


def test_the_players_game_page_shows_the_stf_game_its_orders_and_its_board(server, open_tab, shots):
    game = new_game(server)
    state = play_some(game, most=30, until_turn=1)
    tab = open_game(open_tab, game)
    page = tab.page
    page.wait_for_selector("#turn:has-text('Player')")
    assert "system" not in page.text_content("#seatbar")  # the GameSystem is no seat to join or show
    legal = game.legal_orders(state, "Player")
    for kind in {o["kind"] for o in legal}:
        assert page.locator(f'#kinds input[data-kind="{kind}"]').count() >= 1, kind
    check_board(page, state)
    if state["turn"] >= 1 and not state["pending"]:
        # STF 6.7: the Player ends its part of the phase from the form; the GameSystem's steps follow
        pick_order(page, "end_phase")
        send(page, "OrderAccepted")
        after = game.get("/state")["state"]
        assert (after["phase"], after["pending"]) != (state["phase"], [])
        if after["pending"] and after["pending"][0]["kind"] == "declare":
            # STF 5.1: the random event to declare shows in the pending panel, one choice a radio
            page.wait_for_selector("#pending-box:not([hidden])")
            assert after["pending"][0]["prompt"].split(":")[0] in page.text_content("#pending")
            value = after["pending"][0]["options"]["choices"][-1]
            page.locator("#kinds label", has_text=f"declare: {value}").locator("input").check()
            send(page, "ResultDeclared")
            assert f"declared the random event of the turn: {value}" in page.text_content("#result")
    shoot(page, shots / "stf-game.png")
    tab_phone = open_game(open_tab, game, 375, 740)
    no_horizontal_scroll(tab_phone.page)
    assert not tab.errors and not tab_phone.errors, (tab.errors, tab_phone.errors)


def test_the_replay_of_an_stf_game_steps_through_it(server, open_tab, shots):
    game = new_game(server)
    play_some(game, most=40, until_turn=2)
    lines = game.get("/events?limit=500")["events"]
    tab = keyed_tab(open_tab, game)
    replay = tab.goto(f"{server}/games/{game.game_id}/replay").page
    replay.keyboard.press("End")
    last = hash_seq(replay)
    assert last == lines[-1]["seq"]
    check_board(replay, game.get("/state")["state"])
    shoot(replay, shots / "stf-replay-end.png")
    assert replay.locator("#history li").count() >= len(lines) - 1
    replay.keyboard.press("Home")
    first = hash_seq(replay)
    assert first < last
    replay.keyboard.press("ArrowRight")
    assert hash_seq(replay) > first
    joined = next(line["seq"] for line in lines if line["type"] == "SeatJoined")
    replay.click(f"#history li[data-seq='{joined}'] button")
    assert hash_seq(replay) == joined
    assert "nimitz joined as Player" in replay.text_content("#history")
    shoot(replay, shots / "stf-replay.png")
    assert not tab.errors, tab.errors
