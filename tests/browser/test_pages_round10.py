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


@pytest.mark.parametrize("field", ["#j-game", "#j-invite"])
def test_an_invite_link_pasted_into_the_lobbys_join_form_fills_both_fields(server, open_tab, field):
    """The creator sends each player an invite link (/games/ID#invite=CODE). Pasted into the lobby's
    "Game id" it was sent as the id ("Not joined: The requested URL was not found on the server…");
    pasted into "Invite code" the form stopped at the empty game id. Either field now takes the link
    apart into the game id and the invite code, and the join goes through."""
    status, _, made = http_json("POST", f"{server}/api/v1/games",
                                {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    assert status == 201, made
    link = f"{server}/games/{made['game_id']}#invite={made['invites']['Red']}"
    page = open_tab().goto(f"{server}/").page
    page.fill(field, link)
    assert page.input_value("#j-game") == made["game_id"]
    assert page.input_value("#j-invite") == made["invites"]["Red"]
    page.fill("#j-handle", "bob")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"{server}/games/{made['game_id']}")
    page.wait_for_selector("#seat option[value=Red]", state="attached")


def test_the_live_replay_saves_the_log_it_checked_for_warlog_verify(server, open_tab, tmp_path):
    """The brief of a PBEM game ends with "export it, verify it with warlog verify": a player in a
    browser had no way to get the export (it needs the seat's token, so no plain link gives it). The
    live replay, which reads the caller's export to check it, now saves that very log as a file;
    the file verifies offline as `warlog verify` reads it, and is the API's export byte for byte."""
    from tests.unit.test_tampering import python_verify

    game_id, _, tokens = started_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    for n, order in enumerate([{"kind": "roll", "dice": "2d6", "purpose": "barrage"},
                               {"kind": "end", "winner": "Blue", "reason": "done"}]):
        status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", order,
                                      {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": f"o-{n}"})
        assert status == 201, result
    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {tokens['Blue']}"})
    assert status == 200

    tab = open_tab()
    page = tab.page
    page.goto(f"{server}/")
    page.evaluate("([id, token]) => Warlog.keys.update(id, k => { k.seats = {Blue: token}; k.active = 'Blue'; })",
                  [game_id, tokens["Blue"]])
    tab.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_selector("#verify[data-state=verified]")
    with page.expect_download() as saving:
        page.click("#verify-save")
    saved = tmp_path / saving.value.suggested_filename
    saving.value.save_as(saved)
    assert saving.value.suggested_filename == f"game-{game_id[:8]}.jsonl"
    assert saved.read_text(encoding="utf-8") == exported
    assert python_verify(saved.read_text(encoding="utf-8").splitlines(), None).ok
    assert tab.errors == []


def test_the_creators_game_page_shows_the_invite_links_of_the_seats_still_open(server, open_tab):
    """The lobby shows the invite links once, when the game is made; its creator who then joined
    ("Join as Blue here") landed on the game page saying "Waiting for every seat to join: Red." with
    no way to Red's link (the browser keeps the codes, the page never showed them). The page now
    lists the link of each seat still open whose code this browser keeps, and drops it once taken."""
    tab = open_tab().goto(f"{server}/")
    page = tab.page
    page.select_option("#c-ruleset", "freeform")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created:not([hidden])")
    game_id = page.text_content("#created-link").strip()
    red_link = page.get_attribute("#invites li:has-text('Red') a", "href")
    assert red_link.startswith(f"{server}/games/{game_id}#invite=wli_")
    page.click("#created button:has-text('Join as Blue here')")
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#turn:has-text('Waiting for every seat to join: Red')")
    page.wait_for_selector("#open-invites:not([hidden])")
    assert page.get_attribute("#open-invites a", "href") == red_link
    assert "Blue" not in page.text_content("#open-invites")

    other = open_tab().goto(red_link).page
    other.fill("#j-handle", "bob")
    other.click("#join button[type=submit]")
    page.wait_for_selector("#turn:has-text('Your move, Blue')")
    page.wait_for_selector("#open-invites", state="hidden")
    assert other.is_hidden("#open-invites")  # the player's own browser keeps no codes


def test_no_page_load_logs_a_missing_icon(server, open_tab):
    """Chromium asks every site for /favicon.ico; its 404 was logged on each page load ("Failed to
    load resource: … 404"), an error Tab lets pass as one of the 4xx a page asks for on purpose."""
    tab = open_tab()
    missing = []
    tab.page.on("console", lambda m: missing.append(m.text) if m.type == "error"
                and "favicon" in (m.location or {}).get("url", "") else None)
    for path in ("/", "/api/docs"):
        tab.page.goto(server + path)
        tab.page.wait_for_timeout(1500)  # the icon is asked for after the load
    assert missing == [] and not tab.errors, (missing, tab.errors)
