"""Round nine of the pages: a new user's first games with them, in Chromium. Each test is a problem
found there: what the page did, checked against what docs/pages.md says."""

from __future__ import annotations

import pytest

from tests.browser.helpers import caught_up, freeform_game, open_with_keys, pick_order, send, tab_with_keys
from tests.e2e.server import http_json, started_game

pytestmark = pytest.mark.slow


def _issued(server: str, game_id: str, admin: str, path: str, body: dict) -> str:
    status, _, made = http_json("POST", f"{server}/api/v1/games/{game_id}/{path}", body,
                                {"Authorization": f"Bearer {admin}"})
    assert status == 201, made
    return made["token"]


def test_another_games_umpire_or_spectator_token_pasted_on_a_public_games_page_is_refused(server, open_tab):
    """docs/pages.md, "Tokens in the browser": a public game reads with any game's token, so the
    paste form's check (read the summary with it) kept another game's umpire or spectator token as
    this game's; every read then went as an anonymous visitor's and the page said nothing. The page
    now asks GET …/me (docs/api.md) what the token is in this game before keeping it, and says why
    it refuses one."""
    public_id, public_admin, _ = started_game(server, {"ruleset": "freeform", "public": True, "umpire": "Ann",
                                                       "options": {"sides": ["Blue", "Red"]}})
    other_id, other_admin, _ = started_game(server, {"ruleset": "freeform", "umpire": "Bea",
                                                     "options": {"sides": ["Blue", "Red"]}})
    other_umpire = _issued(server, other_id, other_admin, "umpire-tokens", {})
    other_spectator = _issued(server, other_id, other_admin, "spectator-tokens", {"name": "Kim"})
    tab = open_tab().goto(f"{server}/games/{public_id}")
    page = tab.page
    for token in (other_umpire, other_spectator):
        page.fill("#p-token", token)
        page.click("#paste button[type=submit]")
        page.wait_for_selector("#status.error")
        assert "another game" in page.text_content("#status"), page.text_content("#status")
        assert page.evaluate(f"localStorage.getItem('warlog:game:{public_id}')") is None
        assert page.input_value("#p-token") == token  # left to correct, not taken
        page.evaluate("Warlog.status('')")
    # This game's spectator token is kept, and the page says as whom.
    mine = _issued(server, public_id, public_admin, "spectator-tokens", {"name": "Sam"})
    page.fill("#p-token", mine)
    page.click("#paste button[type=submit]")
    page.wait_for_selector("#status.ok")
    assert "the spectator Sam" in page.text_content("#status")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('warlog:game:{public_id}'))")
    assert kept["spectator"] == mine
    assert not tab.errors


def _stf_game(server: str) -> tuple[str, str]:
    """An STF game its Player has joined: its id and the Player's token."""
    game_id, _, tokens = started_game(server, {"ruleset": "stf"})
    return game_id, tokens["Player"]


def test_the_eight_campaigns_of_stf_1_1_read_apart_in_the_order_form(server, open_tab):
    """STF 1.1: the Player chooses the campaign's map and side; legal-orders offers eight
    `campaign` templates with no fields, title or label. The form listed them as eight radio buttons
    all reading "campaign", each with "No fields: just send it.", so a player could not tell which
    map and side he was choosing. Each now adds the values it sends."""
    game_id, token = _stf_game(server)
    status, _, legal = http_json("GET", f"{server}/api/v1/games/{game_id}/legal-orders",
                                 headers={"Authorization": f"Bearer {token}"})
    assert status == 200 and [t["kind"] for t in legal["orders"]].count("campaign") > 1, legal
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Player": token}, "active": "Player"})
    page = tab.page
    labels = page.eval_on_selector_all("#kinds label.kind", "els => els.map(e => e.textContent.trim())")
    offered = [t for t in legal["orders"] if t["kind"] == "campaign"]
    assert labels[:len(offered)] == [f"campaign: map {t['map']}, side {t['side']}" for t in offered]
    assert len(set(labels)) == len(labels)
    # The one picked is the one sent.
    giuk_soviet = next(k for k, t in enumerate(offered) if t["map"] == "giuk" and t["side"] == "Soviet")
    page.locator("#kinds input[name=kind]").nth(giuk_soviet).check()
    send(page, "OrderAccepted")
    assert "map giuk" in page.text_content("#result") and "Soviet" in page.text_content("#result")
    assert not tab.errors


def test_an_stf_game_before_its_campaign_says_its_map_comes_with_the_theatre(server, open_tab):
    """STF 1.1: the campaign's map is fixed by its first order. Before it the game page said "This
    game has no map: its story is in the log and the dice", which is untrue of STF; it now says the
    map is drawn once the theatre is chosen, naming the three."""
    game_id, token = _stf_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Player": token}, "active": "Player"})
    text = tab.page.text_content("#board .no-map")
    assert "drawn once the game's theatre is chosen" in text and "giuk" in text, text
    assert "has no map" not in text
    assert not tab.errors


def test_red_advances_into_the_hex_typed_in_the_form_pg_5_1(server, open_tab):
    """PG 5.1: Red orders ``advance`` into a hex it names. The template gave the hex as a fixed
    value, "<a hex, e.g. K5>", so the form offered no field, said "No fields: just send it." and the
    order sent that placeholder, refused (PG 5.1: a hex is a column letter…). The hex is now a
    field of the template, typed in the form."""
    game_id, _, tokens = started_game(server, {"ruleset": "proving"})
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"})
    page = tab.page
    pick_order(page, "advance")
    assert "just send it" not in page.text_content("#fields")
    page.fill("#f-hex", "J4")
    send(page, "OrderAccepted")
    assert "J4" in page.text_content("#result")
    assert not tab.errors


@pytest.mark.parametrize("accept, said", [(False, "Red declined your take-back: the order stands."),
                                          (True, "Red accepted your take-back: the order is taken back.")])
def test_the_seat_that_asked_for_a_take_back_is_told_the_answer_ff_6(server, open_tab, accept, said):
    """FF 6: the opponent accepts or declines a take-back. The page of the seat that asked said
    "Take-back asked for; the opponent answers." and went on saying it after the answer came: the
    box closed and only a log line told what happened, so a declined take-back looked still waiting
    (or gone unanswered). The status line now says the answer."""
    game_id, _, tokens = freeform_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    pick_order(page, "roll")
    page.fill("#f-dice", "2d6")
    page.fill("#f-purpose", "3 Bde fires at the bridge")
    send(page, "DiceRolled")
    page.click("#takeback")
    page.wait_for_selector("#takeback-box:not([hidden])")
    assert "Take-back asked for" in page.text_content("#status")
    status, _, answer = http_json("POST", f"{server}/api/v1/games/{game_id}/take-backs/answer", {"accept": accept},
                                  {"Authorization": f"Bearer {tokens['Red']}"})
    assert status == 200, answer
    page.wait_for_selector("#takeback-box[hidden]", state="attached")
    page.wait_for_function("t => document.getElementById('status').textContent === t", arg=said)
    assert not tab.errors


def test_an_order_sent_on_an_old_version_is_told_the_game_moved_on(server, open_tab):
    """The other side of the damaged-log refusal (test_damaged_page.py): a 412 stale_version is a
    lost race, and the page still says so and reloads."""
    game_id, _, tokens = freeform_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.route("**/events/stream*", lambda route: route.abort())  # no reload: the page keeps its old version
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": "meanwhile"},
                             {"Authorization": f"Bearer {tokens['Red']}", "Idempotency-Key": "red-1"})
    assert status == 201
    pick_order(page, "note")
    page.fill("#f-text", "too late")
    page.click("#send")
    page.wait_for_selector("#status.error")
    assert "The game moved on before your order arrived" in page.text_content("#status")


def test_a_read_the_network_loses_is_said_not_shown_as_a_game_without_a_map(server, open_tab):
    """A game page whose ruleset read failed (the network) drew "This game has no map: its story is
    in the log and the dice" for a Falklands game, and kept that board for good (it never read the
    ruleset again); a failed read of the log or the state left them empty without a word. Each
    failed read is now named in the status line, the map panel says it could not be read, and the
    next reload reads the ruleset again."""
    game_id, _, tokens = started_game(server, {"ruleset": "falklands"})
    tab = tab_with_keys(open_tab, game_id, {"seats": {"UK": tokens["UK"]}, "active": "UK"})
    page = tab.page
    page.route("**/api/v1/rulesets/falklands", lambda route: route.abort())
    page.route("**/history", lambda route: route.abort())
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    said = page.text_content("#status")
    assert "Not read: the map" in said and "the log" in said and "cannot be reached" in said, said
    assert "has no map" not in page.text_content("#board")
    assert "could not be read" in page.text_content("#board")
    page.unroute("**/api/v1/rulesets/falklands")
    page.unroute("**/history")
    page.evaluate("Warlog.status('')")
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "setup", "submarines": {"spartan": "sa6", "splendid": "sa7"}},
                             {"Authorization": f"Bearer {tokens['UK']}", "Idempotency-Key": "uk-1"})
    assert status == 201
    page.wait_for_selector("#board svg.map")  # the stream's reload read the ruleset again
    page.wait_for_selector("#log li[data-seq]")
    assert page.text_content("#status") == ""


def test_the_lobby_and_the_replay_say_when_the_rulesets_cannot_be_read(server, open_tab):
    """The lobby's list of rulesets fell back to Freeform alone when the read failed, without a
    word, so a player looking for Falklands Showdown found none; the live replay whose ruleset read
    failed said "This game has no map" of a Falklands game. Both now say what was not read."""
    tab = open_tab()
    page = tab.page
    page.route("**/api/v1/rulesets", lambda route: route.abort())
    tab.goto(f"{server}/")
    assert page.eval_on_selector_all("#c-ruleset option", "els => els.map(e => e.value)") == ["freeform"]
    said = page.text_content("#status")
    assert said.startswith("Rulesets: the server cannot be reached") and "Only Freeform is offered" in said, said

    game_id, _, _ = started_game(server, {"ruleset": "falklands", "public": True})
    page.route("**/api/v1/rulesets/falklands", lambda route: route.abort())
    tab.goto(f"{server}/games/{game_id}/replay")
    assert "has no map" not in page.text_content("#board")
    assert "The map could not be read" in page.text_content("#board")
    assert "The map could not be read" in page.text_content("#status")


def test_a_game_whose_rules_name_no_take_back_offers_none(server, open_tab):
    """STF names no take-back (its ruleset's take_back_rule is None): the game page offered "Ask to
    take back my last order" all the same, and a click was refused ("STF: this game allows no
    take-backs"). The ruleset read now gives take_back_rule, and the page offers the button only
    where a rule allows it (FF 6 in freeform)."""
    game_id, token = _stf_game(server)
    status, _, rules = http_json("GET", f"{server}/api/v1/rulesets/stf")
    assert status == 200 and rules["take_back_rule"] is None
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Player": token}, "active": "Player"})
    assert tab.page.is_visible("#orders-box") and tab.page.is_hidden("#takeback")
    free_id, _, tokens = freeform_game(server)
    _note(server, free_id, tokens["Blue"], "n-1")
    free = open_with_keys(open_tab, server, free_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    free.page.wait_for_selector("#takeback", state="visible")
    assert not tab.errors and not free.errors


def _note(server: str, game_id: str, token: str, key: str) -> None:
    status, _, body = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": "here"},
                                {"Authorization": f"Bearer {token}", "Idempotency-Key": key})
    assert status == 201, body


def test_take_back_is_offered_only_for_the_seats_own_last_order(server, open_tab):
    """FF 6: a player may take back only his own last order. The game page offered "Ask to take
    back my last order" before the seat had given any order (and after the opponent's, or after
    its own was taken back), and a click was refused; it is offered only while the last order
    standing is the seat's own and no request waits."""
    game_id, _, tokens = freeform_game(server)
    blue = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = blue.page
    page.wait_for_selector("#turn:has-text('Your move, Blue')")
    assert page.is_hidden("#takeback")  # no order given yet
    _note(server, game_id, tokens["Blue"], "n-1")
    page.wait_for_selector("#takeback", state="visible")
    page.click("#takeback")
    page.wait_for_selector("#takeback-box:not([hidden])")
    assert page.is_hidden("#takeback")  # a request waits for its answer
    status, _, answer = http_json("POST", f"{server}/api/v1/games/{game_id}/take-backs/answer", {"accept": True},
                                  {"Authorization": f"Bearer {tokens['Red']}"})
    assert status == 200, answer
    page.wait_for_selector("#takeback-box[hidden]", state="attached")
    caught_up(page)
    assert page.is_hidden("#takeback")  # the order was taken back: nothing of Blue's stands
    _note(server, game_id, tokens["Blue"], "n-2")
    page.wait_for_selector("#takeback", state="visible")
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "advance"},
                             {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "adv-1"})
    assert status == 201
    _note(server, game_id, tokens["Red"], "n-3")
    page.wait_for_selector("#takeback", state="hidden")  # the last order is Red's
    assert not blue.errors, blue.errors


def test_notifications_not_read_cannot_be_saved_over_the_seats_choices(server, open_tab):
    """docs/pages.md, "Notifications": the panel is read once per seat held. When that read failed
    (the network) the form kept the page's defaults, said nothing and was never read again, and
    "Save notifications" wrote those defaults over the seat's choices (its mail notices turned off,
    its digest lost). The failure is now said, the form cannot be saved until it is read, and the
    next reload reads it."""
    game_id, _, tokens = freeform_game(server)
    auth = {"Authorization": f"Bearer {tokens['Blue']}"}
    chosen = {"email": "blue@example.org", "notify": True, "digest": True, "events": ["your_move"], "channels": ["email"]}
    status, _, saved = http_json("PUT", f"{server}/api/v1/games/{game_id}/notifications", chosen, auth)
    assert status == 200, saved
    tab = tab_with_keys(open_tab, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.route("**/notifications", lambda route: route.abort() if route.request.method == "GET" else route.continue_())
    tab.goto(f"{server}/games/{game_id}")
    assert "Notifications not read" in page.text_content("#status")
    assert page.is_disabled("#n-save")
    page.unroute("**/notifications")
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": "next event"},
                             {"Authorization": f"Bearer {tokens['Red']}", "Idempotency-Key": "red-1"})
    assert status == 201
    page.wait_for_function("() => document.getElementById('n-email').value === 'blue@example.org'")
    assert page.is_enabled("#n-save") and page.is_checked("#n-on") and page.is_checked("#n-digest")
    status, _, now = http_json("GET", f"{server}/api/v1/games/{game_id}/notifications", headers=auth)
    assert status == 200 and (now["notify"], now["digest"], now["email"]) == (True, True, "blue@example.org")
    assert [e for e in tab.errors if "ERR_FAILED" not in e] == []  # but the read made to fail


def test_a_reload_the_network_loses_keeps_the_page_and_says_so(server, open_tab):
    """A seat's page whose reload (after an event) could not read the summary replaced the game's
    summary with the network error and opened "Take your seat" (join with an invite code, paste a
    token) as if this browser held no seat, though its token was never in question. The page read
    before now stays, the status line saying it could not be read again."""
    game_id, _, tokens = freeform_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.wait_for_selector("#live.live")
    before = page.text_content("#summary")
    assert before.startswith("Turn 1") and page.is_hidden("#access")
    page.route(f"**/api/v1/games/{game_id}", lambda route: route.abort())
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": "meanwhile"},
                             {"Authorization": f"Bearer {tokens['Red']}", "Idempotency-Key": "red-1"})
    assert status == 201
    page.wait_for_selector("#status.error")
    assert page.text_content("#status").startswith("Not read: the game (the server cannot be reached")
    assert page.text_content("#summary") == before and page.is_hidden("#access")
    assert page.is_visible("#orders-box")


def test_standing_orders_not_read_are_said_not_hidden_pg_5_4(server, open_tab):
    """PG 5.4: Blue leaves standing orders. When the page's read of them failed, the panel was
    hidden without a word, as if the ruleset took none and Blue held none. The failed read is named
    in the status line with the others'."""
    game_id, _, tokens = started_game(server, {"ruleset": "proving"})
    tab = tab_with_keys(open_tab, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.route("**/standing-orders", lambda route: route.abort())
    tab.goto(f"{server}/games/{game_id}")
    said = page.text_content("#status")
    assert "Not read: the standing orders (the server cannot be reached" in said, said
