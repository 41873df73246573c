"""Round nine of the pages: a new user's first games with them, in Chromium. Each test is a problem
found there: what the page did, checked against what docs/pages.md says."""

from __future__ import annotations

import pytest

from tests.browser.helpers import started_game
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def _issued(server: str, game_id: str, admin: str, path: str, body: dict) -> str:
    status, _, made = http_json("POST", f"{server}/api/v1/games/{game_id}/{path}", body,
                                {"Authorization": f"Bearer {admin}"})
    assert status == 201, made
    return made["token"]


def test_another_games_umpire_or_spectator_token_pasted_on_a_public_games_page_is_refused(server, open_tab):
    """docs/pages.md, "Tokens in the browser": a public game reads with any game's token, so the
    paste form's check (read the summary with it) kept another game's umpire or spectator token as
    this game's; every read then went as an anonymous visitor's and the page said nothing. The page
    now asks GET …/me (docs/api.md) what the token is in this game before keeping it, and says why
    it refuses one."""
    public_id, public_admin, _ = started_game(server, {"ruleset": "freeform", "public": True, "umpire": "Ann",
                                                       "options": {"sides": ["Blue", "Red"]}})
    other_id, other_admin, _ = started_game(server, {"ruleset": "freeform", "umpire": "Bea",
                                                     "options": {"sides": ["Blue", "Red"]}})
    other_umpire = _issued(server, other_id, other_admin, "umpire-tokens", {})
    other_spectator = _issued(server, other_id, other_admin, "spectator-tokens", {"name": "Kim"})
    tab = open_tab().goto(f"{server}/games/{public_id}")
    page = tab.page
    for token in (other_umpire, other_spectator):
        page.fill("#p-token", token)
        page.click("#paste button[type=submit]")
        page.wait_for_selector("#status.error")
        assert "another game" in page.text_content("#status"), page.text_content("#status")
        assert page.evaluate(f"localStorage.getItem('warlog:game:{public_id}')") is None
        assert page.input_value("#p-token") == token  # left to correct, not taken
        page.evaluate("Warlog.status('')")
    # This game's spectator token is kept, and the page says as whom.
    mine = _issued(server, public_id, public_admin, "spectator-tokens", {"name": "Sam"})
    page.fill("#p-token", mine)
    page.click("#paste button[type=submit]")
    page.wait_for_selector("#status.ok")
    assert "the spectator Sam" in page.text_content("#status")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('warlog:game:{public_id}'))")
    assert kept["spectator"] == mine
    assert not tab.errors
