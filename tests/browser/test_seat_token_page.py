"""The game page's "Replace my token" (docs/api.md, "A seat's token replaced"): a seat joined from the
page (its key kept in the browser) replaces its token, the request signed with that key; the page
keeps the new token, which reads, and the old one answers 401."""

from __future__ import annotations

import pytest

from tests.browser.helpers import blue_joined_in_the_browser
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def _status(server, game_id, token) -> int:
    status, _, _ = http_json("GET", f"{server}/api/v1/games/{game_id}/me", headers={"Authorization": f"Bearer {token}"})
    return status


def test_a_seat_replaces_its_token_from_the_game_page_and_the_page_keeps_the_new_one(server, open_tab):
    created, _, blue = blue_joined_in_the_browser(server, open_tab)
    game_id, page = created["game_id"], blue.page
    old = page.evaluate(f"() => Warlog.keys.load('{game_id}').seats.Blue")

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#replace-token")  # Blue registered a key: the page signs the request with it
    page.wait_for_selector("#status.ok:has-text('Your Blue token was replaced')")
    kept = page.evaluate(f"() => Warlog.keys.load('{game_id}')")
    new = kept["seats"]["Blue"]
    assert new != old and new.startswith("wls_") and not kept["replacing"]
    assert _status(server, game_id, old) == 401 and _status(server, game_id, new) == 200
    page.reload()
    blue.ready()
    page.wait_for_selector("#turn:has-text('Your move, Blue')")  # the page reads with the new token
