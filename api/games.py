"""Games, seats and orders: the write side of the API, plus a game's summary and the list.

Each view: load the request with a schema, one service call, dump the result.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from datetime import datetime, timedelta, timezone
from typing import Iterable

from flask import Blueprint, current_app, g, jsonify, request, url_for
from marshmallow import ValidationError

from api import schemas
from domain.access import JoinReplayed, RotationKeyUsed, TokenLimit, TooManyRotations, id_of_token
from api.auth import ADMIN, CHALLENGE, SEAT, UMPIRE, Caller, access, bearer_token, caller_for, not_valid, own_caller
from api.jsonbody import BAD_KEY, read_body
from api.problems import ApiProblem
from domain import clock as clocks, signatures
from domain.damage import Damage
from domain.errors import BadSignature, Conflict, RuleViolation, SignatureRequired
from domain.game import UMPIRE_RULE
from domain.rulesets import Ruleset, find_ruleset
from domain.service import CommandResult, Warlog
from domain.visibility import Walk, filter_lines
from projections import folds
from projections.folds import human_seats, render_state
from projections.folds import status as status_of
from projections.narrate import describe
from projections.runner import Projections

bp = Blueprint("games", __name__, url_prefix="/api/v1")
log = logging.getLogger("warlog.api")

MAX_ORDER_ID = 200
JOIN_RETRY_WINDOW = timedelta(hours=1)  # how long a join's answer may be asked for again (docs/api.md)


def service() -> Warlog:
    return current_app.extensions["warlog"]


def projections() -> Projections:
    """The read models on the app's service (created on first use, one per app)."""
    found = current_app.extensions.get("warlog_projections")
    if found is None or found.service is not service():
        found = current_app.extensions["warlog_projections"] = Projections(service())
    return found


def damage_of(game_id: str) -> Damage:
    """The recorded damage of a game's stored log (domain/damage.py), read once per request."""
    known = g.setdefault("warlog_damage", {})
    if game_id not in known:
        known[game_id] = service().damage.of(game_id)
    return known[game_id]


def damaged_body(damage: Damage) -> dict | None:
    """A summary's ``damaged``: the first damaged line not accepted, else the first accepted with
    the operator's decision; None for a log with no recorded damage."""
    if not damage:
        return None
    line = (damage.open or list(damage.lines))[0]
    return {"line": line.seq, "accepted": line.accepted_at is not None, "accepted_at": line.accepted_at,
            "reason": line.reason}


def current_views(game_id: str, names: tuple[str, ...]) -> dict[str, dict]:
    """A game's read models now. Those of a game with recorded damage are folded from its stored
    log at each read, as the projections would fold it from the start: the projections folded
    each line as it was written, so what they show (a die's face, "verified") may no longer be
    what is stored."""
    if damage_of(game_id):
        lines = service().lines(game_id)
        with service().folding(game_id):
            return {name: folds.fold(name, lines) for name in names}
    with service().naming_damage(game_id):  # a row the projections cannot fold: found now
        return projections().current(game_id, names)


def load(schema: type) -> dict:
    """The JSON body, loaded by ``schema``: 415 when not JSON, 400 when not parseable, 413 when
    too large, 422 when beyond a limit of the door (api/jsonbody.py) or when it does not fit."""
    if not request.is_json:
        raise ApiProblem("unsupported_media_type", "send the body as JSON with Content-Type: application/json")
    body = read_body()  # 400 not JSON, 413 too large, 422 beyond a limit (api/jsonbody.py)
    if not isinstance(body, dict):
        raise ApiProblem("bad_request", "the body must be a JSON object")
    return schemas.shared(schema).load(body)


def lines_for(caller: Caller, rules: Ruleset, lines: list[dict], walk: Walk | None = None,
              sealed_revealed: bool | None = None, shown_rolls: Iterable[int] = ()) -> list[dict]:
    """Lines as the caller may see them, each with its readable text; a reader that goes on from
    page to page passes one ``walk`` (domain/visibility.py) to each; ``sealed_revealed`` as
    and ``shown_rolls`` as ``filter_lines`` takes them (by default: what the lines say)."""
    return [{**line, "text": describe(line, rules)}
            for line in filter_lines(rules, lines, caller.viewer, walk, sealed_revealed=sealed_revealed,
                                          shown_rolls=shown_rolls)]


def server_key():
    """The server's key (api/serverkey.py), loaded when the app was made."""
    return current_app.extensions["warlog_server_key"]


def signed_head(game_id: str, version: int, chain_head: str) -> dict:
    """The head a command hands back, signed by the server (docs/dice.md, "Signed heads")."""
    return server_key().sign_head(game_id, version, chain_head)


def result_body(caller: Caller, result: CommandResult) -> dict:
    return schemas.dump(schemas.CommandResult, {
        "game_id": result.game_id, "events": lines_for(caller, find_ruleset(result.ruleset), result.events),
        "version": result.version, "chain_head": result.chain_head,
        "signed_head": signed_head(result.game_id, result.version, result.chain_head),
        "replayed": result.replayed, "order_id": result.order_id})


def summary(view: dict, public: bool, caller: Caller | None = None, damaged: dict | None = None) -> dict:
    """A game's summary from its map view (projections/folds.py), filtered for the caller here;
    ``damaged`` as ``damaged_body`` gives it."""
    state = render_state(view, caller.viewer if caller else None)
    return schemas.dump(schemas.Summary, {
        "game_id": view["game_id"], "ruleset": view["ruleset"], "scenario": view["scenario"], "public": public,
        "status": status_of(view),
        "seats": [{"seat": s, "handle": view["seats"][s] or None, "joined": bool(view["seats"][s])}
                  for s in human_seats(view)],
        "whose_move": view["whose_move"], "turn": state.get("turn"), "phase": state.get("phase"),
        "vp": state.get("vp", {}), "version": view["version"], "chain_head": view["chain_head"],
        "last_activity": view["last_activity"], "ended": view["ended"], "damaged": damaged,
        "position": view.get("position"), "sandbox": view.get("sandbox"),
        "clock": clock_status(view)})


def clock_status(view: dict) -> dict | None:
    """The summary's ``clock``. Only a deadline this server's clock could count is asked whether it
    runs here (an imported game's does not: its deadline was set where it was played)."""
    clock = view.get("clock")
    counting = clock is not None and clock["deadline"] is not None and not clock["timed_out"]
    return clocks.status(clock, service().now(), not counting or service().clock_runs_here(view["game_id"]))


def _etag(response, version: int):
    response.headers["ETag"] = f'"{version}"'
    return response


# ---------------------------------------------------------------------------------- games ----
@bp.post("/games")
def create_game():
    body = load(schemas.CreateGame)
    rules = find_ruleset(body["ruleset"])  # an unknown ruleset is a 422 naming the known ones
    control = body["time_control"]
    if control is not None:  # as sent: the domain fills in what was left out (domain/clock.py)
        control = {k: v for k, v in control.items() if v is not None}
    return created(lambda: service().create_game(rules.name, body["scenario"], body["options"],
                                                 umpire=body["umpire"], position=body["position"],
                                                 time_control=control),
                   body["public"])


@bp.post("/games/<game_id>/sandbox")
def fork_sandbox(game_id: str):
    """A sandbox of the game: a new game from its state right after event ``at``, for whoever may
    read the game there (docs/api.md: who may fork, and where)."""
    caller = caller_for(game_id)
    body = load(schemas.Sandbox)
    return created(lambda: service().fork_game(caller.game_id, body["at"], caller.viewer, umpire=body["umpire"]),
                   body["public"])


def created(create, public: bool):
    """A new game made by ``create()``, its seats' invites and its admin token: 201 with its
    Location. Creations per address are bounded before the view runs (api/limits.py)."""
    result = create()
    created_line = result.events[0]["data"]
    seats = find_ruleset(created_line["ruleset"]).human_seats(created_line["seats"])
    sandbox = next((line["data"] for line in result.events if line["type"] == "SandboxForked"), None)
    admin, invites = access().register_game(result.game_id, public, seats)
    body = {"game_id": result.game_id, "seats": seats, "invites": invites, "admin_token": admin,
            "version": result.version, "chain_head": result.chain_head}
    if sandbox is not None:  # a new game carries no sandbox mark (docs/api.md)
        body["sandbox"] = sandbox
    response = jsonify(schemas.dump(schemas.Created, body))
    response.status_code = 201
    response.headers["Location"] = url_for("games.get_game", game_id=result.game_id)
    return response


@bp.get("/games")
def list_games():
    """Public games, and the game of the caller's token; filtered by the query. Sandboxes are
    left out unless ``?sandbox=true``. Newest activity first, ``limit`` a page; ``next_after``
    (and the Link header) the cursor of the next page: the last game listed, by its activity and
    id, so a game that moves up between pages is not listed twice."""
    filters = schemas.query_args(schemas.GameFilters)
    after = _from_cursor(filters["after"]) if "after" in filters else None
    public = set(access().public_game_ids())  # asked once: each game listed is public or the token's
    ids = set(public)
    caller_game = None
    token = bearer_token()
    if token:
        grant = access().grant(token)
        if grant is None:
            raise not_valid(token)
        caller_game = grant.game_id
        ids.add(grant.game_id)
    # The games index answers the filters in SQL; a game the projector has not reached yet is
    # caught up first (read-your-writes), and one whose log is damaged is left out.
    left_out = projections().ensure_current(sorted(ids))
    for gid in sorted(left_out):
        log.error("game %s left out of the list: its stored log is damaged", gid)
    rows = projections().store.query_index(sorted(ids - left_out), status=filters.get("status"),
                                           ruleset=filters.get("ruleset"), player=filters.get("player"),
                                           turn_of=filters.get("turn_of"), sandboxes=filters["sandbox"])
    if after is not None:
        rows = [r for r in rows if (r["last_activity"] or "") < after[0]
                or ((r["last_activity"] or "") == after[0] and r["game_id"] > after[1])]
    limit, listed = filters["limit"], []  # (index row, summary); one more than a page tells of the next
    while rows and len(listed) <= limit:
        chunk, rows = rows[:limit + 1 - len(listed)], rows[limit + 1 - len(listed):]
        views = projections().store.load([r["game_id"] for r in chunk], ("map",))
        damaged = service().damage.first_open(r["game_id"] for r in chunk)
        for row in chunk:
            view = views[row["game_id"]].get("map")
            if view is None or (view.get("sandbox") and not filters["sandbox"]):
                continue  # sandboxes are listed only when asked (?sandbox=true); an index row of
                # before the index knew sandboxes is one only its view tells
            caller = caller_for(row["game_id"]) if row["game_id"] == caller_game else None
            line = damaged.get(row["game_id"])
            listed.append((row, summary(view, row["game_id"] in public, caller,
                                        {"line": line, "accepted": False, "accepted_at": None, "reason": None}
                                        if line is not None else None)))
    next_after = _cursor(listed[limit - 1][0]) if len(listed) > limit else None
    games = [game for _, game in listed[:limit]]
    response = jsonify(schemas.dump(schemas.GameList, {"games": games, "next_after": next_after}))
    if next_after is not None:
        query = {k: v for k, v in request.args.items() if k != "after"}
        response.headers["Link"] = f'<{url_for("games.list_games", **query, after=next_after)}>; rel="next"'
    return response


def _cursor(row: dict) -> str:
    """The cursor after an index row: its activity and id, as opaque text."""
    raw = json.dumps([row["last_activity"] or "", row["game_id"]], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _from_cursor(text: str) -> tuple[str, str]:
    try:
        found = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except ValueError:  # not base64, not UTF-8 or not JSON
        found = None
    if not (isinstance(found, list) and len(found) == 2 and all(isinstance(v, str) for v in found)):
        raise ValidationError({"after": ["not a cursor of this list: give the next_after of the page before"]})
    return found[0], found[1]


@bp.get("/games/<game_id>")
def get_game(game_id: str):
    caller = caller_for(game_id)
    view = current_views(caller.game_id, ("map",))["map"]
    body = summary(view, bool(access().is_public(caller.game_id)), caller, damaged_body(damage_of(caller.game_id)))
    return _etag(jsonify(body), view["version"])


@bp.get("/games/<game_id>/me")
def get_me(game_id: str):
    """The bearer token's role (and seat) in this game: a client checks a token it is given before
    keeping it, since a public game reads with any game's token."""
    caller = own_caller(game_id)
    return jsonify(schemas.dump(schemas.Me, {"game_id": caller.game_id, "role": caller.role,
                                             "seat": caller.seat, "name": caller.name}))


# ---------------------------------------------------------------------------------- seats ----
@bp.post("/games/<game_id>/join")
def join(game_id: str):
    """Join a seat with its invite code, once. Sent with an Idempotency-Key, the same join sent
    again (its answer lost) answers 200 with a fresh token for the seat and revokes the lost one."""
    body = load(schemas.Join)
    key = idempotency_key()
    sent = json.dumps(body, sort_keys=True, separators=(",", ":"))
    caller, invite = caller_for_invite(game_id, body["invite_code"])
    seat = caller.seat
    if invite["used_at"] is not None:
        return joined_again(caller, invite, key, sent)
    if not access().use_invite(caller.game_id, body["invite_code"], key, sent):
        return joined_again(caller, access().invite(caller.game_id, body["invite_code"]), key, sent)
    try:
        result = service().join(caller.game_id, seat, body["handle"], body["client_seed"], body["public_key"])
    except Exception:
        access().release_invite(caller.game_id, body["invite_code"])
        raise
    token = access().issue_token(caller.game_id, SEAT, seat)
    if key is not None:
        access().joined_at(caller.game_id, body["invite_code"], result.version, result.chain_head)
    # The address gets no turn mail until its owner confirms it; the join has recorded, so beyond
    # the limits of confirmation mails it is not refused: no mail, and the answer says so.
    asked = access().save_contact(caller.game_id, seat, body["email"], body["notify"])
    response = joined_response(caller, token, result.version, result.chain_head, asked)
    response.status_code = 201
    return response


def joined_again(caller: Caller, invite: dict, key: str | None, sent: str):
    """A join with an invite already used: its first answer again, with a fresh token, when it is
    the same join under the same Idempotency-Key; else 409 ``invite_used`` (422 for its key with
    another body). Only who holds both the invite code and the key can take the seat's token."""
    match = None if key is None else access().same_join(invite, key, sent)
    if match is None or invite["join_version"] is None:  # no key kept, another key, or not recorded yet
        raise ApiProblem("invite_used", f"the invite code for {caller.seat} has been used", seat=caller.seat)
    if datetime.now(timezone.utc) - datetime.fromisoformat(invite["used_at"]) > JOIN_RETRY_WINDOW:
        # A lost answer is sent again within minutes; later, a key that leaked with its invite
        # (the game's creator knows every invite code) must not take a playing seat's token.
        minutes = int(JOIN_RETRY_WINDOW.total_seconds() // 60)
        raise ApiProblem("invite_used", f"the invite code for {caller.seat} was used more than {minutes} minutes "
                         f"ago: a join is sent again under its key within {minutes} minutes of it", seat=caller.seat)
    if match == "other_body":
        raise ApiProblem("idempotency_conflict", "this Idempotency-Key was used for a different join")
    _join_signed_again(caller, json.loads(sent).get("public_key"), key)
    try:
        token = access().reissue_seat_token(caller.game_id, caller.seat, invite["used_at"])
    except JoinReplayed as exc:
        raise ApiProblem("invite_used", str(exc), seat=caller.seat) from None
    if token is None:  # the seat had this join's answer: its token leaked with the join, maybe
        raise ApiProblem("invite_used", f"the invite code for {caller.seat} has been used, and the seat has "
                         "replaced its token since: a join is not sent again once its token is replaced", seat=caller.seat)
    response = joined_response(caller, token, invite["join_version"], invite["join_head"])
    response.headers["Idempotent-Replayed"] = "true"
    return response


def _join_signed_again(caller: Caller, public_key: str | None, key: str) -> None:
    """A join that registered a key is sent again signed by it (docs/api.md, "Idempotency"): its
    first send carries no signature, so a join that leaked (a pasted log: its invite code and key)
    no longer takes the seat's token from whoever holds the seat's key."""
    if public_key is None:
        return
    signature = request.headers.get("Warlog-Signature")
    if signature is None:
        raise SignatureRequired(f"seat {caller.seat} registered a public key with this join: the join is sent "
                                "again with Warlog-Signature, its key's signature of {\"game\", \"kind\": "
                                "\"join_again\", \"request_id\": the join's Idempotency-Key} (docs/dice.md)")
    if not signatures.signature_valid(public_key, signature, signatures.join_again_message(caller.game_id, key)):
        raise BadSignature(f"the signature is not seat {caller.seat}'s key's signature of this game, join_again "
                           "and the join's Idempotency-Key (docs/dice.md, \"Signed orders and heads\")")


def joined_response(caller: Caller, token: str, version: int, chain_head: str, asked: bool = False):
    appointed = service().umpire(caller.game_id)  # the joiner learns of an umpire named at creation
    return jsonify(schemas.dump(schemas.Joined, {"game_id": caller.game_id, "seat": caller.seat, "token": token,
                                                 "version": version, "chain_head": chain_head,
                                                 "signed_head": signed_head(caller.game_id, version, chain_head),
                                                 "umpire": appointed["name"] if appointed else None,
                                                 "confirmation_mail": asked}))


@bp.post("/games/<game_id>/seat-token")
def rotate_seat_token(game_id: str):
    """Replace the seat's own token (a leaked one): a new token, and the one sent revoked, at once.
    Sent again under its Idempotency-Key with the token it replaced (its answer lost): the same new
    token, while that is live and within JOIN_RETRY_WINDOW; never a second one."""
    key = idempotency_key("request id")
    signature, head = _signed_by_seat()
    token = bearer_token()
    before = _rotated_before(game_id, token, key)
    caller = before[0] if before else caller_for(game_id, need=SEAT)
    service().check_seat_request(caller.game_id, caller.seat, signatures.SEAT_TOKEN, {"request_id": key},
                                 signature=signature, head=head)
    new = server_key().seat_token_after(caller.game_id, caller.seat, token, key)
    try:
        rotated = before is None and access().rotate_seat_token(caller.game_id, caller.seat, token, new, key)
    except TooManyRotations as exc:
        raise ApiProblem("too_many_rotations", str(exc), {"Retry-After": str(exc.retry_after)}) from None
    except RotationKeyUsed as exc:
        raise ApiProblem("idempotency_conflict", str(exc)) from None
    if before is None and not rotated:
        before = _rotated_before(game_id, token, key)  # replaced meanwhile: by this same request sent twice?
        if before is None:
            raise not_valid(token)
    if before is not None and not access().is_token(new, before[1]):  # the server's key changed since
        raise ApiProblem("unauthorized", "this token was replaced, and its successor cannot be made again", CHALLENGE)
    response = jsonify(schemas.dump(schemas.SeatToken, {"game_id": caller.game_id, "seat": caller.seat, "token": new}))
    response.status_code = 201 if before is None else 200
    if before is not None:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _rotated_before(game_id: str, token: str | None, key: str) -> tuple[Caller, str] | None:
    """(the seat, its new token's hash) when ``token`` is no longer live because a request under
    ``key`` replaced it within JOIN_RETRY_WINDOW, and that request's token is still live; else None."""
    from domain.service import parse_game_id

    if token is None or access().grant(token) is not None:
        return None
    gid = str(parse_game_id(game_id))
    found = access().rotation(gid, token, key)
    if found is None or not found["live"] or \
            datetime.now(timezone.utc) - datetime.fromisoformat(found["rotated_at"]) > JOIN_RETRY_WINDOW:
        return None
    return Caller(gid, SEAT, found["seat"]), found["new_hash"]


def caller_for_invite(game_id: str, code: str) -> tuple[Caller, dict]:
    """An invite code is the credential for joining: unknown code and unknown game look alike."""
    from domain.service import parse_game_id

    gid = str(parse_game_id(game_id))
    found = access().invite(gid, code)
    if found is None:
        raise ApiProblem("game_not_found", f"no game {game_id} with this invite code")
    return Caller(gid, SEAT, found["seat"]), found


# -------------------------------------------------------------------------------- umpire ----
# An umpire reads hidden information, so it is a role the seats agree to, recorded in the log:
# named at creation, or proposed by the admin and appointed once every seat has accepted. Only
# then does the admin get umpire tokens, at most WARLOG_MAX_UMPIRE_TOKENS live at once.
def max_umpire_tokens() -> int:
    """The most live umpire tokens a game may have (``app.max_umpire_tokens``, read at start-up)."""
    return current_app.config["WARLOG_MAX_UMPIRE_TOKENS"]


def appointed_umpire(game_id: str) -> dict:
    """The umpire the game's log appoints now; a refusal naming the rule when there is none."""
    found = service().umpire(game_id)
    if found is None:
        raise RuleViolation(UMPIRE_RULE, "no umpire is appointed: name one at creation, or propose one "
                                         "(POST .../umpire) and let every seat accept")
    return found


@bp.post("/games/<game_id>/umpire")
def propose_umpire(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    body = load(schemas.UmpireProposal)
    result = service().propose_umpire(caller.game_id, body["umpire"], proposed_by=ADMIN)
    response = jsonify(result_body(caller, result))
    response.status_code = 201
    return response


@bp.post("/games/<game_id>/umpire/answer")
def answer_umpire(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.UmpireAnswer)
    if body["accept"]:
        result = service().answer_umpire(caller.game_id, caller.seat, True, signature=signature, head=head)
    else:  # declines a proposal, or withdraws the seat's agreement and so ends the role
        result = ending_the_role(caller.game_id, lambda: service().answer_umpire(
            caller.game_id, caller.seat, False, signature=signature, head=head))
    return jsonify(result_body(caller, result))


@bp.delete("/games/<game_id>/umpire")
def revoke_umpire(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    result = ending_the_role(caller.game_id, lambda: service().revoke_umpire(caller.game_id, by=ADMIN))
    return jsonify(result_body(caller, result))


def ending_the_role(game_id: str, command):
    """Run a command that may end the umpire's role, revoking the game's umpire tokens before it,
    so a role ended in the log never leaves a live token behind, and once more after it (a token
    issued meanwhile). Such a command (a decline, a revocation) meets an appointed umpire, whose
    role it ends, or none, and then no token is live (they are issued only while one is); if it
    is refused all the same (a lost race), the role goes on with its tokens revoked: failing
    closed, the admin issues new ones."""
    access().revoke_umpire_tokens(game_id)
    result = command()
    access().revoke_umpire_tokens(game_id)
    return result


@bp.post("/games/<game_id>/umpire-tokens")
def umpire_token(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    umpire = appointed_umpire(caller.game_id)
    token = issue_capped(caller.game_id, UMPIRE, live_cap=max_umpire_tokens())
    token_id = id_of_token(token)
    # Checked again once issued: the role ended meanwhile wins.
    if service().umpire(caller.game_id) != umpire:
        access().revoke_umpire_tokens(caller.game_id, token_id)
        raise Conflict("the umpire's role changed meanwhile; nothing was issued, try again")
    response = jsonify(schemas.dump(schemas.UmpireToken, {"game_id": caller.game_id, "token": token,
                                                          "token_id": token_id, "umpire": umpire["name"]}))
    response.status_code = 201
    return response


def issue_capped(game_id: str, role: str, name: str | None = None, live_cap: int | None = None) -> str:
    """An umpire or spectator token within its game's caps (AccessStore.issue_capped_token); 409 naming the cap."""
    try:
        return access().issue_capped_token(game_id, role, name, live_cap)
    except TokenLimit as exc:
        raise ApiProblem(exc.code, str(exc)) from None


@bp.get("/games/<game_id>/umpire-tokens")
def list_umpire_tokens(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    game = service().get_game(caller.game_id)
    return jsonify(schemas.dump(schemas.UmpireTokens, {
        "game_id": caller.game_id, "umpire": game.umpire["name"] if game.umpire else None,
        "proposal": game.umpire_proposal, "limit": max_umpire_tokens(),
        "tokens": access().umpire_tokens(caller.game_id)}))


@bp.delete("/games/<game_id>/umpire-tokens/<token_id>")
def revoke_umpire_token(game_id: str, token_id: str):
    caller = caller_for(game_id, need=ADMIN)
    access().revoke_umpire_tokens(caller.game_id, token_id)
    found = [t for t in access().umpire_tokens(caller.game_id) if t["token_id"] == token_id]
    if not found:
        raise ApiProblem("not_found", f"game {caller.game_id} has no umpire token {token_id}")
    return jsonify(schemas.dump(schemas.UmpireTokenEntry, found[0]))


@bp.put("/games/<game_id>/client-seed")
def client_seed(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.ClientSeed)
    result = service().change_client_seed(caller.game_id, caller.seat, body["client_seed"],
                                          signature=signature, head=head)
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
    if not _VERSION.fullmatch(value):  # ASCII digits, few enough to be a version
        raise ApiProblem("bad_request", "If-Match holds the game version the client saw, e.g. \"12\"")
    return int(value)


_VERSION = re.compile("[0-9]{1,15}")


@bp.post("/games/<game_id>/orders")
def submit_order(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    order_id = idempotency_key("order id")
    expected = _if_match()
    signature, head = _signed_by_seat()
    order = load(schemas.Order)
    result = service().submit_order(caller.game_id, caller.seat, order_id, order, expected_version=expected,
                                    signature=signature, head=head)
    return recorded_response(caller, result)


@bp.post("/games/<game_id>/sealed")
def seal_orders(game_id: str):
    """Commit to the seat's orders of the open sealed round: only their hash is sent and kept."""
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.SealedCommit)
    return recorded_response(caller, service().seal(caller.game_id, caller.seat, body["commitment"],
                                                   signature=signature, head=head))


@bp.post("/games/<game_id>/sealed/reveal")
def reveal_orders(game_id: str):
    """Reveal the seat's sealed orders and salt; the server checks them against the commitment."""
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.SealedReveal)
    return recorded_response(caller, service().reveal(caller.game_id, caller.seat, body["orders"], body["salt"],
                                                     signature=signature, head=head))


def recorded_response(caller: Caller, result: CommandResult):
    """201 with what a write recorded; sent again under its key (an order, an annotation, a
    vacation or extension) or again as it was (a commitment, a reveal): 200, Idempotent-Replayed,
    its first result."""
    response = jsonify(result_body(caller, result))
    response.status_code = 200 if result.replayed else 201
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return _etag(response, result.version)


def _signed_by_seat() -> tuple[str | None, str | None]:
    """The ``Warlog-Signature`` and ``Warlog-Head`` headers of an order, a seal, a reveal or (format 2)
    another command of a seat (docs/api.md, "Signed orders"): needed from a seat that registered a key, checked in the domain; None when absent."""
    found = []
    for name in ("Warlog-Signature", "Warlog-Head"):
        value = request.headers.get(name)
        if value is not None and (len(value) > 200 or BAD_KEY.search(value)):
            raise ApiProblem("bad_request", f"{name} is at most 200 characters, without control characters")
        found.append(value.strip() if value is not None else None)
    return found[0], found[1]


@bp.get("/server-key")
def get_server_key():
    """The server's public key, which signs the chain heads it hands back."""
    return jsonify(schemas.dump(schemas.ServerKey, {"algorithm": "Ed25519", "public_key": server_key().public_key}))


@bp.get("/games/<game_id>/legal-orders")
def legal_orders(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    game = service().get_game(caller.game_id)
    body = {"game_id": caller.game_id, "seat": caller.seat, "version": game.version,
            "orders": game.legal_orders(caller.seat), "take_back": game.may_take_back(caller.seat)}
    return _etag(jsonify(schemas.dump(schemas.LegalOrders, body)), game.version)


@bp.post("/games/<game_id>/take-backs")
def request_take_back(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.TakeBackRequest)
    result = service().request_take_back(caller.game_id, caller.seat, body["reason"], signature=signature, head=head)
    response = jsonify(result_body(caller, result))
    response.status_code = 201
    return response


@bp.post("/games/<game_id>/take-backs/answer")
def answer_take_back(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    body = load(schemas.TakeBackAnswer)
    result = service().answer_take_back(caller.game_id, caller.seat, body["accept"], signature=signature, head=head)
    return jsonify(result_body(caller, result))


@bp.post("/games/<game_id>/concede")
def concede(game_id: str):
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    result = service().concede(caller.game_id, caller.seat, signature=signature, head=head)
    return jsonify(result_body(caller, result))


# ----------------------------------------------------------------------------- time control ----
@bp.post("/games/<game_id>/vacation")
def take_vacation(game_id: str):
    """The seat announces days of vacation (domain/clock.py TC 3)."""
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    command_id = idempotency_key()
    body = load(schemas.Vacation)
    result = service().take_vacation(caller.game_id, caller.seat, body["days"], signature=signature, head=head,
                                      command_id=command_id)
    return recorded_response(caller, result)


@bp.post("/games/<game_id>/extension")
def grant_extension(game_id: str):
    """A seat not to move gives the seats to move more days (domain/clock.py TC 5)."""
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    command_id = idempotency_key()
    body = load(schemas.Extension)
    result = service().grant_extension(caller.game_id, caller.seat, body["days"], signature=signature, head=head,
                                       command_id=command_id)
    return recorded_response(caller, result)


def idempotency_key(what: str | None = None) -> str | None:
    """The request's Idempotency-Key: required when ``what`` names what it is (an order id, an
    annotation id); otherwise optional (a vacation's, an extension's), None when not sent."""
    key = request.headers.get("Idempotency-Key")
    if key is None and what is None:
        return None
    key = (key or "").strip()
    if not key or len(key) > MAX_ORDER_ID or BAD_KEY.search(key):
        raise ApiProblem("idempotency_key_required",
                         f"send a client-chosen {what} (1-{MAX_ORDER_ID} characters, no control characters) as "
                         "Idempotency-Key" if what else
                         f"an Idempotency-Key, when sent, is 1-{MAX_ORDER_ID} characters with no control characters")
    return key


@bp.post("/games/<game_id>/claim-win")
def claim_win(game_id: str):
    """The seat claims the win on time (domain/clock.py TC 4). No body."""
    caller = caller_for(game_id, need=SEAT)
    signature, head = _signed_by_seat()
    result = service().claim_win(caller.game_id, caller.seat, signature=signature, head=head)
    return jsonify(result_body(caller, result))
