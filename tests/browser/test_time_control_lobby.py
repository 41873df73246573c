"""Time control in the lobby (issue 35, "Time"), in Chromium: the create form sets a time control,
recorded in the game's log, and the games table (and the game page) show whose move it is and how
long they have."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import shoot
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_the_lobby_creates_a_timed_game_and_shows_whose_move_and_the_time_left(server, open_tab, shots):
    page = open_tab().goto(f"{server}/").page
    page.select_option("#c-ruleset", "freeform")
    page.fill("#c-sides", "Blue, Red")
    page.fill("#c-days", "2")
    page.select_option("#c-per", "turn")
    page.fill("#c-reminders", "24, 3")
    page.fill("#c-vacation", "5")
    page.select_option("#c-timeout", "pass")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created:not([hidden])")
    game_id = page.text_content("#created-link").strip()
    admin = page.text_content("#created-admin").strip()

    # the control is in the log, for everyone to read
    status, _, body = http_json("GET", f"{server}/api/v1/games/{game_id}/events",
                                headers={"Authorization": f"Bearer {admin}"})
    assert status == 200, body
    [control] = [e["data"] for e in body["events"] if e["type"] == "TimeControlSet"]
    assert control == {"days": 2, "per": "turn", "reminders": [24, 3], "vacation_days": 5, "on_timeout": "pass",
                       "rule": "time"}

    # both seats join (from elsewhere): the clock starts
    for seat in ("Blue", "Red"):
        code = page.get_attribute(f'.invite[data-seat="{seat}"] a.invite-link', "href").split("#invite=")[1]
        status, _, joined = http_json("POST", f"{server}/api/v1/games/{game_id}/join",
                                      {"invite_code": code, "handle": seat.lower()})
        assert status == 201, joined
    page.reload()
    cell = page.locator(f'#games tr[data-game="{game_id}"] td').nth(4)
    cell.locator(".time-left").wait_for()
    assert re.fullmatch(r"Blue, Red · 1 d 23 h left", cell.text_content().strip()), cell.text_content()
    assert cell.locator(".time-left").get_attribute("title").startswith("deadline 20")
    shoot(page, shots / "time-control-lobby.png")

    # the game page says it beside whose move it is
    page.click(f'#games tr[data-game="{game_id}"] a[href="/games/{game_id}"] >> nth=0')
    page.wait_for_selector("#time-left")
    assert re.fullmatch(r" 1 d 23 h left \(deadline 20\S+\)", page.text_content("#time-left")), \
        page.text_content("#time-left")
    page.go_back()
    page.wait_for_selector(f'#games tr[data-game="{game_id}"]')

    # a bad reminder list is reported in the page, nothing sent
    page.fill("#c-days", "2")
    page.fill("#c-reminders", "soon")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#status.error")
    assert "Reminders" in page.text_content("#status")
