"""Sealed orders on the game page in Chromium: each seat adds orders to its draft, seals them
(the browser keeps the orders and the salt in localStorage and sends only the hash), sees who
has sealed, then reveals; the orders are carried out and the page shows the next round. Each
seat joined on the page holds a key there, and signs its seal and reveal with it."""

from __future__ import annotations

import pytest

from domain.verify import header_line, verify_text
from tests.browser.helpers import pick_order, shoot
from tests.e2e.server import http_json, unjoined_game

pytestmark = pytest.mark.slow


def test_two_seats_seal_and_reveal_on_the_game_page(server, open_tab, shots):
    created = unjoined_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"], "sealed_orders": True}})
    game_id = created["game_id"]
    tabs = {}
    for seat in ("Blue", "Red"):
        tab = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites'][seat]}")
        tab.page.fill("#j-handle", seat.lower())
        tab.page.click("#join button[type=submit]")
        tab.page.wait_for_selector("#seatbar:not([hidden])")
        tabs[seat] = tab
    blue, red = tabs["Blue"].page, tabs["Red"].page
    for page in (blue, red):  # the round opens once the last seat has joined
        page.wait_for_selector("#sealed-box:not([hidden])")
    blue.wait_for_selector("#sealed-round:has-text('to seal: Blue, Red')")
    assert blue.text_content("#send") == "Add to sealed orders"

    # Blue adds a roll and a note to its draft, then seals them.
    pick_order(blue, "roll")
    blue.fill("#f-dice", "2d6")
    blue.fill("#f-purpose", "BLUE-BARRAGE")
    blue.click("#send")
    pick_order(blue, "note")
    blue.fill("#f-text", "dig in")
    blue.click("#send")
    assert blue.locator("#sealed-draft li.sealed-order").count() == 2
    blue.click("#seal")
    blue.wait_for_selector("#sealed-round:has-text('sealed by Blue')")
    kept = blue.evaluate(f"() => JSON.parse(localStorage.getItem('warlog:sealed:{game_id}:Blue'))")
    assert kept["round"] == 1 and len(kept["salt"]) == 32 and kept["orders"][0]["purpose"] == "BLUE-BARRAGE"
    # Red's page learns that Blue sealed, not what: the server holds only the hash.
    red.wait_for_selector("#sealed-round:has-text('sealed by Blue')")
    assert "BLUE-BARRAGE" not in red.content()
    shoot(red, shots / "sealed-orders-red-before.png")

    # Red seals no orders; both reveal; the orders are carried out with their dice.
    red.click("#seal")
    blue.wait_for_selector("#sealed-round:has-text('to reveal: Blue, Red')")
    blue.wait_for_selector("#reveal:not([disabled])")
    blue.click("#reveal")
    blue.wait_for_selector("#sealed-round:has-text('revealed by Blue')")
    red.wait_for_selector("#reveal:not([disabled])")
    red.click("#reveal")
    red.wait_for_selector("#sealed-round:has-text('Round 2')")
    red.wait_for_selector("#log li:has-text('BLUE-BARRAGE')")
    blue.wait_for_selector("#sealed-round:has-text('Round 2')")
    assert blue.evaluate(f"() => localStorage.getItem('warlog:sealed:{game_id}:Blue')") is None
    shoot(blue, shots / "sealed-orders-blue-after.png")

    # The page signed each seal and reveal with the seat's key: the export proves all four.
    token = blue.evaluate(f"() => Warlog.keys.load('{game_id}').seats.Blue")
    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {token}"})
    assert status == 200
    status, _, key = http_json("GET", f"{server}/api/v1/server-key")
    assert exported.splitlines()[0] == header_line(key["public_key"], 2)  # export v2's header names the key
    report, lines = verify_text(exported.splitlines())
    assert report.ok and report.sealed_signatures_verified == 4 and report.reveals_verified == 2, report.summary()
    signed = [(line["data"]["kind"], line["data"]["seat"]) for line in lines if line["type"] == "SealedOrdersSigned"]
    assert signed == [("seal", "Blue"), ("seal", "Red"), ("reveal", "Blue"), ("reveal", "Red")]
    for tab in tabs.values():
        assert not tab.errors, tab.errors


def test_a_seat_rolls_sealed_and_shows_the_roll_on_the_game_page(server, open_tab, shots):
    """FF 9 on the page: Blue's sealed roll reads as hidden on Red's page until Blue shows it with
    the "show" order (its form built from the legal orders like any other)."""
    created = unjoined_game(server)
    game_id = created["game_id"]
    tabs = {}
    for seat in ("Blue", "Red"):
        tab = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites'][seat]}")
        tab.page.fill("#j-handle", seat.lower())
        tab.page.click("#join button[type=submit]")
        tab.page.wait_for_selector("#seatbar:not([hidden])")
        tabs[seat] = tab
    blue, red = tabs["Blue"].page, tabs["Red"].page
    pick_order(blue, "roll")
    blue.fill("#f-dice", "2d6")
    blue.fill("#f-purpose", "hidden draw")
    blue.check("#f-sealed")
    blue.click("#send")
    blue.wait_for_selector("#log li:has-text('Sealed: Blue rolled 2d6 for hidden draw')")
    red.wait_for_selector("#log li:has-text('Blue rolled 2d6 sealed for hidden draw: the dice are hidden')")
    seq = int(blue.get_attribute("#log li[data-type=SealedDiceRolled]", "data-seq"))

    pick_order(blue, "show")
    blue.select_option("#f-roll", label=str(seq))  # the legal orders offer the seat's sealed rolls not shown yet
    blue.click("#send")
    red.wait_for_selector(f"#log li:has-text('Blue shows sealed roll #{seq}: ')")
    shoot(red, shots / "sealed-roll-shown-red.png")
    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {created['admin_token']}"})
    report, lines = verify_text(exported.splitlines())
    assert report.ok and report.sealed_rolls_shown == 1, report.summary()
    roll = next(line for line in lines if line["seq"] == seq)
    assert isinstance(roll["data"]["dice"], list)  # the admin, no seat, reads the shown roll in full
