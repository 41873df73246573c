"""The game page as a new player met it (the new user's round 12)."""

from __future__ import annotations

from tests.browser.helpers import open_with_keys
from tests.e2e.server import FREEFORM, http_json, started_game


def test_fs_4_1_the_game_page_says_which_side_the_signed_vp_favours(server, open_tab):
    """FS 4.1, 4.6: one signed VP track, positive for the AR, zero or negative for the UK. The VP
    panel showed "VP 8" and no more; a UK player could not tell whether 8 was good for him."""
    game_id, _, tokens = started_game(server, {"ruleset": "falklands"})
    page = open_with_keys(open_tab, server, game_id, {"seats": {"UK": tokens["UK"]}, "active": "UK"}).page
    page.wait_for_selector("#vp-note")
    assert page.text_content("#vp-note") == "VP: positive favours the AR, zero or negative the UK: FS 4.1, 4.6"
    assert page.locator("#vp td").all_text_contents() == ["8"]


def test_a_game_with_vp_per_side_has_no_note(server, open_tab):
    game_id, _, tokens = started_game(server, {**FREEFORM, "options": {**FREEFORM.get("options", {}),
                                                                      "vp_track": True}})
    page = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"}).page
    page.wait_for_selector("#vp td")
    assert page.locator("#vp-note").count() == 0


def test_fs_4_1_the_replay_says_which_side_the_signed_vp_favours(server, open_tab, tmp_path):
    """The replay viewer's VP panel, live and in the offline file 'warlog replay' writes, showed
    "VP 8" alone too (FS 4.1, 4.6)."""
    from workers.replay import frames, replay_html

    game_id, _, tokens = started_game(server, {"ruleset": "falklands", "public": True})
    page = open_tab().goto(f"{server}/games/{game_id}/replay").page
    page.wait_for_selector("#vp-note")
    assert page.text_content("#vp-note") == "VP: positive favours the AR, zero or negative the UK: FS 4.1, 4.6"

    status, _, lines = http_json("GET", f"{server}/api/v1/games/{game_id}/events?after=0&limit=100")
    offline = tmp_path / "replay.html"
    offline.write_text(replay_html(frames(lines["events"], None)), encoding="utf-8")
    page = open_tab().goto(offline.as_uri()).page
    page.wait_for_selector("#vp-note")
    assert page.text_content("#vp-note").startswith("VP: positive favours the AR")
