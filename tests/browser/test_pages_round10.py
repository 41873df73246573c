"""Round ten of the pages: a new user's games with them, in Chromium. Each test is a problem found
there: what the page did, checked against what docs/pages.md says."""

from __future__ import annotations

import pytest

from tests.browser.helpers import open_with_keys, started_game
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_an_ended_games_page_offers_no_join(server, open_tab):
    """An ended game takes no join (the server refuses it: "the game has ended; no seat can be
    joined"), yet its page offered the umpire who had just pasted a token, and any visitor, "Take
    your seat" with the invite code form. The umpire's page now shows no such box; a visitor's keeps
    only the paste form, saying why."""
    game_id, admin, tokens = started_game(server, {"ruleset": "freeform", "umpire": "Ann", "public": True,
                                                   "options": {"sides": ["Blue", "Red"]}})
    status, _, ended = http_json("POST", f"{server}/api/v1/games/{game_id}/orders",
                                 {"kind": "end", "winner": "Blue", "reason": "Red retreated"},
                                 {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "end-1"})
    assert status == 201, ended
    status, _, issued = http_json("POST", f"{server}/api/v1/games/{game_id}/umpire-tokens", {},
                                  {"Authorization": f"Bearer {admin}"})
    assert status == 201, issued

    umpire = open_with_keys(open_tab, server, game_id, {"seats": {}, "umpire": issued["token"]}).page
    umpire.wait_for_selector("#turn.ended")
    assert umpire.is_hidden("#access") and umpire.is_visible("#forget")

    visitor = open_tab().goto(f"{server}/games/{game_id}").page
    visitor.wait_for_selector("#turn.ended")
    assert visitor.is_visible("#paste") and visitor.is_hidden("#join")
    assert "has ended" in visitor.text_content("#access-note")
    assert "Take your seat" not in visitor.text_content("#access")
