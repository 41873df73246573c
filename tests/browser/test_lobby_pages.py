"""The lobby on a server with more public games than one page of the list (docs/api.md, "Lists
that grow come in pages"): it shows the first page and a "More games" button that reads the next."""

from __future__ import annotations

import pytest

from api.schemas import GAMES_PAGE_DEFAULT
from tests.e2e.server import http_json, unjoined_game

pytestmark = pytest.mark.slow


def test_the_lobby_shows_that_there_are_more_games_and_reads_the_next_page(server, open_tab):
    made = [unjoined_game(server, {"ruleset": "freeform", "public": True, "options": {"sides": ["A", "B"]}})
            for _ in range(GAMES_PAGE_DEFAULT + 1)]
    oldest = made[0]["game_id"]
    tab = open_tab().goto(f"{server}/")
    page = tab.page
    assert page.get_attribute("body", "data-games") == str(GAMES_PAGE_DEFAULT)
    assert page.locator(f'#games tr[data-game="{oldest}"]').count() == 0
    page.click("#games-more")
    page.wait_for_selector(f'#games tr[data-game="{oldest}"]')
    assert page.get_attribute("body", "data-games") == str(GAMES_PAGE_DEFAULT + 1)
    assert page.is_hidden("#games-more")
    # A filter starts from the first page again.
    page.select_option("#f-status", "waiting")
    page.wait_for_selector(f'#games tr[data-game="{oldest}"]', state="detached")
    assert page.is_visible("#games-more")
    assert not tab.errors, tab.errors


def test_more_games_lists_a_game_that_moved_up_while_the_pages_were_read(server, open_tab):
    """A game not on the first page whose new activity (a seat joined) put it ahead of the cursor
    before "More games" was pressed was on no page: the next page starts after the cursor, and the
    first had been read before it moved. The lobby reads the first page again with the next, as
    `warlog games` does, and lists it by its activity."""
    made = [unjoined_game(server, {"ruleset": "freeform", "public": True, "options": {"sides": ["A", "B"]}})
            for _ in range(GAMES_PAGE_DEFAULT + 1)]
    mover = made[0]
    tab = open_tab().goto(f"{server}/")
    page = tab.page
    assert page.locator(f'#games tr[data-game="{mover["game_id"]}"]').count() == 0
    status, _, joined = http_json("POST", f"{server}/api/v1/games/{mover['game_id']}/join",
                                  {"invite_code": mover["invites"]["A"], "handle": "latecomer"})
    assert status == 201, joined
    page.click("#games-more")
    page.wait_for_selector(f'#games tr[data-game="{mover["game_id"]}"]')
    first = page.get_attribute("#games tbody tr:first-child", "data-game")
    assert first == mover["game_id"], "listed by its activity: the newest first"
    assert not tab.errors, tab.errors
