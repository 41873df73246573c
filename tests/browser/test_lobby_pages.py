"""The lobby on a server with more public games than one page of the list (docs/api.md, "Lists
that grow come in pages"): it shows the first page and a "More games" button that reads the next."""

from __future__ import annotations

import pytest

from api.schemas import GAMES_PAGE_DEFAULT
from tests.e2e.server import unjoined_game

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
