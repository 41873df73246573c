"""Round eleven of the pages: service fixes left alone before, in Chromium. Each test is a problem
found there: what the page did, checked against what docs/pages.md says."""

from __future__ import annotations

import urllib.parse

import pytest

from api.client import LINK_ELSEWHERE, LINK_WITH_USER
from tests.e2e.server import unjoined_game

pytestmark = pytest.mark.slow


def _joins(page) -> list[str]:
    """The join requests the page sends from now on."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/join") else None)
    return sent


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
    page.wait_for_function("t => document.getElementById('status').textContent.includes(t)", arg=said)
    page.fill("#j-handle", "bob")
    page.click("#join button[type=submit]")
    page.wait_for_function("t => document.getElementById('status').textContent.startsWith('Not joined: ' + t)",
                           arg=said)
    assert sent == [] and page.url == f"{server}/"
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
