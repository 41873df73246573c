"""Round eight of the pages: a player's and an umpire's first evening with them, in Chromium. Each
test is a problem found there: what the page did, checked against what docs/pages.md says."""

from __future__ import annotations

import uuid

import pytest

from tests.browser.helpers import caught_up, freeform_game, open_with_keys, pick_order, send
from tests.e2e.server import FREEFORM, http_json, started_game, unjoined_game

pytestmark = pytest.mark.slow


def _order(server: str, game_id: str, token: str, order: dict) -> dict:
    status, _, body = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", order,
                                {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())})
    assert status == 201, body
    return body


def _history_lines(server: str, game_id: str, token: str) -> list[dict]:
    status, _, history = http_json("GET", f"{server}/api/v1/games/{game_id}/history",
                                   headers={"Authorization": f"Bearer {token}"})
    assert status == 200, history
    return [line for t in history["turns"] for p in t["phases"] for op in p["operations"] for line in op["lines"]]


def test_a_long_log_says_which_lines_it_leaves_out_and_where_they_are(server, open_tab):
    """The game page's log shows the last 150 lines; a longer game's page said nothing of the
    ones before, so the log seemed to begin mid-game. It now says how many are left out and links
    to the replay, which has them all."""
    game_id, _, tokens = freeform_game(server)
    while len(lines := _history_lines(server, game_id, tokens["Blue"])) <= 160:
        _order(server, game_id, tokens["Blue"], {"kind": "note", "text": f"line {len(lines)}"})
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    assert page.locator("#log li[data-seq]").count() == 150
    earlier = page.locator("#log li.earlier")
    assert earlier.count() == 1, page.text_content("#log")[:300]
    left_out = len(lines) - 150
    assert f"{left_out} earlier lines" in earlier.text_content()
    link = earlier.locator("a")
    first_shown = lines[left_out]["seq"]
    assert link.get_attribute("href") == f"/games/{game_id}/replay#seq={first_shown}"
    assert page.locator("#log li[data-seq]").first.get_attribute("data-seq") == str(first_shown)
    assert not tab.errors


def test_the_replay_page_tells_a_spectator_before_the_end_that_it_annotates_after(server, open_tab):
    """docs/pages.md, "Annotations": a spectator writes once the game has ended, "the page says so
    before". The game page did; the replay page showed a spectator its form with no word of it, so
    the first the spectator learnt was the refusal of what it had written."""
    game_id, admin, tokens = freeform_game(server)
    status, _, spectator = http_json("POST", f"{server}/api/v1/games/{game_id}/spectator-tokens", {"name": "Sam"},
                                     {"Authorization": f"Bearer {admin}"})
    assert status == 201, spectator
    sam = open_tab()
    sam.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', "
                                f"JSON.stringify({{seats: {{}}, spectator: '{spectator['token']}'}}))")
    sam.goto(f"{server}/games/{game_id}/replay")
    page = sam.page
    assert page.is_visible("#annotate")
    assert page.text_content("#an-hint") == "Spectators annotate once the game has ended."
    assert page.is_hidden("#an-private-box")

    _order(server, game_id, tokens["Blue"], {"kind": "end", "winner": "Blue", "reason": "turn 6 completed"})
    sam.goto(f"{server}/games/{game_id}/replay")
    assert page.text_content("#an-hint") == ""
    page.fill("#an-text", "Well played")
    page.click("#annotate button[type=submit]")
    page.wait_for_selector("#status.ok")
    assert not sam.errors


def test_an_order_taken_back_is_marked_so_in_the_result_it_left_on_the_page(server, open_tab):
    """docs/pages.md, "Live updates": after a take-back the log strikes the lines of the order taken
    back and marks them "(taken back)", as the dice panel marks its rolls. The result panel of the
    player who sent it went on showing that order, its dice and the moves it highlights on the map,
    as if it stood."""
    game_id, _, tokens = freeform_game(server)
    blue = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = blue.page
    pick_order(page, "roll")
    page.fill("#f-dice", "2d6")
    page.fill("#f-purpose", "3 Bde fires at the bridge")
    send(page, "DiceRolled")
    caught_up(page)
    assert page.locator("#result li.superseded").count() == 0
    page.click("#takeback")
    page.wait_for_selector("#takeback-box:not([hidden])")
    status, _, answer = http_json("POST", f"{server}/api/v1/games/{game_id}/take-backs/answer", {"accept": True},
                                  {"Authorization": f"Bearer {tokens['Red']}"})
    assert status == 200, answer
    page.wait_for_selector("#result li[data-type=DiceRolled].superseded")
    rolled = page.locator("#result li[data-type=DiceRolled]")
    assert "(taken back)" in rolled.text_content()
    taken = {line["seq"] for line in _history_lines(server, game_id, tokens["Blue"]) if line.get("superseded")}
    marked = {int(s) for s in page.eval_on_selector_all("#result li.superseded", "els => els.map(e => e.dataset.seq)")}
    shown = {int(s) for s in page.eval_on_selector_all("#result li[data-seq]", "els => els.map(e => e.dataset.seq)")}
    assert marked == shown & taken and marked
    assert not blue.errors


def test_an_umpire_whose_role_ends_is_told_so_on_the_open_page_and_after_a_reload(server, open_tab):
    """An umpire's token revoked (the admin ended the role) while the umpire's page was open: the
    page went on as if live (its stream kept sending), and a reload showed only "this token is not
    valid" over an empty page. The open page now learns it at the next event, and says which token
    this browser keeps is refused and what to do: forget it, or paste another."""
    game_id, admin, tokens = started_game(server, {"ruleset": "freeform", "umpire": "Ann", "public": True,
                                                   "options": {"sides": ["Blue", "Red"]}})
    status, _, issued = http_json("POST", f"{server}/api/v1/games/{game_id}/umpire-tokens", {},
                                  {"Authorization": f"Bearer {admin}"})
    assert status == 201, issued
    tab = open_with_keys(open_tab, server, game_id, {"seats": {}, "umpire": issued["token"]})
    page = tab.page
    page.wait_for_selector("#live.live")
    status, _, _ = http_json("DELETE", f"{server}/api/v1/games/{game_id}/umpire", None,
                             {"Authorization": f"Bearer {admin}"})
    assert status == 200
    _order(server, game_id, tokens["Blue"], {"kind": "note", "text": "after the umpire"})
    refused = "The umpire token this browser keeps for this game is refused"
    page.wait_for_selector(f"#summary:has-text('{refused}')")
    assert "Forget this token" in page.text_content("#summary")
    assert page.is_visible("#forget") and page.is_visible("#access")
    assert page.locator("#log li:has-text('after the umpire')").count() == 0
    tab.goto(f"{server}/games/{game_id}")
    assert refused in page.text_content("#summary")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#forget")
    page.wait_for_selector("#log li:has-text('after the umpire')")  # a public game: read without a token
    assert not tab.errors


def test_an_invite_link_whose_code_a_mailer_mangled_still_opens_the_game_page(server, open_tab):
    """An invite link cut short by a mail client (its code ending in a lone '%') made the game page's
    first line throw (decodeURIComponent), so the page wired nothing and read nothing: no summary, no
    join form that worked. The page now opens, keeps the code as it came, and the join's refusal
    says what is wrong with it."""
    created = unjoined_game(server, {**FREEFORM, "public": True})
    game_id = created["game_id"]
    tab = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites']['Red'][:12]}%")
    page = tab.page
    assert "Waiting for every seat to join" in page.text_content("#turn")
    assert page.input_value("#j-invite") == created["invites"]["Red"][:12] + "%"
    page.fill("#j-handle", "bob")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#status.error")
    assert page.text_content("#status").startswith("Not joined: ")
    assert not tab.errors


def test_another_games_admin_token_pasted_on_a_public_games_page_is_refused(server, open_tab):
    """A public game reads with any valid token, another game's included (docs/api.md: it reads as a
    spectator), so the paste form's check (read the summary with it) kept another game's admin token:
    the page then showed this game's "Game webhook" and "Spectators" panels to a browser that is not
    its admin, each action refused. The admin token is now checked with a read only this game's
    admin may make, and refused naming why."""
    public_id, _, _ = started_game(server, {"ruleset": "freeform", "public": True, "options": {"sides": ["Blue", "Red"]}})
    _, other_admin, _ = freeform_game(server)
    tab = open_tab().goto(f"{server}/games/{public_id}")
    page = tab.page
    page.fill("#p-token", other_admin)
    page.click("#paste button[type=submit]")
    page.wait_for_selector("#status.error")
    assert "this token is for another game" in page.text_content("#status")
    assert page.evaluate(f"localStorage.getItem('warlog:game:{public_id}')") is None
    assert page.is_hidden("#hook-box") and page.is_hidden("#spec-box")
    assert page.input_value("#p-token") == other_admin  # left to correct, not taken


def test_a_second_seats_invite_link_opened_in_a_browser_holding_a_seat_offers_its_join(server, open_tab):
    """docs/pages.md: a browser may hold several seats of one game (a hot-seat game), and an invite
    link fills its code into the game page's join form. Opened in a browser that held a seat
    already, the link did nothing: the join form was hidden as soon as one seat was held."""
    created = unjoined_game(server)
    game_id = created["game_id"]
    tab = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites']['Blue']}")
    page = tab.page
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#seatbar:not([hidden])")
    page.wait_for_selector("#access", state="hidden")  # one seat held, no invite in the address
    # The link of the seat held, opened again (a bookmark, the mail): nothing to join.
    again = tab.context.new_page()
    again.goto(f"{server}/games/{game_id}#invite={created['invites']['Blue']}")
    again.wait_for_selector("body[data-ready=true]", state="attached")
    assert again.is_hidden("#access") and "#invite=" not in again.evaluate("location.href")
    again.close()

    # The link opened in another tab of this browser (a page load), then in this one (the address's
    # fragment changed: no load).
    other = tab.context.new_page()
    other.goto(f"{server}/games/{game_id}#invite={created['invites']['Red']}")
    other.wait_for_selector("body[data-ready=true]", state="attached")
    assert other.is_visible("#access") and other.input_value("#j-invite") == created["invites"]["Red"]
    other.close()
    tab.goto(f"{server}/games/{game_id}#invite={created['invites']['Red']}")
    assert page.is_visible("#access")
    assert page.input_value("#j-invite") == created["invites"]["Red"]
    assert "Blue" in page.text_content("#access-note")
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#turn:has-text('Your move, Red')")
    assert page.eval_on_selector_all("#seat option", "os => os.map(o => o.value)") == ["Blue", "Red"]
    assert page.is_hidden("#access")
    assert not tab.errors


def test_a_request_refused_field_by_field_says_what_is_wrong_with_each_field(server, open_tab):
    """A request the schema refuses (422 invalid_request) names its fields in its detail ("invalid
    fields: days") and says what is wrong with each in its `errors`. The pages showed the detail
    only (the Time panel, the notifications, the lobby's time control): the player learnt which
    field, not why. Every page's status line now says each field's reason."""
    game_id, _, tokens = started_game(server, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]},
                                               "time_control": {"days": 3, "vacation_days": 5}})
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.wait_for_selector("#time-box:not([hidden])")
    page.fill("#time-days", "100")
    page.click("#vacation")
    page.wait_for_selector("#status.error")
    assert "days: Must be greater than or equal to 1 and less than or equal to 60." in page.text_content("#status")

    page.fill("#n-email", "not an address")
    page.click("#n-save")
    page.wait_for_selector("#status.error:has-text('Notifications not saved')")
    assert "email: Not a valid email address." in page.text_content("#status")

    lobby = open_tab().goto(f"{server}/")
    lobby.page.fill("#c-days", "3")
    lobby.page.fill("#c-vacation", "61")
    lobby.page.evaluate("document.getElementById('create').noValidate = true")  # as a browser without the check
    lobby.page.click("#create button[type=submit]")
    lobby.page.wait_for_selector("#status.error")
    assert ("time_control.vacation_days: Must be greater than or equal to 0 and less than or equal to 60."
            in lobby.page.text_content("#status"))
    assert not tab.errors and not lobby.errors


def test_the_lobby_names_a_kept_game_it_cannot_read_instead_of_dropping_it(server, open_tab):
    """The lobby lists the games this browser holds a token for. A game whose kept token the server
    now refuses (a spectator token revoked) vanished from it without a word, so the player could not
    tell a revoked token from a game gone. The lobby now names it, with the server's reason and a link
    to its page (which says what to do)."""
    game_id, admin, _ = freeform_game(server)
    status, _, spectator = http_json("POST", f"{server}/api/v1/games/{game_id}/spectator-tokens", {"name": "Sam"},
                                     {"Authorization": f"Bearer {admin}"})
    assert status == 201, spectator
    status, _, _ = http_json("DELETE", f"{server}/api/v1/games/{game_id}/spectator-tokens/{spectator['token_id']}",
                             None, {"Authorization": f"Bearer {admin}"})
    assert status == 200
    tab = open_tab()
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', "
                                f"JSON.stringify({{seats: {{}}, spectator: '{spectator['token']}'}}))")
    page = tab.goto(f"{server}/").page
    assert page.locator(f'#games tr[data-game="{game_id}"]').count() == 0
    unread = page.locator(f'#games-unread li[data-game="{game_id}"]')
    assert unread.count() == 1
    assert "this token is not valid" in unread.text_content()
    assert unread.locator("a").get_attribute("href") == f"/games/{game_id}"
    assert not tab.errors


def test_a_seat_token_pasted_where_its_key_is_not_says_where_to_order_from(server, open_tab):
    """docs/pages.md: a seat joined with a key can order only from where its key is; its token
    pasted into another browser reads, and its orders are refused signature_required. That browser
    showed the server's detail only (the headers a signed order carries), which tells a player on
    their second device nothing they can do. The page now says why and where to order from."""
    created = unjoined_game(server)
    game_id = created["game_id"]
    laptop = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites']['Blue']}")
    laptop.page.fill("#j-handle", "alice")
    laptop.page.click("#join button[type=submit]")
    laptop.page.wait_for_selector("#seatbar:not([hidden])")
    kept = laptop.page.evaluate(f"JSON.parse(localStorage.getItem('warlog:game:{game_id}'))")
    assert kept["signing"]["Blue"]  # joined with a key here
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/join",
                             {"invite_code": created["invites"]["Red"], "handle": "bob"})
    assert status == 201

    phone = open_tab(375, 740).goto(f"{server}/games/{game_id}")
    phone.page.fill("#p-token", kept["seats"]["Blue"])
    phone.page.click("#paste button[type=submit]")
    phone.page.wait_for_selector("#orders-box:not([hidden])")
    pick_order(phone.page, "note")
    phone.page.fill("#f-text", "from my phone")
    phone.page.click("#send")
    phone.page.wait_for_selector("#status.error")
    said = phone.page.text_content("#status")
    assert "the browser that joined the seat" in said and "this browser holds none" in said, said
    assert "registered a public key" in said  # the server's own detail stays
    assert not phone.errors


def test_a_sealed_round_waits_for_every_seat_it_names_and_the_page_says_and(server, open_tab):
    """FF 8: "every round each side seals its orders". While a round is open the whose-move line
    of a page that is not a seat to act read "Waiting for Blue or Red.", as if either would do;
    the round waits for both. It now reads "Waiting for Blue and Red to seal their orders (FF 8).",
    then who must reveal."""
    game_id, _, tokens = started_game(server, {"ruleset": "freeform", "public": True,
                                               "options": {"sides": ["Blue", "Red"], "sealed_orders": True}})
    tab = open_tab().goto(f"{server}/games/{game_id}")
    page = tab.page
    assert page.text_content("#turn") == "Waiting for Blue and Red to seal their orders (FF 8)."
    for seat in ("Blue", "Red"):
        status, _, body = http_json("POST", f"{server}/api/v1/games/{game_id}/sealed", {"commitment": "ab" * 32},
                                    {"Authorization": f"Bearer {tokens[seat]}"})
        assert status == 201, body
    page.wait_for_selector("#turn:has-text('to reveal')")
    assert page.text_content("#turn") == "Waiting for Blue and Red to reveal their orders (FF 8)."
    assert not tab.errors
