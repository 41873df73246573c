"""The game page's "Spectators" panel (issue 35): the admin issues named spectator tokens, each
shown once; the list shows them live; the admin revokes one (after a confirm) and the list shows it
revoked, and the API refuses that token (401) while the other still reads; a name the API refuses is
shown with the problem, naming the field; a seat's and a spectator's page have no such panel."""

from __future__ import annotations

import pytest

from tests.browser.helpers import freeform_game, labels_missing, no_horizontal_scroll, open_with_keys, shoot
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def _reads(server, game_id, token) -> int:
    status, _, _ = http_json("GET", f"{server}/api/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    return status


def _listed(server, game_id, admin) -> dict:
    status, _, body = http_json("GET", f"{server}/api/v1/games/{game_id}/spectator-tokens",
                                headers={"Authorization": f"Bearer {admin}"})
    assert status == 200, body
    return {t["token_id"]: t for t in body["tokens"]}


def _issue(page, name) -> tuple[str, str]:
    """Issue a token from the panel: (token, token id) as the page shows them once."""
    page.fill("#sp-name", name)
    page.click("#sp-issue")
    page.wait_for_selector(f"#status.ok:has-text('Spectator token issued for {name}.')")
    page.wait_for_selector("#sp-shown:not([hidden])")
    note = page.text_content("#sp-shown-note")
    assert f"The spectator token of {name} (id " in note and "shown only now" in note, note
    token_id = note.split("(id ", 1)[1].split(")", 1)[0]
    page.wait_for_selector(f"#sp-list tr[data-token-id='{token_id}']")
    return page.input_value("#sp-token"), token_id


def _row(page, token_id):
    return page.locator(f"#sp-list tr[data-token-id='{token_id}']")


def test_the_admin_issues_lists_and_revokes_spectator_tokens(server, open_tab, shots):
    game_id, admin, _ = freeform_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {}, "admin": admin})
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = tab.page
    page.wait_for_selector("#spec-box:not([hidden])")
    assert page.text_content("#sp-list tbody") == "No spectator token issued yet."

    # a blank name: the API's problem, naming the field; nothing issued
    page.fill("#sp-name", "   ")
    page.click("#sp-issue")
    page.wait_for_selector("#status.error")
    assert page.text_content("#status").startswith("Spectator token not issued:")
    assert "name: a name is not only spaces" in page.text_content("#status")
    assert page.locator("#sp-shown").is_hidden() and _listed(server, game_id, admin) == {}

    sam, sam_id = _issue(page, "Sam")
    assert sam.startswith("wlv_") and page.is_visible("#sp-token")
    page.click("#sp-copy")  # the token is copy-able: it lands on the clipboard
    page.wait_for_selector("#status.ok:has-text('Token copied.')")
    assert page.evaluate("navigator.clipboard.readText()") == sam
    kim, kim_id = _issue(page, "Kim")
    assert kim.startswith("wlv_") and kim != sam and page.input_value("#sp-token") == kim
    assert set(_listed(server, game_id, admin)) == {sam_id, kim_id}
    for token_id, name in ((sam_id, "Sam"), (kim_id, "Kim")):
        row = _row(page, token_id)
        assert row.locator(".sp-name").text_content() == name and row.locator(".sp-state").text_content() == "live"
        assert row.locator("time").get_attribute("datetime") == _listed(server, game_id, admin)[token_id]["created_at"]
    assert _reads(server, game_id, sam) == 200 and _reads(server, game_id, kim) == 200
    assert not labels_missing(page)
    shoot(page, shots / "game-spectators.png")

    # shown once: the page reloaded lists both, and shows neither token again
    tab.goto(f"{server}/games/{game_id}")
    page.wait_for_selector(f"#sp-list tr[data-token-id='{kim_id}']")
    assert page.locator("#sp-shown").is_hidden() and page.input_value("#sp-token") == ""
    assert sam not in page.content() and kim not in page.content()

    # a confirm dismissed revokes nothing
    page.once("dialog", lambda dialog: dialog.dismiss())
    _row(page, sam_id).locator("button").click()
    assert _reads(server, game_id, sam) == 200 and _listed(server, game_id, admin)[sam_id]["revoked_at"] is None

    # accepted: revoked, the list says so, the API refuses Sam's token and Kim's still reads
    page.once("dialog", lambda dialog: dialog.accept())
    _row(page, sam_id).get_by_role("button", name=f"Revoke the spectator token {sam_id} of Sam").click()
    page.wait_for_selector(f"#status.ok:has-text(\"Sam's spectator token {sam_id} revoked.\")")
    page.wait_for_selector(f"#sp-list tr.revoked[data-token-id='{sam_id}']")
    assert _row(page, sam_id).locator(".sp-state").text_content().startswith("revoked ")
    assert _row(page, sam_id).locator("button").count() == 0
    assert _row(page, kim_id).locator(".sp-state").text_content() == "live"
    assert _listed(server, game_id, admin)[sam_id]["revoked_at"] is not None
    assert _reads(server, game_id, sam) == 401 and _reads(server, game_id, kim) == 200

    # revoked elsewhere (the CLI) while the page still lists it live: the page says so and catches up
    status, _, _ = http_json("DELETE", f"{server}/api/v1/games/{game_id}/spectator-tokens/{kim_id}",
                             headers={"Authorization": f"Bearer {admin}"})
    assert status == 200
    page.once("dialog", lambda dialog: dialog.accept())
    _row(page, kim_id).locator("button").click()
    page.wait_for_selector(f"#status.ok:has-text(\"Kim's spectator token {kim_id} was already revoked.\")")
    page.wait_for_selector(f"#sp-list tr.revoked[data-token-id='{kim_id}']")
    assert _reads(server, game_id, kim) == 401
    assert not tab.errors, tab.errors


def test_a_seat_and_a_spectator_see_no_spectators_panel(server, open_tab):
    game_id, admin, tokens = freeform_game(server)
    status, _, issued = http_json("POST", f"{server}/api/v1/games/{game_id}/spectator-tokens", {"name": "Sam"},
                                  {"Authorization": f"Bearer {admin}"})
    assert status == 201, issued
    red = open_with_keys(open_tab, server, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"}, width=375)
    red.page.wait_for_selector("#notify-box:not([hidden])")
    assert red.page.locator("#spec-box").is_hidden()
    sam = open_with_keys(open_tab, server, game_id, {"seats": {}, "spectator": issued["token"]})
    assert sam.page.text_content("#seat") == "spectator (reads, annotates after the end)"
    assert sam.page.locator("#spec-box").is_hidden()
    # the admin's panel fits a phone: its table scrolls inside the panel
    narrow = open_with_keys(open_tab, server, game_id, {"seats": {}, "admin": admin}, width=375)
    narrow.page.wait_for_selector(f"#sp-list tr[data-token-id='{issued['token_id']}']")
    no_horizontal_scroll(narrow.page)
    assert not red.errors and not sam.errors and not narrow.errors, (red.errors, sam.errors, narrow.errors)
