"""Falklands Showdown through the pages in Chromium: the lobby creates it, UK and AR join from
their own browsers, UK places its submarines on the game page's map form, both sides give
operations (from their forms), UK moves a submarine; the replay draws both maps with every counter
and highlights the move of the current step."""

from __future__ import annotations

import re
import uuid

import pytest

from domain.errors import UnknownRuleset
from domain.rulesets import find_ruleset
from tests.browser.helpers import (caught_up, counters_out_of_place, hash_seq, labels_missing, no_horizontal_scroll,
                                   on_map, open_with_keys, pick_order, send, shoot)
from tests.e2e.server import http_json, started_game

pytestmark = pytest.mark.slow


def _falklands_missing() -> str | None:
    try:
        find_ruleset("falklands")
    except UnknownRuleset:
        return "the falklands ruleset is not registered yet (domain/rulesets/falklands)"
    return None


@pytest.fixture(autouse=True)
def _needs_falklands():
    reason = _falklands_missing()
    if reason:
        pytest.skip(reason)


def uk_page_with_a_decision(server, open_tab, game_id: str, token: str):
    """A tab holding the UK's seat, on the game page, once its pending decision is shown."""
    uk = open_with_keys(open_tab, server, game_id, {"seats": {"UK": token}, "active": "UK"})
    page = uk.page
    page.wait_for_selector("#pending-box:not([hidden])")
    return uk, page


def test_a_falklands_game_on_the_map(server, open_tab, shots):
    board = http_json("GET", f"{server}/api/v1/rulesets/falklands")[2]["board"]

    # ---- the lobby: create a public Falklands game
    uk = open_tab().goto(f"{server}/")
    page = uk.page
    page.select_option("#c-ruleset", "falklands")
    assert page.locator("#c-freeform").is_hidden()  # the freeform options are for freeform only
    page.check("#c-public")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created:not([hidden])")
    game_id = page.text_content("#created-link").strip()
    ar_link = page.get_attribute('.invite[data-seat="AR"] a.invite-link', "href")
    page.click('.invite[data-seat="UK"] button')
    page.fill("#j-handle", "sandy")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"{server}/games/{game_id}")
    uk.ready()

    ar = open_tab(375, 740)
    ar.page.goto(ar_link)
    ar.ready()
    ar.page.fill("#j-handle", "mario")
    ar.page.click("#join button[type=submit]")
    ar.page.wait_for_selector("#turn:has-text('Waiting for UK')")

    # ---- the game page draws both maps with the counters in play
    page.wait_for_selector("#turn:has-text('Your move, UK')")
    assert page.locator("#board svg.map").count() == len(board["maps"]) == 2
    assert page.locator("#board polygon.area").count() == len(board["areas"])
    counters = page.locator("#board g.counter").count()
    assert counters > 20
    state = uk.page.evaluate("""async id => (await Warlog.api('/api/v1/games/' + id + '/state',
        {token: Warlog.keys.reader(id)})).body.state""", game_id)
    assert counters == len(on_map(board, state))
    assert counters_out_of_place(page, "#board", state) == []  # issue 29: every counter inside its area
    # the UK operations left and what is in effect, with the map (FS 5.4: 1-1 at the start)
    assert page.text_content("#board [data-track=uk_operations_left]") == "UK Operations Remaining: 30 of 30"
    assert "UK Operational Superiority" in page.text_content("#board li[data-effect=uk_operational_superiority]")

    # ---- UK places the two submarines with the set-up form (a select per submarine)
    pick_order(page, "setup")
    subs = page.locator("#fields select[data-map=submarines]")
    assert subs.count() == 2
    # the game's names, not ids: "Spartan" placed in "Sea Area 6" (issue 29)
    assert sorted(page.locator("#fields .choice-map label").all_text_contents()) == ["Spartan", "Splendid"]
    assert "Sea Area 6" in subs.nth(0).locator("option").all_text_contents()
    placed = {}
    for k, area in zip(range(2), ("sa6", "sa7")):
        select = subs.nth(k)
        select.select_option(area)
        placed[select.get_attribute("data-id")] = area
    assert not labels_missing(page)
    send(page, "UnitMoved")
    for unit, area in placed.items():
        page.wait_for_selector(f"#board g.counter.moved[data-unit='{unit}']")
        assert page.locator(f"#board g.counter[data-unit='{unit}']").count() == 1

    # ---- an operation from its form (Op #9 has only its number), then a pass
    caught_up(page)
    pick_order(page, "operation:20")  # a form of units and areas: every choice by its name
    shown = page.eval_on_selector_all("#fields select option", "os => os.map(o => o.textContent)")
    ids = {i for kind in ("units", "areas") for i, x in board[kind].items() if x["name"] != i}
    assert "Hermes" in shown and "Sea Area 1" in shown
    assert not ids & set(shown), sorted(ids & set(shown))
    pick_order(page, "operation:9")
    assert page.locator("#fields select[name=op]").count() == 1
    send(page, "OperationBegun")
    caught_up(page)
    for _ in range(5):  # UK may have more operations this phase; pass until it is AR's move
        if "Your move, UK" not in page.text_content("#turn"):
            break
        pick_order(page, "pass")
        send(page, "OrderAccepted")
        caught_up(page)
    ar.page.wait_for_selector("#turn:has-text('Your move, AR')")
    caught_up(ar.page)
    left = uk.page.evaluate("""async id => (await Warlog.api('/api/v1/games/' + id + '/state',
        {token: Warlog.keys.reader(id)})).body.state.uk_operations_left""", game_id)
    assert left < 30  # the UK operations spent show on both seats' pages
    assert ar.page.text_content("#board [data-track=uk_operations_left]") == f"UK Operations Remaining: {left} of 30"
    pick_order(ar.page, "pass")
    send(ar.page, "OrderAccepted")
    no_horizontal_scroll(ar.page)
    shoot(ar.page, shots / "falklands-game-ar-phone.png")

    # ---- UK's submarine phase: move one submarine
    page.wait_for_selector("#kinds input[data-kind=submarines]")
    caught_up(page)
    pick_order(page, "submarines")
    mover, _ = next(iter(placed.items()))
    page.select_option(f"#fields select[data-map=moves][data-id='{mover}']", "sa3")
    send(page, "UnitMoved")
    page.wait_for_selector(f"#board g.counter.moved[data-unit='{mover}']")
    shoot(page, shots / "falklands-game-uk.png")

    # ---- the replay: both maps, every counter, the move of the step highlighted, the VP chart
    replay = uk.goto(f"{server}/games/{game_id}/replay").page
    replay.keyboard.press("End")
    last = hash_seq(replay)
    status, _, frames = http_json("GET", f"{server}/api/v1/games/{game_id}/frames")
    assert status == 200 and frames["frames"][-1]["seq"] == last
    assert replay.locator("#board svg.map").count() == 2
    final = frames["states"][frames["frames"][-1]["state"]]
    assert replay.locator("#board g.counter").count() == len(on_map(board, final))
    assert replay.locator("#chart svg #cursor").count() == 1 and replay.locator("#vp td").count() >= 1
    # step back to the submarine's move: its counter is marked and an arrow drawn from where it was
    move_seq = max(f["seq"] for f in frames["frames"] if f["type"] == "UnitMoved")
    replay.click(f"#history li[data-seq='{move_seq}'] button")
    assert hash_seq(replay) == move_seq
    assert replay.locator(f"#board g.counter.moved[data-unit='{mover}']").count() == 1
    assert replay.locator(f"#board line.move-arrow[data-unit='{mover}']").count() == 1
    assert re.search(r"Turn 1 · UK Submarine", replay.text_content("#where"))
    # and before the set-up the two submarines were not on the map
    replay.keyboard.press("Home")
    assert replay.locator(f"#board g.counter[data-unit='{mover}']").count() == 0
    replay.click(f"#history li[data-seq='{move_seq}'] button")
    shoot(replay, shots / "falklands-replay.png")
    replay.set_viewport_size({"width": 375, "height": 740})
    no_horizontal_scroll(replay)
    shoot(replay, shots / "falklands-replay-phone.png")

    for tab in (uk, ar):
        assert not tab.errors, tab.errors


def test_a_pending_decision_is_shown_in_names_and_answered_from_the_form(server, open_tab, shots):
    """Issue 29: a Falklands decision's options (an object) broke the game page's pending panel, so
    the defender could not answer from the page; the options read in the game's names, and the
    battle's dice show their hit numbers."""
    game_id, _, tokens = started_game(server, {"ruleset": "falklands", "options": {"uk_operations": 6}})

    def order(seat: str, body: dict) -> dict:
        status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", body,
                                      {"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": str(uuid.uuid4())})
        assert status == 201, result
        return result

    order("UK", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa7"}})
    for _ in range(5):  # the UK's operations of the first phase, passed
        summary = http_json("GET", f"{server}/api/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens['UK']}"})[2]
        if summary["whose_move"] != ["UK"]:
            break
        order("UK", {"kind": "pass"})
    # the 25 de Mayo sails into Sea Area 6 and attacks Spartan: the UK assigns its defensive fire
    order("AR", {"kind": "operation", "op": 20, "units": ["25_de_mayo"], "destination": "sa6", "attack": True})

    uk, page = uk_page_with_a_decision(server, open_tab, game_id, tokens["UK"])
    pending = page.text_content("#pending")
    assert "Sea Area 6" in pending and "fire: Spartan: 25 de Mayo; auto: yes" in pending, pending
    pick_order(page, "decide")
    assert page.locator("#fields select[name=choice] option").all_text_contents() == ["fire: auto"]
    send(page, "DiceRolled")
    rolls = page.locator("#result li[data-type=DiceRolled] .roll")
    assert rolls.count() >= 1
    for k in range(rolls.count()):
        assert re.search(r"hit number \d+: (hits on 1(–\d)?|cannot hit)", rolls.nth(k).text_content())
        assert re.search(r"\b(hit|miss)\b", rolls.nth(k).locator(".outcome").text_content())
    page.wait_for_selector("#kinds input[data-kind=submarines]:checked")  # the next order offered, ready
    shoot(page, shots / "falklands-decision-answered.png")
    assert not uk.errors, uk.errors


def test_fs_10_9_a_carriers_shot_aimed_as_fired_is_asked_and_answered_on_the_page(server, open_tab, shots):
    """FS 10.9 "they need not assign each shot beforehand": Hermes strikes Port Stanley (Op #19) with
    one shot listed; the UK's page shows the carrier_shot decision in the game's names, answers it
    from the form, and the replay's history tells the aim and its die."""
    game_id, _, tokens = started_game(server, {"ruleset": "falklands", "position": "opening"})

    def order(seat: str, body: dict) -> dict:
        status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", body,
                                      {"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": str(uuid.uuid4())})
        assert status == 201, result
        return result

    # 1-1 is in effect in the first turn (FS 5.4): the carriers sail in, then strike (six targets there,
    # so whatever the first die, two still stand and the UK aims the second shot)
    order("UK", {"kind": "operation", "op": 20, "units": ["hermes", "invincible"], "destination": "falklands"})
    order("UK", {"kind": "operation", "op": 19, "area": "port_stanley", "carriers": ["hermes"],
                 "fire": [{"unit": "hermes", "at": "ri_3"}]})
    board = http_json("GET", f"{server}/api/v1/rulesets/falklands")[2]["board"]
    ri_3, ri_6 = board["units"]["ri_3"]["name"], board["units"]["ri_6"]["name"]

    uk, page = uk_page_with_a_decision(server, open_tab, game_id, tokens["UK"])
    pending = page.text_content("#pending")
    assert "aim Hermes's shot 2 of 3" in pending and "(FS 10.9)" in pending, pending
    assert f"at: {ri_3}, {ri_6}" in pending and "standing: " in pending and "ri_3" not in pending, pending
    pick_order(page, "decide")
    offered = page.locator("#fields select[name=choice] option").all_text_contents()
    assert f"at: {ri_6}" in offered and len(offered) == 6, offered
    page.select_option("#fields select[name=choice]", label=f"at: {ri_6}")
    send(page, "DiceRolled")
    assert f"Hermes fires at {ri_6}" in page.text_content("#result")
    caught_up(page)
    page.wait_for_selector("#pending:has-text('shot 3 of 3')")
    shoot(page, shots / "falklands-carrier-shot.png")

    replay = uk.goto(f"{server}/games/{game_id}/replay").page
    replay.keyboard.press("End")
    history = replay.text_content("#history")
    assert f"UK decided: at: {ri_6}" in history and f"Hermes fires at {ri_6}" in history, history
    assert not uk.errors, uk.errors
