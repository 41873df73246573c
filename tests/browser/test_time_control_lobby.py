"""Time control in the lobby (issue 35, "Time"), in Chromium: the create form sets a time control,
recorded in the game's log, and the games table (and the game page) show whose move it is and how
long they have."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import shoot
from tests.e2e.server import http_json, unjoined_game

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


def test_the_game_page_takes_a_vacation_and_gives_more_time_signed(server, open_tab, shots):
    made = unjoined_game(server, {"ruleset": "falklands", "time_control": {"days": 2, "vacation_days": 3}})
    game_id, tabs = made["game_id"], {}
    for seat, code in made["invites"].items():
        tab = open_tab()
        tab.page.goto(f"{server}/games/{game_id}#invite={code}")
        tab.ready()
        tab.page.fill("#j-handle", seat.lower())
        tab.page.click("#join button[type=submit]")
        tab.page.wait_for_selector("#seatbar:not([hidden])")  # joined: the clock runs once both are in
        tabs[seat] = tab.page
    status, _, game = http_json("GET", f"{server}/api/v1/games/{game_id}", headers={
        "Authorization": f"Bearer {made['admin_token']}"})
    [moving] = game["clock"]["seats"]
    [waiting] = [seat for seat in tabs if seat != moving]
    for page in tabs.values():
        page.reload()
        page.wait_for_selector("#time-box:not([hidden])")
    mover, other = tabs[moving], tabs[waiting]
    assert "your vacation days left: 3" in mover.text_content("#time-status")
    assert mover.is_hidden("#extend") and mover.is_hidden("#claim")
    assert other.is_visible("#extend") and other.is_hidden("#claim")  # the deadline has not passed

    mover.fill("#time-days", "2")
    mover.dblclick("#vacation")  # a double click: one vacation, the second click's under the same key
    mover.wait_for_selector("#status.ok:has-text('Vacation recorded')")
    mover.wait_for_selector("#time-status:has-text('vacation days left: 1')")
    other.reload()
    other.wait_for_selector("#time-box:not([hidden])")
    other.click("#extend")
    other.wait_for_selector("#status.ok:has-text('More time given')")
    shoot(other, shots / "time-control-game.png")

    status, _, body = http_json("GET", f"{server}/api/v1/games/{game_id}/events",
                                headers={"Authorization": f"Bearer {made['admin_token']}"})
    types = [e["type"] for e in body["events"]]
    assert types.count("VacationTaken") == 1, types
    at = types.index("VacationTaken")
    assert types[at:at + 3] == ["VacationTaken", "CommandSigned", "DeadlineExtended"], types
    at = types.index("ExtensionGranted")
    assert types[at:at + 3] == ["ExtensionGranted", "CommandSigned", "DeadlineExtended"], types
    status, _, game = http_json("GET", f"{server}/api/v1/games/{game_id}", headers={
        "Authorization": f"Bearer {made['admin_token']}"})
    assert 4 * 86400 < game["clock"]["seconds_left"] <= 5 * 86400  # two days, two of vacation, one given
