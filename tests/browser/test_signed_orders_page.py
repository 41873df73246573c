"""The pages sign (issue 34, part 3): a seat joined from the lobby holds an Ed25519 key made by
WebCrypto, its orders, take-back request and concession from the game page carry its signature,
and the export proves them."""

from __future__ import annotations

import pytest

from domain.verify import header_line, verify_text
from tests.browser.helpers import blue_joined_in_the_browser, pick_order, send
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_a_seat_joined_in_the_browser_signs_its_orders_and_the_export_verifies_them(server, open_tab):
    created, red, blue = blue_joined_in_the_browser(server, open_tab)
    game_id, page = created["game_id"], blue.page
    kept = page.evaluate(f"() => Warlog.keys.load('{game_id}')")
    assert kept["signing"]["Blue"]["crv"] == "Ed25519" and "d" in kept["signing"]["Blue"]  # the private JWK

    pick_order(page, "note")
    page.fill("#f-text", "signed in the browser")
    send(page, "OrderSigned")
    # Its take-back request and its concession are signed too (format 2: CommandSigned).
    page.click("#takeback")
    page.wait_for_selector("text=Take-back asked for")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#concede")
    page.wait_for_selector("text=You conceded.")

    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {red['token']}"})
    assert status == 200
    status, _, key = http_json("GET", f"{server}/api/v1/server-key")
    text = exported.splitlines()
    assert text[0] == header_line(key["public_key"], 2)  # a format-2 export names the server's key
    report, lines = verify_text(text)
    assert report.ok and report.signatures_verified == 1 and report.command_signatures_verified == 2, report.summary()
    assert [(line["data"]["seat"], line["data"]["kind"]) for line in lines if line["type"] == "CommandSigned"] == [
        ("Blue", "take_back"), ("Blue", "concede")]
    assert [line["type"] for line in lines].count("SeatKeyRegistered") == 1
