"""A freeform game played through the pages in Chromium: the lobby creates it, two players join
from their own browsers (one at phone width), play orders on the game page (the opponent's page
follows through the event stream), then the replay viewer steps through it by keyboard and
buttons with its position in the address."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.helpers import (caught_up, hash_seq, labels_missing, no_horizontal_scroll, operation_ends, pick_order,
                                   send, shoot)
from tests.e2e.server import http_json, started_game, unjoined_game

pytestmark = pytest.mark.slow


def test_a_freeform_game_from_the_lobby_to_the_replay(server, open_tab, shots):
    # ---- the lobby: create a private game; this browser keeps the admin token and the invites
    blue = open_tab().goto(f"{server}/")
    page = blue.page
    page.select_option("#c-ruleset", "freeform")
    page.fill("#c-sides", "Blue, Red")
    page.fill("#c-phases", "Move, Fight")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created:not([hidden])")
    game_id = page.text_content("#created-link").strip()
    red_link = page.get_attribute('.invite[data-seat="Red"] a.invite-link', "href")
    assert red_link.startswith(f"{server}/games/{game_id}#invite=wli_")
    page.wait_for_selector(f'#games tr[data-game="{game_id}"]')
    assert "waiting" in page.text_content(f'#games tr[data-game="{game_id}"]')
    shoot(page, shots / "freeform-lobby.png")

    # ---- Blue joins from the lobby and lands on the game page
    page.click('.invite[data-seat="Blue"] button')
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"{server}/games/{game_id}")
    blue.ready()
    assert "Waiting for every seat to join: Red" in page.text_content("#turn")

    # ---- Red opens the invite link on a phone and joins there
    red = open_tab(375, 740)
    red.page.goto(red_link)
    red.ready()
    assert red.page.input_value("#j-invite").startswith("wli_")
    red.page.fill("#j-handle", "bob")
    red.page.click("#join button[type=submit]")
    red.page.wait_for_selector("#turn:has-text('Your move, Red')")
    assert "#invite=" not in red.page.url  # the used code leaves the address

    # ---- Blue's page learns of Red's join through the stream, without a reload
    page.wait_for_selector("#turn:has-text('Your move, Blue')")
    page.wait_for_selector("#live:has-text('live')")

    # ---- Blue rolls against a target: the result shows the dice, the target and the outcome
    pick_order(page, "roll")
    page.fill("#f-dice", "2d6")
    page.fill("#f-purpose", "3 Bde fires at the bridge")
    page.fill("#f-target", ">=7")
    send(page, "DiceRolled")
    roll = page.locator("#result li[data-type=DiceRolled] .roll")
    assert roll.locator(".die").count() == 2
    assert re.search(r"(success|failure)", roll.text_content())
    assert roll.get_attribute("data-status") == "unrevealed"

    # ---- Red sees it through the event stream
    red.page.wait_for_selector("#log li:has-text('3 Bde fires at the bridge')")

    # ---- an illegal order is refused naming its rule, and nothing is recorded
    caught_up(page)
    version = page.get_attribute("body", "data-version")
    pick_order(page, "roll")
    page.fill("#f-dice", "2x6")
    page.fill("#f-purpose", "nonsense")
    page.click("#send")
    page.wait_for_selector("#status.error")
    assert re.search(r"Refused: .*FF 3", page.text_content("#status"))
    caught_up(page)
    assert page.get_attribute("body", "data-version") == version

    # ---- Red scores VP from the phone; Blue advances to the next turn (the dice epoch is revealed)
    caught_up(red.page)
    pick_order(red.page, "vp")
    red.page.select_option("#f-side", label="Red")
    red.page.fill("#f-delta", "2")
    red.page.fill("#f-reason", "took the town")
    send(red.page, "VPScored")
    caught_up(page)
    for _ in range(2):
        pick_order(page, "advance")
        send(page, "PhaseAdvanced" if _ == 0 else "TurnAdvanced")
    pick_order(page, "note")
    page.fill("#f-text", "Blue digs in on the ridge")
    send(page, "OrderAccepted")
    pick_order(page, "vp")
    page.select_option("#f-side", label="Blue")
    page.fill("#f-delta", "3")
    page.fill("#f-reason", "held the ridge")
    send(page, "VPScored")
    page.wait_for_selector("#vp td:has-text('3')")
    assert not labels_missing(page) and not labels_missing(red.page)

    # ---- a take-back: Blue asks, Red's page offers Accept through the stream, Blue's VP go back
    page.click("#takeback")
    red.page.click("#takeback-buttons button:has-text('Accept')")
    page.wait_for_function("() => document.querySelector('#vp tr td').textContent === '0'")
    page.wait_for_selector("#takeback-box", state="hidden")
    caught_up(page)
    red.page.wait_for_selector("#log li:has-text('held the ridge')")
    # the taken-back VP line stays in both logs, struck through and said taken back
    for seat_page in (page, red.page):
        seat_page.wait_for_selector("#log li.superseded:has-text('held the ridge'):has-text('(taken back)')")
    shoot(page, shots / "freeform-game-blue.png")
    shoot(red.page, shots / "freeform-game-red-phone.png")
    no_horizontal_scroll(red.page)
    assert page.locator("#board .no-map").count() == 1  # freeform has no map: the log and dice

    # ---- the replay, with Blue's token (a private game)
    replay = blue.goto(f"{server}/games/{game_id}/replay").page
    status, _, frames = http_json("GET", f"{server}/api/v1/games/{game_id}/frames",
                                  headers={"Authorization": "Bearer " + replay.evaluate(
                                      f"Warlog.keys.seat('{game_id}').token")})
    assert status == 200
    seqs = [f["seq"] for f in frames["frames"]]
    assert replay.locator("#history li[data-seq]").count() == len(seqs)
    assert hash_seq(replay) == seqs[0]
    assert replay.locator("#chart svg #cursor").count() == 1  # the VP chart and its cursor
    assert replay.locator("#board .no-map").count() == 1
    assert not labels_missing(replay)

    # keyboard: End, Home, arrows; the address follows
    replay.keyboard.press("End")
    assert hash_seq(replay) == seqs[-1]
    x_end = float(replay.get_attribute("#cursor", "x1"))
    replay.keyboard.press("Home")
    assert hash_seq(replay) == seqs[0]
    assert float(replay.get_attribute("#cursor", "x1")) < x_end
    for _ in range(3):
        replay.keyboard.press("ArrowRight")
    assert hash_seq(replay) == seqs[3]
    replay.keyboard.press("ArrowLeft")
    assert hash_seq(replay) == seqs[2]
    assert replay.locator("#history li.current").get_attribute("data-seq") == str(seqs[2])

    # operations, phases and turns by button and key
    replay.keyboard.press("Shift+ArrowRight")  # to the end of the next operation
    assert seqs.index(hash_seq(replay)) == min(n for n in operation_ends(frames["frames"]) if n > 2)
    replay.keyboard.press("PageDown")
    turn_frame = frames["frames"][seqs.index(hash_seq(replay))]
    assert "turn" in turn_frame["marks"] and turn_frame["turn"] == 2
    replay.click("#prev-turn")
    assert frames["frames"][seqs.index(hash_seq(replay))]["turn"] == 1
    replay.click("#next-phase")
    phase_frame = frames["frames"][seqs.index(hash_seq(replay))]
    assert "phase" in phase_frame["marks"] and phase_frame["phase"] == "Fight"
    replay.select_option("#turn-select", "2")
    assert frames["frames"][seqs.index(hash_seq(replay))]["turn"] == 2

    # the roll's step: its dice with purpose, target, outcome, verified once its turn ended
    roll_seq = next(f["seq"] for f in frames["frames"] if f.get("dice"))
    replay.click(f"#history li[data-seq='{roll_seq}'] button")
    assert hash_seq(replay) == roll_seq
    die = replay.locator("#dice .roll.current")
    assert "3 Bde fires at the bridge" in die.text_content()
    assert re.search(r"target \d+ >= 7", die.text_content())
    assert die.locator(".verif").text_content() == "verified"
    shoot(replay, shots / "freeform-replay.png")

    # the address is shareable: a fresh page opened on it starts there
    shared = replay.evaluate("location.href")  # not replay.url: see hash_seq
    other = open_tab(375, 740)
    keys = replay.evaluate("id => localStorage.getItem('warlog:game:' + id)", game_id)
    other.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(keys)})")
    other.goto(shared)
    assert hash_seq(other.page) == roll_seq
    assert other.page.locator("#history li.current").get_attribute("data-seq") == str(roll_seq)
    other.page.locator("#dice .roll.current").wait_for()
    no_horizontal_scroll(other.page)
    shoot(other.page, shots / "freeform-replay-phone.png")

    # play runs forward by itself and stops at the end
    replay.click("#speed")
    replay.select_option("#speed", "150")
    replay.click("#play")
    replay.wait_for_function("h => location.hash === h", arg=f"#seq={seqs[-1]}", timeout=15_000)
    assert replay.get_attribute("#play", "aria-pressed") == "false"

    for tab in (blue, red, other):
        assert not tab.errors, tab.errors


def test_a_private_game_is_not_shown_without_its_token(server, open_tab):
    made = unjoined_game(server, {"ruleset": "freeform", "options": {"sides": ["A", "B"]}})
    tab = open_tab()
    tab.page.goto(f"{server}/games/{made['game_id']}/replay")
    tab.page.wait_for_selector("#status.error")
    assert "private" in tab.page.text_content("#status")
    # The access form shows before the summary's answer arrives (no seat is known): wait for the
    # page to have loaded, or shown why not, before reading what it says.
    tab.goto(f"{server}/games/{made['game_id']}")
    assert tab.page.is_visible("#access")
    assert "private" in tab.page.text_content("#summary")


def test_the_lobby_fits_a_phone_and_filters_by_status(server, open_tab, shots):
    for n in range(2):
        made = unjoined_game(server, {"ruleset": "freeform", "public": True, "options": {"sides": ["A", "B"]}})
    tab = open_tab(375, 740).goto(f"{server}/")
    page = tab.page
    assert page.locator(f'#games tr[data-game="{made["game_id"]}"]').count() == 1
    page.select_option("#f-status", "ended")
    page.wait_for_selector(f'#games tr[data-game="{made["game_id"]}"]', state="detached")
    page.select_option("#f-status", "waiting")
    page.wait_for_selector(f'#games tr[data-game="{made["game_id"]}"]')
    no_horizontal_scroll(page)
    assert not labels_missing(page)
    shoot(page, shots / "lobby-phone.png")
    assert not tab.errors, tab.errors


def test_take_back_and_concede_are_not_offered_after_the_end(server, open_tab):
    """Issue 29, item 16: an ended game offers neither button (the server refuses both, FF 5/6)."""
    game_id, _, tokens = started_game(server, {"ruleset": "freeform", "options": {"sides": ["A", "B"]}, "public": True})
    tab = open_tab()
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', "
                                f"{json.dumps(json.dumps({'seats': {'A': tokens['A']}, 'active': 'A'}))})")
    status, _, noted = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": "first"},
                                 headers={"Authorization": "Bearer " + tokens["A"], "Idempotency-Key": "note-1"})
    assert status == 201, noted  # an order of A's to take back (FF 6)
    tab.goto(f"{server}/games/{game_id}")
    tab.page.wait_for_selector("#turn:has-text('Your move, A')")
    assert tab.page.is_visible("#takeback") and tab.page.is_visible("#concede")
    status, _, ended = http_json("POST", f"{server}/api/v1/games/{game_id}/orders",
                                 {"kind": "end", "winner": "A", "reason": "agreed"},
                                 headers={"Authorization": "Bearer " + tokens["A"], "Idempotency-Key": "end-1"})
    assert status == 201, ended
    tab.page.wait_for_selector("#turn:has-text('The game has ended')")
    assert not tab.page.is_visible("#takeback") and not tab.page.is_visible("#concede")
    assert not tab.errors, tab.errors
