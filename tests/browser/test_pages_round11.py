"""Round eleven of the pages, in Chromium: a new user's games and the service fixes left alone
before. Each test is a problem found there: what the page did, checked against what
docs/pages.md says."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from api.client import LINK_ELSEWHERE, LINK_WITH_USER
from tests.browser.helpers import freeform_game, open_with_keys, pick_order, send
from tests.e2e.server import http_json, unjoined_game

pytestmark = pytest.mark.slow


def test_the_seat_asked_for_a_take_back_is_told_to_answer_it_not_to_wait_for_its_move_ff_6(server, open_tab):
    """FF 6: while a take-back waits, the game waits for the other seat's answer (its summary names
    that seat to move). Its page said "Your move, Red." above "Nothing to order now: wait for your
    move.": the move it had was the answer, in the Take-back panel. Both lines now say so, and the
    seat that asked reads whose answer it waits for."""
    game_id, _, tokens = freeform_game(server)
    blue = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    pick_order(blue.page, "note")
    blue.page.fill("#f-text", "Blue digs in")
    send(blue.page, "OrderAccepted")
    status, _, asked = http_json("POST", f"{server}/api/v1/games/{game_id}/take-backs", {"reason": "wrong ridge"},
                                 {"Authorization": f"Bearer {tokens['Blue']}"})
    assert status in (200, 201), asked

    red = open_with_keys(open_tab, server, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"})
    red.page.wait_for_selector("#takeback-box:not([hidden])")
    assert red.page.text_content("#turn") == "Your move, Red: answer Blue's take-back (below)."
    hint = red.page.text_content("#kinds")
    assert "wait for your move" not in hint and "Nothing to order until the take-back is answered" in hint, hint
    blue.page.wait_for_selector("#turn:has-text('Waiting for Red to answer your take-back')")
    assert not blue.errors and not red.errors


def test_stf_1_5_the_purchase_offered_is_in_the_order_the_page_sends(server, open_tab):
    """STF's legal orders are whole orders. The page pre-filled its JSON editor with their scalar
    values only, so STF 1.5's purchase went as {"kind": "buy", "sosus": 0}, which the server
    refused (STF 1.12: the carriers' escorts not bought): the units offered were only "Choices
    offered" beside it. The editor now holds the order as offered, every value of it."""
    from tests.browser.test_stf_pages import new_game

    game = new_game(server)
    assert game.order({"kind": "campaign", "map": "giuk", "side": "US"})[0] == 201
    offered = [o["kind"] for o in game.get("/legal-orders")["orders"]]
    if "draw_carriers" in offered:
        assert game.order({"kind": "draw_carriers"})[0] == 201
    buy = next(o for o in game.get("/legal-orders")["orders"] if o["kind"] == "buy")
    tab = open_with_keys(open_tab, server, game.game_id,
                         {"seats": {"Player": game.auth["Authorization"].split()[1]}, "active": "Player"})
    page = tab.page
    page.wait_for_selector('#kinds input[data-kind="buy"]')
    page.locator('#kinds input[data-kind="buy"]').first.check()
    assert json.loads(page.input_value("#raw-order")) == buy
    send(page, "OrderAccepted")
    assert not tab.errors


def _joins(page) -> list[str]:
    """The join requests the page sends from now on."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/join") else None)
    return sent


def refused_and_not_sent(page, sent: list[str], server: str, said: str) -> None:
    """The lobby says ``said`` of the link pasted, and again, as "Not joined", when the form is sent; no join goes."""
    page.wait_for_function("t => document.getElementById('status').textContent.includes(t)", arg=said)
    page.fill("#j-handle", "bob")
    page.click("#join button[type=submit]")
    page.wait_for_function("t => document.getElementById('status').textContent.startsWith('Not joined: ' + t)",
                           arg=said)
    assert sent == [] and page.url == f"{server}/"


@pytest.mark.parametrize("field", ["#j-game", "#j-invite"])
def test_an_invite_link_to_another_server_pasted_in_the_lobby_says_so_and_sends_no_join(server, open_tab, field):
    """An invite link of another warlog server, pasted into the lobby's join form, was taken apart
    and joined here: "Not joined: unknown game", with no word of the server. The page now says
    the link is another server's, in the words `warlog join` uses, and sends nothing."""
    made = unjoined_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    elsewhere = "https://warlog.elsewhere.example"
    link = f"{elsewhere}/games/{made['game_id']}#invite={made['invites']['Red']}"
    tab = open_tab().goto(f"{server}/")
    page, sent = tab.page, _joins(tab.page)
    page.fill(field, link)
    said = LINK_ELSEWHERE.format(server=elsewhere, here=server)
    refused_and_not_sent(page, sent, server, said)
    # The same game id and code by a link of this server join here.
    page.fill(field, f"{server}/games/{made['game_id']}#invite={made['invites']['Red']}")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"{server}/games/{made['game_id']}")
    assert not tab.errors, tab.errors


def test_an_invite_link_with_a_user_part_is_refused_in_the_lobby_as_the_cli_refuses_it(server, open_tab):
    """http://this-server@evil.example/games/… reads as this server and goes to evil.example;
    `warlog join` refuses it, saying so, and the lobby now says the same words."""
    made = unjoined_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    host = urllib.parse.urlsplit(server).netloc
    bad = f"http://{host}@evil.example"
    tab = open_tab().goto(f"{server}/")
    page, sent = tab.page, _joins(tab.page)
    page.fill("#j-game", f"{bad}/games/{made['game_id']}#invite={made['invites']['Red']}")
    page.fill("#j-handle", "eve")
    page.click("#join button[type=submit]")
    said = LINK_WITH_USER.format(server=bad, host="evil.example")
    page.wait_for_function("t => document.getElementById('status').textContent === 'Not joined: ' + t", arg=said)
    assert sent == []
    assert not tab.errors, tab.errors
