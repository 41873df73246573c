"""The offline replay file made by the replay job (workers/replay.py), opened from disk in
Chromium: the live replay page's markup and replay.js with the frames embedded; a complete
Falklands Showdown game's map drawn by the inlined board.js (both maps, every area and counter,
Hit markers, units aboard, what the operation moved), stepped by buttons, keys, the slider, the
turn list and the history, the position in the address (#seq=N) as on the live page; a freeform
game's file shows the log, the dice and the VP chart without a map. The page fetches nothing and
breaks no rule of its own Content-Security-Policy."""

from __future__ import annotations

import json

import pytest

from domain.rulesets import find_ruleset
from tests.browser.helpers import hash_seq, no_horizontal_scroll, operation_ends, operation_starts, shoot
from tests.conftest import make_app
from tests.workers.test_replay import falklands_game, placed, play, reduced
from workers import replay

pytestmark = pytest.mark.slow


def open_file(open_tab, path, width=1280, height=900, fragment=""):
    tab = open_tab(width, height)
    requests: list[str] = []
    tab.page.on("request", lambda r: requests.append(r.url))
    tab.goto(path.as_uri() + fragment)
    return tab, requests


def scrub_to(page, n: int) -> None:
    page.evaluate("n => { const s = document.getElementById('scrub'); s.value = n;"
                  " s.dispatchEvent(new Event('input')); }", n)


def at(page) -> int:
    return int(page.input_value("#scrub"))


@pytest.fixture(scope="module")
def falklands(tmp_path_factory):
    """The first seeded complete game with a Hit marker to draw, its public replay and the file."""
    board = find_ruleset("falklands").board()
    for n in range(12):
        made = replay.frames(falklands_game(n), None)
        if any(reduced(board, made["states"][f["state"]]) for f in made["frames"]):
            path = tmp_path_factory.mktemp("offline") / "falklands.html"
            path.write_text(replay.replay_html(made), encoding="utf-8")
            return made, board, path
    raise AssertionError("none of 12 random games of Falklands Showdown left a unit with a Hit marker")


def test_the_offline_falklands_replay_draws_the_map_and_steps(falklands, open_tab, shots):
    made, board, path = falklands
    frames, states = made["frames"], made["states"]
    tab, requests = open_file(open_tab, path)
    page = tab.page

    def drawn_as(n: int) -> None:
        """The map at frame n: both maps, every area, one counter per unit on the map, the Hit markers."""
        state = states[frames[n]["state"]]
        assert at(page) == n
        assert page.locator("#board svg.map").count() == 2
        assert sorted(page.eval_on_selector_all("#board polygon.area", "els => els.map(e => e.dataset.area)")) == \
            sorted(board["areas"])
        units = page.eval_on_selector_all("#board g.counter", "els => els.map(e => e.dataset.unit)")
        assert sorted(units) == sorted(placed(board, state))
        hit = page.eval_on_selector_all("#board g.counter:has(.hit-marker)", "els => els.map(e => e.dataset.unit)")
        assert set(hit) == reduced(board, state)
        assert page.text_content("#pos") == f"Event {n + 1} of {len(frames)} · seq {frames[n]['seq']}"
        assert page.text_content("#line").startswith(frames[n]["text"])
        assert page.get_attribute("#history li.current", "value") == str(frames[n]["seq"])
        assert hash_seq(page) == frames[n]["seq"]  # the address holds the position

    rebuilt = page.evaluate("() => JSON.stringify(Warlog.replayData.states)")
    assert json.loads(rebuilt) == json.loads(json.dumps(states))  # every state, from the page's deltas
    drawn_as(0)
    assert page.text_content("#board svg.map[data-map=strategic] text.abbr")  # counters carry their abbr
    assert page.locator("#board g.counter .aboard").count() >= 1  # a ship carrying units: +N
    shoot(page, shots / "offline-falklands-start.png")

    turns = [i for i, f in enumerate(frames) if "turn" in f["marks"]]
    page.click("#next-turn")
    drawn_as(turns[0])
    assert "Turn 2" in page.text_content("#where") and "new turn" in page.text_content("#line")
    page.keyboard.press("ArrowRight")
    drawn_as(turns[0] + 1)
    page.keyboard.press("PageDown")
    drawn_as(turns[1])
    page.keyboard.press("Shift+ArrowRight")  # to the end of the operation after the turn's start
    drawn_as(min(n for n in operation_ends(frames) if n > turns[1]))

    # the first step where a unit on the map has lost a step: its counter has the yellow Hit marker
    hit_at = next(i for i, f in enumerate(frames) if reduced(board, states[f["state"]]))
    scrub_to(page, hit_at)
    drawn_as(hit_at)
    assert page.locator("#board .hit-marker").count() == len(reduced(board, states[frames[hit_at]["state"]]))
    shoot(page, shots / "offline-falklands-hit.png")

    # a step that moved units: the moved counters are outlined and their areas lit
    moved_at = next(i for i, f in enumerate(frames[1:], start=1)
                    if any(states[frames[i - 1]["state"]]["units"][u]["location"] not in (None, area)
                           for u, area in placed(board, states[f["state"]]).items()))
    page.locator(f'#history li[data-seq="{frames[moved_at]["seq"]}"] button').click()
    drawn_as(moved_at)
    assert page.locator("#board g.counter.moved").count() >= 1
    assert page.locator("#board polygon.area.lit").count() >= 1
    shoot(page, shots / "offline-falklands-moved.png")

    page.select_option("#turn-select", str(frames[turns[1]]["turn"]))  # "jump to turn"
    drawn_as(turns[1])
    page.click("#last")
    drawn_as(len(frames) - 1)
    assert page.locator("#dice .roll").count() == sum(
        1 for f in frames if f["operation"] == frames[-1]["operation"] and "dice" in f)
    page.click("#state-box summary")  # the state as JSON, filled when the panel opens (its toggle event)
    page.wait_for_function("() => document.getElementById('state').textContent.includes('\"ended\"')")
    shoot(page, shots / "offline-falklands-end.png")

    assert requests == [path.as_uri()], requests  # nothing fetched: not a script, a style or a font
    assert tab.errors == []


def test_an_operation_step_shows_the_whole_operation_its_dice_and_hit_numbers(falklands, open_tab, shots):
    """Issue 29: "op ›" stopped on an attack's order, before its dice (they come with the defender's
    answer, the next command), and no roll showed its hit number. An operation step lands on the
    operation's last event, the answer and its dice included; each roll shows its hit number."""
    made, _, path = falklands
    frames = made["frames"]
    starts, ends = operation_starts(frames), operation_ends(frames)
    # an operation's attack that asks the defender to assign fire: its dice are rolled in the answer
    # (not a random event's free attack, whose step begins at its phase)
    asked = next(n for n, f in enumerate(frames) if f["type"] == "DecisionPending" and
                 "operation" in frames[starts[n]]["marks"] and
                 any("hit_number" in ((g.get("dice") or {}).get("target") or {}) for g in frames[n + 1:n + 40]))
    first, last = starts[asked], min(e for e in ends if e > asked)
    rolls = [f["dice"] for f in frames[first:last + 1] if f.get("dice")]
    assert first > 0 and "operation" in frames[first]["marks"] and rolls
    assert any("operation" in f["marks"] for f in frames[asked + 1:last + 1])  # the answer: a command of its own
    tab, requests = open_file(open_tab, path, fragment=f"#seq={frames[first - 1]['seq']}")  # the previous op's end
    page = tab.page
    page.click("#next-op")
    assert at(page) == last  # the operation's last event: the attack, the answer and every die
    assert page.locator("#dice .roll").count() == len(rolls)
    for k, roll in enumerate(rolls):
        shown = page.locator("#dice .roll").nth(k).text_content()
        if roll.get("target") and "hit_number" in roll["target"]:
            assert f"hit number {roll['target']['hit_number']}" in shown, shown
            assert roll["outcome"] in shown
    shoot(page, shots / "offline-falklands-operation.png")
    page.keyboard.press("Shift+ArrowLeft")
    assert at(page) == first - 1  # back: the end of the operation before
    page.keyboard.press("Shift+ArrowRight")
    assert at(page) == last
    assert requests == [path.as_uri()] and tab.errors == []


def test_the_uk_operations_left_and_the_events_in_effect_are_shown_with_the_map(falklands, open_tab):
    """Issue 29: the UK operations remaining and the events in effect were only in the raw JSON."""
    made, board, path = falklands
    frames, states = made["frames"], made["states"]
    tab, requests = open_file(open_tab, path)
    page = tab.page
    seen = set()
    for n in [0] + [n for n in range(1, len(frames)) if states[frames[n]["state"]] != states[frames[n - 1]["state"]]][::7]:
        scrub_to(page, n)
        state = states[frames[n]["state"]]
        track = page.text_content("#board .board-status [data-track=uk_operations_left]")
        assert track == f"UK Operations Remaining: {state['uk_operations_left']} of {state['uk_operations']}"
        named = {(side, e) for side, mine in state["effects"].items() for e in mine if e in board["effects"]}
        named |= {(side, m) for side, held in state["markers"].items() for m in held if m in board["effects"]}
        shown = page.eval_on_selector_all("#board .board-status li[data-effect]",
                                          "els => els.map(e => [e.dataset.side, e.dataset.effect, e.textContent])")
        assert {(side, e) for side, e, _ in shown} == named, n
        for side, e, text in shown:
            assert board["effects"][e]["name"] in text
        seen |= named
    assert ("UK", "uk_operational_superiority") in seen  # FS 5.4: in effect at the start
    assert requests == [path.as_uri()] and tab.errors == []


def test_an_offline_replay_opened_at_an_address_starts_there(falklands, open_tab):
    made, _, path = falklands
    frames = made["frames"]
    n = len(frames) // 2
    tab, requests = open_file(open_tab, path, fragment=f"#seq={frames[n]['seq']}")
    page = tab.page
    assert at(page) == n and page.text_content("#line").startswith(frames[n]["text"])
    page.keyboard.press("ArrowRight")
    assert at(page) == n + 1 and hash_seq(page) == frames[n + 1]["seq"]
    page.evaluate("seq => { location.hash = '#seq=' + seq; }", frames[3]["seq"])  # editing the address moves it
    page.wait_for_function("() => document.getElementById('scrub').value === '3'")
    assert requests == [path.as_uri()] and tab.errors == []  # a fragment is not part of a request


def test_an_offline_replay_opened_from_a_link_starts_at_its_from(falklands, open_tab):
    """?from=SEQ (a turn mail's link) starts the file there too; #seq=N wins over it."""
    made, _, path = falklands
    frames = made["frames"]
    n = len(frames) // 3
    tab, _ = open_file(open_tab, path, fragment=f"?from={frames[n]['seq']}")
    assert at(tab.page) == n and hash_seq(tab.page) == frames[n]["seq"]
    tab, _ = open_file(open_tab, path, fragment=f"?from={frames[n]['seq']}#seq={frames[2]['seq']}")
    assert at(tab.page) == 2
    tab, _ = open_file(open_tab, path, fragment=f"?from={frames[-1]['seq'] + 50}")
    assert at(tab.page) == len(frames) - 1 and tab.errors == []


def test_the_offline_falklands_replay_fits_a_phone(falklands, open_tab, shots):
    _, _, path = falklands
    tab, requests = open_file(open_tab, path, 375, 740)
    assert tab.page.locator("#board g.counter").count() > 0
    no_horizontal_scroll(tab.page)
    shoot(tab.page, shots / "offline-falklands-375.png")
    assert requests == [path.as_uri()] and tab.errors == []


def test_an_offline_freeform_replay_has_no_map_but_its_log_and_dice(sqlite_config, tmp_path, open_tab, shots):
    app = make_app(sqlite_config)
    try:
        made = replay.frames(app.lines(play(app, orders=12)), None)
    finally:
        app.close()
    path = tmp_path / "freeform.html"
    path.write_text(replay.replay_html(made), encoding="utf-8")
    tab, requests = open_file(open_tab, path)
    page = tab.page
    assert page.text_content("#board") == "This game has no map: its story is in the log and the dice."
    assert page.locator("#board svg").count() == 0
    rolled = next(i for i, f in enumerate(made["frames"]) if "dice" in f)
    scrub_to(page, rolled)
    assert page.locator("#dice .roll .die").count() == len(made["frames"][rolled]["dice"]["faces"])
    assert page.text_content("#dice .verif") == made["frames"][rolled]["dice"]["status"] == "verified"
    assert page.locator("#history li[data-seq]").count() == len(made["frames"])
    assert page.locator("#chart svg #cursor").count() == 1  # the VP chart, with its cursor
    shoot(page, shots / "offline-freeform.png")
    assert requests == [path.as_uri()] and tab.errors == []


def test_a_served_replay_runs_sandboxed_away_from_the_pages_tokens(falklands, open_tab):
    """Served by the API (``GET .../replays/{version}``) the file carries ``ARTIFACT_CSP``: it runs
    with an origin of its own, so a script slipped into it could not read the tokens the pages keep
    in the site's localStorage, while the replay itself still steps and keeps its address. The
    response is made here (Playwright answers the request itself: nothing is sent anywhere)."""
    from api.jobs import ARTIFACT_CSP

    made, _, path = falklands
    frames = made["frames"]
    url = "http://127.0.0.1:9/api/v1/games/g/replays/latest"
    tab = open_tab()
    page = tab.page
    page.route(url, lambda route: route.fulfill(status=200, body=path.read_bytes(), headers={
        "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": ARTIFACT_CSP,
        "X-Content-Type-Options": "nosniff"}))
    page.goto(url)
    assert at(page) == 0 and page.locator("#board svg.map").count() == 2
    page.keyboard.press("ArrowRight")
    assert at(page) == 1 and hash_seq(page) == frames[1]["seq"]
    assert page.evaluate("() => window.origin") == "null"  # not the site's origin
    denied = page.evaluate("() => { try { localStorage.length; return false; } catch (e) { return true; } }")
    assert denied
    assert tab.errors == []


def test_an_offline_replay_strikes_through_the_lines_of_an_order_taken_back(sqlite_config, tmp_path, open_tab):
    from tests.workers.test_replay import taken_back_game

    app = make_app(sqlite_config)
    try:
        _, lines = taken_back_game(app)
    finally:
        app.close()
    made = replay.frames(lines, None)
    path = tmp_path / "taken-back.html"
    path.write_text(replay.replay_html(made), encoding="utf-8")
    tab, _ = open_file(open_tab, path)
    page = tab.page
    struck = page.locator("#history li.superseded")
    assert [int(s) for s in struck.evaluate_all("rows => rows.map(r => r.dataset.seq)")] == [
        f["seq"] for f in made["frames"] if f["superseded"]]
    assert all(text.endswith("(taken back)") for text in struck.all_text_contents())
    assert "shells the ridge" in " ".join(struck.all_text_contents())
    assert "shells the wood" not in " ".join(struck.all_text_contents())
    assert page.locator("#history li[data-seq]:not(.superseded):has-text('(taken back)')").count() == 0
    assert tab.errors == []
