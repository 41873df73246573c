"""The game page's Notifications panel of a seat that registered a key (docs/pages.md): saving signs
the settings with the key kept in the browser (kind "notifications"), which the server asks of a
keyed seat, so the seat's token alone cannot change them."""

from __future__ import annotations

import pytest

from tests.browser.helpers import blue_joined_in_the_browser
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_a_keyed_seat_saves_its_notification_choices_signed(server, open_tab):
    created, _, blue = blue_joined_in_the_browser(server, open_tab)
    game_id, page = created["game_id"], blue.page
    token = page.evaluate(f"() => Warlog.keys.load('{game_id}').seats.Blue")
    auth = {"Authorization": f"Bearer {token}"}
    status, _, body = http_json("PUT", f"{server}/api/v1/games/{game_id}/notifications", {"events": []}, auth)
    assert status == 422 and body["code"] == "signature_required", body  # the token alone: refused

    page.wait_for_selector("#notify-box:not([hidden])")
    page.locator('#n-events input[value="decision"]').uncheck()
    page.click("#n-save")
    page.wait_for_selector("#status.ok:has-text('Notifications saved')")
    status, _, body = http_json("GET", f"{server}/api/v1/games/{game_id}/notifications", headers=auth)
    assert status == 200 and body["events"] == ["your_move", "take_back", "game_over"], body
    assert not blue.errors
