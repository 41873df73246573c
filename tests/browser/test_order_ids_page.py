"""The game page keeps an order's id until an order is accepted under it (issue 34, section 1;
docs/dice.md, "Retries keep their id"): a refused order's next attempt, corrected or not, is sent
under the same id, in the same browser even after a reload; a new id follows an acceptance."""

from __future__ import annotations

import pytest

from tests.browser.helpers import caught_up, join_blue, pick_order, red_joined, send
from tests.e2e.server import http_json

pytestmark = pytest.mark.slow


def test_a_refused_order_s_next_attempt_has_its_id_and_a_new_id_follows_acceptance(server, open_tab):
    created, red = red_joined(server)
    game_id = created["game_id"]

    blue = open_tab()
    page = blue.page
    sent: list[str] = []  # the Idempotency-Key of every order the page sends
    page.on("request", lambda r: sent.append(r.headers["idempotency-key"])
            if r.method == "POST" and r.url.endswith("/orders") else None)
    join_blue(blue, server, created)

    pick_order(page, "roll")
    page.fill("#f-dice", "2x6")  # refused: not a dice expression (FF 3)
    page.fill("#f-purpose", "barrage")
    page.click("#send")
    page.wait_for_selector("#status.error")
    page.reload()  # the id is kept in the browser, not only in the page
    blue.ready()
    caught_up(page)
    pick_order(page, "roll")
    page.fill("#f-dice", "2d6")  # corrected
    page.fill("#f-purpose", "barrage")
    send(page, "DiceRolled")
    pick_order(page, "note")
    page.fill("#f-text", "the next order")
    send(page, "OrderAccepted")

    assert len(sent) == 3 and sent[0] == sent[1] != sent[2], sent
    status, _, events = http_json("GET", f"{server}/api/v1/games/{game_id}/events?limit=500",
                                  headers={"Authorization": f"Bearer {red['token']}"})
    assert status == 200
    assert [line["data"]["order_id"] for line in events["events"] if line["type"] == "OrderAccepted"] == sent[1:]
    assert not page.evaluate(f"() => Warlog.keys.load('{game_id}').pending_orders.Blue")
