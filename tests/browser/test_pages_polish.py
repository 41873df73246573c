"""Small things users hit on the pages, each checked in Chromium against docs/pages.md and docs/api.md."""

from __future__ import annotations

import json

import pytest

from tests.e2e.server import http_json, unjoined_game

pytestmark = pytest.mark.slow


def _lose_the_first_join_answer(page) -> list[dict]:
    """Route the join so that its first answer is lost after the server recorded it (the request
    goes through, the browser sees a network failure); later joins pass. Returns what was sent."""
    sent, signed = [], []

    def handle(route):
        sent.append({"key": route.request.headers.get("idempotency-key"), "body": route.request.post_data})
        signed.append(route.request.headers.get("warlog-signature"))
        if len(sent) == 1:
            route.fetch()  # recorded by the server...
            route.abort("connectionreset")  # ...its answer never reaches the page
        else:
            route.continue_()

    page.route("**/api/v1/games/*/join", handle)
    page.join_signatures = signed  # the Warlog-Signature of each join sent, None where it had none
    return sent


def _token_works(server: str, game_id: str, token: str) -> bool:
    status, _, _ = http_json("GET", f"{server}/api/v1/games/{game_id}/me",
                             headers={"Authorization": f"Bearer {token}"})
    return status == 200


def test_game_page_join_whose_answer_was_lost_sends_the_same_join_again_and_holds_the_seat(server, open_tab):
    """docs/api.md, "Idempotency": a join sent again under its Idempotency-Key after a lost answer
    gets the seat a fresh token. The page sent no key, so a lost answer used the invite for nothing."""
    created = unjoined_game(server)
    game_id = created["game_id"]
    tab = open_tab().goto(f"{server}/games/{game_id}#invite={created['invites']['Blue']}")
    page = tab.page
    sent = _lose_the_first_join_answer(page)
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#status.ok")
    assert page.text_content("#status").startswith("You hold the seat Blue")
    assert len(sent) == 2 and sent[0]["key"] and sent[0] == sent[1]  # the same join, under the same key
    # A keyed seat's join sent again is signed by its key (docs/api.md, "Idempotency"), its first send
    # never: a join that leaked does not take the seat's token (trust13, item 3).
    assert '"public_key"' in sent[0]["body"] and page.join_signatures[0] is None and page.join_signatures[1]
    keys = page.evaluate(f"JSON.parse(localStorage.getItem('warlog:game:{game_id}'))")
    assert _token_works(server, game_id, keys["seats"]["Blue"])
    assert page.evaluate("localStorage.getItem('warlog:pending-joins')") == "{}"  # answered: nothing kept


def test_lobby_join_whose_answer_was_lost_sends_the_same_join_again_and_holds_the_seat(server, open_tab):
    created = unjoined_game(server)
    game_id = created["game_id"]
    tab = open_tab().goto(f"{server}/")
    page = tab.page
    sent = _lose_the_first_join_answer(page)
    page.fill("#j-game", game_id)
    page.fill("#j-invite", created["invites"]["Red"])
    page.fill("#j-handle", "bob")
    page.click("#join button[type=submit]")
    page.wait_for_url(f"**/games/{game_id}")
    assert len(sent) == 2 and sent[0]["key"] and sent[0] == sent[1]
    keys = page.evaluate(f"JSON.parse(localStorage.getItem('warlog:game:{game_id}'))")
    assert _token_works(server, game_id, keys["seats"]["Red"])


def test_lobby_offers_an_ended_game_as_over_with_its_replay_not_play(server, open_tab):
    """docs/pages.md, "Lobby": a game that has ended is no longer played. The row of a seat this
    browser holds said "Play" all the same."""
    from tests.browser.helpers import freeform_game

    game_id, _, tokens = freeform_game(server)
    status, _, body = http_json("POST", f"{server}/api/v1/games/{game_id}/concede", {},
                                headers={"Authorization": f"Bearer {tokens['Red']}"})
    assert status == 200, body
    tab = open_tab()
    keys = {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"}
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(json.dumps(keys))})")
    page = tab.goto(f"{server}/").page
    actions = page.locator(f"tr[data-game='{game_id}'] td.actions")
    assert actions.locator("a").all_text_contents() == ["Game over", "Replay"]
    assert actions.locator(f"a[href='/games/{game_id}/replay']").text_content() == "Replay"
    assert not tab.errors


def test_a_log_lines_note_button_fits_its_line_so_the_log_scrolled_to_its_end_does_not_cut_it(server, open_tab):
    """docs/pages.md, "Annotations": each log line has a "Note" button. It took every button's
    touch-size height (2.5rem), twice the line's text, so a log a little longer than its box,
    scrolled to its end as the page opens it, showed the first line's button cut off at the top.
    It is now an inline button of the line's height (an inline target, WCAG 2.5.8's exception)."""
    import uuid

    from tests.browser.helpers import freeform_game, open_with_keys

    game_id, _, tokens = freeform_game(server)
    for n in range(2):  # nine lines: a little more than the log's box holds at this width
        status, _, body = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "note", "text": f"n{n}"},
                                    {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": str(uuid.uuid4())})
        assert status == 201, body
    tab = open_with_keys(open_tab, server, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    page.wait_for_selector("#log li[data-seq='9'] .note-on")
    # Each line is one line of text tall, its button within it.
    fits = page.evaluate("""() => [...document.querySelectorAll('#log li[data-seq]')].map(li => {
        const text = document.createRange(); text.selectNodeContents(li.firstChild);
        const t = text.getBoundingClientRect(), l = li.getBoundingClientRect();
        const b = li.querySelector('.note-on').getBoundingClientRect();
        return (l.height <= 1.5 * t.height && b.top >= l.top && b.bottom <= l.bottom) || [t.height, l.height, b.top - l.top];
    })""")
    assert fits == [True] * 9, fits
    cut = page.evaluate("""() => {
        const log = document.getElementById('log').getBoundingClientRect();
        return [...document.querySelectorAll('#log .note-on')].filter(b => {
            const r = b.getBoundingClientRect(), text = document.createRange();
            text.selectNodeContents(b.parentElement.firstChild);
            return r.top < log.top && text.getBoundingClientRect().top >= log.top;  // its line shown whole, it not
        }).length;
    }""")
    assert cut == 0
    assert not tab.errors
