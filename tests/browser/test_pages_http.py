"""The pages' server side without a browser: the HTML (self-contained, accessible markup, a
strict CSP), the two JSON reads the pages use, and how the browser tests skip or fail."""

from __future__ import annotations

import gzip
import json
import re
from html.parser import HTMLParser

import pytest

from api.app import create_app, migrate
from domain.errors import UnknownRuleset
from domain.rulesets import find_ruleset
from domain.service import Warlog
from tests.api.conftest import make_game, umpire
from tests.browser import conftest as browser_conftest
from workers import replay

PAGES = ["/", "/games/00000000-0000-4000-8000-000000000000", "/games/00000000-0000-4000-8000-000000000000/replay"]


@pytest.fixture
def client(sqlite_config):
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    yield create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client()
    service.close()


class _Tags(HTMLParser):
    """Start tags in order, and the form controls that no label names (neither wrapping them nor
    pointing at them with for=) and that carry no aria-label."""

    def __init__(self):
        super().__init__()
        self.tags, self.controls, self._in_label = [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "label":
            self._in_label += 1
        elif tag in ("input", "select", "textarea") and attrs.get("type") != "hidden":
            self.controls.append((attrs, self._in_label > 0))

    def handle_endtag(self, tag):
        if tag == "label":
            self._in_label -= 1

    def unlabelled(self) -> list[dict]:
        named = {a.get("for") for t, a in self.tags if t == "label"}
        return [a for a, wrapped in self.controls if not wrapped and a.get("id") not in named and not a.get("aria-label")]


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def _tags(html: str) -> list[tuple[str, dict]]:
    return _parse(html).tags


@pytest.mark.parametrize("path", PAGES)
def test_a_page_loads_only_from_this_server_and_runs_no_inline_script(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.mimetype == "text/html"
    csp = r.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp
    html = r.get_data(as_text=True)
    tags = _tags(html)
    links = [a.get("src") or a.get("href") for t, a in tags if t in ("script", "link", "img")]
    assert links and all(link.startswith("/static/") for link in links), links
    assert not [t for t, a in tags if t == "script" and not a.get("src")]  # nothing inline
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", html, re.I)
    for link in links:
        assert client.get(link).status_code == 200, link


@pytest.mark.parametrize("path", PAGES)
def test_a_page_is_accessible_markup(client, path):
    page = _parse(client.get(path).get_data(as_text=True))
    names = [t for t, _ in page.tags]
    assert dict(page.tags)["html"].get("lang") == "en"
    assert any(t == "meta" and a.get("name") == "viewport" for t, a in page.tags)
    assert names.count("h1") == 1 and {"main", "nav", "header"} <= set(names)
    assert page.controls and not page.unlabelled()
    assert any(a.get("aria-live") for _, a in page.tags)  # what happens is announced


def test_a_page_of_a_malformed_game_id_is_404(client):
    assert client.get("/games/not-a-game").status_code == 404
    assert client.get("/games/not-a-game/replay").status_code == 404


def test_static_files_are_served(client):
    for name in ("common.js", "board.js", "game.js", "lobby.js", "replay.js", "warlog.css"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_the_icon_a_browser_asks_for_is_served(client):
    """Every page load asked for /favicon.ico and got a 404, a console error in the browser."""
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).startswith("<svg")


# ------------------------------------------------------------------------- the ruleset read ----
def test_a_ruleset_read_gives_its_board_or_null(client):
    r = client.get("/api/v1/rulesets/freeform")
    assert r.status_code == 200
    assert r.json == {"name": "freeform", "title": find_ruleset("freeform").title, "board": None, "positions": [],
                      "order_kinds": find_ruleset("freeform").order_kinds(), "take_back_rule": "FF 6", "vp_note": None,
                      "unit_of_play": "order"}
    assert {k["kind"] for k in r.json["order_kinds"]} == {"note", "roll", "show", "vp", "advance", "end"}
    # a ruleset's named positions, for the lobby's "Start from" (docs/pages.md)
    proving = client.get("/api/v1/rulesets/proving").json["positions"]
    assert [p["name"] for p in proving] == ["midgame"] and proving[0]["title"] and proving[0]["note"]


def test_an_unknown_ruleset_is_404_naming_the_known_ones(client):
    r = client.get("/api/v1/rulesets/chess")
    assert r.status_code == 404 and r.json["code"] == "not_found"
    assert "freeform" in r.json["detail"]


def test_a_map_ruleset_gives_areas_with_polygons_and_units_with_labels(client):
    try:
        rules = find_ruleset("falklands")
    except UnknownRuleset:
        pytest.skip("the falklands ruleset is not registered yet")
    board = client.get("/api/v1/rulesets/falklands").json["board"]
    assert board == json.loads(json.dumps(rules.board()))
    assert set(board["maps"]) == {"strategic", "tactical"}
    for area in board["areas"].values():
        assert area["map"] in board["maps"] and len(area["polygon"]) >= 3 and len(area["label_xy"]) == 2
    for unit in board["units"].values():
        assert unit["abbr"] and unit["side"] in ("UK", "AR") and unit["steps"] in (1, 2)


# ---------------------------------------------------------------------------- the frames read ----
def test_frames_are_the_replay_jobs_frames_for_the_callers_own_view(client):
    game = make_game(client)
    game.order(client, "Blue", {"kind": "note", "text": "SECRET-PLAN", "private": True}, "n1")
    game.order(client, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire",
                                "target": {"compare": ">=", "value": 7}}, "r1")
    game.order(client, "Red", {"kind": "vp", "side": "Red", "delta": 2, "reason": "town"}, "v1")
    base = f"/api/v1/games/{game.game_id}/frames"
    from api.games import service

    with client.application.app_context():
        lines = service().lines(game.game_id)
    blue = client.get(base, headers=game.seats["Blue"])
    red = client.get(base, headers=game.seats["Red"])
    assert blue.status_code == red.status_code == 200
    assert blue.headers["ETag"] == f'"{lines[-1]["seq"]}"'
    assert blue.json["frames"] == replay.frames(lines, "Blue")["frames"]
    assert red.json["frames"] == replay.frames(lines, "Red")["frames"]
    assert "SECRET-PLAN" in json.dumps(blue.json) and "SECRET-PLAN" not in json.dumps(red.json)  # FF 7
    assert "SECRET-PLAN" in json.dumps(client.get(base, headers=umpire(client, game)).json)
    assert blue.json["viewer"] == "Blue" and "map" not in blue.json
    assert 'id="cursor"' in blue.json["vp_chart"]
    roll = next(f for f in blue.json["frames"] if f.get("dice"))
    assert roll["dice"]["purpose"] == "fire" and roll["dice"]["status"] == "unrevealed"


def test_frames_of_a_private_game_need_its_token(client):
    game = make_game(client)
    assert client.get(f"/api/v1/games/{game.game_id}/frames").status_code == 404
    public = make_game(client, public=True)
    assert client.get(f"/api/v1/games/{public.game_id}/frames").json["viewer"] == "public"


def test_frames_follow_the_game_and_are_gzipped_when_asked(client):
    game = make_game(client, public=True)
    base = f"/api/v1/games/{game.game_id}/frames"
    first = client.get(base).json
    for n in range(30):
        game.order(client, "Blue", {"kind": "roll", "dice": "d6", "purpose": f"p{n}"}, f"o{n}")
    plain = client.get(base)
    assert len(plain.json["frames"]) > len(first["frames"])  # a new version is not served from the cache
    zipped = client.get(base, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.get_data())) == plain.json
    assert client.get(f"{base}?x=1").status_code == 422


def test_frames_made_already_are_served_without_reading_the_whole_log(client, monkeypatch):
    game = make_game(client, public=True)
    base = f"/api/v1/games/{game.game_id}/frames"
    first = client.get(base)
    service = client.application.extensions["warlog"]
    read = []
    lines = service.lines
    monkeypatch.setattr(service, "lines", lambda *a, **k: read.append(k) or lines(*a, **k))
    again = client.get(base)
    assert again.get_data() == first.get_data() and again.headers["ETag"] == first.headers["ETag"]
    assert [k for k in read if k.get("limit") is None] == []  # the cache was asked with the version alone
    game.order(client, "Blue", {"kind": "roll", "dice": "d6", "purpose": "p"}, "o1")
    assert len(client.get(base).json["frames"]) == len(first.json["frames"]) + 2  # the order and its roll


# ------------------------------------------------------------- skip, or fail in CI ----
def test_without_a_browser_the_browser_tests_skip_or_fail_when_required(monkeypatch):
    monkeypatch.setattr(browser_conftest, "chromium_path", lambda: None)
    monkeypatch.delenv("WARLOG_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium found"):
        browser_conftest.require_browser()
    monkeypatch.setenv("WARLOG_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="WARLOG_REQUIRE_BROWSER=1 but no Chromium"):
        browser_conftest.require_browser()
