"""Games, seats and orders: the write side of the API, plus a game's summary and the list.

Each view: load the request with a schema, one service call, dump the result.
"""

from __future__ import annotations

import logging

from flask import Blueprint, current_app, jsonify, request, url_for

from api import limits, schemas
from api.auth import ADMIN, SEAT, UMPIRE, Caller, access, caller_for
from api.problems import ApiProblem
from domain.rulesets import Ruleset, find_ruleset
from domain.service import CommandResult, Warlog
from domain.visibility import filter_lines
from projections.folds import human_seats, render_state
from projections.folds import status as status_of
from projections.narrate import describe
from projections.runner import Projections

bp = Blueprint("games", __name__, url_prefix="/api/v1")
log = logging.getLogger("warlog.api")

MAX_ORDER_ID = 200


def service() -> Warlog:
    return current_app.extensions["warlog"]


def projections() -> Projections:
    """The read models on the app's service (created on first use, one per app)."""
    found = current_app.extensions.get("warlog_projections")
    if found is None or found.service is not service():
        found = current_app.extensions["warlog_projections"] = Projections(service())
    return found


def load(schema: type) -> dict:
    """The JSON body, loaded by ``schema``: 415 when not JSON, 400 when not parseable, 422 when
    it does not fit."""
    if not request.is_json:
        raise ApiProblem("unsupported_media_type", "send the body as JSON with Content-Type: application/json")
    body = request.get_json(silent=True)
    if body is None:
        raise ApiProblem("bad_request", "the body is not valid JSON")
    if not isinstance(body, dict):
        raise ApiProblem("bad_request", "the body must be a JSON object")
    return schemas.shared(schema).load(body)


def lines_for(caller: Caller, rules: Ruleset, lines: list[dict]) -> list[dict]:
    """Lines as the caller may see them, each with its readable text."""
    return [{**line, "text": describe(line)} for line in filter_lines(rules, lines, caller.viewer)]


def result_body(caller: Caller, result: CommandResult) -> dict:
    return schemas.dump(schemas.CommandResult, {
        "game_id": result.game_id, "events": lines_for(caller, find_ruleset(result.ruleset), result.events),
        "version": result.version, "chain_head": result.chain_head,
        "replayed": result.replayed, "order_id": result.order_id})


def summary(view: dict, public: bool, caller: Caller | None = None) -> dict:
    """A game's summary from its map view (projections/folds.py), filtered for the caller here."""
    state = render_state(view, caller.viewer if caller else None)
    return schemas.dump(schemas.Summary, {
        "game_id": view["game_id"], "ruleset": view["ruleset"], "scenario": view["scenario"], "public": public,
        "status": status_of(view),
        "seats": [{"seat": s, "handle": view["seats"][s] or None, "joined": bool(view["seats"][s])}
                  for s in human_seats(view)],
        "whose_move": view["whose_move"], "turn": state.get("turn"), "phase": state.get("phase"),
        "vp": state.get("vp", {}), "version": view["version"], "chain_head": view["chain_head"],
        "last_activity": view["last_activity"], "ended": view["ended"]})


def _etag(response, version: int):
    response.headers["ETag"] = f'"{version}"'
    return response


# ---------------------------------------------------------------------------------- games ----
@bp.post("/games")
def create_game():
    body = load(schemas.CreateGame)
    rules = find_ruleset(body["ruleset"])  # an unknown ruleset is a 422 naming the known ones
    creations, address = current_app.extensions["warlog_creations"], request.remote_addr or "unknown"
    cap = current_app.config.get("WARLOG_GAMES_PER_ADDRESS", limits.games_per_address())  # 0: no cap
    window = limits.games_window()
    wait = creations.wait_before_next(address, cap, window)
    if wait:
        raise ApiProblem("too_many_games", f"this address has created {cap} games within {window} s "
                         f"(WARLOG_GAMES_PER_ADDRESS); try again in {wait} s", {"Retry-After": str(wait)})
    result = service().create_game(rules.name, body["scenario"], body["options"])
    creations.record(address, window)
    seats = rules.human_seats(result.events[0]["data"]["seats"])
    admin, invites = access().register_game(result.game_id, body["public"], seats)
    response = jsonify(schemas.dump(schemas.Created, {
        "game_id": result.game_id, "seats": seats, "invites": invites,
        "admin_token": admin, "version": result.version, "chain_head": result.chain_head}))
    response.status_code = 201
    response.headers["Location"] = url_for("games.get_game", game_id=result.game_id)
    return response


@bp.get("/games")
def list_games():
    """Public games, and the game of the caller's token; filtered by the query."""
    filters = schemas.shared(schemas.GameFilters).load(request.args)
    ids = set(access().public_game_ids())
    caller_game = None
    from api.auth import bearer_token
    token = bearer_token()
    if token:
        grant = access().grant(token)
        if grant is None:
            raise ApiProblem("unauthorized", "this token is not valid", {"WWW-Authenticate": 'Bearer realm="warlog"'})
        caller_game = grant.game_id
        ids.add(grant.game_id)
    # The games index answers the filters in SQL; a game the projector has not reached yet is
    # caught up first (read-your-writes), and one whose log is damaged is left out.
    left_out = projections().ensure_current(sorted(ids))
    for gid in sorted(left_out):
        log.error("game %s left out of the list: its stored log is damaged", gid)
    rows = projections().store.query_index(sorted(ids - left_out), status=filters.get("status"),
                                           ruleset=filters.get("ruleset"), player=filters.get("player"),
                                           turn_of=filters.get("turn_of"))
    views = projections().store.load([r["game_id"] for r in rows], ("map",))
    games = []
    for row in rows:
        view = views[row["game_id"]].get("map")
        if view is None:
            continue
        caller = caller_for(row["game_id"]) if row["game_id"] == caller_game else None
        games.append(summary(view, access().is_public(row["game_id"]) or False, caller))
    games.sort(key=lambda g: g["last_activity"], reverse=True)
    return jsonify(schemas.dump(schemas.GameList, {"games": games}))


@bp.get("/games/<game_id>")
def get_game(game_id: str):
    caller = caller_for(game_id)
    view = projections().current(caller.game_id, ("map",))["map"]
    return _etag(jsonify(summary(view, bool(access().is_public(caller.game_id)), caller)), view["version"])


# ---------------------------------------------------------------------------------- seats ----
@bp.post("/games/<game_id>/join")
def join(game_id: str):
    body = load(schemas.Join)
    caller = caller_for_invite(game_id, body["invite_code"])
    seat = caller.seat
    if not access().use_invite(caller.game_id, body["invite_code"]):
        raise ApiProblem("invite_used", f"the invite code for {seat} has been used")
    try:
        result = service().join(caller.game_id, seat, body["handle"], body["client_seed"])
    except Exception:
        access().release_invite(caller.game_id, body["invite_code"])
        raise
    token = access().issue_token(caller.game_id, SEAT, seat)
    access().set_contact(caller.game_id, seat, body["email"], body["notify"])
    response = jsonify(schemas.dump(schemas.Joined, {"game_id": caller.game_id, "seat": seat, "token": token,
                                              "version": result.version, "chain_head": result.chain_head}))
    response.status_code = 201
    return response


def caller_for_invite(game_id: str, code: str) -> Caller:
    """An invite code is the credential for joining: unknown code and unknown game look alike."""
    from domain.service import parse_game_id

    gid = str(parse_game_id(game_id))
    found = access().invite(gid, code)
    if found is None:
        raise ApiProblem("game_not_found", f"no game {game_id} with this invite code")
    seat, used_at = found
    if used_at is not None:
        raise ApiProblem("invite_used", f"the invite code for {seat} has been used")
    return Caller(gid, SEAT, seat)


@bp.post("/games/<game_id>/umpire-tokens")
def umpire_token(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    token = access().issue_token(caller.game_id, UMPIRE)
    response = jsonify(schemas.dump(schemas.UmpireToken, {"game_id": caller.game_id, "token": token}))
    response.status_code = 201
    return response


@bp.put("/games/<game_id>/client-seed")
def client_seed(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    body = load(schemas.ClientSeed)
    result = service().change_client_seed(caller.game_id, caller.seat, body["client_seed"])
    return jsonify(result_body(caller, result))


# --------------------------------------------------------------------------------- orders ----
def _if_match() -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip()
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    if not value.isdigit():
        raise ApiProblem("bad_request", "If-Match holds the game version the client saw, e.g. \"12\"")
    return int(value)


@bp.post("/games/<game_id>/orders")
def submit_order(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    order_id = request.headers.get("Idempotency-Key", "").strip()
    if not order_id or len(order_id) > MAX_ORDER_ID:
        raise ApiProblem("idempotency_key_required",
                         f"send a client-chosen order id (1-{MAX_ORDER_ID} characters) as Idempotency-Key")
    expected = _if_match()
    order = load(schemas.Order)
    result = service().submit_order(caller.game_id, caller.seat, order_id, order, expected_version=expected)
    response = jsonify(result_body(caller, result))
    response.status_code = 200 if result.replayed else 201
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return _etag(response, result.version)


@bp.get("/games/<game_id>/legal-orders")
def legal_orders(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    game = service().get_game(caller.game_id)
    body = {"game_id": caller.game_id, "seat": caller.seat, "version": game.version,
            "orders": game.legal_orders(caller.seat)}
    return _etag(jsonify(schemas.dump(schemas.LegalOrders, body)), game.version)


@bp.post("/games/<game_id>/take-backs")
def request_take_back(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    body = load(schemas.TakeBackRequest)
    result = service().request_take_back(caller.game_id, caller.seat, body["reason"])
    response = jsonify(result_body(caller, result))
    response.status_code = 201
    return response


@bp.post("/games/<game_id>/take-backs/answer")
def answer_take_back(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    body = load(schemas.TakeBackAnswer)
    result = service().answer_take_back(caller.game_id, caller.seat, body["accept"])
    return jsonify(result_body(caller, result))


@bp.post("/games/<game_id>/concede")
def concede(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    result = service().concede(caller.game_id, caller.seat)
    return jsonify(result_body(caller, result))
