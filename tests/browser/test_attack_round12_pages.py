"""Attacker round 12, in Chromium: the lobby's refusal of another server's invite link."""

from __future__ import annotations

import pytest

from api.client import LINK_ELSEWHERE
from tests.browser.test_pages_round11 import _joins, refused_and_not_sent
from tests.e2e.server import unjoined_game

pytestmark = pytest.mark.slow


def test_an_invite_link_to_another_server_without_its_scheme_is_refused_in_the_lobby(server, open_tab):
    """A link pasted from a chat that dropped its "https://" (warlog.elsewhere.example/games/ID#invite=CODE)
    was not a URL to the page, so not another server's: its game id and code were taken and the
    invite of that server sent to this one. It names its server as plainly as a link with a scheme."""
    made = unjoined_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    link = f"warlog.elsewhere.example/games/{made['game_id']}#invite={made['invites']['Red']}"
    tab = open_tab().goto(f"{server}/")
    page, sent = tab.page, _joins(tab.page)
    page.fill("#j-invite", link)
    said = LINK_ELSEWHERE.format(server="warlog.elsewhere.example", here=server)
    refused_and_not_sent(page, sent, server, said)
    # This server's own link without its scheme joins here.
    page.fill("#j-invite", f"{server.split('://', 1)[1]}/games/{made['game_id']}#invite={made['invites']['Red']}")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"{server}/games/{made['game_id']}")
    assert not tab.errors, tab.errors
