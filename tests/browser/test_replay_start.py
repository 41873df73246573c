"""The replay opened by a turn mail's link (issue 35): ``/games/{id}/replay?from=SEQ`` starts at
the seat's last order, as workers/notify computes it from the log, and shows that event; a seq
past the end is the last event, one that is not a number the first; ``#seq=N`` wins over it."""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import freeform_game, hash_seq
from tests.e2e.server import http_json
from workers import notify

pytestmark = pytest.mark.slow


def _played(server) -> tuple[str, dict, list[dict]]:
    """A private freeform game where Red acted, then Blue did; Red's export lines."""
    game_id, _, tokens = freeform_game(server)
    orders = [("Red", {"kind": "note", "text": "Red digs in at the ford"}),
              ("Red", {"kind": "roll", "dice": "2d6", "purpose": "Red shells the bridge"}),
              ("Blue", {"kind": "note", "text": "Blue crosses upstream"}),
              ("Blue", {"kind": "advance"})]
    for n, (seat, order) in enumerate(orders):
        status, _, done = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", order,
                                    headers={"Authorization": "Bearer " + tokens[seat], "Idempotency-Key": f"o{n}"})
        assert status == 201, done
    status, _, text = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                headers={"Authorization": "Bearer " + tokens["Red"]})
    assert status == 200
    lines = [json.loads(x) for x in text.splitlines() if x.strip()]
    return game_id, tokens, [x for x in lines if "seq" in x]


def _as_red(open_tab, game_id: str, tokens: dict):
    tab = open_tab()
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', "
                                f"{json.dumps(json.dumps({'seats': {'Red': tokens['Red']}, 'active': 'Red'}))})")
    return tab


def test_the_mail_link_opens_the_replay_at_the_seats_last_order(server, open_tab, shots):
    game_id, tokens, lines = _played(server)
    start = notify.last_acted(lines, ["Red"])
    last_red = next(x for x in lines if x["seq"] == start)
    assert last_red["type"] == "DiceRolled" and start < lines[-1]["seq"]  # Blue acted after it
    link = notify.replay_link(server, game_id, start)
    assert link == f"{server}/games/{game_id}/replay?from={start}"

    tab = _as_red(open_tab, game_id, tokens).goto(link)
    page = tab.page
    assert hash_seq(page) == start
    assert page.locator("#history li.current").get_attribute("data-seq") == str(start)
    assert "Red shells the bridge" in page.text_content("#line")
    page.keyboard.press("ArrowRight")  # the next step: what Blue did since
    assert hash_seq(page) > start and "Blue crosses upstream" in page.text_content("#line")
    page.screenshot(path=str(shots / "replay-from-last-order.png"))
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("query, where", [("?from=99999", "last"), ("?from=abc", "first"), ("?from=-4", "first"),
                                          ("?from=", "first")])
def test_a_bad_start_point_is_clamped(server, open_tab, query, where):
    game_id, tokens, lines = _played(server)
    tab = _as_red(open_tab, game_id, tokens).goto(f"{server}/games/{game_id}/replay{query}")
    seqs = [int(s) for s in tab.page.eval_on_selector_all("#history li[data-seq]",
                                                          "els => els.map(e => e.dataset.seq)")]
    assert hash_seq(tab.page) == (seqs[-1] if where == "last" else seqs[0])
    assert not tab.errors, tab.errors


def test_the_position_in_the_address_wins_over_the_link(server, open_tab):
    game_id, tokens, lines = _played(server)
    start = notify.last_acted(lines, ["Red"])
    tab = _as_red(open_tab, game_id, tokens).goto(f"{server}/games/{game_id}/replay?from={start}#seq=3")
    assert hash_seq(tab.page) == 3
    assert not tab.errors, tab.errors
