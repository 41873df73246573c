"""The game page's Claim button (issue 35, "Time", TC 4), in Chromium: once the seat to move has let
its deadline pass in a game whose time control says "claim", the other seat's page offers Claim,
and a click (after a confirm) ends the game with that seat the winner on time.

The server runs on the real clock and the deadline is a day away, so the sweep that notices the
timeout runs here, in-process on the server's own store, with a clock two days ahead: what a
worker's ClockSweep records at that time (a TimedOut), the server then reads from the log."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain.service import Warlog
from domain.storage import config_from_env
from tests.browser.helpers import open_with_keys, shoot
from tests.e2e.server import http_json, live_server, started_game

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory, browser):
    """A server and its folder (the sweep below opens the same store)."""
    folder = tmp_path_factory.mktemp("claim-page")
    with live_server(folder, WEB_CONCURRENCY="1") as url:
        yield url, folder


def test_the_other_seat_claims_the_win_on_the_game_page_once_the_deadline_has_passed(clock_server, open_tab, shots):
    server, folder = clock_server
    game_id, admin, tokens = started_game(server, {"ruleset": "falklands",
                                                   "time_control": {"days": 1, "on_timeout": "claim"}})
    status, _, game = http_json("GET", f"{server}/api/v1/games/{game_id}",
                                headers={"Authorization": f"Bearer {admin}"})
    [late] = game["clock"]["seats"]
    [other] = [seat for seat in tokens if seat != late]
    page = open_with_keys(open_tab, server, game_id, {"seats": {other: tokens[other]}, "active": other}).page
    page.wait_for_selector("#time-box:not([hidden])")
    assert page.is_hidden("#claim")  # the deadline has not passed

    later = datetime.now(timezone.utc) + timedelta(days=2)
    sweeper = Warlog(config_from_env({"WARLOG_DATA_DIR": str(folder / "data")}), clock=lambda: later)
    try:
        assert sweeper.sweep_game(game_id) is not None  # the TimedOut, as a worker's sweep records it
    finally:
        sweeper.close()

    page.reload()
    page.wait_for_selector("#claim:not([hidden])")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#claim")
    page.wait_for_selector("#status.ok:has-text('You claimed the win on time')")
    shoot(page, shots / "time-claim-game.png")

    status, _, events = http_json("GET", f"{server}/api/v1/games/{game_id}/events?limit=500",
                                  headers={"Authorization": f"Bearer {tokens[other]}"})
    assert status == 200, events
    types = [line["type"] for line in events["events"]]
    assert types.count("WinClaimed") == 1 and types.index("TimedOut") < types.index("WinClaimed"), types
    claimed = next(line for line in events["events"] if line["type"] == "WinClaimed")
    assert claimed["data"]["seat"] == other and claimed["data"]["against"] == [late], claimed
    ended = next(line for line in events["events"] if line["type"] == "GameEnded")
    assert ended["data"]["winner"] == other and ended["data"]["level"] == "timeout", ended
