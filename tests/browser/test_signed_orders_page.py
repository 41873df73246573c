"""The pages sign (issue 34, part 3): a seat joined from the lobby holds an Ed25519 key made by
WebCrypto, its orders, take-back request and concession from the game page carry its signature,
and the export proves them."""

from __future__ import annotations

import json

import pytest

from domain.verify import header_line, verify_text
from tests.browser.helpers import blue_joined_in_the_browser, join_blue, pick_order, red_joined, send
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


def _blue_in_a_tab(server, open_tab):
    """A game Red joined over HTTP and Blue in a tab: its id, Blue's page, and a reader of the game's
    localStorage record on it."""
    created, _ = red_joined(server)
    game_id = created["game_id"]
    blue = open_tab()
    join_blue(blue, server, created)
    return game_id, blue.page, lambda: blue.page.evaluate(f"() => Warlog.keys.load('{game_id}')")


def test_an_answer_holding_an_older_head_does_not_replace_the_head_the_page_kept(server, open_tab):
    """docs/dice.md, "Signed heads": the head a page keeps proves the log went at least so far. The
    server answered Blue's second order with the signed head of Blue's join (a real head, of an
    earlier line): the game page kept it in place of the head of its first order, and the replay
    page then checked a log cut after the join, which drops both orders, against it: "verified".
    The page keeps only an answer's own head (its version and chain head), and never an older one."""
    game_id, page, record = _blue_in_a_tab(server, open_tab)
    kept = lambda: record()["signed_head"]  # noqa: E731
    joined = kept()
    pick_order(page, "note")
    page.fill("#f-text", "first")
    send(page, "OrderSigned")
    first = kept()
    assert first["seq"] > joined["seq"]

    def older_head(route):
        answer = route.fetch()
        body = answer.json()
        if isinstance(body, dict) and "signed_head" in body:
            body["signed_head"] = joined
        route.fulfill(response=answer, body=json.dumps(body))

    page.route(f"{server}/api/v1/games/{game_id}/orders", older_head)
    pick_order(page, "note")
    page.fill("#f-text", "second")
    send(page, "OrderSigned")
    assert kept() == first

    token = page.evaluate("id => Warlog.keys.reader(id)", game_id)
    status, _, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                    headers={"Authorization": f"Bearer {token}"})
    assert status == 200
    cut = "\n".join(exported.splitlines()[:1 + joined["seq"]]) + "\n"  # the header line, then the log to the join

    def cut_log(route):
        answer = route.fetch()
        route.fulfill(response=answer, body=cut)

    page.route(f"{server}/api/v1/games/{game_id}/export", cut_log)
    page.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_selector("#verify:not([data-state=checking])")
    failures = page.eval_on_selector_all("#verify-failures li", "els => els.map(e => e.textContent)")
    assert any(f"line {first['seq']}" in why and "cut short" in why for why in failures), failures


def test_the_page_keeps_a_head_only_when_the_servers_signature_of_it_verifies(server, open_tab):
    """docs/dice.md, "Signed heads" (trust13, item 1): the page kept the signed head of every answer
    after checking its shape alone, so a head whose signature was not the server's (forged, or
    garbled on the way) was kept and later shown as what the log continues. The page checks the
    signature with WebCrypto's Ed25519 against the server key it pins for the game, keeps only a head
    that verifies, and says on the page when one does not."""
    game_id, page, kept = _blue_in_a_tab(server, open_tab)
    _, _, key = http_json("GET", f"{server}/api/v1/server-key")
    joined = kept()
    assert joined["signed_head"]["seq"] > 0  # the join's head, verified and kept

    def forged(route):  # the answer's own line and hash, under a signature that is not the server's
        answer = route.fetch()
        body = answer.json()
        if isinstance(body, dict) and "signed_head" in body:
            signature = body["signed_head"]["signature"]
            body["signed_head"]["signature"] = ("A" if signature[0] != "A" else "B") + signature[1:]
        route.fulfill(response=answer, body=json.dumps(body))

    page.route(f"{server}/api/v1/games/{game_id}/orders", forged)
    pick_order(page, "note")
    page.fill("#f-text", "forged head")
    send(page, "OrderSigned")
    page.wait_for_selector("#head-warning")
    assert "signature does not verify" in page.text_content("#head-warning")
    assert kept()["signed_head"] == joined["signed_head"]  # the forged head was not kept

    page.unroute(f"{server}/api/v1/games/{game_id}/orders")
    pick_order(page, "note")
    page.fill("#f-text", "true head")
    send(page, "OrderSigned")
    assert kept()["signed_head"]["seq"] > joined["signed_head"]["seq"]  # the server's own head: kept
    assert kept()["server_key"] == key["public_key"]  # pinned for the game with its first head
