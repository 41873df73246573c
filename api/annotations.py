"""Annotations: comments on any event of a game's log (docs/api.md, "Annotations").

- ``POST /api/v1/games/{id}/annotations`` with an ``Idempotency-Key`` (the annotation's id):
  ``{"about_seq": SEQ, "text": ..., "private": false}``. A seat's token, the umpire's, or once the
  game has ended a spectator token; a keyed seat of a format-2 game signs it (Warlog-Signature,
  Warlog-Head). The same key again returns the first result.
- ``POST /api/v1/games/{id}/spectator-tokens`` (the admin's token): ``{"name": ...}``, a named
  spectator token: it reads the game as a spectator, a private game too, and annotates after the end.
- ``GET /api/v1/games/{id}/spectator-tokens`` (the admin's token): every spectator token, live and
  revoked, by name and id (never the secret); ``DELETE .../spectator-tokens/{token_id}`` revokes
  one, as the umpire tokens' route does, and ``DELETE .../spectator-tokens?name=NAME`` every one of
  that name: a revoked token answers 401 from then on; its row is kept, and its annotations.

History (GET .../history) shows each annotation beside the event it is about.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from marshmallow import Schema, ValidationError, fields, validate

from api.auth import ADMIN, CHALLENGE, SEAT, SPECTATOR, UMPIRE, access, bearer_token, caller_for
from api.games import _signed_by_seat, idempotency_key, issue_capped, load, recorded_response, service
from api.problems import ApiProblem
from api.schemas import dump, one_line, query_args
from domain.access import id_of_token
from domain.game import MAX_ANNOTATION

bp = Blueprint("annotations", __name__, url_prefix="/api/v1")


class AnnotationBody(Schema):
    about_seq = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**53 - 1),
                               metadata={"description": "the seq of the event the annotation is about"})
    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_ANNOTATION), metadata={
        "description": f"1 to {MAX_ANNOTATION} characters; tab and newline allowed, no other control character"})
    private = fields.Boolean(load_default=False, metadata={
        "description": "read by its seat and the umpire only (an umpire's: by the umpire only); "
                       "a spectator's annotations are public"})


def _not_blank(value: str) -> None:
    """A spectator's name is printable text on one line, as a handle is: not only spaces, no line
    separator, no invisible format character (its annotations carry it into the log)."""
    if not value.strip():
        raise ValidationError("a name is not only spaces")
    if not value.isprintable():
        raise ValidationError("a name is printable characters on one line (no separator or format character)")


class SpectatorTokenBody(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line, _not_blank],
                         metadata={"description": "the spectator's name, which its annotations carry: 1 to 80 "
                                                 "printable characters on one line"})


class SpectatorToken(Schema):
    game_id = fields.String()
    token = fields.String(metadata={"description": "the spectator's bearer token, shown once"})
    token_id = fields.String(metadata={"description": "names the token in the listing and to revoke it"})
    name = fields.String()


class SpectatorTokenEntry(Schema):
    token_id = fields.String(metadata={"description": "the start of the token's SHA-256: names it, never reveals it"})
    name = fields.String(metadata={"description": "the spectator's name, which its annotations carry"})
    created_at = fields.String()
    revoked_at = fields.String(allow_none=True, metadata={"description": "null while the token works"})


class SpectatorTokenRevoked(SpectatorTokenEntry):
    already_revoked = fields.Boolean(metadata={"description": "true: it was revoked before this request, at "
                                                              "revoked_at; nothing changed"})


class SpectatorName(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=80), one_line, _not_blank],
                         metadata={"description": "revoke every live spectator token of this name"})


class SpectatorNameRevoked(Schema):
    game_id = fields.String()
    name = fields.String()
    revoked = fields.Integer(metadata={"description": "how many were live and are revoked now; 0: all of "
                                                      "them were revoked before"})
    tokens = fields.List(fields.Nested(SpectatorTokenEntry), metadata={"description": "every token of the name"})


class SpectatorTokens(Schema):
    game_id = fields.String()
    tokens = fields.List(fields.Nested(SpectatorTokenEntry), metadata={"description": "oldest first"})


def _author() -> tuple:
    """(caller, role, author) of the annotation the request's token may write."""
    caller = caller_for(request.view_args["game_id"])
    if caller.role == SEAT:
        return caller, "seat", caller.seat
    if caller.role == UMPIRE:
        return caller, "umpire", None
    if caller.role == SPECTATOR and caller.name is not None:
        return caller, "spectator", caller.name
    if caller.role == ADMIN:
        raise ApiProblem("forbidden", "the admin token does not annotate: issue a spectator token "
                                      "(POST .../spectator-tokens) and annotate with it once the game has ended")
    if bearer_token():  # a valid token (caller_for refused any other) of another game: 403, not 401
        raise ApiProblem("forbidden", "this token is for another game")
    raise ApiProblem("unauthorized", "annotating needs a token: a seat's, the umpire's, or a spectator token "
                                     "the game's admin issued", CHALLENGE)


@bp.post("/games/<game_id>/annotations")
def annotate(game_id: str):
    caller, role, author = _author()
    annotation_id = idempotency_key("annotation id")
    signature, head = _signed_by_seat()
    body = load(AnnotationBody)
    result = service().annotate(caller.game_id, role, author, annotation_id, body["about_seq"], body["text"],
                                body["private"], signature=signature, head=head)
    return recorded_response(caller, result)


@bp.post("/games/<game_id>/spectator-tokens")
def spectator_token(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    body = load(SpectatorTokenBody)
    token = issue_capped(caller.game_id, SPECTATOR, body["name"].strip())
    response = jsonify(dump(SpectatorToken, {"game_id": caller.game_id, "token": token, "token_id": id_of_token(token),
                                             "name": body["name"].strip()}))
    response.status_code = 201
    return response


@bp.get("/games/<game_id>/spectator-tokens")
def list_spectator_tokens(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    return jsonify(dump(SpectatorTokens, {"game_id": caller.game_id,
                                          "tokens": access().spectator_tokens(caller.game_id)}))


@bp.delete("/games/<game_id>/spectator-tokens/<token_id>")
def revoke_spectator_token(game_id: str, token_id: str):
    caller = caller_for(game_id, need=ADMIN)
    revoked = access().revoke_spectator_tokens(caller.game_id, token_id=token_id)
    found = [t for t in access().spectator_tokens(caller.game_id) if t["token_id"] == token_id]
    if not found:
        raise ApiProblem("not_found", f"game {caller.game_id} has no spectator token {token_id}")
    return jsonify(dump(SpectatorTokenRevoked, {**found[0], "already_revoked": revoked == 0}))


@bp.delete("/games/<game_id>/spectator-tokens")
def revoke_spectator_name(game_id: str):
    caller = caller_for(game_id, need=ADMIN)
    name = query_args(SpectatorName)["name"].strip()
    revoked = access().revoke_spectator_tokens(caller.game_id, name=name)
    found = [t for t in access().spectator_tokens(caller.game_id) if t["name"] == name]
    if not found:
        raise ApiProblem("not_found", f"game {caller.game_id} has no spectator token named {name!r}")
    return jsonify(dump(SpectatorNameRevoked, {"game_id": caller.game_id, "name": name, "revoked": revoked,
                                               "tokens": found}))
