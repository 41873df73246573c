"""What the browser tests do on the pages, in the pages' own terms."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.e2e.server import FREEFORM, http_json, started_game, unjoined_game


def shoot(page, path: Path) -> None:
    """A full-page screenshot from the top (sticky bars otherwise land mid-page)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True)


def pick_order(page, kind: str) -> None:
    page.locator(f'#kinds input[data-kind="{kind}"]').check()


def caught_up(page) -> None:
    """Wait until the page shows the game's current version (its stream-triggered reload is done)."""
    version = page.evaluate("""async () => {
        const id = document.body.dataset.gameId;
        const r = await Warlog.api('/api/v1/games/' + id, {token: Warlog.keys.reader(id)});
        return String(r.body.version); }""")
    page.wait_for_function("v => document.body.dataset.version === v", arg=version)


def send(page, expect_type: str | None = None) -> None:
    """Send the order in the form and wait for its result (or the refusal in the status line)."""
    before = page.locator("#result").get_attribute("data-version") if page.locator("#result").count() else None
    page.click("#send")
    if expect_type:
        page.wait_for_function(
            "([t, v]) => { const r = document.getElementById('result');"
            " return document.querySelector('#status.error') ||"
            " (r && r.dataset.version !== v && r.querySelector(`li[data-type='${t}']`)); }",
            arg=[expect_type, before or ""])
        assert not page.locator("#status.error").count(), page.text_content("#status")


def hash_seq(page) -> int:
    """The seq in the page's address. Read in the page: playwright's ``page.url`` learns of a
    ``history.replaceState`` only later, so right after a key press it may still be the old one."""
    where = page.evaluate("location.href")
    m = re.search(r"#seq=(\d+)$", where)
    assert m, where
    return int(m.group(1))


def no_horizontal_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    view = page.evaluate("window.innerWidth")
    assert width <= view + 1, f"the page is {width}px wide in a {view}px viewport"


def labels_missing(page) -> list[str]:
    """The form controls shown on the page that no label names (by wrapping, for= or aria-label)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('input, select, textarea'))
        .filter(el => el.type !== 'hidden' && el.offsetParent !== null
                && !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
        .map(el => el.outerHTML.slice(0, 120))""")


# Every counter's box, in the map's own units (through the SVG's screen matrix), checked against the
# map's viewBox, the polygon of the area its unit stands in (points along the box's edges, tested
# with the browser's own isPointInFill), every label on the map and every other counter.
_COUNTERS_OUT_OF_PLACE = """([selector, units]) => {
    const bad = [];
    const meet = (a, b) => a.x + 0.25 < b.x + b.w && b.x + 0.25 < a.x + a.w && a.y + 0.25 < b.y + b.h && b.y + 0.25 < a.y + a.h;
    document.querySelectorAll(selector + ' svg.map').forEach(svg => {
        const vb = svg.viewBox.baseVal, inv = svg.getScreenCTM().inverse();
        const boxOf = el => {
            const r = el.getBoundingClientRect();
            const a = new DOMPoint(r.left, r.top).matrixTransform(inv), b = new DOMPoint(r.right, r.bottom).matrixTransform(inv);
            return {x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y};
        };
        const labels = Array.from(svg.querySelectorAll('text.area-name, text.area-marks'))
            .map(t => [t.textContent, boxOf(t)]);
        const counters = Array.from(svg.querySelectorAll('g.counter')).map(g => [g.dataset.unit, boxOf(g)]);
        counters.forEach(([unit, b], i) => {
            const area = (units[unit] || {}).location;
            if (b.x < -0.5 || b.y < -0.5 || b.x + b.w > vb.width + 0.5 || b.y + b.h > vb.height + 0.5)
                bad.push(`${unit} lies outside the ${svg.dataset.map} map`);
            const poly = svg.querySelector(`polygon.area[data-area="${area}"]`);
            if (!poly) bad.push(`${unit} is drawn on the ${svg.dataset.map} map, which has no area ${area}`);
            else {
                let out = 0;
                for (let k = 0; k <= 8; k++) {
                    const f = k / 8, x0 = b.x + 0.5, y0 = b.y + 0.5, x1 = b.x + b.w - 0.5, y1 = b.y + b.h - 0.5;
                    for (const [x, y] of [[x0 + f * (x1 - x0), y0], [x0 + f * (x1 - x0), y1], [x0, y0 + f * (y1 - y0)], [x1, y0 + f * (y1 - y0)]])
                        if (!poly.isPointInFill(new DOMPoint(x, y))) out++;
                }
                if (out) bad.push(`${unit} sticks out of its area ${area}`);
            }
            labels.forEach(([text, t]) => { if (meet(b, t)) bad.push(`${unit} (in ${area}) covers the label "${text}"`); });
            counters.slice(i + 1).forEach(([other, c]) => { if (meet(b, c)) bad.push(`${unit} overlaps ${other}`); });
        });
    });
    return bad;
}"""


def counters_out_of_place(page, selector: str, state: dict) -> list[str]:
    """What is wrong with the counters drawn under ``selector`` for ``state``: any counter outside
    its map or its area, covering a label or another counter (an empty list when none)."""
    return page.evaluate(_COUNTERS_OUT_OF_PLACE, [selector, state.get("units", {})])


def on_map(board: dict, state: dict) -> list[str]:
    """The units board.js draws as counters: on an area of the board, not aboard, not eliminated."""
    return sorted(u for u, x in state.get("units", {}).items()
                  if not x.get("eliminated") and not x.get("aboard") and x.get("location") in board["areas"])


def operation_starts(frames: list[dict]) -> list[int]:
    """The replay's operation steps (docs/pages.md): each frame's operation begins at a new command
    or a new phase, unless the command answers a pending decision (it goes on with the operation
    that asked). The first frame of each frame's operation."""
    out, start = [], 0
    for n, f in enumerate(frames):
        fresh = "operation" in f["marks"] or "phase" in f["marks"]
        if n == 0 or (fresh and frames[n - 1]["type"] != "DecisionPending"):
            start = n
        out.append(start)
    return out


def operation_ends(frames: list[dict]) -> list[int]:
    """Where "op ›" and "‹ op" land: the last frame of each operation."""
    starts = operation_starts(frames)
    return [n - 1 for n in range(1, len(frames)) if starts[n] == n] + [len(frames) - 1]


def freeform_game(server: str) -> tuple[str, str, dict]:
    """``started_game`` of a freeform game of Blue and Red."""
    return started_game(server, FREEFORM)


def tab_with_keys(open_tab, game_id: str, keys: dict, width: int = 1280):
    """A new tab whose browser already keeps ``keys`` for the game, as the pages keep them in
    localStorage; not yet on a page (a test may route its requests first)."""
    tab = open_tab(width)
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(json.dumps(keys))})")
    return tab


def open_with_keys(open_tab, server: str, game_id: str, keys: dict, width: int = 1280):
    """The game's page in a new tab whose browser already keeps ``keys`` for the game."""
    return tab_with_keys(open_tab, game_id, keys, width).goto(f"{server}/games/{game_id}")


def join_blue(tab, server: str, created: dict):
    """``created``'s game page in ``tab``, where Blue joins with its invite as alice (the browser
    makes and keeps its signing key) until it is Blue's move; the tab's page."""
    page = tab.page
    page.goto(f"{server}/games/{created['game_id']}#invite={created['invites']['Blue']}")
    tab.ready()
    page.fill("#j-handle", "alice")
    page.click("#join button[type=submit]")
    page.wait_for_selector("#turn:has-text('Your move, Blue')")
    return page


def red_joined(server: str) -> tuple[dict, dict]:
    """A new freeform game of Blue and Red (``unjoined_game``) whose Red bob joined over the API:
    the game as created and Red's join answer."""
    created = unjoined_game(server)
    status, _, red = http_json("POST", f"{server}/api/v1/games/{created['game_id']}/join",
                               {"invite_code": created["invites"]["Red"], "handle": "bob"})
    assert status == 201, red
    return created, red


def blue_joined_in_the_browser(server: str, open_tab):
    """A freeform game whose Red joined over the API (``red_joined``) and whose Blue joined from
    the game page in a new tab (``join_blue``): (the creation's answer, Red's join answer, Blue's tab)."""
    created, red = red_joined(server)
    blue = open_tab()
    join_blue(blue, server, created)
    return created, red, blue
