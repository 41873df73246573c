"""The rules toolkit on the pages (docs/pages.md), on proving-ground games: the lobby creating a
game from a named position (PG 7.1) and hiding sandboxes unless shown; the game page saying where
a game started (a position, or the game and event a sandbox was forked from); the replay's "try
another move from here" forking a sandbox between orders (PG 7.5) and showing the API's refusals
(an ended game, hidden information); the standing orders panel (PG 5.4): a refused policy with its
rule, one set, its answer marked in the log (named for its seat only), then cancelled."""

from __future__ import annotations

import json
from uuid import UUID

import pytest

from domain.game import Game
from domain.verify import to_line
from tests.browser.helpers import caught_up, no_horizontal_scroll, shoot
from tests.e2e.server import http_json, started_game
from tests.workers.test_replay import seed_for
from workers import replay

pytestmark = pytest.mark.slow


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def order(server: str, game_id: str, token: str, body: dict, key: str) -> list[dict]:
    status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", body,
                                  {**bearer(token), "Idempotency-Key": key})
    assert status == 201, result
    return result["events"]


def holding(tab, game_id: str, keys: dict) -> None:
    """The browser of ``tab`` keeps ``keys`` for the game (as joining or creating would)."""
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(json.dumps(keys))})")


def test_the_lobby_creates_a_game_from_a_named_position_and_lists_sandboxes_only_when_shown(server, open_tab, shots):
    tab = open_tab()
    page = tab.goto(server + "/").page
    page.select_option("#c-ruleset", "proving")
    page.wait_for_selector("#c-position option[value=midgame]", state="attached")
    page.select_option("#c-position", "midgame")
    _, _, proving = http_json("GET", f"{server}/api/v1/rulesets/proving")
    assert page.text_content("#c-position-note") == proving["positions"][0]["note"]
    page.check("#c-public")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created:not([hidden])")
    game_id = page.text_content("#created-link")
    status, _, summary = http_json("GET", f"{server}/api/v1/games/{game_id}")
    assert status == 200 and summary["position"]["position"] == "midgame", summary
    assert (summary["turn"], summary["vp"]) == (3, {"Red": 4, "Blue": 2})

    # The game page says where the game started.
    page.click("#created-link")
    tab.ready()
    origin = page.text_content("#origin")
    assert page.locator("#origin").is_visible() and "(midgame)" in origin and summary["position"]["title"] in origin

    # A public sandbox of it: out of the lobby's list until "Show sandboxes".
    admin = page.evaluate(f"Warlog.keys.load('{game_id}').admin")
    status, _, forked = http_json("POST", f"{server}/api/v1/games/{game_id}/sandbox", {"at": 2, "public": True},
                                  bearer(admin))
    assert status == 201, forked
    page.goto(server + "/")
    tab.ready()
    assert page.locator(f'#games tr[data-game="{game_id}"]').count() == 1
    assert page.locator(f'#games tr[data-game="{forked["game_id"]}"]').count() == 0
    page.check("#f-sandbox")
    row = page.locator(f'#games tr[data-game="{forked["game_id"]}"]')
    row.wait_for()
    assert row.locator(".badge.sandbox").text_content() == "sandbox"
    assert page.locator(f'#games tr[data-game="{game_id}"] .badge.sandbox').count() == 0
    shoot(page, shots / "lobby-sandboxes.png")
    assert not tab.errors, tab.errors


def test_the_replay_forks_a_sandbox_between_orders_only_and_shows_the_apis_refusals(server, open_tab, shots):
    game_id, _, tokens = started_game(server, {"ruleset": "proving", "position": "midgame", "public": True})
    rolled = order(server, game_id, tokens["Red"], {"kind": "roll_score"}, "r1")  # OrderAccepted, DiceRolled, VPScored
    inside, last = rolled[0]["seq"], rolled[-1]["seq"]
    red = open_tab()
    holding(red, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"})
    page = red.goto(f"{server}/games/{game_id}/replay#seq={inside}").page
    assert page.locator("#fork").is_disabled()
    assert "inside an order's outcome" in page.text_content("#fork-hint")

    page.keyboard.press("End")
    page.wait_for_function(f"() => location.hash === '#seq={last}'")
    assert page.locator("#fork").is_enabled()
    page.click("#fork")
    page.wait_for_selector("#forked:not([hidden])")
    sandbox_id = page.text_content("#forked-link")
    assert page.text_content("#forked-at") == str(last)
    invites = page.locator("#forked-invites li.invite")
    assert sorted(invites.evaluate_all("els => els.map(e => e.dataset.seat)")) == ["Blue", "Red"]
    assert f"/games/{sandbox_id}#invite=wli_" in invites.first.locator("a").get_attribute("href")
    assert page.evaluate(f"Warlog.keys.load('{sandbox_id}').admin").startswith("wla_")
    shoot(page, shots / "replay-fork.png")

    # The sandbox's page, read with the admin token kept: a sandbox of the game at that event.
    page.click("#forked-link")
    red.ready()
    caught_up(page)
    origin = page.locator("#origin")
    assert origin.locator(".badge.sandbox").count() == 1
    assert f"A sandbox of game {game_id[:8]}" in origin.text_content() and f"at event {last}" in origin.text_content()
    assert origin.locator("#origin-source").get_attribute("href") == f"/games/{game_id}"
    state = page.evaluate(f"""async () => (await Warlog.api('/api/v1/games/{sandbox_id}/state',
                              {{token: Warlog.keys.reader('{sandbox_id}')}})).body.state""")
    assert state["vp"]["Red"] > 4  # the position after Red's roll

    # Hidden information (Blue's face-down marker, PG 7.3): Red may not fork there (403 fork_hidden).
    marked = order(server, game_id, tokens["Blue"], {"kind": "take_marker", "marker": "ambush"}, "b1")
    page.goto(f"{server}/games/{game_id}/replay#seq={marked[-1]['seq']}")
    red.ready()
    page.click("#fork")
    page.wait_for_selector("#status.error")
    assert "No sandbox: " in page.text_content("#status") and "hidden from Red" in page.text_content("#status")

    # Once the game has ended, its last event is no place to start from (422 invalid_fork).
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/concede", None, bearer(tokens["Blue"]))
    assert status in (200, 201)
    page.goto(f"{server}/games/{game_id}/replay")
    red.ready()
    page.keyboard.press("End")
    page.click("#fork")
    page.wait_for_selector("#status.error")
    assert "the game had ended" in page.text_content("#status")
    assert page.locator("#forked").is_hidden()
    assert not red.errors, red.errors


def test_only_the_live_replay_offers_a_fork(server, open_tab, tmp_path):
    """A spectator of a public game may fork it: the live replay offers the button; the replay job's
    offline file asks nothing of a server, so its button stays hidden."""
    game_id, _, tokens = started_game(server, {"ruleset": "proving", "public": True})
    order(server, game_id, tokens["Red"], {"kind": "roll_score"}, "r1")
    tab = open_tab()
    page = tab.goto(f"{server}/games/{game_id}/replay").page
    assert page.locator("#fork").is_visible()

    g = Game.create("proving", game_id=UUID(int=707), seed_for=seed_for)
    g.join("Red", "red", "r", seed_for)
    g.join("Blue", "blue", "b", seed_for)
    g.submit("Red", "o1", {"kind": "roll_score"}, seed_for)
    path = tmp_path / "proving.html"
    path.write_text(replay.replay_html(replay.frames([to_line(e) for e in g.pending_events], None)), encoding="utf-8")
    offline = open_tab()
    offline.goto(path.as_uri())
    assert offline.page.locator("#fork-box").count() == 1 and offline.page.locator("#fork").is_hidden()
    assert not tab.errors and not offline.errors, (tab.errors, offline.errors)


def test_the_standing_orders_panel_sets_refuses_uses_and_cancels_a_standing_order(server, open_tab, shots):
    game_id, _, tokens = started_game(server, {"ruleset": "proving"})
    blue = open_tab(375, 900)
    holding(blue, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = blue.goto(f"{server}/games/{game_id}").page
    box = page.locator("#standing-box")
    assert box.is_visible() and box.locator("li.standing-order").count() == 0
    assert page.locator("#so-kind").input_value() == "opportunity_fire"
    accepts = page.text_content("#so-accepts")
    assert '"fire": "always" or "never"' in accepts and "(PG 5.4)" in accepts

    # A policy not in the ruleset's form: refused, naming the rule.
    page.fill("#so-id", "fire-at-will")
    page.fill("#so-policy", '{"fire": "sometimes"}')
    page.click("#so-set")
    page.wait_for_selector("#status.error")
    assert "Standing order refused: " in page.text_content("#status") and "PG 5.4" in page.text_content("#status")

    page.fill("#so-policy", '{"fire": "always"}')
    page.click("#so-set")
    page.wait_for_selector('#standing li.standing-order[data-policy="fire-at-will"]')
    assert "opportunity_fire" in page.text_content('#standing li[data-policy="fire-at-will"]')

    # Red advances; Blue's standing order answers, and Blue's log says so.
    order(server, game_id, tokens["Red"], {"kind": "advance", "hex": "J4"}, "red-1")
    page.wait_for_selector("#log li[data-type=StandingOrderUsed] .badge.standing")
    caught_up(page)
    used = page.text_content("#log li[data-type=StandingOrderUsed]")
    assert "Blue's standing order 'fire-at-will' answers opportunity_fire-J4: fire (PG 5.4)" in used, used
    no_horizontal_scroll(page)
    shoot(page, shots / "standing-orders.png")

    # Red's page shows the use, not Blue's standing order's name.
    red = open_tab()
    holding(red, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"})
    red_page = red.goto(f"{server}/games/{game_id}").page
    seen = red_page.text_content("#log li[data-type=StandingOrderUsed]")
    assert "Blue's standing order answers opportunity_fire-J4" in seen and "fire-at-will" not in seen, seen
    assert red_page.locator("#standing li.standing-order").count() == 0

    page.click('#standing li[data-policy="fire-at-will"] button')
    page.wait_for_selector('#standing li[data-policy="fire-at-will"]', state="detached")
    assert "Standing order fire-at-will cancelled." in page.text_content("#status")
    assert not blue.errors and not red.errors, (blue.errors, red.errors)
