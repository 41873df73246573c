"""Annotations on the pages (issue 35; docs/pages.md): a seat annotates from the game page (signed
by its WebCrypto key, private to it and the umpire), the note shows beside its event in the log and
in the replay; once the game has ended a spectator, with the token the admin issued it, annotates
on the replay page; the browser's own check of the log still verifies, and the other seat never
sees the private text."""

from __future__ import annotations

import pytest

from domain.verify import verify_text
from tests.browser.helpers import blue_joined_in_the_browser
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_a_seat_and_then_a_spectator_annotate_on_the_game_and_replay_pages(server, open_tab, shots):
    created, red, blue = blue_joined_in_the_browser(server, open_tab)
    game_id, admin = created["game_id"], {"Authorization": f"Bearer {created['admin_token']}"}
    red_auth = {"Authorization": f"Bearer {red['token']}"}
    page = blue.page
    page.wait_for_selector("#annotate:not([hidden])")
    page.click("#log li[data-seq='1'] .note-on")  # picks event 1 in the form
    assert page.input_value("#an-seq") == "1"
    page.fill("#an-text", "Plan: hold the ford, feint north")
    page.check("#an-private")
    page.click("#annotate button[type=submit]")
    page.wait_for_selector("text=Annotation on event 1 recorded (private).")
    page.wait_for_selector("#log li[data-seq='1'] .note:has-text('feint north')")
    assert page.locator("#log li[data-seq='1'] .badge.private").count() == 1
    page.screenshot(path=str(shots / "annotations-game.png"))

    status, _, history = http_json("GET", f"{server}/api/v1/games/{game_id}/history", headers=red_auth)
    assert status == 200 and "feint north" not in str(history)  # Red never reads Blue's private note
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/concede", {}, headers=red_auth)
    assert status == 200
    status, _, spectator = http_json("POST", f"{server}/api/v1/games/{game_id}/spectator-tokens", {"name": "Sam"},
                                     headers=admin)
    assert status == 201

    # The spectator keeps its token in its browser (the game page's paste form), then annotates
    # the event shown on the replay page.
    sam = open_tab()
    sam.goto(f"{server}/games/{game_id}")
    sam.page.fill("#p-token", spectator["token"])
    sam.page.click("#paste button[type=submit]")
    sam.page.wait_for_selector("text=Token kept in this browser.")
    sam.goto(f"{server}/games/{game_id}/replay#seq=2")
    sam.page.wait_for_selector("#annotate:not([hidden])")
    assert sam.page.is_hidden("#an-private-box")  # a spectator's annotations are public
    assert "feint north" not in sam.page.content()
    sam.page.fill("#an-text", "A well-fought game")
    sam.page.click("#annotate button[type=submit]")
    sam.page.wait_for_selector("text=Annotation on event 2 recorded.")
    sam.page.wait_for_selector("#notes .note:has-text('spectator Sam')")
    sam.page.wait_for_selector("#history li[data-seq='2'] .note:has-text('A well-fought game')")

    # Blue's replay shows both notes beside their events, and its browser check of the log passes.
    blue.goto(f"{server}/games/{game_id}/replay#seq=1")
    page.wait_for_selector("#notes .note:has-text('feint north')")
    page.wait_for_selector("#history li[data-seq='2'] .note:has-text('spectator Sam')")
    page.wait_for_selector("#verify:not([data-state=checking])", timeout=20_000)
    assert page.get_attribute("#verify", "data-state") == "verified", page.text_content("#verify-summary")
    page.screenshot(path=str(shots / "annotations-replay.png"))
    sam.page.reload()
    sam.ready()
    sam.page.wait_for_selector("#verify:not([data-state=checking])", timeout=20_000)
    assert sam.page.get_attribute("#verify", "data-state") == "verified"
    assert blue.errors == [] and sam.errors == []

    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {created_token(page, game_id)}"})
    report, lines = verify_text(exported.splitlines())
    assert report.ok and report.command_signatures_verified == 1, report.summary()  # Blue's signed annotation
    assert [(line["data"]["kind"]) for line in lines if line["type"] == "CommandSigned"] == ["private_annotation"]


def created_token(page, game_id: str) -> str:
    """Blue's seat token, as its browser keeps it."""
    return page.evaluate(f"() => Warlog.keys.load('{game_id}').seats.Blue")
