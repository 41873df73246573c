"""Web pages served by the API's own app: the lobby, a seat's game page and the replay viewer,
plus the two JSON reads only they need (docs/pages.md).

The pages are templates plus plain JavaScript and CSS from ``api/static`` (no build step, nothing
from another host). They hold no secret: a page reads the game through the API with the token
the browser keeps in localStorage, sent as ``Authorization: Bearer``, like any other client. So
the HTML is the same for everyone and a private game's existence is decided by the API reads.

JSON:

- ``GET /api/v1/rulesets/<name>``: ``{name, title, board, order_kinds}``, the ruleset's drawing data
  (``Ruleset.board()``, None for a game without a map);
- ``GET /api/v1/games/<game_id>/frames``: the replay frames as the caller may see them, made by
  ``workers.replay.frames`` (the pure function the replay job uses) from the whole log, with the
  VP chart of ``workers.replay.vp_chart``; kept per (game, version, viewer) in a small
  in-process cache (a hit reads the game's version, not its log), and gzipped when the client
  accepts it.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections import OrderedDict

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from api.auth import caller_for
from api.client import LINK_ELSEWHERE, LINK_WITH_USER
from api.games import damage_of, projections, service
from api.problems import PROBLEMS, ApiProblem
from api.jsonbody import body_bytes
from api.notify_settings import NOT_CONFIRMED, confirm_code
from api.reads import NoQuery, query
from domain.access import CONFIRM_PREFIX
from domain.errors import UnknownRuleset
from domain.rulesets import find_ruleset
from domain.rulesets.toolkit import coverage
from domain.service import parse_game_id
from workers.replay import frames, vp_chart

bp = Blueprint("pages", __name__, template_folder="templates")

# HTML routes outside /api: exempt from the OpenAPI table (tests/api/test_openapi.py checks that
# every other route is documented there). Static files are served by Flask's own /static route.
PAGE_ROUTES = frozenset({"/", "/games/<game_id>", "/games/<game_id>/replay", "/confirm-email", "/favicon.ico"})

# The pages load scripts, styles and data from this server only, and nothing runs inline.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")

FRAME_CACHE_SIZE = 16
GZIP_FROM = 4096  # bytes; smaller answers are sent as they are


def _page(template: str, **context) -> Response:
    response = Response(render_template(f"pages/{template}", **context), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"  # a game URL never leaves with a link
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _game_id(raw: str) -> str:
    try:
        return str(parse_game_id(raw))
    except Exception:
        abort(404)


# ------------------------------------------------------------------------------------ pages ----
@bp.get("/confirm-email")
def confirm_email_page():
    """The link of a confirmation mail: a button, so that a mail scanner opening the link confirms nothing."""
    code = request.args.get("code", "")
    if not code.startswith(CONFIRM_PREFIX) or len(code) > 100:
        return _page("confirm_email.html", page="confirm", outcome="bad", detail=NOT_CONFIRMED["unknown"][1]), 404
    return _page("confirm_email.html", page="confirm", outcome="ask", code=code)


@bp.post("/confirm-email")
def confirm_email_post():
    try:
        body_bytes()  # the form is read within the body's limits and deadline, as a JSON body is
        found = confirm_code(request.form.get("code", "")[:100])
    except ApiProblem as exc:
        return _page("confirm_email.html", page="confirm", outcome="refused", detail=exc.detail), PROBLEMS[exc.code][0]
    return _page("confirm_email.html", page="confirm", outcome="confirmed", **found)


@bp.get("/")
def lobby():
    # Why a pasted invite link is not joined here, in the words of `warlog join` (api/client.py).
    return _page("lobby.html", page="lobby", link_elsewhere=LINK_ELSEWHERE, link_with_user=LINK_WITH_USER)


@bp.get("/games/<game_id>")
def game_page(game_id: str):
    return _page("game.html", page="game", game_id=_game_id(game_id))


@bp.get("/games/<game_id>/replay")
def replay_page(game_id: str):
    return _page("replay.html", page="replay", game_id=_game_id(game_id))


@bp.get("/favicon.ico")
def favicon():
    """The icon a browser asks every site for (a 404 was a console error on every page load):
    static/favicon.svg, from this server, as the pages' CSP (img-src 'self') allows."""
    response = current_app.send_static_file("favicon.svg")
    response.cache_control.max_age = 86400
    return response


# ------------------------------------------------------------------------------------- JSON ----
def _ruleset_or_404(name: str):
    try:
        return find_ruleset(name)
    except UnknownRuleset as exc:
        raise ApiProblem("not_found", str(exc)) from None


@bp.get("/api/v1/rulesets/<name>")
def ruleset(name: str):
    rules = _ruleset_or_404(name)
    positions = [{"name": p.name, "title": p.title, "note": p.note} for p in rules.positions().values()]
    return jsonify({"name": rules.name, "title": rules.title, "board": rules.board(),
                    "order_kinds": rules.order_kinds(), "positions": positions,
                    "take_back_rule": rules.take_back_rule, "vp_note": rules.vp_note,
                    "unit_of_play": rules.unit_of_play})


@bp.get("/api/v1/rulesets/<name>/rules")
def ruleset_rules(name: str):
    """The ruleset's rules coverage, as ``warlog rules NAME --json`` prints it (docs/rulesets.md)."""
    rules = _ruleset_or_404(name)
    return jsonify({"name": rules.name, "title": rules.title, **coverage.summary(rules.coverage())})


class FrameCache:
    """The last few replays made, by (game, version, viewer): a viewer reloading a page, or two
    viewers of one public game, do not fold the whole log again."""

    def __init__(self, size: int = FRAME_CACHE_SIZE):
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def get(self, key: tuple) -> bytes | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple, body: bytes) -> None:
        with self._lock:
            self._items[key] = body
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_frames = FrameCache()


def frames_body(lines: list[dict], viewer: str | None) -> dict:
    """The replay of ``lines`` for ``viewer`` and its VP chart (cursor ``id="cursor"``)."""
    replay = frames(lines, viewer)
    replay["vp_chart"] = vp_chart(replay)
    return replay


@bp.get("/api/v1/games/<game_id>/frames")
def game_frames(game_id: str):
    caller = caller_for(game_id)
    query(NoQuery)
    # The game's version is one row: a replay made already is served without reading the log. A
    # game with recorded damage is read whole each time, so the read names its damage as before.
    version = None if damage_of(caller.game_id) else projections().current_version(caller.game_id)
    body = _frames.get((caller.game_id, version, caller.viewer)) if version is not None else None
    if body is None:
        lines = service().lines(caller.game_id)
        version = lines[-1]["seq"]  # a write since the version above: the replay is of this one
        with service().folding(caller.game_id):
            body = json.dumps(frames_body(lines, caller.viewer), separators=(",", ":")).encode()
        _frames.put((caller.game_id, version, caller.viewer), body)
    response = Response(body, mimetype="application/json")
    response.headers["ETag"] = f'"{version}"'
    response.headers["Vary"] = "Authorization, Accept-Encoding"
    if len(body) >= GZIP_FROM and "gzip" in request.headers.get("Accept-Encoding", ""):
        response.set_data(gzip.compress(body, compresslevel=5))
        response.headers["Content-Encoding"] = "gzip"
    return response
